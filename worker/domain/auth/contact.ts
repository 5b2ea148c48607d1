/**
 * The proven e-mail or phone (issue #29). Sign-up logs straight in (spec §4), but nothing then
 * proves that the address belongs to the user; until a 6-digit code sent to it is entered, the
 * account cannot deposit, withdraw, create API keys or receive a password reset (a reset sent to an
 * address the user never owned would hand the account to whoever does own it).
 *
 * The code: stored only as an HMAC (keyed by PEPPER: a leaked table cannot be searched for six
 * digits), valid CONTACT_CODE_TTL_MS, CONTACT_CODE_MAX_ATTEMPTS tries, each try counted BEFORE the
 * code is compared (one conditional UPDATE ... RETURNING, so parallel guesses cannot outrun it). A
 * new code waits CONTACT_RESEND_MS after the last one and at most CONTACT_CODES_PER_DAY are sent a
 * day; both are checked by the INSERT itself, so parallel resends send one code. Only the newest
 * code is checked. `users.contact_verified_at` is NULL until proven (accounts made before the
 * proof existed, and by the operators' own tools, carry 0: proven).
 */
import { createMiddleware } from "hono/factory";
import { accountMode } from "../../../schemas/auth.ts";
import type { ContactState } from "../../../schemas/security.ts";
import type { AppEnv } from "../../lib/context.ts";
import { randomInt, timingSafeEqual } from "../../lib/crypto.ts";
import { deliver } from "../../lib/delivery.ts";
import { ApiError } from "../../lib/errors.ts";

const MINUTE = 60_000;
export const CONTACT_CODE_TTL_MS = 30 * MINUTE;
export const CONTACT_CODE_MAX_ATTEMPTS = 5;
export const CONTACT_RESEND_MS = 60_000;
export const CONTACT_CODES_PER_DAY = 10;
const DAY_MS = 24 * 60 * MINUTE;

/** The code's stored form: HMAC-SHA256(PEPPER, "contact:" + account + ":" + code), hex. */
async function codeMac(pepper: string, account: string, code: string): Promise<string> {
  const enc = new TextEncoder();
  const key = await crypto.subtle.importKey("raw", enc.encode(pepper), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, enc.encode(`contact:${account}:${code}`)));
  return [...mac].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Whether the account's e-mail or phone is proven (an unknown user is not). */
export async function contactProven(db: D1Database, userId: number): Promise<boolean> {
  const row = await db.prepare("SELECT contact_verified_at AS at FROM users WHERE id = ?").bind(userId).first<{ at: number | null }>();
  return row !== null && row.at !== null;
}

/** Throws `contact_unverified` (403) unless the account's e-mail or phone is proven. */
export async function assertContactProven(db: D1Database, userId: number): Promise<void> {
  if (!(await contactProven(db, userId))) throw new ApiError("contact_unverified", 403);
}

/**
 * The gate of deposits, withdrawals and API key creation: `contact_unverified` before anything
 * is read or written. Use after requireUser. One indexed read; never on the order path.
 */
export const requireProvenContact = createMiddleware<AppEnv>(async (c, next) => {
  await assertContactProven(c.env.DB, c.get("user").id);
  await next();
});

/** Seconds until the account may ask for another code (0: now). */
async function resendWait(db: D1Database, account: string, at: number): Promise<number> {
  const last = await db
    .prepare("SELECT max(created_at) AS t FROM verification_codes WHERE account = ? AND purpose = 'contact' AND created_at > ?")
    .bind(account, at - CONTACT_RESEND_MS)
    .first<{ t: number | null }>();
  if (!last?.t) return 0;
  return Math.max(0, Math.ceil((CONTACT_RESEND_MS - (at - last.t)) / 1000));
}

/** What the banner shows: proven or not, and when another code may be asked for. */
export async function contactState(db: D1Database, userId: number, at = Date.now()): Promise<ContactState> {
  const row = await db.prepare("SELECT account, contact_verified_at AS v FROM users WHERE id = ?").bind(userId).first<{ account: string; v: number | null }>();
  if (!row) throw new ApiError("login_required", 401, undefined, "999");
  const proven = row.v !== null;
  return {
    contact_verified: proven,
    channel: accountMode(row.account) === 2 ? "sms" : "email",
    resend_in: proven ? 0 : await resendWait(db, row.account, at),
  };
}

/**
 * Sends a new code to the account's e-mail or phone: `code_wait` (with the seconds left) within
 * CONTACT_RESEND_MS of the last one, `code_daily_limit` past CONTACT_CODES_PER_DAY in a day. The
 * new code ends the earlier ones. The caller checks that the account is not proven yet.
 */
