/** Builders for the two success envelopes and the one error envelope (schemas/envelope.ts). */
import type { Context } from "hono";
import { errorText } from "../../schemas/errors.ts";
import type { AppEnv } from "./context.ts";
import { ApiError } from "./errors.ts";

/** `{ type: "ok", message }` for the classic endpoints. */
export function ok<T>(c: Context<AppEnv>, message: T) {
  return c.json({ type: "ok" as const, message });
}

/** `{ status: 1, data }` for the /api/new/ endpoints. */
export function okNew<T>(c: Context<AppEnv>, data: T) {
  return c.json({ status: 1 as const, data });
}

/** Turns an ApiError into the envelope of the endpoint's family, in the request's language. */
export function errorResponse(c: Context<AppEnv>, err: ApiError) {
  const locale = c.get("locale") ?? "en";
  const message = errorText(locale, err.key, err.params);
  const isNew = new URL(c.req.url).pathname.startsWith("/api/new/");
  const body = isNew
    ? { status: 0 as const, type: err.type, code: err.key, message }
    : { type: err.type, code: err.key, message };
  return c.json(body, err.status);
}
