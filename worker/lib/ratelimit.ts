/**
 * Counters in D1 that parallel requests cannot outrun. Every counter is one UPSERT ... RETURNING,
 * so concurrent requests on any isolate see the same count (strongly consistent, unlike the
 * Workers rate-limit binding), and a guarded secret is counted *before* it is checked: twenty
 * parallel guesses get the counts 1..20, and only the first `limit` of them are ever compared.
 */
import { ApiError } from "./errors.ts";

/** Counts a hit on `key`; throws 429 too_many_requests when more than `limit` fall in the window. */
export async function rateLimit(db: D1Database, key: string, limit: number, windowMs: number, now = Date.now()) {
  const { count } = await countHit(db, key, windowMs, now);
  if (count > limit) throw new ApiError("too_many_requests", 429);
}

/** One atomic increment of a fixed-window counter; returns the count including this hit. */
async function countHit(db: D1Database, key: string, windowMs: number, now: number) {
  const windowStart = now - (now % windowMs);
  const row = await hitStatement(db, key, windowMs, now).first<{ count: number }>();
  return { count: row?.count ?? Number.MAX_SAFE_INTEGER, windowStart };
}

/** The counting statement of `rateLimit` (rows `{ count }`, this hit included), for a batch that carries more. */
export function hitStatement(db: D1Database, key: string, windowMs: number, now: number): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO rate_limits (key, window_start, count) VALUES (?1, ?2, 1)
       ON CONFLICT (key) DO UPDATE SET
         count = CASE WHEN window_start = ?2 THEN count + 1 ELSE 1 END,
         window_start = ?2
       RETURNING count`,
    )
    .bind(key, now - (now % windowMs));
}

/** A reserved guess at a secret: give it back with `refund` when the secret turned out right. */
export interface Attempt {
  refund(): Promise<void>;
}

/**
 * Reserves one guess at the secret guarded by `key` before the secret is checked. At most `limit`
 * guesses are reserved per window, however many requests arrive at once; the rest are refused with
 * 429 too_many_requests without looking at the secret. A right guess refunds its reservation, so
 * only wrong (or still running) guesses count.
 */
export async function reserveAttempt(db: D1Database, key: string, limit: number, windowMs: number, now = Date.now()): Promise<Attempt> {
  const { count, windowStart } = await countHit(db, key, windowMs, now);
  if (count > limit) throw new ApiError("too_many_requests", 429);
  return {
    async refund() {
      await db.prepare("UPDATE rate_limits SET count = count - 1 WHERE key = ? AND window_start = ? AND count > 0").bind(key, windowStart).run();
    },
  };
}

/**
 * Login attempts per (account, address), a sliding lock: `max` guesses are checked, then the
 * address is locked out of the account for `lockMs` after the last checked guess. The attempt is
 * counted before the password is compared (see reserveAttempt); a right password clears the row.
 * Returns null when this request may check the password, or the refusal to throw.
 */
export async function reserveLoginAttempt(db: D1Database, key: string, max: number, lockMs: number, now = Date.now()) {
  // SQLite evaluates every SET expression against the old row, so `failures` and `updated_at`
  // below both see the values from before this attempt. The row starts afresh once its lock has
  // run out, or when no guess was checked for `lockMs`.
  const EXPIRED = "((locked_until != 0 AND locked_until <= ?2) OR ?2 - updated_at >= ?3)";
  const row = await db
    .prepare(
      `INSERT INTO login_failures (key, failures, locked_until, updated_at) VALUES (?1, 1, 0, ?2)
       ON CONFLICT (key) DO UPDATE SET
         failures = CASE WHEN ${EXPIRED} THEN 1 ELSE failures + 1 END,
         locked_until = CASE WHEN ${EXPIRED} THEN 0 ELSE locked_until END,
         updated_at = CASE WHEN ${EXPIRED} OR failures < ?4 THEN ?2 ELSE updated_at END
       RETURNING failures, locked_until, updated_at`,
    )
    .bind(key, now, lockMs, max)
    .first<{ failures: number; locked_until: number; updated_at: number }>();
  if (!row) throw new ApiError("try_again", 429);
  if (row.failures <= max) return null;
  // Over the limit: locked if the checked guesses already failed, else guesses are still running.
  if (row.locked_until > now) return new ApiError("login_locked", 429, { minutes: Math.max(1, Math.ceil((row.locked_until - now) / 60_000)) });
  return new ApiError("too_many_requests", 429);
}

/** Records that a checked login guess was wrong; the guess that reaches `max` starts the lock. */
export async function failLoginAttempt(db: D1Database, key: string, max: number, lockMs: number, now = Date.now()) {
  await db
    .prepare("UPDATE login_failures SET locked_until = ?2 WHERE key = ?1 AND failures >= ?3 AND locked_until <= ?4")
    .bind(key, now + lockMs, max, now)
    .run();
}

/**
 * The caller's address. Deployed, Cloudflare's edge sets CF-Connecting-IP and overwrites whatever a
 * client sent, so it is trusted there and nothing else is (no x-real-ip, no x-forwarded-for).
 * Locally no edge sets it: `npm start` turns TRUST_CF_CONNECTING_IP off and every request counts
 * as one fixed address, so a client-sent header cannot spread guesses over invented addresses.
 */
export function clientIp(req: Request, env: Pick<Env, "TRUST_CF_CONNECTING_IP">): string {
  if (env.TRUST_CF_CONNECTING_IP !== "on") return "local";
  return req.headers.get("cf-connecting-ip")?.trim() || "unknown";
}

/**
 * Where the caller is, as Cloudflare's edge places its address ("Tokyo, JP"), or null: only when
 * the edge is trusted (as for `clientIp`), and only what the edge set on the request (`request.cf`).
 */
export function clientPlace(req: Request, env: Pick<Env, "TRUST_CF_CONNECTING_IP">): string | null {
  if (env.TRUST_CF_CONNECTING_IP !== "on") return null;
  const cf = (req as { cf?: { city?: unknown; country?: unknown } }).cf;
  const parts = [cf?.city, cf?.country].filter((p): p is string => typeof p === "string" && p.trim() !== "");
  return parts.length > 0 ? parts.join(", ").slice(0, 80) : null;
}

/** Deletes counters whose window started over a day ago (the cron's housekeeping; no window here is longer). */
export function pruneRateLimitsStatement(db: D1Database, now: number): D1PreparedStatement {
  return db.prepare("DELETE FROM rate_limits WHERE window_start < ?").bind(now - 24 * 3600 * 1000);
}
