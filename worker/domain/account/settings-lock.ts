/**
 * The settings lock (issue #29): it freezes the whitelist, the address book, the second factors
 * (fund password, authenticator, passkeys) and the anti-phishing code until a time.
 *
 * Its check is never a read before a write: every change it freezes runs in one D1 batch that
 * starts with `settingsLockGuard`, a statement that fails (and so rolls the whole batch back) when
 * the account is locked at that moment (migrations/0043_account_guards.sql, settings_lock_guard).
 * D1 runs batches one at a time, so a change and a lock sent in parallel are ordered: the change
 * either committed before the lock or is refused with `settings_locked`.
 */
import type { NotificationKind } from "../../../schemas/notification.ts";
import { now } from "../../lib/clock.ts";
import { ApiError } from "../../lib/errors.ts";
import { formatShanghai } from "../../lib/time.ts";
import { notificationStatement } from "../notifications/inbox.ts";
import { NOTIFICATION_LINKS } from "../notifications/events.ts";

/**
 * A statement to put FIRST in the batch of any change the settings lock freezes: it fails when the
 * user's settings are locked at `at`, so the batch (the change with it) does nothing. Used through
 * `batchUnlessLocked`.
 */
export function settingsLockGuard(db: D1Database, userId: number, at = now()): D1PreparedStatement {
  return db.prepare("INSERT INTO settings_lock_guard (user_id) SELECT id FROM users WHERE id = ? AND settings_locked_until > ?").bind(userId, at);
}

/** The refusal of a change while the settings are locked, naming the time the lock ends. */
async function lockedError(db: D1Database, userId: number): Promise<ApiError> {
  const row = await db.prepare("SELECT settings_locked_until AS until FROM users WHERE id = ?").bind(userId).first<{ until: number }>();
  return new ApiError("settings_locked", 409, { time: formatShanghai(row?.until ?? now()) });
}

/**
 * Runs `statements` as one batch, refused with `settings_locked` (and nothing written) when the
 * user's settings are locked. The check and the change are one transaction, so a lock committed in
 * parallel cannot be slipped past. Answers the statements' own results (the guard's left out).
 * This is the one function every change the lock freezes goes through (API keys included).
 */
export async function batchUnlessLocked(db: D1Database, userId: number, statements: D1PreparedStatement[], at = now()): Promise<D1Result[]> {
  try {
    const results = await db.batch([settingsLockGuard(db, userId, at), ...statements]);
    return results.slice(1);
  } catch (err) {
    if (/settings_locked/.test(String((err as Error)?.message ?? err))) throw await lockedError(db, userId);
    throw err;
  }
}

/** Refuses early (before slow checks) when the settings are locked; the batch still decides. */
export async function refuseWhileLocked(db: D1Database, userId: number, at = now()): Promise<void> {
  const row = await db.prepare("SELECT settings_locked_until AS until FROM users WHERE id = ?").bind(userId).first<{ until: number }>();
  if (row && row.until > at) throw new ApiError("settings_locked", 409, { time: formatShanghai(row.until) });
}

/** A security notification for the change's own batch (each change is its own event). */
export function securityNotice(db: D1Database, userId: number, kind: NotificationKind, params: Record<string, string | number> = {}, at = now()): D1PreparedStatement {
  return notificationStatement(db, { userId, kind, key: `security:${crypto.randomUUID()}`, params, link: NOTIFICATION_LINKS.security, now: at });
}

