/** Open withdrawals as a reconciliation hold source (worker/domain/ledger/holds.ts). */
import { recordHolds, type HoldSource } from "../ledger/holds.ts";

/** Open withdrawals (applying or approved awaiting the chain) hold amount + fee in `change`. */
export const withdrawalHolds: HoldSource = {
  name: "withdrawals",
  async load(db) {
    const { results } = await db
      .prepare("SELECT user_id, currency_id, CAST(SUM(amount + fee) AS TEXT) AS units FROM withdrawals WHERE status IN (0, 1) GROUP BY user_id, currency_id")
      .all<{ user_id: number; currency_id: number; units: string }>();
    return results.map((r) => ({ userId: r.user_id, currencyId: r.currency_id, account: "change" as const, units: BigInt(r.units) }));
  },
  forUser: (db, userId) =>
    recordHolds(db, "SELECT id, currency_id, CAST(amount + fee AS TEXT) AS units FROM withdrawals WHERE user_id = ?1 AND status IN (0, 1) ORDER BY id", userId, {
      account: "change",
      purpose: "withdrawal",
      ref: "withdrawal",
    }),
};
