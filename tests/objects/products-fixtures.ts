/**
 * Shared setup of the D1 products' tests on the account objects (savings, cover, mining, launches,
 * votes; worker/lib/product-objects.ts): the treasury's shards funded, users opened in their
 * objects, and the balances of a shard and of the read model after the drain.
 */
import { env } from "cloudflare:test";
import { expect } from "vitest";
import { accountStub, shardOf, SYSTEM_SHARDS, SYSTEM_USERS, systemAddress, systemStub } from "../../worker/lib/accounts.ts";
import { reconcile } from "../../worker/domain/ledger/reconcile.ts";
import { accountReads } from "../../worker/domain/wallet/object-reads.ts";
import { makeUser, type TestUser } from "../api/helpers.ts";
import { u8 } from "../api/wallet-fixtures.ts";
import { drainObject, objectBalances, readModel } from "./fixtures.ts";

export const TREASURY = SYSTEM_USERS.treasury;

let funded = 0;
/** Credits `amount` of a currency to every treasury shard (the cut-over opens them from D1's treasury). */
export async function fundShards(currencyId: number, amount: string) {
  funded += 1;
  for (let k = 0; k < SYSTEM_SHARDS; k++) {
    const to = systemAddress(TREASURY, k);
    const leg = { key: `test:fund:${currencyId}:${funded}:${k}`, to, ops: [{ t: "credit" as const, kind: "change", cur: String(currencyId), amt: Number(u8(amount)) }] };
    expect(await systemStub(env, TREASURY, k).systemReceive(TREASURY, k, [leg])).toEqual(["applied"]);
  }
}

/** A verified user whose object was opened with these balances ([currency, amount, account: the spot account unless named]). */
export async function objectUser(balances: [number, string, string?][], extra: Parameters<typeof makeUser>[0] = {}): Promise<TestUser> {
  const u = await makeUser({ verified: 2, ...extra });
  const rows = balances.map(([currencyId, amount, account]) => ({ account: account ?? "change", currencyId, available: u8(amount), frozen: 0n }));
  if (rows.length > 0) await accountStub(env, u.id).accountImport(u.id, rows);
  return u;
}

/** The treasury shard of a record id, and its [available, frozen] of one currency in the spot (house) account. */
export async function shardBalance(id: number, currencyId: number): Promise<[bigint, bigint]> {
  const k = shardOf(id);
  const b = (await systemStub(env, TREASURY, k).systemBalances(TREASURY, k)).find((x) => x.currencyId === currencyId && x.account === "change");
  return [b?.available ?? 0n, b?.frozen ?? 0n];
}

/** Drains a shard and answers its read model (`system_balances`) of one currency: [available, frozen]. */
export async function shardReadModel(id: number, currencyId: number): Promise<[bigint, bigint]> {
  const k = shardOf(id);
  await drainObject(systemStub(env, TREASURY, k));
  const r = await env.DB.prepare("SELECT CAST(available AS TEXT) AS a, CAST(frozen AS TEXT) AS f FROM system_balances WHERE user_id = ? AND shard = ? AND currency_id = ? AND account = 'change'")
    .bind(TREASURY, k, currencyId)
    .first<{ a: string; f: string }>();
  return [BigInt(r?.a ?? 0), BigInt(r?.f ?? 0)];
}

/** The user's balances in their object, and the same in D1's read model after the drain (they must agree). */
export async function settled(userId: number) {
  const inObject = await objectBalances(userId);
  await drainObject(accountStub(env, userId));
  expect(await readModel(userId)).toEqual(inObject);
  return inObject;
}

/** The user's open holds in their object, as [hold, amount left]. */
export async function openHolds(userId: number) {
  return (await accountStub(env, userId).accountOpenHolds(userId)).map((h) => [h.hold, h.amount - h.spent - h.released]);
}

/** Legs owed to the objects that no object has answered yet. */
export async function unsentLegs() {
  return (await env.DB.prepare("SELECT count(*) AS n FROM record_legs").first<{ n: number }>())!.n;
}

/** The reconciler in objects mode finds nothing: users' frozen funds and the treasury shards' against the products' records. */
export async function expectClean() {
  const r = await reconcile(env.DB, undefined, accountReads(env));
  expect(r.differences).toEqual([]);
}
