/** Transfers between one's own accounts (spot, seconds, legal): one ledger movement, never across users. */
import { formatUnits } from "../../../schemas/money.ts";
import type { WalletAccount } from "../../lib/ledger.ts";
import { applyMovement } from "../../lib/ledger.ts";
import { ApiError } from "../../lib/errors.ts";
import { accountOn, type Products } from "../../lib/products.ts";
import { amountOrThrow, getCurrency } from "./currency.ts";

/** Moves an amount between two of the user's accounts; an account of a switched-off product takes and gives nothing. */
export async function transferOwn(db: D1Database, products: Products, userId: number, b: { currency_id: number; from_field: WalletAccount; to_field: WalletAccount; number: string }) {
  if (!accountOn(products, b.from_field) || !accountOn(products, b.to_field)) throw new ApiError("feature_off", 403);
  const cur = await getCurrency(db, b.currency_id);
  const units = amountOrThrow(b.number, cur.scale);
  await applyMovement(db, `transfer:${userId}:${crypto.randomUUID()}`, "transfer", [
    { userId, currencyId: cur.id, account: b.from_field, dAvailable: -units, dFrozen: 0n, memo: `to ${b.to_field}` },
    { userId, currencyId: cur.id, account: b.to_field, dAvailable: units, dFrozen: 0n, memo: `from ${b.from_field}` },
  ]);
  return { currency_id: cur.id, from_field: b.from_field, to_field: b.to_field, number: formatUnits(units, cur.scale) };
}
