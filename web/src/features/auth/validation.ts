/** Turns a zod result from schemas/auth.ts into one translated message per field. */
import type { z } from "zod";
import { errText } from "../../i18n/errors.ts";
import type { FieldErrors } from "./fieldState.ts";

export { withoutError, type FieldErrors } from "./fieldState.ts";

export function fieldErrors(error: z.ZodError): FieldErrors {
  const out: FieldErrors = {};
  for (const issue of error.issues) {
    const field = String(issue.path[0] ?? "_form");
    if (out[field] === undefined) out[field] = errText(issue.message);
  }
  return out;
}
