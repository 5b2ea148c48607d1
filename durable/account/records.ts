/**
 * Holds whose record is a D1 row (owner `d1`: C2C orders, sell adverts, merchant deposits;
 * worker/domain/c2c/objects.ts). The Worker holds first and writes the record after; one that died
 * in between leaves a hold no record explains. The account object's orphan sweep asks D1 about such
 * a hold after its grace: in one batch the record's id is tombstoned unless the record exists, so a
 * late batch carrying the record is refused (its tombstone guard) and the hold can be given back.
 */

/** The owner name of a hold whose record lives in D1. */
export const D1_RECORD_OWNER = "d1";

/** The D1 table of each hold kind whose record lives there. */
const RECORD_TABLES: Record<string, string> = {
  c2c_order: "c2c_orders",
  c2c_advert: "c2c_adverts",
  c2c_deposit: "c2c_merchants",
};

/**
 * `known`: the record exists (its transitions resolve the hold); `tombstoned`: it does not, and now
 * never will; `unknown`: not a kind this module knows (left for an operator).
 */
export async function recordVerdict(db: D1Database, forKind: string, forId: string, now = Date.now()): Promise<"known" | "tombstoned" | "unknown"> {
  const table = RECORD_TABLES[forKind];
  const id = Number(forId);
  if (!table || !/^[0-9]{1,16}$/.test(forId) || !Number.isSafeInteger(id)) return "unknown";
  const [, known] = await db.batch([
    db
      .prepare(`INSERT INTO record_tombstones (kind, id, created_at) SELECT ?1, ?2, ?3 WHERE NOT EXISTS (SELECT 1 FROM ${table} WHERE id = ?2) ON CONFLICT DO NOTHING`)
      .bind(forKind, id, now),
    db.prepare(`SELECT EXISTS (SELECT 1 FROM ${table} WHERE id = ?) AS known`).bind(id),
  ]);
  return (known?.results?.[0] as { known: number } | undefined)?.known ? "known" : "tombstoned";
}
