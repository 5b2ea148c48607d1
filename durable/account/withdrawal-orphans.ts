/**
 * The orphan sweep's question about a withdrawal's hold (issue #28, objects mode): the hold
 * `withdrawal:{id}` is made in the user's object first and the record (D1's `withdrawals` row)
 * after it (worker/domain/withdrawals/objects.ts). A Worker that dies between the two leaves a hold
 * with no record; after the grace the object asks D1 here. A record there: the hold is known (its
 * operator's decision resolves it). None: the id is tombstoned first (migrations/0050: the record's
 * insert is refused from then on), so releasing the hold can never race a late record.
 */

/** The owner a withdrawal's hold names (its record lives in D1). */
export const WITHDRAWAL_OWNER = "d1:withdrawals";

/** `known` when the user's record of withdrawal `id` is in D1; otherwise the id is tombstoned (or was already). */
export async function withdrawalVerdict(db: D1Database, userId: number, id: number, now: number): Promise<"known" | "tombstoned"> {
  const [, seen] = await db.batch([
    db
      .prepare("INSERT INTO withdrawal_orphans (id, user_id, created_at) SELECT ?1, ?2, ?3 WHERE NOT EXISTS (SELECT 1 FROM withdrawals WHERE id = ?1) ON CONFLICT (id) DO NOTHING")
      .bind(id, userId, now),
    db.prepare("SELECT EXISTS (SELECT 1 FROM withdrawals WHERE id = ? AND user_id = ?) AS known").bind(id, userId),
  ]);
  return (seen!.results[0] as { known: number } | undefined)?.known === 1 ? "known" : "tombstoned";
}
