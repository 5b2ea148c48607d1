/**
 * Shared setup of the tests that run with balances in the account objects (the "objects" vitest
 * project: ACCOUNTS=objects). Traders are opened in their objects the way the cut-over opens them
 * (`accountImport`), and D1 is read only as the read model the objects and the pair drain into.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { expect } from "vitest";
import type { AccountBalance } from "../../durable/account/types.ts";
import { SYSTEM_SHARDS, SYSTEM_USERS, accountStub, systemAddress, systemStub } from "../../worker/lib/accounts.ts";
import { reconcile } from "../../worker/domain/ledger/reconcile.ts";
import { forgetPublicSummary } from "../../worker/domain/transparency/public.ts";
import { onForget } from "../../worker/lib/caches.ts";
import { accountReads } from "../../worker/domain/wallet/object-reads.ts";
import { api, drainPair, makeUser, units } from "../api/helpers.ts";

export const BTC = 1;
export const USDT = 3;
export const PAIR = 1;

export const pairStub = () => env.PAIR.get(env.PAIR.idFromName(`pair:${PAIR}`));

/** A verified user whose object was opened with `usdt` and `btc` (or another coin's units) in the spot account. */
export async function objectTrader(usdt = "10000", btc = "1", coin = BTC) {
  const u = await makeUser({ verified: 2 });
  const rows = [
    { account: "change", currencyId: USDT, available: units(usdt), frozen: 0n },
    { account: "change", currencyId: coin, available: units(btc), frozen: 0n },
  ].filter((r) => r.available > 0n);
  await accountStub(env, u.id).accountImport(u.id, rows);
  return u;
}

/** A verified user whose object was opened with `usdt` in one account (`micro` for contracts, `lever` for positions). */
export async function objectUserWith(account: string, usdt = "100") {
  const u = await makeUser({ verified: 2 });
  await accountStub(env, u.id).accountImport(u.id, [{ account, currencyId: USDT, available: units(usdt), frozen: 0n }]);
  return u;
}

/** A user's balances in their object, as [account, currency, available, frozen] (zero rows left out). */
export async function objectBalances(userId: number) {
  return rows(await accountStub(env, userId).accountBalances(userId));
}

const rows = (list: AccountBalance[]) => list.filter((b) => b.available !== 0n || b.frozen !== 0n).map((b) => [b.account, b.currencyId, b.available, b.frozen]);

/** The fee account's balances summed over its shards, per currency: [currency, available]. */
export async function feeTotals() {
  const sums = new Map<number, bigint>();
  for (let k = 0; k < SYSTEM_SHARDS; k++)
    for (const b of await systemStub(env, SYSTEM_USERS.fees, k).systemBalances(SYSTEM_USERS.fees, k)) sums.set(b.currencyId, (sums.get(b.currencyId) ?? 0n) + b.available);
  return sums;
}

/** Drains one account object (or shard) into D1 until nothing waits. */
export async function drainObject(stub: { accountDrain(limit?: number): Promise<{ more: boolean }> }) {
  for (let i = 0; i < 100; i++) if (!(await stub.accountDrain()).more) return;
  throw new Error("drain never ended");
}

/** D1's read model of a user (account_balances), zero rows left out. */
export async function readModel(userId: number) {
  const { results } = await env.DB.prepare("SELECT account, currency_id, available, frozen FROM account_balances WHERE user_id = ? ORDER BY account, currency_id")
    .bind(userId)
    .all<{ account: string; currency_id: number; available: number; frozen: number }>();
  return results.filter((r) => r.available !== 0 || r.frozen !== 0).map((r) => [r.account, r.currency_id, BigInt(r.available), BigInt(r.frozen)]);
}

/** Waits until the pair has delivered every leg (each acknowledged by its account). */
export async function legsDelivered() {
  await expect.poll(() => pairStub().deliverLegs()).toBe(false);
}

/** D1 rows a user's money wrote on today's path (balances, ledger): none while balances live in the objects. */
export async function d1LedgerRows(userId: number) {
  const r = await env.DB.prepare("SELECT (SELECT count(*) FROM balances WHERE user_id = ?1) + (SELECT count(*) FROM ledger WHERE user_id = ?1) AS n").bind(userId).first<{ n: number }>();
  return r?.n ?? 0;
}

/** Runs `fn` inside the pair object (its instance and storage). */
export function inPair<R>(fn: (instance: unknown, state: DurableObjectState) => R | Promise<R>) {
  return runInDurableObject(pairStub(), fn);
}

