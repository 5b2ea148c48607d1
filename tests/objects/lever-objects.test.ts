/**
 * Leveraged positions with balances in the account objects (ACCOUNTS=objects, issue #28): the
 * margin and open fee are a hold in the user's object, the house's cover a hold in a treasury
 * shard; the open (at once, or a pending limit's fill) sends the open fee from that hold to a fee
 * shard, as D1 mode charges it at the open; a close (by its owner, a stop, a liquidation) and each
 * overnight fee are legs from the pair to the user, the treasury shard and a fee shard, each applied
 * once; D1 keeps the position's row and gets the movements afterwards, as the read model.
 */
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { accountStub, sendLegs, SYSTEM_SHARDS, SYSTEM_USERS, systemAddress, systemStub } from "../../worker/lib/accounts.ts";
import { leverNightLegs, leverShard } from "../../durable/pair/desks/lever-objects.ts";
import { chargeOvernight, submitPosition } from "../../worker/domain/lever/positions.ts";
import { api, makeUser, seedSpotPair, units } from "../api/helpers.ts";
import { open, positionRow, sweepNow } from "../api/lever-fixtures.ts";
import { BTC, USDT, d1LedgerRows, setObjectIndex as setIndex, differencesOf, drainObject, legsDelivered, objectBalances, pageFee, readModel, statementSum, withoutOpenLegs } from "./fixtures.ts";

const TREASURY = SYSTEM_USERS.treasury;
const u8 = (v: string) => units(v);

/** A shard's USDT in the house's account, [available, frozen]. */
async function house(userId: number, shard: number): Promise<[bigint, bigint]> {
  const b = (await systemStub(env, userId, shard).systemBalances(userId, shard)).find((x) => x.currencyId === USDT && x.account === "change");
  return [b?.available ?? 0n, b?.frozen ?? 0n];
}

/** A verified user whose object was opened with `usdt` in the lever account. */
async function leverUser(usdt = "100") {
  const u = await makeUser({ verified: 2 });
  await accountStub(env, u.id).accountImport(u.id, [{ account: "lever", currencyId: USDT, available: u8(usdt), frozen: 0n }]);
  return u;
}

/** Each shard's house balance, per shard. */
const allHouses = (userId: number) => Promise.all(Array.from({ length: SYSTEM_SHARDS }, (_, k) => house(userId, k)));

/** A long of 10 lots × 10 opened at an index of 101 by a user with 100 USDT, with every shard's house balance just before it. */
async function longAt101() {
  await setIndex("101.00");
  const u = await leverUser("100");
  // Every earlier position's legs in their shards first: the shards' balances before this one.
  await legsDelivered();
  const treasuries = await allHouses(TREASURY);
  const fees = await allHouses(SYSTEM_USERS.fees);
  const p = (await open(u.token, {})).body.message;
  return { u, p, shard: leverShard(p.id), treasuries, fees };
}

beforeAll(async () => {
  await seedSpotPair();
  // The house's USDT, spread over the treasury's shards (the cut-over opens them from D1's treasury).
  for (let k = 0; k < SYSTEM_SHARDS; k++) {
    const to = systemAddress(TREASURY, k);
    expect(await systemStub(env, TREASURY, k).systemReceive(TREASURY, k, [{ key: `test:fund:${k}`, to, ops: [{ t: "credit", kind: "change", cur: String(USDT), amt: Number(u8("1000")) }] }])).toEqual([
      "applied",
    ]);
  }
});

