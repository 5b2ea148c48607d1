/** Transfers between one's own accounts (the products' accounts, schemas/products.ts): one ledger movement, never across users. */
import { formatUnits } from "../../../schemas/money.ts";
import type { WalletAccount } from "../../lib/ledger.ts";
import { applyMovement, balanceOf } from "../../lib/ledger.ts";
import { ApiError } from "../../lib/errors.ts";
import { PRODUCTS, transferSources, transferTargets, type Catalogue, type Products } from "../../../schemas/products.ts";
import { amountOrThrow, getCurrency, type Currency } from "./currency.ts";
import { accountStub } from "../../lib/accounts.ts";
import { isolateMap } from "../../lib/caches.ts";

/**
 * Moves an amount between two of the user's accounts. An account of a switched-off product takes
 * nothing in; a product declared `drainWhenOff` (leverage) may still be emptied out (its owner's
 * positions can still be closed when the product is off, and the money must not be trapped by the switch).
 */
type TransferBody = { currency_id: number; from_field: WalletAccount; to_field: WalletAccount; number: string };

/** An account of a switched-off product takes nothing in (feature_off); one declared `drainWhenOff` may still be emptied. */
function checkSwitches(products: Products, b: TransferBody, catalogue: Catalogue) {
  if (!transferSources(products, catalogue).includes(b.from_field) || !transferTargets(products, catalogue).includes(b.to_field)) throw new ApiError("feature_off", 403);
}

export async function transferOwn(db: D1Database, products: Products, userId: number, b: TransferBody, catalogue: Catalogue = PRODUCTS) {
  checkSwitches(products, b, catalogue);
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

/** Currencies as the objects path last read them (a scale never changes; a new currency shows within this). */
const CURRENCY_CACHE_MS = 60_000;
const currencies = isolateMap<number, { at: number; cur: Currency }>();

async function cachedCurrency(db: D1Database, id: number, now = Date.now()): Promise<Currency> {
  const hit = currencies.get(id);
  if (hit && now - hit.at <= CURRENCY_CACHE_MS) return hit.cur;
  const cur = await getCurrency(db, id);
  currencies.set(id, { at: now, cur });
  return cur;
}

/**
 * The same transfer with balances in the account objects (`ACCOUNTS=objects`, worker/lib/accounts.ts):
 * one call to the user's own object, keyed by this request (`transfer:{uuid}`: a retried call
 * inside the object moves nothing twice); no D1 statement (the currency's scale is cached).
 */
export async function transferOwnOnObjects(env: Env, products: Products, userId: number, b: TransferBody, catalogue: Catalogue = PRODUCTS) {
  checkSwitches(products, b, catalogue);
  const cur = await cachedCurrency(env.DB, b.currency_id);
  const units = amountOrThrow(b.number, cur.scale);
  const account = accountStub(env, userId);
  const moved = await account.accountTransfer(userId, { key: `transfer:${userId}:${crypto.randomUUID()}`, from: b.from_field, to: b.to_field, currencyId: cur.id, amount: units });
  if (moved === "insufficient") {
    const lever = b.from_field === "lever" && (await account.accountBalances(userId)).some((r) => r.account === "lever" && r.currencyId === cur.id && r.frozen > 0n);
    throw lever ? new ApiError("lever_margin_in_use", 409) : new ApiError("insufficient_balance", 409);
  }
  return { currency_id: cur.id, from_field: b.from_field, to_field: b.to_field, number: formatUnits(units, cur.scale) };
}
