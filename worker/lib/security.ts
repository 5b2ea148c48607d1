/**
 * Second factors of money-moving requests: the fund password (6 digits, scrypt-hashed like the
 * login password, 5 wrong tries per 15 minutes, each counted before it is compared), the
 * authenticator code when the user enabled one (counted the same way), and the receiving-information
 * gate (type 997 → /bank).
 */
import { bankRequired, ApiError } from "./errors.ts";
import { verifyPassword } from "./password.ts";
import { reserveAttempt } from "./ratelimit.ts";
import { consumeCode } from "./totp.ts";

export const FUND_PASSWORD_MAX_FAILURES = 5;
export const FUND_PASSWORD_WINDOW_MS = 15 * 60_000;

/** Checks the fund password: fund_password_required when none is set, fund_password_wrong otherwise. */
export async function checkFundPassword(env: Env, userId: number, password: string, now = Date.now()): Promise<void> {
  const row = await env.DB.prepare("SELECT fund_password_hash FROM users WHERE id = ?").bind(userId).first<{ fund_password_hash: string | null }>();
  if (!row?.fund_password_hash) throw new ApiError("fund_password_required");
  // Counted before the comparison: parallel guesses cannot get more than five compared.
  const attempt = await reserveAttempt(env.DB, `fundpw-fail:${userId}`, FUND_PASSWORD_MAX_FAILURES, FUND_PASSWORD_WINDOW_MS, now);
  if (!/^\d{6}$/.test(password) || !(await verifyPassword(password, row.fund_password_hash, env.PEPPER))) throw new ApiError("fund_password_wrong");
  await attempt.refund();
}

/** When the user has an enabled authenticator, its code is required (and consumed). */
export async function checkTotpIfEnabled(env: Env, userId: number, code: string | undefined, now = Date.now()): Promise<void> {
  const row = await env.DB.prepare("SELECT enabled FROM totp_secrets WHERE user_id = ? AND enabled = 1").bind(userId).first();
  if (!row) return;
  if (!code) throw new ApiError("totp_required");
  const attempt = await reserveAttempt(env.DB, `totp-fail:${userId}`, FUND_PASSWORD_MAX_FAILURES, FUND_PASSWORD_WINDOW_MS, now);
  if (!/^\d{6}$/.test(code) || !(await consumeCode(env.DB, env.PEPPER, userId, code, true))) throw new ApiError("totp_wrong");
  await attempt.refund();
}

/** The receiving-information gate of withdrawals (spec: 997 offers a jump to /bank). */
export async function requireReceivingInfo(db: D1Database, userId: number): Promise<void> {
  const row = await db.prepare("SELECT 1 FROM bank_cards WHERE user_id = ?").bind(userId).first();
  if (!row) throw bankRequired();
}
