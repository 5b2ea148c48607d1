/** Form helpers shared by the account screens: zod issues as one translated message per field. */
import type { z } from "zod";
import { errText } from "../i18n/errors.ts";

export type FieldErrors = Partial<Record<string, string>>;

/** The first issue of each field, translated through the shared error catalogue. */
export function zodFieldErrors(error: z.ZodError): FieldErrors {
  const out: FieldErrors = {};
  for (const issue of error.issues) {
    const field = String(issue.path[0] ?? "_form");
    if (out[field] === undefined) out[field] = errText(issue.message);
  }
  return out;
}

/** Drops one field's message once the user edits that field. */
export function dropError(errors: FieldErrors, field: string): FieldErrors {
  if (errors[field] === undefined) return errors;
  const next = { ...errors };
  delete next[field];
  return next;
}