/** Gives every treasury shard `usdt` in the house's account (the cut-over opens them from D1's treasury). */
export async function fundTreasuryShards(usdt: bigint) {
  const treasury = SYSTEM_USERS.treasury;
  for (let k = 0; k < SYSTEM_SHARDS; k++) {
    const leg = { key: `test:fund:${k}`, to: systemAddress(treasury, k), ops: [{ t: "credit" as const, kind: "change", cur: String(USDT), amt: Number(usdt) }] };
    expect(await systemStub(env, treasury, k).systemReceive(treasury, k, [leg])).toEqual(["applied"]);
  }
}

/** A two-sided book (bid 100, ask 102) from a market maker on the objects: the pair has an index. */
export async function twoSidedObjectBook() {
  const mm = await objectTrader("100000", "100");
  const order = (side: "buy" | "sell", price: string) =>
    api(side === "buy" ? "/transaction/walletIn" : "/transaction/walletOut", { token: mm.token, body: { currency_id: BTC, legal_id: USDT, mode: 2, price, num: "0.1" } });
  expect((await order("buy", "100")).body.type).toBe("ok");
  expect((await order("sell", "102")).body.type).toBe("ok");
}

/** The market maker quoting the index now (its orders are cancelled when the index is set again); none in a new file's database. */
let quotes: { token: string; ids: string[] } | null = null;
onForget(() => (quotes = null));

/** Sets BTC/USDT's index to `price` (2 decimals): a fresh market maker on the objects quotes price ∓ 0.01. */
export async function setObjectIndex(price: string) {
  if (quotes) for (const id of quotes.ids) expect((await api("/transaction_del", { token: quotes.token, body: { id } })).body.type).toBe("ok");
  const mm = await objectTrader("1000000", "100");
  const cents = units(price) / 1_000_000n;
  const fmt = (c: bigint) => `${c / 100n}.${String(c % 100n).padStart(2, "0")}`;
  const quote = async (side: "buy" | "sell", p: string) => {
    const r = await api(side === "buy" ? "/transaction/walletIn" : "/transaction/walletOut", { token: mm.token, body: { currency_id: BTC, legal_id: USDT, mode: 2, price: p, num: "1" } });
    expect(r.body.type).toBe("ok");
    return r.body.message.order_id as string;
  };
  quotes = { token: mm.token, ids: [await quote("buy", fmt(cents - 1n)), await quote("sell", fmt(cents + 1n))] };
}

/** A user's statement lines of one kind in one account (USDT), summed: [amount, held]. */
export async function statementSum(token: string, account: string, kind: string): Promise<[bigint, bigint]> {
  const lines = (await api(`/wallet/statement?currency_id=${USDT}&account=${account}`, { token })).body.message.lines as { kind: string; amount: string; held: string }[];
  const signed = (v: string) => (v.startsWith("-") ? -units(v.slice(1)) : units(v));
  const mine = lines.filter((l) => l.kind === kind);
  return [mine.reduce((a, l) => a + signed(l.amount), 0n), mine.reduce((a, l) => a + signed(l.held), 0n)];
}

/** The reconciler's differences about one user in objects mode (their frozen funds against their records' holds in D1), after the pair and their object drained. */
export async function differencesOf(userId: number) {
  await drainPair(PAIR);
  await drainObject(accountStub(env, userId));
  return (await reconcile(env.DB, undefined, accountReads(env))).differences.filter((d) => d.user_id === userId);
}

/**
 * Runs `open` with the pair's seconds or lever desk as it was before session 19: no legs at the
 * acceptance (so no open fee's legs: the record keeps its fee in the hold, `fee_paid` 0); the legs
 * are back for everything after.
 */
export async function withoutOpenLegs<T>(desk: "seconds" | "lever", open: () => Promise<T>): Promise<T> {
  type Pair = { legs: unknown } & Record<"seconds" | "lever", { legs: unknown }>;
  const off = await inPair((obj) => {
    (obj as Pair)[desk].legs = null;
    return (obj as Pair).legs !== null;
  });
  expect(off, "the pair runs in objects mode").toBe(true);
  try {
    return await open();
  } finally {
    await inPair((obj) => void ((obj as Pair)[desk].legs = (obj as Pair).legs));
  }
}

/** The transparency page's fees of one product in one currency, in units (0 when it shows none), after every fee shard drained. */
export async function pageFee(product: string, currency: string): Promise<bigint> {
  for (let k = 0; k < SYSTEM_SHARDS; k++) await drainObject(systemStub(env, SYSTEM_USERS.fees, k));
  await forgetPublicSummary();
  const fees = (await api("/transparency", { method: "GET" })).body.message.fees as { currency: string; products: { product: string; amount: string }[] }[];
  const amount = fees.find((f) => f.currency === currency)?.products.find((p) => p.product === product)?.amount;
  return amount === undefined ? 0n : units(amount);
}
