/**
 * Accounts and sessions (spec §2 login/register/forgot, §7): captcha, account check, register,
 * login with brute-force lockout, user info, logout, password reset by e-mailed code, password
 * change. Every authentication endpoint is rate limited in D1.
 */
import { Hono } from "hono";
import type { Context } from "hono";
import {
  accountCheckSchema,
  accountMode,
  captchaSchema,
  codeSentSchema,
  okWordSchema,
  passwordResetSchema,
  sessionSchema,
  userInfoSchema,
  checkAccountSchema,
  checkEmailSchema,
  forgetSchema,
  loginSchema,
  registerSchema,
  sendCodeSchema,
  updatePasswordSchema,
} from "../../schemas/auth.ts";
import type { AppEnv } from "../lib/context.ts";
import { createCaptcha, consumeCaptcha } from "../lib/captcha.ts";
import { randomInt, randomString, sha256Hex } from "../lib/crypto.ts";
import { deliver } from "../lib/delivery.ts";
import { ApiError } from "../lib/errors.ts";
import { createSession, requireUser } from "../lib/auth.ts";
import { DUMMY_HASH, hashPassword, verifyPassword } from "../lib/password.ts";
import { assertUncommonPassword } from "../lib/password-policy.ts";
import { clientIp, failLoginAttempt, rateLimit, reserveLoginAttempt } from "../lib/ratelimit.ts";
import { answers, answersNew, ok, okNew } from "../lib/respond.ts";
import { jsonBody } from "../lib/validate.ts";
import { eq } from "drizzle-orm";
import { getDb, schema } from "../db/client.ts";

const MINUTE = 60_000;
/** Failed logins per (account, address) before that address is locked out of that account. */
export const LOGIN_MAX_FAILURES = 5;
export const LOGIN_LOCK_MS = 15 * MINUTE;
/** Login requests per address per 10 minutes, across accounts (credential stuffing). */
export const LOGIN_PER_ADDRESS = 100;
export const CODE_TTL_MS = 10 * MINUTE;
export const CODE_RESEND_MS = 60_000;
export const CODE_MAX_ATTEMPTS = 5;

type UserRow = { id: number; password_hash: string; locked: number; last_login_at: number | null };

