/**
 * Contract-asset cover (schemas/products.ts "insurance"): no account of its own. The cover of every
 * live cover (bought, or claimed and queued) is frozen in the treasury from purchase until it is
 * paid or ends; that is the only hold it makes (the premium is paid, not held).
 */
import { HOUSE_ACCOUNT, TREASURY } from "../../lib/guarded.ts";
import type { Hold, HoldSource, ProductModule } from "../ledger/holds.ts";

export const insuranceHolds: HoldSource = {
  name: "insurance_covers",
  async load(db) {
    const { results } = await db
      .prepare("SELECT currency_id, CAST(SUM(cover) AS TEXT) AS cover FROM insurance_covers WHERE status IN (0, 1) GROUP BY currency_id")
      .all<{ currency_id: number; cover: string }>();
    return results.map((r): Hold => ({ userId: TREASURY, currencyId: r.currency_id, account: HOUSE_ACCOUNT, units: BigInt(r.cover) }));
  },
};

export const insuranceProduct: ProductModule = { id: "insurance", holdSources: [insuranceHolds] };
