/**
 * Mining plans (schemas/products.ts "mining"; no account of its own). Its only hold, for the
 * reconciler: an approved, not yet fully paid pool payout, frozen in the treasury's `change`
 * account in the payout currency (amount − what the cron has credited so far). A share's price
 * is paid to the treasury outright, so users hold nothing for this product.
 */
import { HOUSE_ACCOUNT, TREASURY } from "../../lib/guarded.ts";
import type { HoldSource, ProductModule } from "../ledger/holds.ts";

export const miningHolds: HoldSource = {
  name: "mining",
  async load(db) {
    const { results } = await db
      .prepare(
        `SELECT currency_id, CAST(SUM(amount - credited) AS TEXT) AS units FROM mining_payouts WHERE status = 'approved' GROUP BY currency_id`,
      )
      .all<{ currency_id: number; units: string }>();
    return results.map((r) => ({ userId: TREASURY, currencyId: r.currency_id, account: HOUSE_ACCOUNT, units: BigInt(r.units) }));
  },
};

export const miningProduct: ProductModule = { id: "mining", holdSources: [miningHolds] };
