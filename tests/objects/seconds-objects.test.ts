/**
 * Seconds contracts with balances in the account objects (ACCOUNTS=objects, issue #28): the stake
 * and fee are a hold in the user's object, the house's cover a hold in a treasury shard (refused,
 * nothing moved, when the shard cannot cover it); the pair's acceptance sends the fee from that hold
 * to a fee shard (as D1 mode charges it at the open); at expiry the desk settles with legs to the
 * user and the treasury shard, each applied once; D1 gets the contract row and the movements
 * afterwards, as the read model.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { accountStub, SYSTEM_SHARDS, SYSTEM_USERS, systemStub } from "../../worker/lib/accounts.ts";
import { coverShard } from "../../durable/pair/desks/seconds-objects.ts";
import { submitContract } from "../../worker/domain/seconds/orders.ts";
import { api, makeUser, seedSpotPair, units } from "../api/helpers.ts";
import { expireNow, orderRow, settled, submit } from "../api/seconds-fixtures.ts";
import type { PairDurableObject } from "../../durable/pair/object.ts";
import {
  PAIR,
  USDT,
  d1LedgerRows,
  differencesOf,
  drainObject,
  fundTreasuryShards,
  legsDelivered,
  objectBalances,
  pageFee,
  pairStub,
  readModel,
  statementSum,
  twoSidedObjectBook,
  withoutOpenLegs,
} from "./fixtures.ts";

const TREASURY = SYSTEM_USERS.treasury;
/** A payable coin the house holds none of. */
const UNFUNDED = 8;
/** ETH/USDT: a pair whose book stays empty (no index). */
const EMPTY_PAIR = 2;
/** What each treasury shard is given in USDT. */
const SHARD_FUNDS = units("1000");

const shardBalances = async (userId: number, shard: number) =>
  (await systemStub(env, userId, shard).systemBalances(userId, shard)).filter((b) => b.available !== 0n || b.frozen !== 0n).map((b) => [b.account, b.currencyId, b.available, b.frozen]);

/** A shard's balance of one currency in the house's account, [available, frozen]. */
async function house(userId: number, shard: number, currencyId = USDT): Promise<[bigint, bigint]> {
  const b = (await systemStub(env, userId, shard).systemBalances(userId, shard)).find((x) => x.currencyId === currencyId && x.account === "change");
  return [b?.available ?? 0n, b?.frozen ?? 0n];
}

/** Each shard's USDT in the house's account, per shard. */
const allHouses = (userId: number) => Promise.all(Array.from({ length: SYSTEM_SHARDS }, (_, k) => house(userId, k)));

/** D1's read model of one system shard (system_balances), zero rows left out. */
async function shardReadModel(userId: number, shard: number) {
  const { results } = await env.DB.prepare("SELECT account, currency_id, available, frozen FROM system_balances WHERE user_id = ? AND shard = ? ORDER BY account, currency_id")
    .bind(userId, shard)
    .all<{ account: string; currency_id: number; available: number; frozen: number }>();
  return results.filter((r) => r.available !== 0 || r.frozen !== 0).map((r) => [r.account, r.currency_id, BigInt(r.available), BigInt(r.frozen)]);
}

/** A verified user whose object was opened with `usdt` in the micro account. */
async function bettor(usdt = "100", currencyId = USDT) {
  const u = await makeUser({ verified: 2 });
  await accountStub(env, u.id).accountImport(u.id, [{ account: "micro", currencyId, available: units(usdt), frozen: 0n }]);
  return u;
}

beforeAll(async () => {
  await seedSpotPair();
  await seedSpotPair({ pairId: EMPTY_PAIR, currencyId: 2 });
  await env.DB.prepare("INSERT INTO currencies (id, name, scale) VALUES (?, 'NOPE', 8) ON CONFLICT DO NOTHING").bind(UNFUNDED).run();
  // A one-second duration, so a contract runs out while the test waits for its settlement.
  await env.DB.prepare("INSERT INTO seconds_options (seconds, profit_ratio_bps, status) VALUES (1, 8000, 1)").run();
  const op = await makeUser({ role: "operator" });
  const r = await api("/admin/seconds/currencies", {
    token: op.token,
    body: { currency_id: UNFUNDED, micro_numbers: ["10"], min_number: "1", max_number: "100", fee_percent: "2", pair_exposure: "100000", user_exposure: "100000", status: 1, reason: "test coin" },
  });
  expect(r.body.type).toBe("ok");
  // The house's USDT, spread over the treasury's shards (the cut-over opens them from D1's treasury).
  await fundTreasuryShards(SHARD_FUNDS);
  // A two-sided book (bid 100, ask 102) from a market maker on the objects: the pair has an index.
  await twoSidedObjectBook();
});

