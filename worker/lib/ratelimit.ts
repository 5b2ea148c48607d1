/**
 * Fixed-window rate limits in D1: one UPSERT ... RETURNING per hit, so concurrent requests on any
 * isolate see the same count (strongly consistent, unlike the Workers rate-limit binding).
 */
import { ApiError } from "./errors.ts";

/** Counts a hit on `key`; throws 429 too_many_requests when more than `limit` fall in the window. */
export async function rateLimit(db: D1Database, key: string, limit: number, windowMs: number, now = Date.now()) {
  const windowStart = now - (now % windowMs);
  const row = await db
    .prepare(
      `INSERT INTO rate_limits (key, window_start, count) VALUES (?1, ?2, 1)
       ON CONFLICT (key) DO UPDATE SET
         count = CASE WHEN window_start = ?2 THEN count + 1 ELSE 1 END,
         window_start = ?2
       RETURNING count`,
    )
    .bind(key, windowStart)
    .first<{ count: number }>();
  if ((row?.count ?? 0) > limit) throw new ApiError("too_many_requests", 429);
}

/** The caller's address as Cloudflare reports it (loopback locally). */
export function clientIp(req: Request): string {
  return req.headers.get("cf-connecting-ip") ?? req.headers.get("x-real-ip") ?? "local";
}