describe("leveraged positions on the account objects", () => {
  it("holds the margin in the user's object once the open fee went to a fee shard, the cover in a treasury shard, and closes with a profit exactly", async () => {
    const { u, p, shard, treasuries, fees } = await longAt101();
    expect(p).toMatchObject({ status: 2, open_price: "101.00", margin: "1.01000000", trade_fee: "0.00505000" });
    await legsDelivered();
    // As D1 mode after an open (tests/api/lever.test.ts): margin and fee out of available, the margin alone frozen, the fee in the fee account.
    expect(await objectBalances(u.id)).toEqual([["lever", USDT, u8("100") - u8("1.01505"), u8("1.01")]]);
    expect(await house(SYSTEM_USERS.fees, shard)).toEqual([fees[shard]![0] + u8("0.00505"), 0n]);
    expect(await accountStub(env, u.id).accountHold(u.id, `lever_margin:${p.id}`)).toMatchObject({ amount: u8("1.01505"), spent: u8("0.00505"), open: true });
    // The open's lines in the statement: the balance down by the fee, the margin held.
    expect(await statementSum(u.token, "lever", "lever_open")).toEqual([-u8("0.00505"), u8("1.01")]);
    // D1's row says the fee left the hold: the reconciler finds the margin frozen and the margin held.
    expect(await differencesOf(u.id)).toEqual([]);
    expect(await positionRow(p.id)).toMatchObject({ fee_held: 0 });
    // The house holds the most it can pay: the position's value at open.
    expect(await house(TREASURY, shard)).toEqual([treasuries[shard]![0] - u8("10.1"), u8("10.1")]);

    await setIndex("111.00");
    const c = (await api("/lever/close", { token: u.token, body: { id: p.id } })).body.message;
    expect(c).toMatchObject({ status: 4, close_price: "111.00", profit: "1.00000000", close_fee: "0.00555000", close_reason: "user" });
    await legsDelivered();
    expect(await objectBalances(u.id)).toEqual([["lever", USDT, u8("100") + u8("1") - u8("0.00505") - u8("0.00555"), 0n]]);
    expect(await house(TREASURY, shard)).toEqual([treasuries[shard]![0] - u8("1"), 0n]);
    // The open fee (at the open) and the close fee (at the close), each once.
    expect(await house(SYSTEM_USERS.fees, shard)).toEqual([fees[shard]![0] + u8("0.0106"), 0n]);
    expect((await api("/lever/close", { token: u.token, body: { id: p.id } })).body.code).toBe("order_not_found");
    expect(await differencesOf(u.id)).toEqual([]);

    await drainObject(accountStub(env, u.id));
    expect(await readModel(u.id)).toEqual(await objectBalances(u.id));
    expect(await d1LedgerRows(u.id)).toBe(0);
  });

  it("closes with a loss: the user's hold pays the open fee at the open, the loss and the close fee at the close, the treasury shard takes the loss", async () => {
    const { u, p, shard, treasuries, fees } = await longAt101();
    await setIndex("94.00");
    const c = (await api("/lever/close", { token: u.token, body: { id: p.id } })).body.message;
    expect(c).toMatchObject({ status: 4, profit: "-0.70000000", close_fee: "0.00470000" });
    await legsDelivered();
    // −0.7 USDT and 94 × 0.1 × 0.05 % = 0.0047 close fee.
    expect(await objectBalances(u.id)).toEqual([["lever", USDT, u8("100") - u8("0.7") - u8("0.00505") - u8("0.0047"), 0n]]);
    expect(await house(TREASURY, shard)).toEqual([treasuries[shard]![0] + u8("0.7"), 0n]);
    expect(await house(SYSTEM_USERS.fees, shard)).toEqual([fees[shard]![0] + u8("0.00505") + u8("0.0047"), 0n]);
  });

  it("liquidates exactly once when the index gaps past the liquidation price, the loss stopping at the margin", async () => {
    const { u, p, shard, treasuries } = await longAt101();
    await setIndex("50.00");
    await sweepNow();
    await sweepNow();
    await expect.poll(async () => (await positionRow(p.id))?.status).toBe(4);
    expect(await positionRow(p.id)).toMatchObject({ close_reason: "liquidation", profit: -Number(u8("1.01")), close_fee: 0 });
    await legsDelivered();
    await sweepNow();
    await legsDelivered();
    expect(await objectBalances(u.id)).toEqual([["lever", USDT, u8("100") - u8("1.01") - u8("0.00505"), 0n]]);
    // The house takes the margin and releases its cover.
    expect(await house(TREASURY, shard)).toEqual([treasuries[shard]![0] + u8("1.01"), 0n]);
    expect(await accountStub(env, u.id).accountHold(u.id, `lever_margin:${p.id}`)).toMatchObject({ spent: u8("1.01505"), released: 0n, open: false });
  });

  it("takes an overnight fee once per position and day, however often the day is run or its leg delivered", async () => {
    const { u, p, shard, fees } = await longAt101();
    const tomorrow = Date.now() + 86_400_000;
    await chargeOvernight(env, tomorrow);
    await chargeOvernight(env, tomorrow);
    await legsDelivered();
    // 10.1 USDT of value × 0.02 % = 0.00202 a night, from the margin's hold (the open fee left it at the open).
    expect(await objectBalances(u.id)).toEqual([["lever", USDT, u8("100") - u8("1.01505"), u8("1.01") - u8("0.00202")]]);
    expect(await house(SYSTEM_USERS.fees, shard)).toEqual([fees[shard]![0] + u8("0.00505") + u8("0.00202"), 0n]);
    await expect.poll(async () => (await positionRow(p.id))?.overnight).toBe(Number(u8("0.00202")));

    // The same day's legs delivered again (a retry after a lost answer): seen, nothing moves.
    const day = Math.floor(tomorrow / 86_400_000);
    for (const leg of leverNightLegs({ positionId: p.id, userId: u.id, currencyId: USDT }, day, u8("0.00202"))) expect(await sendLegs(env, leg.to, [leg])).toEqual(["seen"]);
    expect(await objectBalances(u.id)).toEqual([["lever", USDT, u8("100") - u8("1.01505"), u8("1.01") - u8("0.00202")]]);
    expect(await house(SYSTEM_USERS.fees, shard)).toEqual([fees[shard]![0] + u8("0.00505") + u8("0.00202"), 0n]);

    const c = (await api("/lever/close", { token: u.token, body: { id: p.id } })).body.message;
    expect(c.profit).toBe("0.00000000");
    await legsDelivered();
    expect(await objectBalances(u.id)).toEqual([["lever", USDT, u8("100") - u8("0.00505") - u8("0.00202") - u8("0.00505"), 0n]]);
  });

  it("refuses an open the treasury as a whole cannot cover and moves nothing", async () => {
    await setIndex("1010.00");
    const u = await leverUser("100000");
    const before = await allHouses(TREASURY);
    // 1,000 lots at 1,010: a value of 10,100 USDT the house would have to cover, more than its eight
    // shards hold together (1,000 each); a shard short of a smaller cover borrows from its siblings
    // (worker/lib/treasury-refill.ts, tests/objects/treasury-refill-objects.test.ts).
    const r = await open(u.token, { share: 1000, multiple: 10 });
    expect(r.body).toMatchObject({ code: "house_cannot_cover" });
    expect(await objectBalances(u.id)).toEqual([["lever", USDT, u8("100000"), 0n]]);
    expect(await allHouses(TREASURY)).toEqual(before);
  });

  it("gives a pending open's margin, fee and cover back whole when its owner cancels it", async () => {
    await setIndex("101.00");
    const u = await leverUser("100");
    const before = await allHouses(TREASURY);
    const p = (await open(u.token, { target_price: "95" })).body.message;
    expect(p).toMatchObject({ status: 1, margin: "0.95000000" });
    await legsDelivered();
    // Margin 0.95 at the limit price and 95 × 0.1 × 0.05 % = 0.00475 open fee, held: a pending open
    // pays its fee when it fills (D1 mode charges it at the request and gives it back at a revoke).
    expect(await objectBalances(u.id)).toEqual([["lever", USDT, u8("100") - u8("0.95475"), u8("0.95475")]]);
    expect((await api("/lever/cancel", { token: u.token, body: { id: p.id } })).body.message).toMatchObject({ status: 5 });
    await legsDelivered();
    expect(await objectBalances(u.id)).toEqual([["lever", USDT, u8("100"), 0n]]);
    expect(await allHouses(TREASURY)).toEqual(before);
  });
});

