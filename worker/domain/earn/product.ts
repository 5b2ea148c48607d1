/**
 * Savings (schemas/products.ts "earn"): no account of its own. Open positions explain the frozen
 * principal in their owners' spot (`change`) accounts; each product's budget not yet paid out nor
 * released explains the treasury's frozen funds for it (reserved for open positions or still
 * unpromised).
 */
import { HOUSE_ACCOUNT, TREASURY } from "../../lib/guarded.ts";
import { shardOf } from "../../../durable/account/address.ts";
import { treasuryRecordHolds, type Hold, type HoldSource, type ProductModule, type UserHold } from "../ledger/holds.ts";
import { BUDGET_HOLD } from "./catalogue.ts";

export const earnHolds: HoldSource = {
  name: "earn",
  async load(db) {
    const [positions, budgets] = await db.batch([
      db.prepare("SELECT user_id, currency_id, CAST(SUM(amount) AS TEXT) AS s FROM earn_positions WHERE status = 1 GROUP BY user_id, currency_id"),
      db.prepare("SELECT currency_id, CAST(SUM(budget - paid - released) AS TEXT) AS s FROM earn_products GROUP BY currency_id"),
    ]);
    const holds: Hold[] = [];
    for (const r of (positions!.results ?? []) as { user_id: number; currency_id: number; s: string }[]) {
      holds.push({ userId: r.user_id, currencyId: r.currency_id, account: "change", units: BigInt(r.s) });
    }
    for (const r of (budgets!.results ?? []) as { currency_id: number; s: string }[]) {
      if (BigInt(r.s) !== 0n) holds.push({ userId: TREASURY, currencyId: r.currency_id, account: HOUSE_ACCOUNT, units: BigInt(r.s) });
    }
    return holds;
  },
  // Each open position, named by its product's term (the screens word it: "Flexible", "30 days").
  async forUser(db, userId) {
    const { results } = await db
      .prepare("SELECT id, currency_id, CAST(amount AS TEXT) AS units, term_days FROM earn_positions WHERE user_id = ?1 AND status = 1 ORDER BY id")
      .bind(userId)
      .all<{ id: number; currency_id: number; units: string; term_days: number }>();
    return results.map((r): UserHold => ({ currencyId: r.currency_id, account: "change", units: BigInt(r.units), purpose: "savings", ref: { type: "earn", id: r.id }, label: "", termDays: r.term_days }));
  },
  // A product published before the cut-over: what its budget still holds becomes `earn_product:{id}`
  // in its treasury shard, which its interest days, maturities and closing spend and release.
  systemOpeningHolds: (db) =>
    treasuryRecordHolds(db, "SELECT id, currency_id, CAST(budget - paid - released AS TEXT) AS units FROM earn_products ORDER BY id", BUDGET_HOLD, (id) => shardOf(id)),
};

export const earnProduct: ProductModule = { id: "earn", holdSources: [earnHolds] };
