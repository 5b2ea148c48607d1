/**
 * New passwords must not be among the most common leaked ones. The list is the common-passwords
 * dictionary of zxcvbn-ts (about 49,000 entries ranked from public breach corpora), a well-kept
 * registry package rather than a hand-typed list. It is compared case-insensitively, and it lives
 * only in the Worker: the web app shows the server's translated refusal.
 */
import { dictionary } from "@zxcvbn-ts/language-common";
import { ApiError } from "../../lib/errors.ts";

let common: Set<string> | null = null;

/** Whether `password` is one of the common leaked passwords (built once per isolate). */
export function isCommonPassword(password: string): boolean {
  common ??= new Set((dictionary["passwords-common"] as string[]).map((p) => p.toLowerCase()));
  return common.has(password.toLowerCase());
}

/** Throws password_common for a common leaked password. */
export function assertUncommonPassword(password: string): void {
  if (isCommonPassword(password)) throw new ApiError("password_common");
}
