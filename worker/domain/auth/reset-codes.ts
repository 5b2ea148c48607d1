/**
 * Password reset by e-mailed code: one code per minute per account, 10 minutes valid, five wrong
 * tries and it is spent; a reset revokes every session and clears the account's login lockouts.
 */
import { randomInt, sha256Hex } from "../../lib/crypto.ts";
import { deliver } from "../../lib/delivery.ts";
import { ApiError } from "../../lib/errors.ts";
import { hashPassword, passwordCost } from "../../lib/password.ts";
import { assertUncommonPassword } from "./password-policy.ts";
import { findUser } from "./users.ts";

const MINUTE = 60_000;
export const CODE_TTL_MS = 10 * MINUTE;
export const CODE_RESEND_MS = 60_000;
export const CODE_MAX_ATTEMPTS = 5;

/** E-mails a new reset code to an existing account (code_wait within a minute of the last one). */
export async function sendResetCode(env: Env, account: string): Promise<void> {
  const db = env.DB;
  if (!(await findUser(db, account))) throw new ApiError("account_not_found", 404);
  const now = Date.now();
  const last = await db
    .prepare("SELECT created_at FROM verification_codes WHERE account = ? AND purpose = 'forget' ORDER BY id DESC LIMIT 1")
    .bind(account)
    .first<{ created_at: number }>();
  if (last && now - last.created_at < CODE_RESEND_MS) {
    throw new ApiError("code_wait", 429, { seconds: Math.ceil((CODE_RESEND_MS - (now - last.created_at)) / 1000) });
  }
  const code = String(randomInt(1_000_000)).padStart(6, "0");
  await db
    .prepare("INSERT INTO verification_codes (account, purpose, code_hash, created_at, expires_at) VALUES (?, 'forget', ?, ?, ?)")
    .bind(account, await sha256Hex(`${account}:${code}`), now, now + CODE_TTL_MS)
    .run();
  await deliver(env, {
    channel: "email",
    recipient: account,
    subject: "Your password reset code",
    body: `Your verification code is ${code}. It expires in 10 minutes. If you did not ask for it, ignore this e-mail.`,
    code,
  });
}

/** Checks the newest unconsumed reset code; counts attempts so a code cannot be guessed. */
export async function checkCode(db: D1Database, account: string, code: string): Promise<number> {
  const now = Date.now();
  const row = await db
    .prepare(
      `SELECT id, code_hash, attempts, expires_at FROM verification_codes
       WHERE account = ? AND purpose = 'forget' AND consumed_at IS NULL ORDER BY id DESC LIMIT 1`,
    )
    .bind(account)
    .first<{ id: number; code_hash: string; attempts: number; expires_at: number }>();
  if (!row || row.expires_at < now || row.attempts >= CODE_MAX_ATTEMPTS) throw new ApiError("code_wrong");
  const good = row.code_hash === (await sha256Hex(`${account}:${code}`));
  if (!good) {
    await db.prepare("UPDATE verification_codes SET attempts = attempts + 1 WHERE id = ?").bind(row.id).run();
    throw new ApiError("code_wrong");
  }
  return row.id;
}

/** Resets the password with a valid code: the code is spent, every session ends, lockouts clear. */
export async function resetPassword(env: Pick<Env, "DB" | "PEPPER" | "DEV_OUTBOX">, account: string, password: string, code: string): Promise<void> {
  const db = env.DB;
  assertUncommonPassword(password);
  const codeId = await checkCode(db, account, code);
  const user = await findUser(db, account);
  if (!user) throw new ApiError("account_not_found", 404);
  const now = Date.now();
  await db.batch([
    db.prepare("UPDATE verification_codes SET consumed_at = ? WHERE id = ? AND consumed_at IS NULL").bind(now, codeId),
    db.prepare("UPDATE users SET password_hash = ? WHERE id = ?").bind(await hashPassword(password, env.PEPPER, passwordCost(env)), user.id),
    db.prepare("UPDATE sessions SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL").bind(now, user.id),
    // Every address's failures for this account (a range on the key: no LIKE pattern to escape).
    db.prepare("DELETE FROM login_failures WHERE key >= ?1 AND key < ?1 || char(1114111)").bind(`${account}|`),
  ]);
}
