/**
 * A seconds contract or a lever open the pair refuses after its money was held, on the account
 * objects (ACCOUNTS=objects): its holds come back and it stays in its owner's history as revoked,
 * once, as D1's path leaves it (D1's path writes the row with the hold and marks it revoked with the
 * refund). The row is the refusal's one D1 statement; an accepted contract or open sends none on its
 * way (tests/objects/lever-sync-objects.test.ts for the open's reads).
 */
import { env } from "cloudflare:test";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { accountStub, SYSTEM_SHARDS, SYSTEM_USERS, systemStub } from "../../worker/lib/accounts.ts";
import { noteIndex, submitPosition } from "../../worker/domain/lever/positions.ts";
import { api, seedSpotPair, units } from "../api/helpers.ts";
import { orderRow, submit } from "../api/seconds-fixtures.ts";
import { open } from "../api/lever-fixtures.ts";
import { BTC, PAIR, USDT, fundTreasuryShards, objectBalances, objectUserWith, twoSidedObjectBook } from "./fixtures.ts";
import { onPath, statementsOf, stopRecording } from "./d1-statements.ts";

/** ETH/USDT: a pair whose book stays empty (no index). */
const EMPTY_PAIR = 2;
/** The statement that writes a refused contract's or open's row (the pair's drain inserts from json_each, without VALUES). */
const CONTRACT_ROW = /INSERT INTO micro_orders[\s\S]*VALUES/;
const POSITION_ROW = /INSERT INTO lever_positions[\s\S]*VALUES/;

const contractRows = (userId: number) =>
  env.DB.prepare("SELECT id, status, client_oid, open_tick_id, settled_at IS NOT NULL AS settled FROM micro_orders WHERE user_id = ? ORDER BY id").bind(userId).all().then((r) => r.results);
const positionRows = (userId: number) =>
  env.DB.prepare("SELECT id, status, close_reason, CAST(margin AS TEXT) AS margin, closed_at IS NOT NULL AS closed FROM lever_positions WHERE user_id = ? ORDER BY id")
    .bind(userId)
    .all()
    .then((r) => r.results);
/** The treasury's USDT over its shards, [available, frozen] per shard (the houses' covers are frozen there). */
const treasury = () =>
  Promise.all(
    Array.from({ length: SYSTEM_SHARDS }, async (_, k) => {
      const b = (await systemStub(env, SYSTEM_USERS.treasury, k).systemBalances(SYSTEM_USERS.treasury, k)).find((x) => x.currencyId === USDT && x.account === "change");
      return [b?.available ?? 0n, b?.frozen ?? 0n];
    }),
  );
const history = async (token: string, status?: number) => (await api(`/new/microtrade/lists${status === undefined ? "" : `?status=${status}`}`, { token })).body.data;
const myTrades = async (token: string, status: number) => (await api(`/lever/my_trade?legal_id=${USDT}&status=${status}`, { token, method: "POST" })).body.message.message;

beforeAll(async () => {
  await seedSpotPair();
  await seedSpotPair({ pairId: EMPTY_PAIR, currencyId: 2 });
  await fundTreasuryShards(units("1000"));
  // Bid 100, ask 102: BTC/USDT's index is 101.00.
  await twoSidedObjectBook();
});

afterEach(() => stopRecording());

