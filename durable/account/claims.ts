/**
 * Claims of records that holds were made for (issue #28; migrations/0050_record_legs.sql): a
 * product that lives in D1 holds money in an account object first (hold `{kind}:{id}`, owner
 * `RECORD_OWNER`), then writes its record with `claimRecord` in the record's own batch. The
 * account object's orphan sweep, when such a hold is still open after the grace, claims the name
 * as an orphan first: whichever claim lands first stays, so a record can never come after its hold
 * was released, and a hold with a record is never released by the sweep.
 */

/** The owner named on a hold whose record lives in D1 (the sweep asks D1's claims about it). */
export const RECORD_OWNER = "d1";

/** The statement that claims `hold` for its record, in the record's batch (a second claim aborts the batch). */
export function claimRecord(db: D1Database, hold: string, now: number): D1PreparedStatement {
  return db.prepare("INSERT INTO object_hold_claims (hold, state, created_at) VALUES (?, 'record', ?)").bind(hold, now);
}

/** The sweep's question: claims `hold` as an orphan unless its record claimed it first; answers who holds the claim. */
export async function claimOrphan(db: D1Database, hold: string, now: number): Promise<"record" | "orphan"> {
  const [, row] = await db.batch([
    db.prepare("INSERT INTO object_hold_claims (hold, state, created_at) VALUES (?, 'orphan', ?) ON CONFLICT (hold) DO NOTHING").bind(hold, now),
    db.prepare("SELECT state FROM object_hold_claims WHERE hold = ?").bind(hold),
  ]);
  return ((row?.results?.[0] as { state?: string } | undefined)?.state ?? "orphan") === "record" ? "record" : "orphan";
}
