/**
 * zod validation at the edge. Every route declares the shape of its body or query; a failure
 * becomes a translated ApiError naming the field, and the handler never runs.
 */
import { validator } from "hono/validator";
import type { z } from "zod";
import { isErrorKey } from "../../schemas/errors.ts";
import { MAX_BATCH_ORDERS } from "../../schemas/spot.ts";
import { ApiError } from "./errors.ts";

/** Maps the first zod issue to a catalogue error. Schema messages that are catalogue keys win. */
export function issueToError(error: z.ZodError, input?: unknown): ApiError {
  const issue = error.issues[0];
  if (!issue) return new ApiError("invalid_param");
  const field = issue.path.map(String).join(".") || "body";
  if (issue.message === "batch_size") return new ApiError("batch_size", 400, { field, max: MAX_BATCH_ORDERS });
  if (isErrorKey(issue.message)) return new ApiError(issue.message, 400, { field });
  if ((issue.code === "invalid_type" || issue.code === "invalid_value") && valueAt(input, issue.path) === undefined) {
    return new ApiError("missing_field", 400, { field });
  }
  if (issue.code === "too_big" && (issue as { origin?: string }).origin === "string") {
    return new ApiError("too_long", 400, { field });
  }
  return new ApiError("invalid_field", 400, { field });
}

/** The value at a zod issue's path in the raw input (undefined when any step is absent). */
function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let v = input;
  for (const key of path) {
    if (v === null || typeof v !== "object") return undefined;
    v = (v as Record<PropertyKey, unknown>)[key];
  }
  return v;
}

/** Parses with a schema or throws the translated error. */
export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const r = schema.safeParse(value);
  if (!r.success) throw issueToError(r.error, value);
  return r.data;
}

/** A JSON body validated by `schema`; read it with `c.req.valid("json")`. */
export const jsonBody = <S extends z.ZodType>(schema: S) =>
  validator("json", (value) => parseOrThrow(schema, value));

/** A query string validated by `schema`; read it with `c.req.valid("query")`. */
export const query = <S extends z.ZodType>(schema: S) =>
  validator("query", (value) => parseOrThrow(schema, value));

/** Path parameters validated by `schema`; read them with `c.req.valid("param")`. */
export const params = <S extends z.ZodType>(schema: S) =>
  validator("param", (value) => parseOrThrow(schema, value));
