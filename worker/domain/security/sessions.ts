/**
 * Sessions as devices, and the sign-in history (issue #29; migrations/0042). Revoking a session
 * ends it in D1 (its next request is refused by the one session query, worker/lib/auth.ts) and
 * closes its open sockets on the user's channel object at once (durable/user.ts `endSessions`).
 */
import type { LoginEvent, SessionView } from "../../../schemas/sessions.ts";
import { ApiError, notFound } from "../../lib/errors.ts";
import { userStub } from "../../lib/notify.ts";
import { changingSessions } from "../../lib/session-push.ts";

/** How long sign-ins and failed attempts are kept and listed. */
export const LOGIN_HISTORY_MS = 90 * 24 * 3600 * 1000;
const MAX_LISTED = 200;

/** One's live sessions, newest first; `current` marks the one of this request. */
export async function listSessions(db: D1Database, userId: number, currentSessionId: number, now = Date.now()): Promise<SessionView[]> {
  const { results } = await db
    .prepare(
      `SELECT id, system, browser, ip, place, created_at, COALESCE(last_seen_at, created_at) AS last_seen_at FROM sessions
       WHERE user_id = ? AND revoked_at IS NULL AND expires_at > ? ORDER BY COALESCE(last_seen_at, created_at) DESC, id DESC LIMIT ?`,
    )
    .bind(userId, now, MAX_LISTED)
    .all<{ id: number; system: string | null; browser: string | null; ip: string | null; place: string | null; created_at: number; last_seen_at: number }>();
  return results.map((r) => ({
    id: r.id,
    device: r.system,
    browser: r.browser,
    ip: r.ip === "test" || r.ip === "" ? null : r.ip,
    place: r.place,
    created_at: r.created_at,
    last_seen_at: r.last_seen_at,
    current: r.id === currentSessionId,
  }));
}

/**
 * Ends one of one's sessions (`{id}`) or every other one (`{all: true}`), then closes their open
 * sockets. Answers how many sessions ended. An id that is not one of one's live sessions is not found.
 */
export async function revokeSessions(env: Pick<Env, "DB" | "USER" | "ACCOUNTS">, userId: number, currentSessionId: number, target: { id: number } | { all: true }, now = Date.now()): Promise<number> {
  if ("id" in target && target.id === currentSessionId) throw new ApiError("session_current", 409);
  // The user's account object is told first (objects mode: worker/lib/session-push.ts).
  const { results } = await changingSessions(env, userId, () => ("id" in target
    ? env.DB.prepare("UPDATE sessions SET revoked_at = ? WHERE id = ? AND user_id = ? AND revoked_at IS NULL AND expires_at > ? RETURNING id").bind(now, target.id, userId, now)
    : env.DB.prepare("UPDATE sessions SET revoked_at = ? WHERE user_id = ? AND id != ? AND revoked_at IS NULL AND expires_at > ? RETURNING id").bind(now, userId, currentSessionId, now)
  ).all<{ id: number }>());
  if ("id" in target && results.length === 0) throw notFound();
  if (results.length > 0) await userStub(env, userId).endSessions(results.map((r) => r.id));
  return results.length;
}

/** One's sign-ins and failed attempts of the last 90 days, newest first. */
export async function listLogins(db: D1Database, userId: number, now = Date.now()): Promise<LoginEvent[]> {
  const { results } = await db
    .prepare("SELECT at, ok, ip, device, place FROM login_events WHERE user_id = ? AND at > ? ORDER BY at DESC, id DESC LIMIT ?")
    .bind(userId, now - LOGIN_HISTORY_MS, MAX_LISTED)
    .all<{ at: number; ok: number; ip: string; device: string; place: string | null }>();
  return results.map((r) => ({ at: r.at, ok: r.ok === 1, ip: r.ip, device: r.device, place: r.place }));
}

/** Drops sign-in records older than the history keeps (the cron's housekeeping). */
export function pruneLoginEventsStatement(db: D1Database, now: number): D1PreparedStatement {
  return db.prepare("DELETE FROM login_events WHERE at < ?").bind(now - LOGIN_HISTORY_MS);
}
