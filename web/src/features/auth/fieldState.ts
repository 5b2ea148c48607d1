/** Per-field error messages of the auth forms, without the catalogue that writes them. */
export type FieldErrors = Partial<Record<string, string>>;

/** Drops one field's message once the user edits that field. */
export function withoutError(errors: FieldErrors, field: string): FieldErrors {
  if (errors[field] === undefined) return errors;
  const next = { ...errors };
  delete next[field];
  return next;
}