async function findUser(db: D1Database, account: string): Promise<UserRow | undefined> {
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

function pepper<E extends AppEnv>(c: Context<E>) {
  return c.env.PEPPER;
}

/** Shared by /api/user/register and /api/new/register; returns the session token. */
async function register<E extends AppEnv>(c: Context<E>, input: ReturnType<typeof registerSchema.parse>) {
  const db = c.env.DB;
  const ip = clientIp(c.req.raw, c.env);
  await rateLimit(db, `register:${ip}`, 10, 10 * MINUTE);
  // Before the captcha is spent: a refused password must not cost the user a new image code.
  assertUncommonPassword(input.password);
  if (!(await consumeCaptcha(db, input.code_id, input.code))) throw new ApiError("captcha_wrong");
  const mode = accountMode(input.user_string);
  if (!mode) throw new ApiError("account_format");
  let parentId: number | null = null;
  if (input.extension_code) {
    const parent = await db.prepare("SELECT id FROM users WHERE extension_code = ?").bind(input.extension_code).first<{ id: number }>();
    if (!parent) throw new ApiError("invite_invalid");
    parentId = parent.id;
  }
  if (await findUser(db, input.user_string)) throw new ApiError("account_exists", 409);
  const hash = await hashPassword(input.password, pepper(c));
  const now = Date.now();
  let userId: number;
  try {
    const row = await db
      .prepare(
        `INSERT INTO users (account, account_type, country_code, password_hash, extension_code, parent_id, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id`,
      )
      .bind(input.user_string, mode, input.country_code, hash, await newExtensionCode(db), parentId, now)
      .first<{ id: number }>();
    userId = row!.id;
  } catch (err) {
    // Two registrations of the same account racing: the UNIQUE index decides.
    if (/UNIQUE constraint failed: users\.account/.test(String(err))) throw new ApiError("account_exists", 409);
    throw err;
  }
  const token = await createSession(db, userId, ip, now);
  return { token, lastTime: null as number | null };
}

export const authRoutes = new Hono<AppEnv>()
  .post("/login/smscode", answers(captchaSchema, { summary: "A new image captcha" }), async (c) => {
    await rateLimit(c.env.DB, `captcha:${clientIp(c.req.raw, c.env)}`, 30, MINUTE);
    const captcha = await createCaptcha(c.env.DB);
    await deliver(c.env, { channel: "captcha", recipient: captcha.id, subject: "captcha", body: "", code: captcha.answer });
    return ok(c, { code: captcha.image, code_id: captcha.id });
  })
  .post("/new/check/account", jsonBody(checkAccountSchema), answersNew(accountCheckSchema, { summary: "Is the account free to register?" }), async (c) => {
    await rateLimit(c.env.DB, `check:${clientIp(c.req.raw, c.env)}`, 60, MINUTE);
    const { account } = c.req.valid("json");
    if (await findUser(c.env.DB, account)) throw new ApiError("account_exists", 409);
    return okNew(c, { mode: accountMode(account) });
  })
  .post("/user/register", jsonBody(registerSchema), answers(sessionSchema, { summary: "Register and log in" }), async (c) => ok(c, await register(c, c.req.valid("json"))))
  .post("/new/register", jsonBody(registerSchema), answersNew(sessionSchema, { summary: "Register and log in" }), async (c) => okNew(c, await register(c, c.req.valid("json"))))
  .post("/user/login", jsonBody(loginSchema), answers(sessionSchema, { summary: "Log in: a session token for the Authorization header" }), async (c) => {
    const db = c.env.DB;
    const ip = clientIp(c.req.raw, c.env);
    const { user_string: account, password } = c.req.valid("json");
    await rateLimit(db, `login:${ip}`, LOGIN_PER_ADDRESS, 10 * MINUTE);
    const now = Date.now();
    // Lockouts are per (account, address): an attacker elsewhere cannot lock the owner out. The
    // guess is counted before the password is compared, so parallel guesses cannot outrun it.
    const failKey = `${account}|${ip}`;
    const refused = await reserveLoginAttempt(db, failKey, LOGIN_MAX_FAILURES, LOGIN_LOCK_MS, now);
    if (refused) throw refused;
    const user = await findUser(db, account);
    const good = await verifyPassword(password, user?.password_hash ?? DUMMY_HASH, pepper(c));
    if (!user || !good) {
      await failLoginAttempt(db, failKey, LOGIN_MAX_FAILURES, LOGIN_LOCK_MS, now);
      throw new ApiError("login_failed", 400);
    }
    if (user.locked) throw new ApiError("account_locked", 403);
    const token = await createSession(db, user.id, ip, now);
    await db.prepare("DELETE FROM login_failures WHERE key = ?").bind(failKey).run();
    return ok(c, { token, lastTime: user.last_login_at });
  })
  .get("/user/info", requireUser, answers(userInfoSchema, { summary: "The logged-in user", auth: true }), async (c) => {
    const u = schema.users;
    const [row] = await getDb(c.env.DB)
      .select({
        id: u.id,
        account: u.account,
        extension_code: u.extensionCode,
        is_seller: u.isSeller,
        review_status: u.reviewStatus,
        real_name: u.realName,
        role: u.role,
      })
      .from(u)
      .where(eq(u.id, c.get("user").id));
    if (!row) throw new ApiError("login_required", 401, undefined, "999");
    return ok(c, {
      id: row.id,
      account: row.account,
      extension_code: row.extension_code,
      is_seller: row.is_seller,
      review_status: row.review_status,
      // The real name is shown only once verified (spec §4).
      name: row.review_status === 2 ? row.real_name : null,
      role: row.role,
    });
  })
  .post("/user/logout", requireUser, answers(okWordSchema, { summary: "End this session", auth: true }), async (c) => {
    await getDb(c.env.DB).update(schema.sessions).set({ revokedAt: Date.now() }).where(eq(schema.sessions.id, c.get("user").sessionId));
    return ok(c, "ok");
  })
  .post("/sms_mail", jsonBody(sendCodeSchema), answers(codeSentSchema, { summary: "E-mail a password reset code" }), async (c) => {
    const db = c.env.DB;
    const { user_string: account } = c.req.valid("json");
    await rateLimit(db, `code-ip:${clientIp(c.req.raw, c.env)}`, 10, 60 * MINUTE);
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
    await deliver(c.env, {
      channel: "email",
      recipient: account,
      subject: "Your password reset code",
      body: `Your verification code is ${code}. It expires in 10 minutes. If you did not ask for it, ignore this e-mail.`,
      code,
    });
    return ok(c, "sent");
  })
  .post("/user/check_email", jsonBody(checkEmailSchema), answers(okWordSchema, { summary: "Check a reset code" }), async (c) => {
    const { user_string: account, email_code } = c.req.valid("json");
    await rateLimit(c.env.DB, `code-check:${clientIp(c.req.raw, c.env)}`, 30, 10 * MINUTE);
    await checkCode(c.env.DB, account, email_code);
    return ok(c, "ok");
  })
  .post("/user/forget", jsonBody(forgetSchema), answers(passwordResetSchema, { summary: "Reset the password with the code" }), async (c) => {
    const db = c.env.DB;
    const { account, password, code } = c.req.valid("json");
    await rateLimit(db, `code-check:${clientIp(c.req.raw, c.env)}`, 30, 10 * MINUTE);
    assertUncommonPassword(password);
    const codeId = await checkCode(db, account, code);
    const user = await findUser(db, account);
    if (!user) throw new ApiError("account_not_found", 404);
    const now = Date.now();
    await db.batch([
      db.prepare("UPDATE verification_codes SET consumed_at = ? WHERE id = ? AND consumed_at IS NULL").bind(now, codeId),
      db.prepare("UPDATE users SET password_hash = ? WHERE id = ?").bind(await hashPassword(password, pepper(c)), user.id),
      db.prepare("UPDATE sessions SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL").bind(now, user.id),
      // Every address's failures for this account (a range on the key: no LIKE pattern to escape).
      db.prepare("DELETE FROM login_failures WHERE key >= ?1 AND key < ?1 || char(1114111)").bind(`${account}|`),
    ]);
    return ok(c, "reset");
  })
  .post("/new/users/update-password", requireUser, jsonBody(updatePasswordSchema), answersNew(okWordSchema, { summary: "Change the password (ends every session)", auth: true }), async (c) => {
    const db = c.env.DB;
    const user = c.get("user");
    const { oldpwd, newpwd } = c.req.valid("json");
    await rateLimit(db, `pwd:${user.id}`, 10, 10 * MINUTE);
    assertUncommonPassword(newpwd);
    const row = await db.prepare("SELECT password_hash FROM users WHERE id = ?").bind(user.id).first<{ password_hash: string }>();
    if (!row || !(await verifyPassword(oldpwd, row.password_hash, pepper(c)))) throw new ApiError("old_password_wrong");
    const now = Date.now();
    await db.batch([
      db.prepare("UPDATE users SET password_hash = ? WHERE id = ?").bind(await hashPassword(newpwd, pepper(c)), user.id),
      // Every session ends, this one included: the user signs in again with the new password.
      db.prepare("UPDATE sessions SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL").bind(now, user.id),
    ]);
    return okNew(c, "ok");
  });

/** Checks the newest unconsumed reset code; counts attempts so a code cannot be guessed. */
async function checkCode(db: D1Database, account: string, code: string): Promise<number> {
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
