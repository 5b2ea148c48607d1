/**
 * Second factors: setting the fund password and enrolling the authenticator app, and checking them
 * on money-moving requests: the fund password (6 digits, scrypt-hashed like the
 * login password, 5 wrong tries per 15 minutes, each counted before it is compared), the
 * authenticator code when the user enabled one (counted the same way), and the receiving-information
 * gate (type 997 → /bank). Changes to the fund password and the authenticator are frozen by the
 * settings lock (./settings-lock.ts), checked in the change's own batch.
 */
import { bankRequired, ApiError, notFound } from "../../lib/errors.ts";
import { hashPassword, passwordCost, verifyPassword } from "../../lib/password.ts";
import { qrPngDataUrl } from "../../lib/qr.ts";
import { reserveAttempt } from "../../lib/ratelimit.ts";
import { consumeCode, encryptSecret, newSecret, otpauthUri } from "./totp.ts";
import { batchUnlessLocked, refuseWhileLocked } from "./settings-lock.ts";

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

/**
 * Sets or changes the 6-digit fund password: with the old fund password when one is set and
 * given, otherwise with the login password.
 */
export async function setFundPassword(env: Env, uid: number, b: { fund_password: string; old_fund_password?: string; login_password?: string }): Promise<void> {
  const db = env.DB;
  await refuseWhileLocked(db, uid);
  const row = await db.prepare("SELECT password_hash, fund_password_hash FROM users WHERE id = ?").bind(uid).first<{ password_hash: string; fund_password_hash: string | null }>();
  if (!row) throw notFound();
  if (row.fund_password_hash && b.old_fund_password !== undefined) {
    await checkFundPassword(env, uid, b.old_fund_password);
  } else {
    if (b.login_password === undefined) throw new ApiError("missing_field", 400, { field: row.fund_password_hash ? "old_fund_password" : "login_password" });
    if (!(await verifyPassword(b.login_password, row.password_hash, env.PEPPER))) throw new ApiError("old_password_wrong");
  }
  await batchUnlessLocked(db, uid, [db.prepare("UPDATE users SET fund_password_hash = ? WHERE id = ?").bind(await hashPassword(b.fund_password, env.PEPPER, passwordCost(env)), uid)]);
}

/** Starts (or restarts, while not yet confirmed) authenticator enrolment: the secret, its URI and QR code. */
export async function enrolTotp(env: Pick<Env, "DB" | "PEPPER" | "BRAND">, user: { id: number; account: string }) {
  const db = env.DB;
  await refuseWhileLocked(db, user.id);
  const existing = await db.prepare("SELECT enabled FROM totp_secrets WHERE user_id = ?").bind(user.id).first<{ enabled: number }>();
  if (existing?.enabled) throw new ApiError("totp_enabled", 409);
  const secret = newSecret();
  await batchUnlessLocked(db, user.id, [
    db
    .prepare(
      `INSERT INTO totp_secrets (user_id, secret_enc, enabled, last_step, created_at) VALUES (?, ?, 0, 0, ?)
       ON CONFLICT (user_id) DO UPDATE SET secret_enc = excluded.secret_enc, last_step = 0, created_at = excluded.created_at WHERE enabled = 0`,
    )
    .bind(user.id, await encryptSecret(env.PEPPER, secret), Date.now()),
  ]);
  const uri = otpauthUri(secret, user.account, env.BRAND || "Exchange");
  return { secret, uri, qrcode: await qrPngDataUrl(uri) };
}

/** Turns the enrolled authenticator on with a first code. */
export async function confirmTotp(env: Pick<Env, "DB" | "PEPPER">, uid: number, code: string): Promise<void> {
  const db = env.DB;
  await refuseWhileLocked(db, uid);
  const row = await db.prepare("SELECT enabled FROM totp_secrets WHERE user_id = ?").bind(uid).first<{ enabled: number }>();
  if (!row) throw new ApiError("totp_not_enabled", 409);
  if (row.enabled) throw new ApiError("totp_enabled", 409);
  if (!(await consumeCode(db, env.PEPPER, uid, code, false))) throw new ApiError("totp_wrong");
  await batchUnlessLocked(db, uid, [db.prepare("UPDATE totp_secrets SET enabled = 1, enabled_at = ? WHERE user_id = ?").bind(Date.now(), uid)]);
}

/** Turns the authenticator off with a current code. */
export async function disableTotp(env: Env, uid: number, code: string): Promise<void> {
  const db = env.DB;
  const row = await db.prepare("SELECT 1 FROM totp_secrets WHERE user_id = ? AND enabled = 1").bind(uid).first();
  if (!row) throw new ApiError("totp_not_enabled", 409);
  await refuseWhileLocked(db, uid);
  await checkTotpIfEnabled(env, uid, code);
  await batchUnlessLocked(db, uid, [db.prepare("DELETE FROM totp_secrets WHERE user_id = ?").bind(uid)]);
}