describe("seconds contracts on the account objects", () => {
  it("holds the stake and fee in the user's object and the cover in a treasury shard, and settles a lost contract exactly", async () => {
    const u = await bettor("100");
    const treasuries = await allHouses(TREASURY);
    const fees = await allHouses(SYSTEM_USERS.fees);
    // An up contract on an unchanged index is a tie, and a tie loses an up contract.
    const o = (await submit(u.token, { type: 1, seconds: 1, number: "10" })).body.message;
    expect(o).toMatchObject({ status: 1, number: "10.00000000", fee: "0.20000000", profit_ratio: "80" });
    const shard = coverShard(o.id);
    // Open, if the alarm has not settled it yet: 10.2 held by the user, 8 (10 × 80 %) by the house.
    const open = await accountStub(env, u.id).accountHold(u.id, `seconds:${o.id}`);
    expect(open).toMatchObject({ account: "micro", currencyId: USDT, amount: units("10.2"), owner: `pair:${PAIR}` });
    expect(await systemStub(env, TREASURY, shard).systemHold(TREASURY, shard, `seconds:${o.id}`)).toMatchObject({ account: "change", amount: units("8") });

    const row = await settled(PAIR, o.id);
    expect(row).toMatchObject({ user_id: u.id, status: 3, stake: Number(units("10")), fee: Number(units("0.2")), hold: Number(units("8")), result: -Number(units("10")) });
    await legsDelivered();
    expect(await objectBalances(u.id)).toEqual([["micro", USDT, units("100") - units("10.2"), 0n]]);
    // The house: its cover released and the stake won; the fee in the fee shard of the same number.
    expect(await house(TREASURY, shard)).toEqual([treasuries[shard]![0] + units("10"), 0n]);
    expect(await house(SYSTEM_USERS.fees, shard)).toEqual([fees[shard]![0] + units("0.2"), 0n]);

    // The read model: the user's and the shard's balances, and no D1 balance or ledger row for the user.
    await drainObject(accountStub(env, u.id));
    expect(await readModel(u.id)).toEqual(await objectBalances(u.id));
    await drainObject(systemStub(env, TREASURY, shard));
    expect(await shardReadModel(TREASURY, shard)).toEqual(await shardBalances(TREASURY, shard));
    expect(await d1LedgerRows(u.id)).toBe(0);
    expect((await api("/microtrade/lists", { token: u.token })).body.message).toEqual([expect.objectContaining({ id: o.id, status: 3, fact_profits: "-10.00000000" })]);
  });

  it("pays a won contract from the treasury shard's cover: stake back plus stake × ratio, the fee to a fee shard", async () => {
    const u = await bettor("100");
    const treasuries = await allHouses(TREASURY);
    const fees = await allHouses(SYSTEM_USERS.fees);
    // A down contract on an unchanged index wins.
    const o = (await submit(u.token, { type: 2, seconds: 1, number: "10" })).body.message;
    const shard = coverShard(o.id);
    const row = await settled(PAIR, o.id);
    expect(row.result).toBe(Number(units("8")));
    await legsDelivered();
    expect(await objectBalances(u.id)).toEqual([["micro", USDT, units("100") - units("0.2") + units("8"), 0n]]);
    expect(await accountStub(env, u.id).accountOpenHolds(u.id)).toEqual([]);
    // The win is paid from the shard's cover: 8 less than before, nothing frozen; the fee to the fee shard.
    expect(await house(TREASURY, shard)).toEqual([treasuries[shard]![0] - units("8"), 0n]);
    expect(await house(SYSTEM_USERS.fees, shard)).toEqual([fees[shard]![0] + units("0.2"), 0n]);
    expect(await systemStub(env, TREASURY, shard).systemHold(TREASURY, shard, `seconds:${o.id}`)).toMatchObject({ amount: units("8"), spent: units("8"), open: false });

    await drainObject(accountStub(env, u.id));
    expect(await readModel(u.id)).toEqual([["micro", USDT, units("107.8"), 0n]]);
    await drainObject(systemStub(env, TREASURY, shard));
    expect(await shardReadModel(TREASURY, shard)).toEqual(await shardBalances(TREASURY, shard));
  });

  it("refuses a contract no treasury shard can cover, translated, and moves nothing", async () => {
    const u = await bettor("100", UNFUNDED);
    const r = await submit(u.token, { currency_id: UNFUNDED, number: "10" });
    expect(r.status).toBe(409);
    expect(r.body).toMatchObject({ code: "house_cannot_cover" });
    expect(await objectBalances(u.id)).toEqual([["micro", UNFUNDED, units("100"), 0n]]);
    expect(await accountStub(env, u.id).accountOpenHolds(u.id)).toEqual([]);
    for (let k = 0; k < SYSTEM_SHARDS; k++) expect(await house(TREASURY, k, UNFUNDED)).toEqual([0n, 0n]);
    expect((await api("/new/microtrade/lists", { token: u.token })).body.data).toEqual({ total: 0, lists: [] });
  });

  it("gives the cover back when the user's object cannot hold the stake", async () => {
    const u = await bettor("5");
    const before = await allHouses(TREASURY);
    const r = await submit(u.token, { number: "10" });
    expect(r.body).toMatchObject({ code: "insufficient_balance" });
    expect(await objectBalances(u.id)).toEqual([["micro", USDT, units("5"), 0n]]);
    // The cover was held first, then given back: every shard as before, nothing frozen.
    expect(await allHouses(TREASURY)).toEqual(before);
    expect(before.every(([, frozen]) => frozen === 0n)).toBe(true);
  });

  it("gives both holds back when the pair refuses the contract (no market price)", async () => {
    const u = await bettor("100");
    const before = await allHouses(TREASURY);
    const r = await submit(u.token, { match_id: EMPTY_PAIR, number: "10" });
    expect(r.body).toMatchObject({ code: "no_market_price" });
    expect(await objectBalances(u.id)).toEqual([["micro", USDT, units("100"), 0n]]);
    expect(await accountStub(env, u.id).accountOpenHolds(u.id)).toEqual([]);
    expect(await allHouses(TREASURY)).toEqual(before);
  });
});

