/**
 * Accounts and their passwords: registration (invite codes, extension codes), login with the
 * per-(account, address) lockout, the logged-in user's view, logout, and password changes that
 * end every session. Callers rate-limit first; everything here is the rule itself.
 */
import { changingSessions } from "../../lib/session-push.ts";
import { accountMode, type registerSchema } from "../../../schemas/auth.ts";
import type { z } from "zod";
import { randomString } from "../../lib/crypto.ts";
import { ApiError } from "../../lib/errors.ts";
import { dummyHash, hashPassword, passwordCost, verifyPassword } from "../../lib/password.ts";
import { failLoginAttempt, reserveLoginAttempt } from "../../lib/ratelimit.ts";
import { eq } from "drizzle-orm";
import { getDb, schema } from "../../db/client.ts";
import { consumeCaptcha } from "./captcha.ts";
import { assertUncommonPassword } from "./password-policy.ts";
import { recordFailedLogin, signIn } from "./devices.ts";
import { sendFirstContactCode } from "./contact.ts";

const MINUTE = 60_000;
/** Failed logins per (account, address) before that address is locked out of that account. */
export const LOGIN_MAX_FAILURES = 5;
export const LOGIN_LOCK_MS = 15 * MINUTE;

type UserRow = { id: number; password_hash: string; locked: number; last_login_at: number | null };

/** The account's login row, if it exists. */
export async function findUser(db: D1Database, account: string): Promise<UserRow | undefined> {
  const u = schema.users;
  const [row] = await getDb(db)
    .select({ id: u.id, password_hash: u.passwordHash, locked: u.locked, last_login_at: u.lastLoginAt })
    .from(u)
    .where(eq(u.account, account));
  return row;
}

async function newExtensionCode(db: D1Database): Promise<string> {
  for (;;) {
    const code = randomString(6, "ABCDEFGHJKLMNPQRSTUVWXYZ23456789");
    const taken = await db.prepare("SELECT 1 FROM users WHERE extension_code = ?").bind(code).first();
    if (!taken) return code;
  }
}

/**
 * Registers an account and logs it in (its first device); returns the session token. The account
 * starts unproven: a code goes to its e-mail or phone (./contact.ts). A taken address is answered
 * `account_exists` only after the captcha is spent (docs/api.md "Registered or not").
 */
export async function register(env: Env, ip: string, input: z.output<typeof registerSchema>, userAgent?: string | null, place: string | null = null) {
  const db = env.DB;
  // Before the captcha is spent: a refused password must not cost the user a new image code.
  assertUncommonPassword(input.password);
  if (!(await consumeCaptcha(db, input.code_id, input.code))) throw new ApiError("captcha_wrong");
  const mode = accountMode(input.user_string);
  if (!mode) throw new ApiError("account_format");
  let parentId: number | null = null;
  if (input.extension_code) {
    // An operator's code never binds (an operator is never an inviter of record; migrations/0022 refuses it too).
    const parent = await db.prepare("SELECT id FROM users WHERE extension_code = ? AND role = 'user'").bind(input.extension_code).first<{ id: number }>();
    if (!parent) throw new ApiError("invite_invalid");
    parentId = parent.id;
  }
  if (await findUser(db, input.user_string)) throw new ApiError("account_exists", 409);
  const hash = await hashPassword(input.password, env.PEPPER, passwordCost(env));
  const now = Date.now();
  let userId: number;
  try {
    const row = await db
      .prepare(
        // contact_verified_at NULL: not proven until the code sent below is entered (./contact.ts).
        `INSERT INTO users (account, account_type, country_code, password_hash, extension_code, parent_id, created_at, contact_verified_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, NULL) RETURNING id`,
      )
      .bind(input.user_string, mode, input.country_code, hash, await newExtensionCode(db), parentId, now)
      .first<{ id: number }>();
    userId = row!.id;
  } catch (err) {
    // Two registrations of the same account racing: the UNIQUE index decides.
    if (/UNIQUE constraint failed: users\.account/.test(String(err))) throw new ApiError("account_exists", 409);
    throw err;
  }
  const token = await signIn(env, userId, ip, userAgent, now, place);
  await sendFirstContactCode(env, input.user_string);
  return { token, lastTime: null as number | null };
}

