/**
 * The account object's drain into D1, the read model (migrations/0041): movements into
 * `account_movements` keyed by (user, seq), which a trigger folds into `account_balances`;
 * notifications into the inbox's `notifications` keyed by (user, event key); the object's bookmark
 * into `account_drained`. One D1 batch per step (one transaction), every row an insert that a
 * second copy leaves alone, so a step repeated after a crash (D1 committed, the object's bookmark
 * not yet moved) changes nothing: re-draining is harmless.
 */
import type { PendingMovement, PendingNotice } from "./book.ts";

/** Rows per step: one JSON text per statement, about 100 bytes a row. */
export const DRAIN_BATCH = 256;

export function drainStatements(db: D1Database, userId: number, movements: readonly PendingMovement[], notices: readonly PendingNotice[], now: number): D1PreparedStatement[] {
  const stmts: D1PreparedStatement[] = [];
  if (movements.length > 0)
    stmts.push(
      db
        .prepare(
          `INSERT INTO account_movements (user_id, seq, ref, account, currency_id, d_available, d_frozen, created_at)
           SELECT ?1, value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4, value ->> 5, value ->> 6 FROM json_each(?2) WHERE true
           ON CONFLICT (user_id, seq) DO NOTHING`,
        )
        .bind(userId, JSON.stringify(movements.map((m) => [m.seq, m.ref, m.kind, m.currency, m.d_available, m.d_frozen, m.at]))),
    );
  if (notices.length > 0)
    stmts.push(
      db
        .prepare(
          `INSERT INTO notifications (user_id, event_key, kind, params, link, created_at)
           SELECT ?1, value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4 FROM json_each(?2) WHERE true
           ON CONFLICT (user_id, event_key) DO NOTHING`,
        )
        .bind(userId, JSON.stringify(notices.map((n) => [n.event_key, n.kind, n.params, n.link, n.created_at]))),
    );
  const seq = movements.at(-1)?.seq ?? 0;
  const noticeSeq = notices.at(-1)?.seq ?? 0;
  stmts.push(
    db
      .prepare(
        `INSERT INTO account_drained (user_id, seq, notice_seq, drained_at) VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT (user_id) DO UPDATE SET seq = max(seq, excluded.seq), notice_seq = max(notice_seq, excluded.notice_seq), drained_at = excluded.drained_at`,
      )
      .bind(userId, seq, noticeSeq, now),
  );
  return stmts;
}

/**
 * The same step for shard `shard` of system account `userId` (migrations/0049: keyed by shard too;
 * no notifications): one statement, its trigger moves `system_drained`.
 */
export function systemDrainStatements(db: D1Database, userId: number, shard: number, movements: readonly PendingMovement[]): D1PreparedStatement[] {
  if (movements.length === 0) return [];
  return [
    db
      .prepare(
        `INSERT INTO system_movements (user_id, shard, seq, ref, account, currency_id, d_available, d_frozen, created_at)
         SELECT ?1, ?2, value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4, value ->> 5, value ->> 6 FROM json_each(?3) WHERE true
         ON CONFLICT (user_id, shard, seq) DO NOTHING`,
      )
      .bind(userId, shard, JSON.stringify(movements.map((m) => [m.seq, m.ref, m.kind, m.currency, m.d_available, m.d_frozen, m.at]))),
  ];
}
