/**
 * The pair object's seconds desk and index ticks: the heartbeat keeps a tick at least every second
 * while the book is two-sided and none without an index; a change of index is a tick at once;
 * a pair without an index refuses contracts; a settlement interrupted by a failure (the object dies
 * between the result and D1) is applied exactly once when the alarm runs again.
 */
import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import type { PairDurableObject } from "../../durable/pair/object.ts";
import { api, drainPair, seedSpotPair, units } from "../api/helpers.ts";
import { bettor, expireNow, fundHouse, micro, orderRow, settled, stubOf, submit, twoSidedBook } from "../api/seconds-fixtures.ts";
import { PAIR, USDT, buy, trader } from "../api/spot-fixtures.ts";

const ONE_SIDED = 3;

type Tick = { id: number; price: number; at: number };
const ticksOf = (pairId: number) =>
  runInDurableObject(stubOf(pairId), async (_obj: PairDurableObject, state) =>
    state.storage.sql.exec("SELECT id, price, at FROM ticks ORDER BY id").toArray().map((r) => ({ id: Number(r.id), price: Number(r.price), at: Number(r.at) })) as Tick[],
  );

beforeAll(async () => {
  await seedSpotPair();
  await seedSpotPair({ pairId: ONE_SIDED, currencyId: 2 });
  await fundHouse(USDT, units("100000"));
});

describe("index ticks", () => {
  it("records no tick and keeps no heartbeat while the book is one-sided", async () => {
    const mm = await trader("1000", "0");
    await env.DB.prepare("INSERT INTO balances (user_id, currency_id, account) VALUES (?, 2, 'change') ON CONFLICT DO NOTHING").bind(mm.id).run();
    expect((await buy(mm.token, { currency_id: 2, price: "10", num: "1" })).body.type).toBe("ok");
    expect(await ticksOf(ONE_SIDED)).toEqual([]);
    const dues = await stubOf(ONE_SIDED).dueTimes();
    expect(dues.tick).toBeUndefined();
    const u = await bettor("100");
    expect((await submit(u.token, { match_id: ONE_SIDED })).body.code).toBe("no_market_price");
  });

  it("records a tick when the book becomes two-sided, again at once when the index moves, and at least every second", async () => {
    await twoSidedBook("100", "102");
    const first = await ticksOf(PAIR);
    expect(first.at(-1)).toMatchObject({ price: 10100 });
    // The heartbeat is due one second after the newest tick (read together, so no beat slips in between).
    const [newest, due] = await runInDurableObject(stubOf(PAIR), async (obj: PairDurableObject, state) => [
      Number(state.storage.sql.exec("SELECT max(at) AS at FROM ticks").one().at),
      obj.dueTimes().tick,
    ]);
    expect(due).toBe(newest + 1000);
    // A new best bid moves the index: a tick right away, whatever the time since the last.
    await twoSidedBook("101", "102");
    const moved = await ticksOf(PAIR);
    expect(moved.at(-1)).toMatchObject({ price: 10150 });
    // Nothing moves now: the heartbeat alone adds ticks of the same price, a second apart.
    let all = moved;
    for (let i = 0; i < 2000 && all.length < moved.length + 2; i++) {
      await runDurableObjectAlarm(stubOf(PAIR));
      await new Promise((r) => setTimeout(r, 10));
      all = await ticksOf(PAIR);
    }
    const beats = all.slice(moved.length - 1);
    expect(beats.length).toBeGreaterThanOrEqual(3);
    for (let k = 1; k < beats.length; k++) {
      expect(beats[k]!.price).toBe(10150);
      expect(beats[k]!.at - beats[k - 1]!.at).toBeGreaterThanOrEqual(1000);
    }
    // And the public endpoint pages them, oldest first.
    const page = (await api(`/microtrade/ticks?match_id=${PAIR}&from=0&to=${all.at(-1)!.at}&limit=2&page=1`)).body.message;
    expect(page.total).toBe(all.length);
    expect(page.lists.map((t: { id: number }) => t.id)).toEqual([all[0]!.id, all[1]!.id]);
  });
});