describe("the open fee of a position on the account objects, charged at the open as in D1 mode", () => {
  it("takes a pending limit open's fee when it fills, and closes it without the fee", async () => {
    await setIndex("101.00");
    const u = await leverUser("100");
    await legsDelivered();
    const fees = await allHouses(SYSTEM_USERS.fees);
    const page = await pageFee("lever", "USDT");
    const p = (await open(u.token, { target_price: "95" })).body.message;
    const shard = leverShard(p.id);
    expect(p).toMatchObject({ status: 1, margin: "0.95000000" });
    expect(await differencesOf(u.id)).toEqual([]);
    await setIndex("95.00");
    await sweepNow();
    await expect.poll(async () => (await positionRow(p.id))?.status).toBe(2);
    await legsDelivered();
    expect(await objectBalances(u.id)).toEqual([["lever", USDT, u8("100") - u8("0.95475"), u8("0.95")]]);
    expect(await house(SYSTEM_USERS.fees, shard)).toEqual([fees[shard]![0] + u8("0.00475"), 0n]);
    expect(await differencesOf(u.id)).toEqual([]);
    expect(await positionRow(p.id)).toMatchObject({ fee_held: 0 });
    const c = (await api("/lever/close", { token: u.token, body: { id: p.id } })).body.message;
    expect(c).toMatchObject({ status: 4, profit: "0.00000000", close_fee: "0.00475000" });
    await legsDelivered();
    expect(await objectBalances(u.id)).toEqual([["lever", USDT, u8("100") - u8("0.00475") - u8("0.00475"), 0n]]);
    expect(await house(SYSTEM_USERS.fees, shard)).toEqual([fees[shard]![0] + u8("0.0095"), 0n]);
    // The transparency page counts both fees once: the open's movement and the close's.
    expect((await pageFee("lever", "USDT")) - page).toBe(u8("0.0095"));
  });

  it("closes a position opened before the open took its fee (its hold still holding it) as it did then", async () => {
    await setIndex("101.00");
    const u = await leverUser("100");
    await legsDelivered();
    const fees = await allHouses(SYSTEM_USERS.fees);
    // The pair as it was: no legs at the open (they are back before the close).
    const p = (await withoutOpenLegs("lever", () => open(u.token, {}))).body.message as { id: number };
    const shard = leverShard(p.id);
    await legsDelivered();
    expect(await objectBalances(u.id)).toEqual([["lever", USDT, u8("100") - u8("1.01505"), u8("1.01505")]]);
    expect(await differencesOf(u.id)).toEqual([]);
    expect(await positionRow(p.id)).toMatchObject({ fee_held: 1 });
    await setIndex("94.00");
    const c = (await api("/lever/close", { token: u.token, body: { id: p.id } })).body.message;
    expect(c).toMatchObject({ status: 4, profit: "-0.70000000", close_fee: "0.00470000" });
    await legsDelivered();
    // As a close always did: the open fee, the loss and the close fee from the hold; both fees to the fee shard.
    expect(await objectBalances(u.id)).toEqual([["lever", USDT, u8("100") - u8("0.7") - u8("0.00505") - u8("0.0047"), 0n]]);
    expect(await house(SYSTEM_USERS.fees, shard)).toEqual([fees[shard]![0] + u8("0.00505") + u8("0.0047"), 0n]);
    expect(await differencesOf(u.id)).toEqual([]);
  });
});