export async function sendContactCode(env: Env, account: string, at = Date.now()): Promise<void> {
  const db = env.DB;
  const code = String(randomInt(1_000_000)).padStart(6, "0");
  const mac = await codeMac(env.PEPPER, account, code);
  // One statement decides: the cool-down and the daily cap are read and the code written at once.
  // Only the newest code is ever checked, so a new one ends the older ones.
  const inserted = await db
    .prepare(
      `INSERT INTO verification_codes (account, purpose, code_hash, created_at, expires_at)
       SELECT ?1, 'contact', ?2, ?3, ?4
        WHERE NOT EXISTS (SELECT 1 FROM verification_codes WHERE account = ?1 AND purpose = 'contact' AND created_at > ?5)
          AND (SELECT count(*) FROM verification_codes WHERE account = ?1 AND purpose = 'contact' AND created_at > ?6) < ?7
       RETURNING id`,
    )
    .bind(account, mac, at, at + CONTACT_CODE_TTL_MS, at - CONTACT_RESEND_MS, at - DAY_MS, CONTACT_CODES_PER_DAY)
    .first<{ id: number }>();
  if (!inserted) {
    const wait = await resendWait(db, account, at);
    if (wait > 0) throw new ApiError("code_wait", 429, { seconds: wait });
    throw new ApiError("code_daily_limit", 429, { max: CONTACT_CODES_PER_DAY });
  }
  const sms = accountMode(account) === 2;
  await deliver(env, {
    channel: sms ? "sms" : "email",
    recipient: account,
    subject: sms ? "Confirm your phone number" : "Confirm your e-mail address",
    body: sms
      ? `Honest Exchange: your code is ${code}. It expires in 30 minutes.`
      : `Your confirmation code is ${code}. Enter it in the app to confirm this address; it expires in 30 minutes. If you did not open an account with us, ignore this e-mail.`,
    code,
  });
}

/**
 * The code sent at registration. A failed delivery does not undo the registration (the account
 * exists and is logged in): the banner's "send again" tries later.
 */
export async function sendFirstContactCode(env: Env, account: string): Promise<void> {
  try {
    await sendContactCode(env, account);
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    console.error(JSON.stringify({ level: "error", event: "contact_code_not_sent", reason: err.key }));
  }
}

/** POST /api/user/verify_contact/resend: a new code, unless the account is proven already. */
export async function resendContactCode(env: Env, userId: number): Promise<ContactState> {
  const state = await contactState(env.DB, userId);
  if (state.contact_verified) return state;
  const row = await env.DB.prepare("SELECT account FROM users WHERE id = ?").bind(userId).first<{ account: string }>();
  await sendContactCode(env, row!.account);
  return contactState(env.DB, userId);
}

/**
 * POST /api/user/verify_contact: checks the newest live code. The try is counted first; then an
 * expired code answers `code_expired`, a code tried too often `code_attempts`, a wrong one
 * `code_wrong`; the right one proves the address (and ends the code). Proven already: answered as
 * proven, whatever the code.
 */
export async function verifyContact(env: Env, userId: number, code: string, at = Date.now()): Promise<ContactState> {
  const db = env.DB;
  const user = await db.prepare("SELECT account, contact_verified_at AS v FROM users WHERE id = ?").bind(userId).first<{ account: string; v: number | null }>();
  if (!user) throw new ApiError("login_required", 401, undefined, "999");
  if (user.v !== null) return contactState(db, userId, at);
  const row = await db
    .prepare(
      `UPDATE verification_codes SET attempts = attempts + 1
        WHERE id = (SELECT id FROM verification_codes WHERE account = ? AND purpose = 'contact' AND consumed_at IS NULL ORDER BY id DESC LIMIT 1)
        RETURNING id, code_hash, attempts, expires_at`,
    )
    .bind(user.account)
    .first<{ id: number; code_hash: string; attempts: number; expires_at: number }>();
  if (!row) throw new ApiError("code_expired");
  if (row.attempts > CONTACT_CODE_MAX_ATTEMPTS) throw new ApiError("code_attempts", 429);
  if (row.expires_at <= at) throw new ApiError("code_expired");
  if (!timingSafeEqual(row.code_hash, await codeMac(env.PEPPER, user.account, code))) {
    const left = CONTACT_CODE_MAX_ATTEMPTS - row.attempts;
    if (left <= 0) throw new ApiError("code_attempts", 429);
    throw new ApiError("code_wrong_left", 400, { left });
  }
  await db.batch([
    db.prepare("UPDATE verification_codes SET consumed_at = ? WHERE id = ? AND consumed_at IS NULL").bind(at, row.id),
    db.prepare("UPDATE users SET contact_verified_at = ? WHERE id = ? AND contact_verified_at IS NULL").bind(at, userId),
  ]);
  return contactState(db, userId, at);
}
