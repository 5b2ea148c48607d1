/**
 * The login form's check before sending (schemas/auth.ts loginSchema, messages from the error
 * catalogue). Loaded when the user starts typing, not with the login screen: it brings zod and
 * the catalogue, which the screen does not need to appear.
 */
import { accountMode, loginSchema } from "../../../../schemas/auth.ts";
import { fieldErrors, type FieldErrors } from "./validation.ts";

export type LoginCheck =
  | { ok: true; account: string; password: string; mode: ReturnType<typeof accountMode> }
  | { ok: false; errors: FieldErrors };

export function checkLogin(account: string, password: string): LoginCheck {
  const parsed = loginSchema.safeParse({ user_string: account, password });
  if (!parsed.success) return { ok: false, errors: fieldErrors(parsed.error) };
  return { ok: true, account: parsed.data.user_string, password: parsed.data.password, mode: accountMode(parsed.data.user_string) };
}