describe("settlement that fails half-way", () => {
  it("is applied exactly once when the alarm runs again after the object failed between the result and D1", async () => {
    const u = await bettor("100");
    const house = await micro(-3);
    const o = (await submit(u.token, { type: 2, seconds: 30, number: "10" })).body.message;
    expect(o.status).toBe(1);
    // Its acceptance reaches D1 (the pair's drain), then D1 goes away for a moment: the drain of the settlement fails.
    await drainPair(PAIR);
    await env.DB.prepare("CREATE TRIGGER test_d1_down BEFORE UPDATE OF status ON micro_orders BEGIN SELECT RAISE(ABORT, 'd1 down'); END").run();
    await expireNow(PAIR, o.id);
    let failed = false;
    for (let i = 0; i < 50 && !failed; i++) {
      await runDurableObjectAlarm(stubOf(PAIR)).catch(() => undefined);
      failed = await runInDurableObject(stubOf(PAIR), async (_obj, state) => Number(state.storage.sql.exec("SELECT status FROM contracts WHERE id = ?", o.id).one().status) === 2);
    }
    expect(failed).toBe(true);
    expect(Number((await orderRow(o.id))!.status)).toBe(1);
    expect(await micro(u.id)).toEqual([units("89.8"), units("10")]);
    // The object restarts (its desks rebuilt from storage) and D1 is back.
    await runInDurableObject(stubOf(PAIR), async (obj: PairDurableObject) => {
      (obj as unknown as { load(i: unknown): void }).load(obj.pairInfo);
    });
    await env.DB.prepare("DROP TRIGGER test_d1_down").run();
    const row = await settled(PAIR, o.id);
    // Nothing moved the index: down wins 80 % of 10, once.
    expect(row.result).toBe(Number(units("8")));
    expect(await micro(u.id)).toEqual([units("107.8"), 0n]);
    expect(await micro(-3)).toEqual([house[0] - units("8"), house[1]]);
    await runDurableObjectAlarm(stubOf(PAIR));
    expect(await micro(u.id)).toEqual([units("107.8"), 0n]);
    expect((await env.DB.prepare("SELECT count(*) n FROM movements WHERE key LIKE ?").bind(`micro:${o.id}:%`).first<{ n: number }>())!.n).toBe(2);
  });
});

describe("a wave of expiries", () => {
  it("settles 520 contracts ending together (more than one settle chunk and one drain batch) each once, by its own ticks, to the unit", async () => {
    await twoSidedBook("100", "102");
    const users = await Promise.all([0, 1, 2, 3].map(() => bettor("2000")));
    const houseBefore = await micro(-3);
    const orders: { id: number; user: number; type: 1 | 2 }[] = [];
    for (let k = 0; k < 520; k++) {
      const u = users[k % users.length]!;
      const type = (k % 3 === 0 ? 2 : 1) as 1 | 2;
      const r = (await submit(u.token, { type, seconds: 30, number: "1" })).body;
      expect(r.type).toBe("ok");
      orders.push({ id: r.message.id, user: u.id, type });
      // The index moves now and then, so entries differ and some contracts win while others lose.
      if (k % 130 === 65) await twoSidedBook(k % 260 === 65 ? "99" : "101", "102");
    }
    // All of them run out in the same instant.
    const now = await runInDurableObject(stubOf(PAIR), async (_obj: PairDurableObject, state) => {
      const t = Date.now();
      state.storage.sql.exec("UPDATE contracts SET end_at = ? WHERE status = 1", t);
      state.storage.sql.exec("INSERT INTO schedule (kind, due, rev) VALUES ('expiry', ?1, 0) ON CONFLICT (kind) DO UPDATE SET due = ?1, rev = rev + 1", t);
      return t;
    });
    await env.DB.prepare("UPDATE micro_orders SET end_at = ? WHERE status = 1").bind(now).run();
    await settled(PAIR, orders.at(-1)!.id);
    for (let i = 0; i < 200; i++) {
      const open = await env.DB.prepare("SELECT count(*) n FROM micro_orders WHERE status < 3").first<{ n: number }>();
      if (open!.n === 0) break;
      await runDurableObjectAlarm(stubOf(PAIR));
    }
    const ticks = await ticksOf(PAIR);
    const exit = ticks.filter((t) => t.at <= now).at(-1)!;
    const expected = new Map(users.map((u) => [u.id, units("2000")]));
    let wins = 0;
    for (const o of orders) {
      const row = (await orderRow(o.id))!;
      expect(Number(row.status)).toBe(3);
      // Each result is the rule applied to its own entry tick and the last tick at or before the end.
      expect(Number(row.end_tick_id)).toBe(exit.id);
      const entry = ticks.find((t) => t.id === Number(row.open_tick_id))!;
      expect(Number(row.open_price)).toBe(entry.price);
      const won = o.type === 1 ? exit.price > entry.price : exit.price <= entry.price;
      expect(Number(row.result)).toBe(won ? Number(units("0.8")) : -Number(units("1")));
      if (won) wins++;
      expected.set(o.user, expected.get(o.user)! - units("0.02") + (won ? units("0.8") : -units("1")));
    }
    const moves = await env.DB.prepare("SELECT count(*) n FROM movements WHERE key LIKE 'micro:%:settle' AND CAST(substr(key, 7) AS INTEGER) BETWEEN ? AND ?")
      .bind(orders[0]!.id, orders.at(-1)!.id)
      .first<{ n: number }>();
    expect(moves!.n).toBe(orders.length);
    // Both outcomes happened in the wave (the entries differ), so the sums below check both paths.
    expect(wins).toBeGreaterThan(0);
    expect(wins).toBeLessThan(orders.length);
    for (const u of users) expect(await micro(u.id)).toEqual([expected.get(u.id)!, 0n]);
    // The house paid every win from its hold and holds nothing for these contracts any more.
    expect((await micro(-3))[1]).toBe(houseBefore[1]);
  }, 120_000);
});
