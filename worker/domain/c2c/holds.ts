/**
 * C2C escrow as a reconciliation hold source (worker/lib/reconcile.ts): the frozen funds of a
 * user's legal account are explained by their merchant deposit (application applying or
 * approved), the remaining escrow of their sell adverts (on shelf, off shelf, abnormal) and the
 * coins of the running orders (unpaid or paid) in which they are the seller. In objects mode a
 * record's transition has ended before its legs reach the account object (worker/lib/record-legs.ts):
 * the coins those unanswered legs will spend or release are still frozen there, and counted here.
 */
import type { Hold, HoldSource, UserHold } from "../ledger/holds.ts";

export const c2cHolds: HoldSource = {
  name: "c2c",
  async load(db) {
    const { results } = await db
      .prepare(
        `SELECT user_id, currency_id, CAST(SUM(units) AS TEXT) AS units FROM (
           SELECT user_id, currency_id, deposit AS units FROM c2c_merchants WHERE status IN (0, 1)
           UNION ALL SELECT user_id, currency_id, remaining FROM c2c_adverts WHERE type = 'sell' AND status IN (1, 2, 4)
           UNION ALL SELECT seller_id, currency_id, amount FROM c2c_orders WHERE is_sure IN (0, 3)
           UNION ALL SELECT CAST(substr(l.dest, 6) AS INTEGER), CAST(o.value ->> 'cur' AS INTEGER), o.value ->> 'amt'
             FROM record_legs l, json_each(l.ops) o WHERE l.record LIKE 'c2c_%' AND l.dest LIKE 'user:%' AND o.value ->> 't' IN ('spend', 'release')
         ) GROUP BY user_id, currency_id HAVING SUM(units) != 0`,
      )
      .all<{ user_id: number; currency_id: number; units: string }>();
    return results.map((r): Hold => ({ userId: r.user_id, currencyId: r.currency_id, account: "legal", units: BigInt(r.units) }));
  },
  async forUser(db, userId) {
    const { results } = await db
      .prepare(
        `SELECT 'c2c_deposit' AS purpose, id, currency_id, CAST(deposit AS TEXT) AS units FROM c2c_merchants WHERE user_id = ?1 AND status IN (0, 1) AND deposit != 0
         UNION ALL SELECT 'c2c_advert', id, currency_id, CAST(remaining AS TEXT) FROM c2c_adverts WHERE user_id = ?1 AND type = 'sell' AND status IN (1, 2, 4) AND remaining != 0
         UNION ALL SELECT 'c2c_order', id, currency_id, CAST(amount AS TEXT) FROM c2c_orders WHERE seller_id = ?1 AND is_sure IN (0, 3)`,
      )
      .bind(userId)
      .all<{ purpose: "c2c_deposit" | "c2c_advert" | "c2c_order"; id: number; currency_id: number; units: string }>();
    return results.map(userHold);
  },
  /**
   * As the objects path holds them (objects.ts): a running order on a sell advert draws on the
   * advert's hold, so the advert's opening hold is its remaining plus its running orders; only a
   * user's sale to a buy advert is a hold of its own order.
   */
  async openingHolds(db, userId) {
    const { results } = await db
      .prepare(
        `SELECT 'c2c_deposit' AS purpose, id, currency_id, CAST(deposit AS TEXT) AS units FROM c2c_merchants WHERE user_id = ?1 AND status IN (0, 1) AND deposit != 0
         UNION ALL SELECT 'c2c_advert', a.id, a.currency_id, CAST(a.remaining + COALESCE((SELECT SUM(o.amount) FROM c2c_orders o WHERE o.advert_id = a.id AND o.is_sure IN (0, 3)), 0) AS TEXT)
           FROM c2c_adverts a WHERE a.user_id = ?1 AND a.type = 'sell' AND a.status IN (1, 2, 4)
         UNION ALL SELECT 'c2c_order', id, currency_id, CAST(amount AS TEXT) FROM c2c_orders WHERE seller_id = ?1 AND type = 'buy' AND is_sure IN (0, 3)`,
      )
      .bind(userId)
      .all<{ purpose: "c2c_deposit" | "c2c_advert" | "c2c_order"; id: number; currency_id: number; units: string }>();
    return results.map(userHold);
  },
};

const refType = { c2c_deposit: "c2c_merchant", c2c_advert: "c2c_advert", c2c_order: "c2c_order" } as const;
function userHold(r: { purpose: "c2c_deposit" | "c2c_advert" | "c2c_order"; id: number; currency_id: number; units: string }): UserHold {
  return { currencyId: r.currency_id, account: "legal", units: BigInt(r.units), purpose: r.purpose, ref: { type: refType[r.purpose], id: r.id }, label: "" };
}

/** What C2C holds frozen in one user's legal account of one coin (deposit, sell-advert escrow, running orders as seller). */
export async function c2cHeldBy(db: D1Database, userId: number, currencyId: number): Promise<bigint> {
  const r = await db
    .prepare(
      `SELECT CAST(
         COALESCE((SELECT SUM(deposit) FROM c2c_merchants WHERE user_id = ?1 AND currency_id = ?2 AND status IN (0, 1)), 0)
       + COALESCE((SELECT SUM(remaining) FROM c2c_adverts WHERE user_id = ?1 AND currency_id = ?2 AND type = 'sell' AND status IN (1, 2, 4)), 0)
       + COALESCE((SELECT SUM(amount) FROM c2c_orders WHERE seller_id = ?1 AND currency_id = ?2 AND is_sure IN (0, 3)), 0) AS TEXT) AS units`,
    )
    .bind(userId, currencyId)
    .first<{ units: string }>();
  return BigInt(r?.units ?? "0");
}
