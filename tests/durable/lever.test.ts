/**
 * The pair object's lever desk: the sweep is armed within a second while positions live and not
 * after; a stop is judged at the INDEX, never at a last trade printed beyond it; a liquidation
 * interrupted between the object and D1 (D1 down, the alarm failing, the object restarted) is
 * applied exactly once; an alarm fired twice over an already-applied close changes nothing.
 */
import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import type { PairDurableObject } from "../../durable/pair/object.ts";
import { TREASURY } from "../../worker/lib/guarded.ts";
import { reconcile } from "../../worker/domain/ledger/reconcile.ts";
import { api, drainPair, seedSpotPair, units } from "../api/helpers.ts";
import { fundHouse } from "../api/seconds-fixtures.ts";
import { USDT, buy, sell, trader } from "../api/spot-fixtures.ts";
import { movementStatements, SYSTEM } from "../../worker/lib/ledger.ts";
import { lever, leverUser, open, positionRow, setIndex, stubOf, sweepNow } from "../api/lever-fixtures.ts";

/** A pair of its own for the last-trade test (lever settings copied from BTC/USDT). */
const TRADED = 7;
const TRADED_COIN = 7;

const u8 = (v: string) => units(v);
const closeMovements = (id: number) => env.DB.prepare("SELECT count(*) n FROM movements WHERE key = ?").bind(`lever:${id}:close`).first<{ n: number }>();

beforeAll(async () => {
  await seedSpotPair();
  await seedSpotPair({ pairId: TRADED, currencyId: TRADED_COIN, name: "TRD" });
  await env.DB.prepare(
    `INSERT INTO lever_pairs (pair_id, share_num, multiples, min_lots, max_lots, fee_bps, overnight_bps, maintenance_bps, pair_exposure, max_positions)
     SELECT ?, share_num, multiples, min_lots, max_lots, fee_bps, overnight_bps, maintenance_bps, pair_exposure, max_positions FROM lever_pairs WHERE pair_id = 1`,
  )
    .bind(TRADED)
    .run();
  await fundHouse(USDT, u8("100000"));
});

describe("the sweep", () => {
  it("is due within a second while a position lives, and stops once none does", async () => {
    await setIndex("101.00");
    const u = await leverUser("100");
    const before = Date.now();
    const p = (await open(u.token, {})).body.message;
    const due = await runInDurableObject(stubOf(1), async (obj: PairDurableObject) => obj.dueTimes());
    expect(due.sweep).toBeDefined();
    expect(due.sweep! - before).toBeLessThanOrEqual(1000 + (Date.now() - before));
    expect((await api("/lever/close", { token: u.token, body: { id: p.id } })).body.type).toBe("ok");
    await sweepNow();
    expect((await runInDurableObject(stubOf(1), async (obj: PairDurableObject) => obj.dueTimes())).sweep).toBeUndefined();
  });
});

describe("stops at the index", () => {
  it("does not stop a long out on a last trade below its stop-loss while the index stays above it", async () => {
    await setIndex("100.00", TRADED, TRADED_COIN);
    const u = await leverUser("100");
    const p = (await open(u.token, { currency_id: TRADED_COIN, stop_loss: "95" })).body.message;
    expect(p.status).toBe(2);
    // A lone bid at 94 is hit: the last trade prints 94, below the stop-loss. A limit order must sit
    // within 10 % of the index (the price band), so the index is kept near 100 by a trade at 100.01
    // first: then the bid at 94 rests with index = median(100.01, 94, 100.01) = 100.01.
    const a = await trader("100000", "0");
    const b = await trader("100000", "0");
    expect((await buy(a.token, { price: "100.01", num: "0.1", currency_id: TRADED_COIN })).body.type).toBe("ok");
    await drainPair(TRADED);
    const { results } = await env.DB.prepare("SELECT id, user_id FROM spot_orders WHERE pair_id = ? AND status IN (0, 1) AND side = 'buy'").bind(TRADED).all<{ id: number; user_id: number }>();
    for (const o of results) await stubOf(TRADED).cancel(TRADED, o.id, o.user_id);
    const coin = async (userId: number) => {
      await env.DB.batch(
        movementStatements(env.DB, `test-coin:${userId}`, "deposit", [
          { userId, currencyId: TRADED_COIN, account: "change", dAvailable: u8("10"), dFrozen: 0n },
          { userId: SYSTEM.deposits, currencyId: TRADED_COIN, account: "change", dAvailable: -u8("10"), dFrozen: 0n },
        ]),
      );
    };
    await coin(b.id);
    expect((await buy(a.token, { price: "94", num: "0.1", currency_id: TRADED_COIN })).body.type).toBe("ok");
    expect((await sell(b.token, { price: "94", num: "0.1", currency_id: TRADED_COIN })).body.type).toBe("ok");
    await drainPair(TRADED);
    const last = await stubOf(TRADED).top(TRADED);
    expect(last.last).toBe(9400);
    // … while the book has no bid, so there is no index: nothing is stopped.
    await sweepNow(TRADED);
    expect((await positionRow(p.id))!.status).toBe(2);
    // A bid returns at 99: index = median(94, 99, 100.01) = 99, above the stop-loss.
    expect((await buy(a.token, { price: "99", num: "0.1", currency_id: TRADED_COIN })).body.type).toBe("ok");
    await sweepNow(TRADED);
    expect((await positionRow(p.id))!.status).toBe(2);
    // Only the index reaching 95 stops it, at the index.
    await setIndex("95.00", TRADED, TRADED_COIN);
    await sweepNow(TRADED);
    const row = await positionRow(p.id);
    expect(row).toMatchObject({ status: 4, close_reason: "loss" });
    expect(Number(row!.close_price)).toBeLessThanOrEqual(9500);
    expect(Number(row!.close_price)).toBeGreaterThan(9400);
  });
});