describe("ids drawn in one millisecond on the account objects", () => {
  it("opens every position submitted in the same millisecond, each under its own id", async () => {
    // Position ids are (ms since 2026) × 4096 + 12 random bits: 300 opens stamped with one
    // millisecond draw a taken id almost surely (1 − e^(−300·299/8192) ≈ 1). The house's cover hold
    // (keyed by the id, in the treasury shard) finds it taken: nothing moved, and the id is drawn again.
    await setIndex("101.00");
    // At most 20 open positions a user on BTC/USDT: 15 users open 20 each, of 1 lot × 10 (cover 1.01 USDT).
    const users = await Promise.all(Array.from({ length: 15 }, () => leverUser("100")));
    const before = await allHouses(TREASURY);
    const now = Date.now();
    const ids = new Set<number>();
    for (let i = 0; i < 300; i++) ids.add((await submitPosition(env, users[i % 15]!.id, { currency_id: BTC, legal_id: USDT, type: 1, share: 1, multiple: 10 }, now)).id);
    expect(ids.size).toBe(300);
    // Each open sent its fee from the hold to a fee shard: the margins alone stay frozen.
    await legsDelivered();
    for (const u of users) expect(await objectBalances(u.id)).toEqual([["lever", USDT, u8("100") - 20n * u8("0.101505"), 20n * u8("0.101")]]);
    const sum = (hs: [bigint, bigint][]) => hs.reduce(([a, f], [a2, f2]) => [a + a2, f + f2], [0n, 0n]);
    const [a0, f0] = sum(before);
    expect(sum(await allHouses(TREASURY))).toEqual([a0 - 300n * u8("1.01"), f0 + 300n * u8("1.01")]);
  });
});
