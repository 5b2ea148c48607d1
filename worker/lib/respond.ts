/**
 * The envelopes of the API (schemas/envelope.ts) and the one place a route says what it answers.
 *
 * A route declares its answer once, with a zod schema from schemas/:
 *
 *     .get("/user/info", requireUser, answers(userInfoSchema), async (c) => ok(c, { ... }))
 *
 * `answers(schema)` documents the route in the OpenAPI document (GET /api/openapi.json) and
 * types its context, so `ok(c, data)` accepts only data of that schema: a field the schema does
 * not have, or lacks, fails `npm run typecheck`, and the typed client (`hc<AppType>`) sees the
 * schema's type. `answersNew` / `okNew` are the same for the `{ status: 1, data }` endpoints, and
 * `answersBare` / `bare` for the one endpoint with its own shape (candles: `{ code: 1, data }`).
 * Nothing is re-parsed in production; with CONTRACT_CHECK=on (the API tests) every answer is
 * parsed with its schema, so a handler that drifts from its contract fails the tests.
 */
import type { Context, MiddlewareHandler, TypedResponse } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { JSONParsed } from "hono/utils/types";
import { resolver, uniqueSymbol } from "hono-openapi";
import type { z } from "zod";
import { bareOkSchema, classicOkSchema, newOkSchema } from "../../schemas/envelope.ts";
import { errorText } from "../../schemas/errors.ts";
import type { AppEnv } from "./context.ts";
import { ApiError } from "./errors.ts";

type Envelope = "classic" | "new" | "bare";
/** The context variable each envelope's declaration sets; ok/okNew/bare read the schema type from it. */
type Slot<K extends Envelope> = K extends "classic" ? "answer" : K extends "new" ? "answerNew" : "answerBare";

/** What the OpenAPI document says about a route besides its answer. */
export interface RouteDoc {
  summary?: string;
  description?: string;
  /** Marks a route that needs the Authorization header. */
  auth?: boolean;
}

const wrap = { classic: classicOkSchema, new: newOkSchema, bare: bareOkSchema } as const;

function declare<K extends Envelope>(envelope: K) {
  return <S extends z.ZodType>(schema: S, doc: RouteDoc = {}): MiddlewareHandler<{ Variables: { [P in Slot<K>]: S } }> => {
    const slot = (envelope === "classic" ? "answer" : envelope === "new" ? "answerNew" : "answerBare") as Slot<K>;
    const middleware: MiddlewareHandler<{ Variables: { [P in Slot<K>]: S } }> = async (c, next) => {
      (c.set as (key: string, value: unknown) => void)(slot, schema);
      await next();
    };
    const { auth, ...rest } = doc;
    const spec = {
      ...rest,
      ...(auth ? { security: [{ session: [] }] } : {}),
      responses: {
        200: { description: doc.summary ?? "Success", content: { "application/json": { schema: resolver(wrap[envelope](schema)) } } },
      },
    };
    return Object.assign(middleware, { [uniqueSymbol]: { spec } });
  };
}

/** Declares the `{ type: "ok", message }` answer of a classic endpoint. */
export const answers = declare("classic");
/** Declares the `{ status: 1, data }` answer of a /api/new/ endpoint. */
export const answersNew = declare("new");
/** Declares an answer sent as it is (no envelope). */
export const answersBare = declare("bare");

/** Documents a route that answers something other than a JSON envelope (a file, a page, an upgrade). */
export function answersFile(doc: RouteDoc = {}, media: string[] = ["image/png", "image/jpeg"]): MiddlewareHandler {
  const middleware: MiddlewareHandler = async (_c, next) => {
    await next();
  };
  const { auth, ...rest } = doc;
  const spec = {
    ...rest,
    ...(auth ? { security: [{ session: [] }] } : {}),
    responses: { 200: { description: doc.summary ?? "Success", content: Object.fromEntries(media.map((m) => [m, {}])) } },
  };
  return Object.assign(middleware, { [uniqueSymbol]: { spec } });
}

/** The schema a route declared in the slot, read from its context's type. */
type Declared<C, K extends string> = C extends { var: infer V } ? (K extends keyof V ? (V[K] extends z.ZodType ? V[K] : never) : never) : never;
type Json<T> = Response & TypedResponse<JSONParsed<T>, ContentfulStatusCode, "json">;

/** Parses an answer with its declared schema when the contract check is on (the API tests). */
function check(c: Context, slot: string, value: unknown) {
  if ((c.env as { CONTRACT_CHECK?: string } | undefined)?.CONTRACT_CHECK !== "on") return;
  const schema = (c.get as (key: string) => unknown)(slot) as z.ZodType | undefined;
  if (!schema) throw new Error(`${c.req.method} ${c.req.path}: no answer declared for ${slot}`);
  const r = schema.safeParse(value);
  if (!r.success) throw new Error(`${c.req.method} ${c.req.path} answered outside its contract: ${JSON.stringify(r.error.issues).slice(0, 2000)}`);
}

/** `{ type: "ok", message }` for the classic endpoints; `message` must match the declared schema. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Hono's own generic parameters: any app, path and input
export function ok<C extends Context<any, any, any>>(c: C, message: z.output<Declared<C, "answer">>): Json<{ type: "ok"; message: z.output<Declared<C, "answer">> }> {
  check(c, "answer", message);
  return c.json({ type: "ok" as const, message }) as never;
}

/** `{ status: 1, data }` for the /api/new/ endpoints; `data` must match the declared schema. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Hono's own generic parameters: any app, path and input
export function okNew<C extends Context<any, any, any>>(c: C, data: z.output<Declared<C, "answerNew">>): Json<{ status: 1; data: z.output<Declared<C, "answerNew">> }> {
  check(c, "answerNew", data);
  return c.json({ status: 1 as const, data }) as never;
}

/** An answer without envelope; `body` must match the declared schema. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Hono's own generic parameters: any app, path and input
export function bare<C extends Context<any, any, any>>(c: C, body: z.output<Declared<C, "answerBare">>): Json<z.output<Declared<C, "answerBare">>> {
  check(c, "answerBare", body);
  return c.json(body as object) as never;
}

/** Turns an ApiError into the envelope of the endpoint's family, in the request's language. */
export function errorResponse(c: Context<AppEnv>, err: ApiError) {
  const locale = c.get("locale") ?? "en";
  const message = errorText(locale, err.key, err.params);
  const isNew = new URL(c.req.url).pathname.startsWith("/api/new/");
  // A refusal of one input field names it (`orders.0.price`), so a client can mark the field.
  const field = typeof err.params?.field === "string" ? { field: err.params.field } : {};
  const body = isNew
    ? { status: 0 as const, type: err.type, code: err.key, message, ...field }
    : { type: err.type, code: err.key, message, ...field };
  return c.json(body, err.status);
}