describe("exactly once", () => {
  it("applies a liquidation once when the object failed between the close and D1 and its alarm runs again", async () => {
    await setIndex("101.00");
    const u = await leverUser("100");
    const p = (await open(u.token, {})).body.message;
    const house = await lever(TREASURY);
    // The open's acceptance reaches D1 (the pair's drain) before D1 goes away.
    await drainPair(1);
    // D1 goes away for a moment: the drain of the liquidation fails.
    await env.DB.prepare("CREATE TRIGGER test_d1_down BEFORE UPDATE OF status ON lever_positions BEGIN SELECT RAISE(ABORT, 'd1 down'); END").run();
    await setIndex("80.00");
    await sweepNow().catch(() => undefined);
    const inObject = await runInDurableObject(stubOf(1), async (_obj, state) => Number(state.storage.sql.exec("SELECT status FROM lever_positions WHERE id = ?", p.id).one().status));
    expect(inObject).toBe(3);
    expect((await positionRow(p.id))!.status).toBe(2);
    expect(await lever(u.id)).toEqual([u8("100") - u8("1.01") - u8("0.00505"), u8("1.01")]);
    // The alarm fires again while D1 is still down: still nothing applied, and nothing lost.
    await runDurableObjectAlarm(stubOf(1)).catch(() => undefined);
    expect((await positionRow(p.id))!.status).toBe(2);
    // The object restarts (a new instance rebuilt from its storage) and D1 is back: the next alarm
    // applies the liquidation, once.
    const first = await runInDurableObject(stubOf(1), async (obj: PairDurableObject) => obj);
    await runInDurableObject(stubOf(1), async (_obj, state) => state.abort("restart mid-liquidation")).catch(() => undefined);
    expect(await runInDurableObject(stubOf(1), async (obj: PairDurableObject) => obj)).not.toBe(first);
    await env.DB.prepare("DROP TRIGGER test_d1_down").run();
    for (let i = 0; i < 50 && Number((await positionRow(p.id))!.status) !== 4; i++) {
      await runInDurableObject(stubOf(1), async (_obj, state) => {
        state.storage.sql.exec("UPDATE schedule SET due = 1");
      });
      await runDurableObjectAlarm(stubOf(1));
    }
    expect(await positionRow(p.id)).toMatchObject({ status: 4, close_reason: "liquidation", close_price: 8000, profit: -Number(u8("1.01")) });
    expect(await lever(u.id)).toEqual([u8("100") - u8("1.01") - u8("0.00505"), 0n]);
    expect((await lever(TREASURY))[0]).toBe(house[0] + u8("10.1") + u8("1.01"));
    expect(await closeMovements(p.id)).toEqual({ n: 1 });
    expect((await reconcile(env.DB)).differences).toEqual([]);
  });

  it("changes nothing when an already-applied close is drained again and the alarm fires twice", async () => {
    await setIndex("101.00");
    const u = await leverUser("100");
    const p = (await open(u.token, { stop_profit: "105" })).body.message;
    await setIndex("106.00");
    await sweepNow();
    expect((await positionRow(p.id))!.status).toBe(4);
    const after = await lever(u.id);
    const ledgerRows = (await env.DB.prepare("SELECT count(*) n FROM ledger").first<{ n: number }>())!.n;
    // As if the object had lost its note that the close reached D1, then fired twice.
    await runInDurableObject(stubOf(1), async (_obj, state) => {
      state.storage.sql.exec("UPDATE outbox SET drained_at = NULL WHERE payload LIKE ?", `%"positionId":${p.id},%`);
      state.storage.sql.exec("UPDATE lever_positions SET status = 3 WHERE id = ?", p.id);
    });
    await drainPair(1);
    await sweepNow();
    await sweepNow();
    expect(await lever(u.id)).toEqual(after);
    expect((await env.DB.prepare("SELECT count(*) n FROM ledger").first<{ n: number }>())!.n).toBe(ledgerRows);
    expect(await closeMovements(p.id)).toEqual({ n: 1 });
    expect(await stubOf(1).leverStatus(1, p.id)).toBe(4);
  });
});

describe("pruning", () => {
  it("forgets closed and revoked positions a week after they ended, and keeps live ones and recent ones", async () => {
    await setIndex("101.00");
    const u = await leverUser("100");
    const closed = (await open(u.token, {})).body.message;
    const revoked = (await open(u.token, { target_price: "90" })).body.message;
    const live = (await open(u.token, {})).body.message;
    expect((await api("/lever/close", { token: u.token, body: { id: closed.id } })).body.type).toBe("ok");
    expect((await api("/lever/cancel", { token: u.token, body: { id: revoked.id } })).body.type).toBe("ok");
    await drainPair(1);
    const DAY = 86_400_000;
    const pruneAt = (at: number) => runInDurableObject(stubOf(1), async (obj: PairDurableObject) => (obj as unknown as { lever: { prune(now: number): number } }).lever.prune(at));
    const statuses = async () => [await stubOf(1).leverStatus(1, closed.id), await stubOf(1).leverStatus(1, revoked.id), await stubOf(1).leverStatus(1, live.id)];
    await pruneAt(Date.now() + 6 * DAY);
    expect(await statuses()).toEqual([4, 5, 2]);
    await pruneAt(Date.now() + 8 * DAY);
    expect(await statuses()).toEqual([null, null, 2]);
    // D1 keeps the record.
    expect((await positionRow(closed.id))!.status).toBe(4);
    expect((await api("/lever/close", { token: u.token, body: { id: live.id } })).body.type).toBe("ok");
  });
});
