/**
 * Balance views: every product's account (schemas/products.ts) per currency valued in USDT at last traded prices (spec §2
 * Assets), and the spot account of every shown currency. Reads only; balances change only through
 * the ledger (worker/lib/ledger.ts). In objects mode (`reads`, object-reads.ts) the balances are the
 * user's account object's, exactly; currencies and prices still come from D1.
 */
import { formatUnits } from "../../../schemas/money.ts";
import { USDT_ID, walletAccounts, type WalletAccountName } from "../../../schemas/wallet.ts";
import type { WalletList, WalletRow } from "../../../schemas/assets.ts";
import { usdtPrices, usdtValue } from "../spot/prices.ts";
import { big, listCurrencies, type Currency } from "./currency.ts";
import type { AccountReads } from "./object-reads.ts";

/** Display precision of USDT values (spec §9: assets 2 decimals). */
const USDT_SCALE = 8;
const fmt = (units: bigint, scale: number) => formatUnits(units, scale);

type Held = { currency_id: number; account: string; a: string; f: string };

/** The user's balance rows: D1's, or the account object's in objects mode. */
async function heldRows(db: D1Database, userId: number, reads: AccountReads | null, account?: string): Promise<Held[]> {
  if (reads) {
    const rows = await reads.balances(userId);
    return rows.filter((b) => account === undefined || b.account === account).map((b) => ({ currency_id: b.currencyId, account: b.account, a: b.available.toString(), f: b.frozen.toString() }));
  }
  const { results } = await db
    .prepare(`SELECT currency_id, account, CAST(available AS TEXT) AS a, CAST(frozen AS TEXT) AS f FROM balances WHERE user_id = ?${account === undefined ? "" : " AND account = ?"}`)
    .bind(...(account === undefined ? [userId] : [userId, account]))
    .all<Held>();
  return results;
}

/**
 * The currencies a wallet lists: every shown one, and one not shown (a launch's token before it is
 * listed) in the accounts where the user holds some: what they own is never missing from Assets.
 */
function listedFor(all: Currency[], held: ReadonlyMap<string, { a: bigint; f: bigint }>, account: string): Currency[] {
  return all.filter((cur) => {
    if (cur.show) return true;
    const b = held.get(`${cur.id}|${account}`);
    return b !== undefined && b.a + b.f !== 0n;
  });
}

/** Every shown currency in each declared account (and any other one the user holds there), valued in USDT, with the totals. */
export async function walletList(db: D1Database, userId: number, reads: AccountReads | null = null) {
  const [all, prices, rows] = await Promise.all([listCurrencies(db), usdtPrices(db), heldRows(db, userId, reads)]);
  const held = new Map(rows.map((r) => [`${r.currency_id}|${r.account}`, { a: BigInt(r.a), f: BigInt(r.f) }]));
  let grand = 0n;
  const wallet = <A extends WalletAccountName>(account: A) => {
    let total = 0n;
    const balance = listedFor(all, held, account).map((cur) => {
      const b = held.get(`${cur.id}|${account}`) ?? { a: 0n, f: 0n };
      const value = usdtValue(cur.id, b.a + b.f, cur.scale, prices, USDT_SCALE);
      total += value ?? 0n;
      // Computed keys type as an index signature; the row schema names them per account.
      return {
        currency: cur.id,
        currency_name: cur.name,
        show: cur.show ? 1 : 0,
        [`${account}_balance`]: fmt(b.a, cur.scale),
        [`lock_${account}_balance`]: fmt(b.f, cur.scale),
        usdt_totle: formatUnits(value ?? 0n, USDT_SCALE, 2),
        usdt_price: cur.id === USDT_ID ? "1" : (prices.get(cur.id)?.text ?? null),
      } as WalletRow<A>;
    });
    grand += total;
    return { usdt_totle: formatUnits(total, USDT_SCALE, 2), balance };
  };
  // `{account}_wallet` per account, in the products' order (change, micro, legal, lever).
  const wallets = Object.fromEntries(walletAccounts.map((a) => [`${a}_wallet`, wallet(a)])) as unknown as Pick<WalletList, `${WalletAccountName}_wallet`>;
  return {
    ...wallets,
    total_usdt: formatUnits(grand, USDT_SCALE, 2),
    // Realised profit is not tracked by the wallet; reported as zero rather than invented.
    totalProfits: "0.00",
  };
}

/** The spot ("change") account of every shown currency (and any other one the user holds), with its scale. */
export async function spotWallet(db: D1Database, userId: number, reads: AccountReads | null = null) {
  const [all, results] = await Promise.all([listCurrencies(db), heldRows(db, userId, reads, "change")]);
  const held = new Map(results.map((r) => [r.currency_id, r]));
  const currencies = listedFor(all, new Map(results.map((r) => [`${r.currency_id}|change`, { a: BigInt(r.a), f: BigInt(r.f) }])), "change");
  return currencies.map((cur) => ({
    currency: cur.id,
    currency_name: cur.name,
    change_balance: fmt(big(held.get(cur.id)?.a), cur.scale),
    lock_change_balance: fmt(big(held.get(cur.id)?.f), cur.scale),
    decimals: cur.scale,
  }));
}
