/**
 * Expected rejections are values of ApiError (a catalogue key plus the envelope type and HTTP
 * status); anything else thrown is a bug, logged with the request id and answered without internals.
 */
import type { ErrorKey } from "../../schemas/errors.ts";

export type ErrorType = "error" | "997" | "998" | "999";

export class ApiError extends Error {
  constructor(
    readonly key: ErrorKey,
    readonly status: 400 | 401 | 403 | 404 | 409 | 413 | 415 | 429 | 500 | 503 = 400,
    readonly params?: Record<string, string | number>,
    readonly type: ErrorType = "error",
  ) {
    super(key);
  }
}

export const loginRequired = () => new ApiError("login_required", 401, undefined, "999");
export const verifyRequired = () => new ApiError("verify_required", 403, undefined, "998");
export const bankRequired = () => new ApiError("bank_required", 403, undefined, "997");
export const notFound = () => new ApiError("not_found", 404);
