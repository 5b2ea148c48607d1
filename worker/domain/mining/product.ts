/**
 * Mining plans (schemas/products.ts "mining"; no account of its own). Its only hold, for the
 * reconciler: an approved, not yet fully paid pool payout, frozen in the treasury's `change`
 * account in the payout currency (amount − what the cron has credited so far). A share's price
 * is paid to the treasury outright, so users hold nothing for this product.
 */
import { HOUSE_ACCOUNT, TREASURY } from "../../lib/guarded.ts";
import { shardOf } from "../../../durable/account/address.ts";
import { treasuryRecordHolds, type HoldSource, type ProductModule } from "../ledger/holds.ts";
import { PAYOUT_HOLD } from "./payouts.ts";

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
  // A payout approved before the cut-over: what it has not credited yet becomes `mining_payout:{id}` in its treasury shard.
  systemOpeningHolds: (db) =>
    treasuryRecordHolds(db, "SELECT id, currency_id, CAST(amount - credited AS TEXT) AS units FROM mining_payouts WHERE status = 'approved' ORDER BY id", PAYOUT_HOLD, (id) => shardOf(id)),
};

export const miningProduct: ProductModule = { id: "mining", holdSources: [miningHolds] };
