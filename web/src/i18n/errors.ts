/**
 * Client-side texts from the shared error catalogue (schemas/errors.ts), for the checks a form
 * makes before sending. Kept apart from ./index.ts so the catalogue loads with the screens that
 * check forms, not at start-up.
 */
import { errorText, isErrorKey, type ErrorKey } from "../../../schemas/errors.ts";
import { getAppLocale } from "./index.ts";

/** A client-side message from the shared error catalogue, in the current language. */
export function errText(key: string, params?: Record<string, string | number>): string {
  const k: ErrorKey = isErrorKey(key) ? key : "invalid_param";
  return errorText(getAppLocale(), k, params);
}
