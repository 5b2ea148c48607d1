/**
 * zod validation at the edge. Every route declares the shape of its body or query; a failure
 * becomes a translated ApiError naming the field, and the handler never runs.
 */
import type { MiddlewareHandler } from "hono";
import { validator, type InferInput } from "hono/validator";
import { resolver, uniqueSymbol } from "hono-openapi";
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
  if ((issue.code === "invalid_type" || issue.code === "invalid_value" || issue.code === "invalid_union") && valueAt(input, issue.path) === undefined) {
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

/**
 * What a validator tells the typed client (`in`: what to send, as the schema's input) and the
 * handler (`out`: the parsed value). Query and path values travel as strings.
 */
type Validated<T extends "json" | "query" | "param", S extends z.ZodType> = {
  in: { [K in T]: K extends "json" ? z.input<S> : InferInput<z.input<S>, K> };
  out: { [K in T]: z.output<S> };
};

/** A validator that also documents its target in the OpenAPI document (hono-openapi reads the mark). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Hono's own generic parameters: any app, path and input
function documented<T extends "json" | "query" | "param", S extends z.ZodType>(target: T, schema: S): MiddlewareHandler<any, string, Validated<T, S>> {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- Hono's own generic parameters: any app, path and input
  const middleware = validator(target, (value) => parseOrThrow(schema, value)) as MiddlewareHandler<any, string, Validated<T, S>>;
  return Object.assign(middleware, { [uniqueSymbol]: { target, ...resolver(schema) } });
}

/** A JSON body validated by `schema`; read it with `c.req.valid("json")`. */
export const jsonBody = <S extends z.ZodType>(schema: S) => documented("json", schema);

/** A query string validated by `schema`; read it with `c.req.valid("query")`. */
export const query = <S extends z.ZodType>(schema: S) => documented("query", schema);

/** Path parameters validated by `schema`; read them with `c.req.valid("param")`. */
export const params = <S extends z.ZodType>(schema: S) => documented("param", schema);
