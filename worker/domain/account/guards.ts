/**
 * Account guards (issue #29): the second factor that confirms a withdrawal or a security change,
 * the anti-phishing code, the withdrawal whitelist and setting the settings lock (whose check is
 * in ./settings-lock.ts).
 */
import type { SecondFactor, SecuritySettings } from "../../../schemas/security.ts";
import { now } from "../../lib/clock.ts";
import { ApiError } from "../../lib/errors.ts";
import { formatShanghai } from "../../lib/time.ts";
import { announceNotifications } from "../notifications/inbox.ts";
import { checkTotpIfEnabled } from "./security.ts";
import { verifyPasskeyConfirmation, type RelyingParty } from "./passkeys.ts";
import { batchUnlessLocked, refuseWhileLocked, securityNotice } from "./settings-lock.ts";

const DAY_MS = 24 * 3600 * 1000;

/** The second factors the account has. */
export async function factorsOf(db: D1Database, userId: number): Promise<{ totp: boolean; passkeys: number }> {
  const row = await db
    .prepare(
      `SELECT EXISTS (SELECT 1 FROM totp_secrets WHERE user_id = ?1 AND enabled = 1) AS totp,
              (SELECT count(*) FROM passkeys WHERE user_id = ?1) AS passkeys`,
    )
    .bind(userId)
    .first<{ totp: number; passkeys: number }>();
  return { totp: row?.totp === 1, passkeys: row?.passkeys ?? 0 };
}

/**
 * Checks the second factor of a withdrawal or a security change: a passkey's answer to a
 * confirmation challenge, or else the authenticator code. An account with an authenticator needs
 * its code (or a passkey); an account with passkeys only needs a passkey. With `required`, an
 * account with neither is refused (`second_factor_required`): a security change needs one.
 */
export async function checkSecondFactor(env: Env, userId: number, f: SecondFactor, rp: RelyingParty, opts: { required: boolean }): Promise<void> {
  if (f.passkey) {
    await verifyPasskeyConfirmation(env, userId, f.passkey, rp);
    return;
  }
  const has = await factorsOf(env.DB, userId);
  if (has.totp) {
    await checkTotpIfEnabled(env, userId, f.totp_code);
    return;
  }
  if (has.passkeys > 0) throw new ApiError("passkey_required");
  if (opts.required) throw new ApiError("second_factor_required", 403);
}

/** The account's guards as the security screens show them. */
export async function securitySettings(db: D1Database, userId: number, at = now()): Promise<SecuritySettings> {
  const row = await db
    .prepare(
      `SELECT u.anti_phishing_code, u.withdraw_whitelist, u.settings_locked_until, u.contact_verified_at,
              EXISTS (SELECT 1 FROM totp_secrets t WHERE t.user_id = u.id AND t.enabled = 1) AS totp,
              (SELECT count(*) FROM passkeys p WHERE p.user_id = u.id) AS passkeys
         FROM users u WHERE u.id = ?`,
    )
    .bind(userId)
    .first<{ anti_phishing_code: string | null; withdraw_whitelist: number; settings_locked_until: number; contact_verified_at: number | null; totp: number; passkeys: number }>();
  if (!row) throw new ApiError("login_required", 401, undefined, "999");
  const locked = row.settings_locked_until > at;
  return {
    totp_enabled: row.totp === 1,
    passkeys: row.passkeys,
    anti_phishing_code: row.anti_phishing_code,
    whitelist: row.withdraw_whitelist === 1,
    locked_until: locked ? new Date(row.settings_locked_until).toISOString() : null,
    locked_until_text: locked ? formatShanghai(row.settings_locked_until) : null,
    contact_verified: row.contact_verified_at !== null,
  };
}

/** Sets the anti-phishing code (second factor required; frozen by the lock; notified). */
export async function setAntiPhishing(env: Env, userId: number, code: string, f: SecondFactor, rp: RelyingParty): Promise<void> {
  await refuseWhileLocked(env.DB, userId);
  await checkSecondFactor(env, userId, f, rp, { required: true });
  const db = env.DB;
  await batchUnlessLocked(db, userId, [
    db.prepare("UPDATE users SET anti_phishing_code = ? WHERE id = ?").bind(code, userId),
    securityNotice(db, userId, "security_anti_phishing"),
  ]);
  await announceNotifications(env, [userId]);
}

/** Turns the withdrawal whitelist on or off (second factor required; frozen by the lock; notified). */
export async function setWhitelist(env: Env, userId: number, on: boolean, f: SecondFactor, rp: RelyingParty): Promise<void> {
  await refuseWhileLocked(env.DB, userId);
  await checkSecondFactor(env, userId, f, rp, { required: true });
  const db = env.DB;
  await batchUnlessLocked(db, userId, [
    db.prepare("UPDATE users SET withdraw_whitelist = ? WHERE id = ?").bind(on ? 1 : 0, userId),
    securityNotice(db, userId, on ? "security_whitelist_on" : "security_whitelist_off"),
  ]);
  await announceNotifications(env, [userId]);
}

/**
 * Locks the settings for `days` (second factor required; notified). A lock only ever grows: a
 * shorter one asked for while locked leaves the longer one in place.
 */
export async function lockSettings(env: Env, userId: number, days: number, f: SecondFactor, rp: RelyingParty): Promise<void> {
  await checkSecondFactor(env, userId, f, rp, { required: true });
  const db = env.DB;
  const at = now();
  const until = at + days * DAY_MS;
  await db.batch([
    db.prepare("UPDATE users SET settings_locked_until = max(settings_locked_until, ?) WHERE id = ?").bind(until, userId),
    securityNotice(db, userId, "security_locked", { time: formatShanghai(until), days }, at),
  ]);
  await announceNotifications(env, [userId]);
}

/**
 * The whitelist's rule for a withdrawal to `address`: with the whitelist on, it must be an entry of
 * the address book for the currency (and network, for a chain withdrawal), and an entry added while
 * the whitelist was on opens 24 hours after it was added (`address_cooling` with that time).
 */
export async function checkWhitelist(db: D1Database, userId: number, w: { currencyId: number; network: number; address: string; inSite: boolean }, at = now()): Promise<void> {
  const row = await db
    .prepare(
      `SELECT u.withdraw_whitelist AS on_,
              (SELECT min(a.usable_at) FROM withdraw_addresses a
                WHERE a.user_id = u.id AND a.currency_id = ?2
                  AND (CASE WHEN ?4 = 1 THEN lower(a.address) = lower(?3) ELSE a.address = ?3 AND a.network = ?5 END)) AS usable_at
         FROM users u WHERE u.id = ?1`,
    )
    .bind(userId, w.currencyId, w.address, w.inSite ? 1 : 0, w.network)
    .first<{ on_: number; usable_at: number | null }>();
  if (!row || row.on_ !== 1) return;
  if (row.usable_at === null) throw new ApiError("address_not_whitelisted", 403);
  if (row.usable_at > at) throw new ApiError("address_cooling", 403, { time: formatShanghai(row.usable_at), opens_at: new Date(row.usable_at).toISOString() });
}