describe("a seconds contract the pair refuses, on the account objects", () => {
  it("is in its owner's history as revoked, once, with its money back, and a replay of its client id answers it", async () => {
    const u = await objectUserWith("micro", "100");
    const houses = await treasury();
    let r: Awaited<ReturnType<typeof submit>> | undefined;
    const path = await statementsOf(async () => {
      r = await submit(u.token, { match_id: EMPTY_PAIR, number: "10", seconds: 30, client_oid: "empty-1" });
    });
    expect([r!.status, r!.body.code]).toEqual([409, "no_market_price"]);
    expect(onPath(path).filter((s) => CONTRACT_ROW.test(s))).toHaveLength(1);
    expect(await objectBalances(u.id)).toEqual([["micro", USDT, units("100"), 0n]]);
    expect(await accountStub(env, u.id).accountOpenHolds(u.id)).toEqual([]);
    expect(await treasury()).toEqual(houses);

    const h = await history(u.token, 4);
    expect(h.total).toBe(1);
    const revoked = h.lists[0];
    expect(revoked).toMatchObject({ status: 4, match_id: EMPTY_PAIR, number: "10.00000000", fee: "0.20000000", seconds: 30, open_price: null, open_tick_id: null, fact_profits: null });
    expect((await history(u.token)).total).toBe(1);
    expect((await api(`/microtrade/order?id=${revoked.id}`, { token: u.token })).body.message).toMatchObject({ id: revoked.id, status: 4 });
    // As D1's row of a refunded contract: status 4, no entry, its refund's time, its client id.
    expect(await orderRow(revoked.id)).toMatchObject({ user_id: u.id, pair_id: EMPTY_PAIR, status: 4, stake: Number(units("10")), fee: Number(units("0.2")), hold: Number(units("8")), client_oid: "empty-1", end_at: null });
    // The running list shows running and just-settled contracts only, as on D1's path.
    expect((await api("/microtrade/lists", { token: u.token })).body.message).toEqual([]);

    // Sent again: the revoked contract answers, nothing is held, no second row.
    const again = await submit(u.token, { match_id: EMPTY_PAIR, number: "10", seconds: 30, client_oid: "empty-1" });
    expect(again.body.message).toMatchObject({ id: revoked.id, status: 4 });
    expect(await contractRows(u.id)).toEqual([{ id: revoked.id, status: 4, client_oid: "empty-1", open_tick_id: null, settled: 1 }]);
    expect(await objectBalances(u.id)).toEqual([["micro", USDT, units("100"), 0n]]);
  });

  it("sent twice at the same moment with one client id, leaves one revoked row", async () => {
    const u = await objectUserWith("micro", "100");
    const body = { match_id: EMPTY_PAIR, number: "10", seconds: 30, client_oid: "twice-1" };
    const answers = await Promise.all([submit(u.token, body), submit(u.token, body)]);
    // Each answers the refusal, or (the second, reaching the user's object first) the revoked contract, or try_again.
    for (const a of answers) expect(String(a.body.type === "ok" ? a.body.message.status : a.body.code), JSON.stringify(a.body)).toMatch(/^(4|no_market_price|try_again)$/);
    const rows = await contractRows(u.id);
    expect(rows).toEqual([{ id: expect.any(Number), status: 4, client_oid: "twice-1", open_tick_id: null, settled: 1 }]);
    expect(await objectBalances(u.id)).toEqual([["micro", USDT, units("100"), 0n]]);
    expect((await history(u.token, 4)).total).toBe(1);
  });

  it("refused on remembered terms and priced again, leaves one revoked row; an accepted contract sends no row on its way", async () => {
    const u = await objectUserWith("micro", "100");
    let ok: Awaited<ReturnType<typeof submit>> | undefined;
    const accepted = await statementsOf(async () => {
      ok = await submit(u.token, { number: "10", seconds: 60 });
    });
    expect(ok!.body.message).toMatchObject({ status: 1 });
    expect(onPath(accepted).filter((s) => CONTRACT_ROW.test(s))).toEqual([]);
    const held = await objectBalances(u.id);

    // The isolate remembers the terms: the pair's refusal (price_moved) is priced again on D1's and refused again.
    const moved = { number: "10", seconds: 60, index_price: "1.00", client_oid: "moved-1" };
    const r = await submit(u.token, moved);
    expect([r.status, r.body.code], JSON.stringify(r.body)).toEqual([409, "price_moved"]);
    // (The accepted contract's row arrives with the pair's drain, at any moment: only the revoked ones are compared.)
    const revoked = async () => (await contractRows(u.id)).filter((c) => c.status === 4);
    const rows = await revoked();
    expect(rows).toEqual([{ id: expect.any(Number), status: 4, client_oid: "moved-1", open_tick_id: null, settled: 1 }]);
    // Sent again: the revoked contract answers (as D1's path answers a replay of it), no second row.
    expect((await submit(u.token, moved)).body.message).toMatchObject({ id: rows[0]!.id, status: 4 });
    expect(await revoked()).toEqual(rows);
    expect(await objectBalances(u.id)).toEqual(held);
    expect((await history(u.token, 4)).total).toBe(1);
  });
});

describe("a lever open the pair refuses, on the account objects", () => {
  it("is in its owner's list as revoked, once, with its margin, fee and cover back", async () => {
    // At most 20 open positions a user on BTC/USDT: the 21st is refused by the pair.
    const u = await objectUserWith("lever", "100");
    for (let i = 0; i < 20; i++) await submitPosition(env, u.id, { currency_id: BTC, legal_id: USDT, type: 1, share: 1, multiple: 10 });
    const held = await objectBalances(u.id);
    const houses = await treasury();
    let r: Awaited<ReturnType<typeof open>> | undefined;
    const path = await statementsOf(async () => {
      r = await open(u.token, { share: 2 });
    });
    expect([r!.status, r!.body.code]).toEqual([409, "lever_too_many"]);
    expect(onPath(path).filter((s) => POSITION_ROW.test(s))).toHaveLength(1);
    expect(await objectBalances(u.id)).toEqual(held);
    expect(await treasury()).toEqual(houses);

    const list = await myTrades(u.token, 5);
    expect(list.total).toBe(1);
    expect(list.data[0]).toMatchObject({ status: 5, status_name: "revoked", close_reason: "revoked", share: 2, multiple: 10, margin: "0.20200000", open_price: null, profit: null });
    expect((await positionRows(u.id)).filter((p) => p.status === 5)).toEqual([{ id: list.data[0].id, status: 5, close_reason: "revoked", margin: String(units("0.202")), closed: 1 }]);
  });

  it("priced on an index remembered since moved: one revoked row, then opened at a fresh quote (as D1's path)", async () => {
    const u = await objectUserWith("lever", "100");
    // The Worker remembers an index of 90.00 from a moment ago; the index is 101.00.
    noteIndex(PAIR, { tickId: 1, price: 9000 });
    const r = await api("/lever/submit", { token: u.token, body: { currency_id: BTC, legal_id: USDT, type: 1, share: 10, multiple: 10 } });
    expect(r.body.message, JSON.stringify(r.body)).toMatchObject({ status: 2, open_price: "101.00", margin: "1.01000000", trade_fee: "0.00505000" });
    const rows = await positionRows(u.id);
    expect(rows.filter((p) => p.status === 5)).toEqual([{ id: expect.any(Number), status: 5, close_reason: "revoked", margin: String(units("0.9")), closed: 1 }]);
    expect((await myTrades(u.token, 5)).total).toBe(1);
    // Only the open's margin stays held (its fee went to the fee shard at the open).
    expect(await objectBalances(u.id)).toEqual([["lever", USDT, units("100") - units("1.01505"), units("1.01")]]);
  });
});
