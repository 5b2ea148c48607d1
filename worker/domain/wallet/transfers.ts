/** Transfers between one's own accounts (the products' accounts, schemas/products.ts): one ledger movement, never across users. */
import { formatUnits } from "../../../schemas/money.ts";
import type { WalletAccount } from "../../lib/ledger.ts";
import { applyMovement, balanceOf } from "../../lib/ledger.ts";
import { ApiError } from "../../lib/errors.ts";
import { PRODUCTS, transferSources, transferTargets, type Catalogue, type Products } from "../../../schemas/products.ts";
import { amountOrThrow, getCurrency } from "./currency.ts";

/**
 * Moves an amount between two of the user's accounts. An account of a switched-off product takes
 * nothing in; a product declared `drainWhenOff` (leverage) may still be emptied out (its owner's
 * positions can still be closed when the product is off, and the money must not be trapped by the switch).
 */
export async function transferOwn(
  db: D1Database,
  products: Products,
  userId: number,
  b: { currency_id: number; from_field: WalletAccount; to_field: WalletAccount; number: string },
  catalogue: Catalogue = PRODUCTS,
) {
  if (!transferSources(products, catalogue).includes(b.from_field) || !transferTargets(products, catalogue).includes(b.to_field)) throw new ApiError("feature_off", 403);
  const cur = await getCurrency(db, b.currency_id);
  const units = amountOrThrow(b.number, cur.scale);
  await applyMovement(db, `transfer:${userId}:${crypto.randomUUID()}`, "transfer", [
    { userId, currencyId: cur.id, account: b.from_field, dAvailable: -units, dFrozen: 0n, memo: `to ${b.to_field}` },
    { userId, currencyId: cur.id, account: b.to_field, dAvailable: units, dFrozen: 0n, memo: `from ${b.from_field}` },
  ]).catch(async (err: unknown) => {
    // The lever account's frozen funds are the margin of open positions (spec §8: "cannot
    // withdraw while leveraged trades open" — for that account's used margin only).
    if (err instanceof ApiError && err.key === "insufficient_balance" && b.from_field === "lever" && (await balanceOf(db, userId, cur.id, "lever")).frozen > 0n) {
      throw new ApiError("lever_margin_in_use", 409);
    }
    throw err;
  });
  return { currency_id: cur.id, from_field: b.from_field, to_field: b.to_field, number: formatUnits(units, cur.scale) };
}
