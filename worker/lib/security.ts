/**
 * Second factors of money-moving requests: the fund password (6 digits, scrypt-hashed like the
 * login password, 5 wrong tries per 15 minutes), the authenticator code when the user enabled
 * one, and the receiving-information gate (type 997 → /bank).
 */
import { bankRequired, ApiError } from "./errors.ts";
import { verifyPassword } from "./password.ts";
import { rateLimit } from "./ratelimit.ts";
import { consumeCode } from "./totp.ts";

export const FUND_PASSWORD_MAX_FAILURES = 5;
export const FUND_PASSWORD_WINDOW_MS = 15 * 60_000;

async function failuresSoFar(db: D1Database, key: string, windowMs: number, now: number): Promise<number> {
  const windowStart = now - (now % windowMs);
  const r = await db.prepare("SELECT window_start, count FROM rate_limits WHERE key = ?").bind(key).first<{ window_start: number; count: number }>();
  return r && r.window_start === windowStart ? r.count : 0;
}

/** Counts a failed attempt of `key` and throws `error`. */
async function fail(db: D1Database, key: string, error: ApiError): Promise<never> {
  await rateLimit(db, key, Number.MAX_SAFE_INTEGER, FUND_PASSWORD_WINDOW_MS);
  throw error;
}

/** Checks the fund password: fund_password_required when none is set, fund_password_wrong otherwise. */
export async function checkFundPassword(env: Env, userId: number, password: string, now = Date.now()): Promise<void> {
  const row = await env.DB.prepare("SELECT fund_password_hash FROM users WHERE id = ?").bind(userId).first<{ fund_password_hash: string | null }>();
  if (!row?.fund_password_hash) throw new ApiError("fund_password_required");
  const key = `fundpw-fail:${userId}`;
  if ((await failuresSoFar(env.DB, key, FUND_PASSWORD_WINDOW_MS, now)) >= FUND_PASSWORD_MAX_FAILURES) throw new ApiError("too_many_requests", 429);
  if (!/^\d{6}$/.test(password) || !(await verifyPassword(password, row.fund_password_hash, env.PEPPER))) {
    await fail(env.DB, key, new ApiError("fund_password_wrong"));
  }
}

/** When the user has an enabled authenticator, its code is required (and consumed). */
export async function checkTotpIfEnabled(env: Env, userId: number, code: string | undefined): Promise<void> {
  const row = await env.DB.prepare("SELECT enabled FROM totp_secrets WHERE user_id = ? AND enabled = 1").bind(userId).first();
  if (!row) return;
  if (!code) throw new ApiError("totp_required");
  const key = `totp-fail:${userId}`;
  if ((await failuresSoFar(env.DB, key, FUND_PASSWORD_WINDOW_MS, Date.now())) >= FUND_PASSWORD_MAX_FAILURES) throw new ApiError("too_many_requests", 429);
  if (!/^\d{6}$/.test(code) || !(await consumeCode(env.DB, env.PEPPER, userId, code, true))) await fail(env.DB, key, new ApiError("totp_wrong"));
}

/** The receiving-information gate of withdrawals (spec: 997 offers a jump to /bank). */
export async function requireReceivingInfo(db: D1Database, userId: number): Promise<void> {
  const row = await db.prepare("SELECT 1 FROM bank_cards WHERE user_id = ?").bind(userId).first();
  if (!row) throw bankRequired();
}
