/**
 * Contract-asset cover (schemas/products.ts "insurance"): no account of its own. The cover of every
 * live cover (bought, or claimed and queued) is frozen in the treasury from purchase until it is
 * paid or ends; that is the only hold it makes (the premium is paid, not held).
 */
import { HOUSE_ACCOUNT, TREASURY } from "../../lib/guarded.ts";
import { shardOf } from "../../../durable/account/address.ts";
import { treasuryRecordHolds, type Hold, type HoldSource, type ProductModule } from "../ledger/holds.ts";
import { COVER_HOLD } from "./covers.ts";

export const insuranceHolds: HoldSource = {
  name: "insurance_covers",
  async load(db) {
    const { results } = await db
      .prepare("SELECT currency_id, CAST(SUM(cover) AS TEXT) AS cover FROM insurance_covers WHERE status IN (0, 1) GROUP BY currency_id")
      .all<{ currency_id: number; cover: string }>();
    return results.map((r): Hold => ({ userId: TREASURY, currencyId: r.currency_id, account: HOUSE_ACCOUNT, units: BigInt(r.cover) }));
  },
  // A cover live at the cut-over: its cover becomes `cover:{id}` in its treasury shard (paid or released there at its end).
  systemOpeningHolds: (db) =>
    treasuryRecordHolds(db, "SELECT id, currency_id, CAST(cover AS TEXT) AS units FROM insurance_covers WHERE status IN (0, 1) ORDER BY id", COVER_HOLD, (id) => shardOf(id)),
};

export const insuranceProduct: ProductModule = { id: "insurance", holdSources: [insuranceHolds] };