/**
 * Logs in: a session token, or login_failed / the lockout / account_locked. A login from a device
 * or address the account never signed in from notifies its owner (./devices.ts).
 */
export async function login(env: Pick<Env, "DB" | "PEPPER" | "USER" | "DEV_OUTBOX">, ip: string, account: string, password: string, userAgent?: string | null, place: string | null = null) {
  const db = env.DB;
  const now = Date.now();
  // Lockouts are per (account, address): an attacker elsewhere cannot lock the owner out. The
  // guess is counted before the password is compared, so parallel guesses cannot outrun it.
  const failKey = `${account}|${ip}`;
  const refused = await reserveLoginAttempt(db, failKey, LOGIN_MAX_FAILURES, LOGIN_LOCK_MS, now);
  if (refused) throw refused;
  const user = await findUser(db, account);
  const good = await verifyPassword(password, user?.password_hash ?? dummyHash(passwordCost(env)), env.PEPPER);
  if (!user || !good) {
    await failLoginAttempt(db, failKey, LOGIN_MAX_FAILURES, LOGIN_LOCK_MS, now);
    // The owner sees the failed attempt in GET /api/security/logins (an unknown account has no owner).
    if (user) await recordFailedLogin(db, user.id, ip, userAgent, place, now);
    throw new ApiError("login_failed", 400);
  }
  if (user.locked) throw new ApiError("account_locked", 403);
  const token = await signIn(env, user.id, ip, userAgent, now, place);
  await db.prepare("DELETE FROM login_failures WHERE key = ?").bind(failKey).run();
  return { token, lastTime: user.last_login_at };
}

/** The logged-in user as /user/info shows it; the real name only once verified (spec §4). */
export async function userInfo(d1: D1Database, userId: number) {
  const u = schema.users;
  const [row] = await getDb(d1)
    .select({
      id: u.id,
      account: u.account,
      extension_code: u.extensionCode,
      is_seller: u.isSeller,
      review_status: u.reviewStatus,
      real_name: u.realName,
      role: u.role,
      contact_verified_at: u.contactVerifiedAt,
    })
    .from(u)
    .where(eq(u.id, userId));
  if (!row) throw new ApiError("login_required", 401, undefined, "999");
  return {
    id: row.id,
    account: row.account,
    extension_code: row.extension_code,
    is_seller: row.is_seller,
    review_status: row.review_status,
    // The real name is shown only once verified (spec §4).
    name: row.review_status === 2 ? row.real_name : null,
    role: row.role,
    contact_verified: row.contact_verified_at !== null,
  };
}

/** Ends one session (the user's account object told first in objects mode: worker/lib/session-push.ts). */
export async function endSession(env: Pick<Env, "DB" | "USER" | "ACCOUNTS">, userId: number, sessionId: number): Promise<void> {
  await changingSessions(env, userId, () => getDb(env.DB).update(schema.sessions).set({ revokedAt: Date.now() }).where(eq(schema.sessions.id, sessionId)));
}

/** Changes the password after checking the old one; every session ends, the caller's included. */
export async function changePassword(env: Pick<Env, "DB" | "PEPPER" | "DEV_OUTBOX" | "USER" | "ACCOUNTS">, userId: number, oldpwd: string, newpwd: string): Promise<void> {
  const db = env.DB;
  assertUncommonPassword(newpwd);
  const row = await db.prepare("SELECT password_hash FROM users WHERE id = ?").bind(userId).first<{ password_hash: string }>();
  if (!row || !(await verifyPassword(oldpwd, row.password_hash, env.PEPPER))) throw new ApiError("old_password_wrong");
  const hash = await hashPassword(newpwd, env.PEPPER, passwordCost(env));
  // The user's account object is told first (objects mode: worker/lib/session-push.ts).
  await changingSessions(env, userId, () => {
    const now = Date.now();
    return db.batch([
      db.prepare("UPDATE users SET password_hash = ? WHERE id = ?").bind(hash, userId),
      // Every session ends, this one included: the user signs in again with the new password.
      db.prepare("UPDATE sessions SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL").bind(now, userId),
    ]);
  });
}