describe("ids drawn in one millisecond on the account objects", () => {
  it("holds every contract submitted in the same millisecond, each under its own id", async () => {
    // Contract ids are (ms since 2026) × 4096 + 12 random bits: 300 submits stamped with one
    // millisecond draw a taken id almost surely. The house's cover hold (keyed by the id, in the
    // treasury shard) finds it taken: nothing moved, and the id is drawn again.
    const u = await bettor("3060");
    const before = await allHouses(TREASURY);
    const now = Date.now();
    const ids = new Set<number>();
    for (let i = 0; i < 300; i++) ids.add((await submitContract(env, u.id, { match_id: PAIR, currency_id: USDT, type: 1, seconds: 60, number: "10" }, now)).id);
    expect(ids.size).toBe(300);
    // Each acceptance sent its fee (0.2) from the hold to a fee shard: the stakes alone stay frozen.
    await legsDelivered();
    expect(await objectBalances(u.id)).toEqual([["micro", USDT, 0n, units("3000")]]);
    const sum = (hs: [bigint, bigint][]) => hs.reduce(([a, f], [a2, f2]) => [a + a2, f + f2], [0n, 0n]);
    const [a0, f0] = sum(before);
    expect(sum(await allHouses(TREASURY))).toEqual([a0 - 300n * units("8.2"), f0 + 300n * units("8.2")]);
  });
});

describe("one's contracts read back on the account objects", () => {
  it("lists a contract running, and answers it by id, the moment its submit answered, before the pair's drain brought its row", async () => {
    const u = await bettor("100");
    // The pair's drain waits (its alarm does nothing): only a read that drains first finds the row.
    await runInDurableObject(pairStub(), (obj: PairDurableObject) => {
      (obj as unknown as { scheduler: { handle(kind: string, h: () => Promise<null>): void } }).scheduler.handle("drain", () => Promise.resolve(null));
    });
    const r = await submit(u.token, { number: "10", seconds: 60 });
    expect(r.body.type, JSON.stringify(r.body)).toBe("ok");
    const mine = r.body.message as { id: number; remain_milli_seconds: number };
    expect(await orderRow(mine.id)).toBeNull();
    const running = (await api("/microtrade/lists", { token: u.token })).body.message as { id: number; status: number }[];
    expect(running.map((c) => [c.id, c.status])).toEqual([[mine.id, 1]]);
    const { remain_milli_seconds: _a, ...answered } = mine;
    const { remain_milli_seconds: _b, ...byId } = (await api(`/microtrade/order?id=${mine.id}`, { token: u.token })).body.message;
    expect(byId).toEqual(answered);
    const page = await api("/new/microtrade/lists", { token: u.token });
    expect((page.body.data.lists as { id: number }[]).map((c) => c.id)).toEqual([mine.id]);
  });
});

