/**
 * Password reset by e-mailed code: one request per minute per address, 10 minutes valid, five wrong
 * tries and it is spent; a reset revokes every session and clears the account's login lockouts.
 * Codes go only to accounts whose e-mail is proven (./contact.ts), and every address gets the
 * same answers, registered or not.
 */
import { changingSessions } from "../../lib/session-push.ts";
import { randomInt, sha256Hex, timingSafeEqual } from "../../lib/crypto.ts";
import { deliver } from "../../lib/delivery.ts";
import { ApiError } from "../../lib/errors.ts";
import { hashPassword, passwordCost } from "../../lib/password.ts";
import { assertUncommonPassword } from "./password-policy.ts";
import { findUser } from "./users.ts";

const MINUTE = 60_000;
export const CODE_TTL_MS = 10 * MINUTE;
export const CODE_RESEND_MS = 60_000;
export const CODE_MAX_ATTEMPTS = 5;

/**
 * The cool-down of reset codes, per address whether or not it has an account (so `code_wait`
 * tells nothing): the time of the last request is kept in rate_limits; a request within
 * CODE_RESEND_MS of it is refused with the seconds left and does not move it.
 */
async function reserveResetSend(db: D1Database, account: string, now: number): Promise<void> {
  const row = await db
    .prepare(
      `INSERT INTO rate_limits (key, window_start, count) VALUES (?1, ?2, 1)
       ON CONFLICT (key) DO UPDATE SET
         count = CASE WHEN ?2 - window_start >= ?3 THEN 1 ELSE count + 1 END,
         window_start = CASE WHEN ?2 - window_start >= ?3 THEN ?2 ELSE window_start END
       RETURNING window_start, count`,
    )
    .bind(`forget-send:${account}`, now, CODE_RESEND_MS)
    .first<{ window_start: number; count: number }>();
  if (!row) throw new ApiError("try_again", 429);
  if (row.count > 1) throw new ApiError("code_wait", 429, { seconds: Math.max(1, Math.ceil((row.window_start + CODE_RESEND_MS - now) / 1000)) });
}

/**
 * A password reset code for `account`: the cool-down is checked (for every address alike), then
 * the returned job e-mails a code, but only to an account whose e-mail is proven (issue #29: a
 * reset must never go to an address the user was not shown to own). For an unknown or unproven
 * address the job does nothing; the caller answers "sent" either way and, deployed, runs the job
 * after answering so the answer's timing tells nothing either.
 */
export async function requestResetCode(env: Env, account: string): Promise<() => Promise<void>> {
  const now = Date.now();
  await reserveResetSend(env.DB, account, now);
  return async () => {
    const db = env.DB;
    const user = await db.prepare("SELECT contact_verified_at AS v FROM users WHERE account = ?").bind(account).first<{ v: number | null }>();
    if (!user || user.v === null) return;
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
  };
}

/**
 * Checks the newest unconsumed reset code. The try is counted before the code is compared (one
 * UPDATE ... RETURNING), so parallel guesses cannot outrun CODE_MAX_ATTEMPTS.
 */
export async function checkCode(db: D1Database, account: string, code: string): Promise<number> {
  const now = Date.now();
  const row = await db
    .prepare(
      `UPDATE verification_codes SET attempts = attempts + 1
        WHERE id = (SELECT id FROM verification_codes WHERE account = ? AND purpose = 'forget' AND consumed_at IS NULL ORDER BY id DESC LIMIT 1)
        RETURNING id, code_hash, attempts, expires_at`,
    )
    .bind(account)
    .first<{ id: number; code_hash: string; attempts: number; expires_at: number }>();
  if (!row || row.expires_at < now || row.attempts > CODE_MAX_ATTEMPTS) throw new ApiError("code_wrong");
  if (!timingSafeEqual(row.code_hash, await sha256Hex(`${account}:${code}`))) throw new ApiError("code_wrong");
  // The right code gives its try back: checking it (check_email) and then using it (forget) are one use.
  await db.prepare("UPDATE verification_codes SET attempts = attempts - 1 WHERE id = ?").bind(row.id).run();
  return row.id;
}

/** Resets the password with a valid code: the code is spent, every session ends, lockouts clear. */
export async function resetPassword(env: Pick<Env, "DB" | "PEPPER" | "DEV_OUTBOX" | "USER" | "ACCOUNTS">, account: string, password: string, code: string): Promise<void> {
  const db = env.DB;
  assertUncommonPassword(password);
  const codeId = await checkCode(db, account, code);
  const user = await findUser(db, account);
  if (!user) throw new ApiError("account_not_found", 404);
  const hash = await hashPassword(password, env.PEPPER, passwordCost(env));
  // The user's account object is told first (objects mode: worker/lib/session-push.ts).
  await changingSessions(env, user.id, () => {
    const now = Date.now();
    return db.batch([
      db.prepare("UPDATE verification_codes SET consumed_at = ? WHERE id = ? AND consumed_at IS NULL").bind(now, codeId),
      db.prepare("UPDATE users SET password_hash = ? WHERE id = ?").bind(hash, user.id),
      db.prepare("UPDATE sessions SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL").bind(now, user.id),
      // Every address's failures for this account (a range on the key: no LIKE pattern to escape).
      db.prepare("DELETE FROM login_failures WHERE key >= ?1 AND key < ?1 || char(1114111)").bind(`${account}|`),
    ]);
  });
}
