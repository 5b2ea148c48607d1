/** Turns a zod result from schemas/auth.ts into one translated message per field. */
import type { z } from "zod";
import { errText } from "../../i18n/index.ts";

export type FieldErrors = Partial<Record<string, string>>;

export function fieldErrors(error: z.ZodError): FieldErrors {
  const out: FieldErrors = {};
  for (const issue of error.issues) {
    const field = String(issue.path[0] ?? "_form");
    if (out[field] === undefined) out[field] = errText(issue.message);
  }
  return out;
}

/** Drops one field's message once the user edits that field. */
export function withoutError(errors: FieldErrors, field: string): FieldErrors {
  if (errors[field] === undefined) return errors;
  const next = { ...errors };
  delete next[field];
  return next;
}