describe("the open fee of a contract on the account objects, charged at the open as in D1 mode", () => {
  it("takes the fee to a fee shard at the acceptance: only the stake stays frozen, the statement shows the fee, the settle moves the stake alone", async () => {
    const u = await bettor("100");
    // Every earlier contract's legs in their shards first: the shards' balances before this one.
    await legsDelivered();
    const fees = await allHouses(SYSTEM_USERS.fees);
    const treasuries = await allHouses(TREASURY);
    const page = await pageFee("seconds", "USDT");
    const o = (await submit(u.token, { type: 1, seconds: 60, number: "10" })).body.message;
    const shard = coverShard(o.id);
    await legsDelivered();
    // As D1 mode after an open (tests/api/seconds.test.ts): 89.8 available, the stake of 10 frozen, the fee of 0.2 in the fee account.
    expect(await objectBalances(u.id)).toEqual([["micro", USDT, units("89.8"), units("10")]]);
    expect(await house(SYSTEM_USERS.fees, shard)).toEqual([fees[shard]![0] + units("0.2"), 0n]);
    expect(await accountStub(env, u.id).accountHold(u.id, `seconds:${o.id}`)).toMatchObject({ amount: units("10.2"), spent: units("0.2"), open: true });
    // The open's lines: the balance down by the fee, the stake held (the hold, then the fee taken from it).
    expect(await statementSum(u.token, "micro", "micro_open")).toEqual([-units("0.2"), units("10")]);
    // D1's row says the fee left the hold: the reconciler finds the stake frozen and the stake held.
    expect(await differencesOf(u.id)).toEqual([]);
    expect(await orderRow(o.id)).toMatchObject({ fee_held: 0 });

    // An up contract on an unchanged index loses: the stake goes to the house, the fee is not taken again.
    await expireNow(PAIR, o.id);
    await settled(PAIR, o.id);
    await legsDelivered();
    expect(await objectBalances(u.id)).toEqual([["micro", USDT, units("89.8"), 0n]]);
    expect(await house(SYSTEM_USERS.fees, shard)).toEqual([fees[shard]![0] + units("0.2"), 0n]);
    // The shard's cover of this contract released (others' may still be held there).
    expect(await house(TREASURY, shard)).toEqual([treasuries[shard]![0] + units("10"), treasuries[shard]![1]]);
    expect(await accountStub(env, u.id).accountHold(u.id, `seconds:${o.id}`)).toMatchObject({ spent: units("10.2"), released: 0n, open: false });
    expect(await differencesOf(u.id)).toEqual([]);
    // The transparency page counts the fee once (the acceptance's movement; the settle carried none).
    expect((await pageFee("seconds", "USDT")) - page).toBe(units("0.2"));
  });

  it("settles a contract accepted before the fee moved at the acceptance (its hold still holding the fee) as it did then", async () => {
    const u = await bettor("100");
    await legsDelivered();
    const fees = await allHouses(SYSTEM_USERS.fees);
    // The pair as it was: no legs at the acceptance (the settle's legs are back before it expires).
    const o = (await withoutOpenLegs("seconds", () => submit(u.token, { type: 2, seconds: 60, number: "10" }))).body.message as { id: number };
    const shard = coverShard(o.id);
    await legsDelivered();
    expect(await objectBalances(u.id)).toEqual([["micro", USDT, units("89.8"), units("10.2")]]);
    expect(await differencesOf(u.id)).toEqual([]);
    expect(await orderRow(o.id)).toMatchObject({ fee_held: 1 });
    // A down contract on an unchanged index wins: the stake back plus stake × ratio, the fee taken from the hold now, to the fee shard.
    await expireNow(PAIR, o.id);
    const row = await settled(PAIR, o.id);
    expect(row.result).toBe(Number(units("8.2")));
    await legsDelivered();
    expect(await objectBalances(u.id)).toEqual([["micro", USDT, units("100") - units("0.2") + units("8.2"), 0n]]);
    expect(await house(SYSTEM_USERS.fees, shard)).toEqual([fees[shard]![0] + units("0.2"), 0n]);
    expect(await differencesOf(u.id)).toEqual([]);
  });
});
