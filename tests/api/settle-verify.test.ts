/**
 * Every settlement checkable (issue #20 §3) through the Worker: a settled seconds contract names
 * its entry and exit ticks, and the public tick log gives those ticks with their neighbours, at
 * prices that give the settled result; a leveraged position closed by the index names the tick
 * that crossed its liquidation price (or take-profit) and that price; another user's contract or
 * position reads as not found; bad input is refused with a clear error.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { settleSeconds } from "../../durable/engine/seconds.ts";
import { formatUnits, parseUnits } from "../../schemas/money.ts";
import { api, makeUser, seedSpotPair, units } from "./helpers.ts";
import { PAIR, USDT } from "./spot-fixtures.ts";
import { bettor, expireNow, fundHouse, settled, submit } from "./seconds-fixtures.ts";
import { leverUser, open, setIndex, sweepNow } from "./lever-fixtures.ts";

interface Tick {
  id: number;
  match_id: number;
  price: string;
  at: number;
}
interface Window {
  tick: Tick;
  before: Tick[];
  after: Tick[];
}

const tickWindow = async (id: number, n = 3): Promise<Window> => {
  const r = await api(`/currency/index_tick?match_id=${PAIR}&id=${id}&n=${n}`);
  expect(r.body.type).toBe("ok");
  return r.body.message as Window;
};

beforeAll(async () => {
  await seedSpotPair();
  await fundHouse(USDT, units("1000000"));
});

describe("a settled seconds contract", () => {
  it("names the entry and exit ticks whose public prices give the settled result, with the neighbouring ticks", async () => {
    await setIndex("101.00");
    const u = await bettor("100");
    const o = (await submit(u.token, { type: 1, seconds: 30, number: "10" })).body.message;
    // The index rises after the entry: up wins.
    await setIndex("105.00");
    await expireNow(PAIR, o.id);
    await settled(PAIR, o.id);

    const c = (await api(`/microtrade/order?id=${o.id}`, { token: u.token })).body.message;
    expect(c).toMatchObject({ id: o.id, status: 3, type: 1, open_price: "101.00", end_price: "105.00", profit_ratio: "80", fact_profits: "8.00000000" });
    const entry = await tickWindow(c.open_tick_id);
    const exit = await tickWindow(c.end_tick_id);
    expect(entry.tick).toMatchObject({ id: c.open_tick_id, match_id: PAIR, price: c.open_price });
    expect(exit.tick).toMatchObject({ id: c.end_tick_id, match_id: PAIR, price: c.end_price });
    // The exit is the last tick at or before the expiry.
    expect(exit.tick.at).toBeLessThanOrEqual(c.end_at);
    for (const t of exit.after) expect(t.at).toBeGreaterThan(c.end_at);
    // Neighbours, oldest first, at most n either side.
    for (const w of [entry, exit]) {
      expect(w.before.length).toBeLessThanOrEqual(3);
      expect(w.after.length).toBeLessThanOrEqual(3);
      const ids = [...w.before, w.tick, ...w.after].map((t) => t.id);
      expect(ids).toEqual([...ids].sort((a, b) => a - b));
    }
    expect(exit.before.length).toBeGreaterThan(0);
    // The result recomputed from nothing but the two public ticks, the direction, ratio and stake.
    const again = settleSeconds(c.type, parseUnits(entry.tick.price, 2)!, parseUnits(exit.tick.price, 2)!, 8000, units(c.number));
    expect(formatUnits(again.result, 8)).toBe(c.fact_profits);
    expect(again.won).toBe(true);
  });

  it("reads as not found for another user, and refuses bad ids and a missing login", async () => {
    await setIndex("101.00");
    const owner = await bettor("100");
    const other = await bettor("100");
    const o = (await submit(owner.token, { type: 2, seconds: 30, number: "10" })).body.message;
    const theirs = await api(`/microtrade/order?id=${o.id}`, { token: other.token });
    expect(theirs.status).toBe(404);
    expect(theirs.body).toMatchObject({ type: "error", code: "not_found", message: "Data not found" });
    expect((await api(`/microtrade/order?id=${o.id}`, { token: other.token, lang: "zh" })).body.message).toBe("数据未找到");
    expect((await api(`/microtrade/order?id=${o.id}`)).body.type).toBe("999");
    expect((await api("/microtrade/order?id=abc", { token: owner.token })).body.code).toBe("invalid_param");
    expect((await api("/microtrade/order", { token: owner.token })).body.code).toBe("invalid_param");
    expect((await api(`/microtrade/order?id=${o.id}`, { token: owner.token })).body.message).toMatchObject({ id: o.id, type: 2 });
  });
});

describe("the public tick window", () => {
  it("answers anyone, and refuses an unknown tick, an unknown pair and bad parameters", async () => {
    await setIndex("101.00");
    const latest = (await api(`/microtrade/ticks?match_id=${PAIR}&from=0&limit=1000`)).body.message.lists.at(-1) as Tick;
    const w = await tickWindow(latest.id, 0);
    expect(w).toEqual({ tick: latest, before: [], after: [] });
    const unknown = await api(`/currency/index_tick?match_id=${PAIR}&id=999999999`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe("not_found");
    expect((await api(`/currency/index_tick?match_id=777&id=1`)).body.code).toBe("pair_closed");
    for (const q of ["match_id=abc&id=1", `match_id=${PAIR}`, `match_id=${PAIR}&id=0`, `match_id=${PAIR}&id=1&n=21`, `match_id=${PAIR}&id=1&n=-1`]) {
      expect((await api(`/currency/index_tick?${q}`)).body.code).toBe("invalid_param");
    }
  });
});

describe("a leveraged position closed by the index", () => {
  it("names the tick that crossed its liquidation price, and that price", async () => {
    await setIndex("101.00");
    const u = await leverUser("100");
    const p = (await open(u.token, {})).body.message;
    // 20 % maintenance at 10×: liquidated at an index of 92.92 or below.
    expect(p.force_price).toBe("92.92");
    await setIndex("92.93");
    await sweepNow();
    await setIndex("90.00");
    await sweepNow();
    const d = (await api(`/lever/position?id=${p.id}`, { token: u.token })).body.message;
    expect(d).toMatchObject({ id: p.id, status: 4, close_reason: "liquidation", close_price: "90.00", trigger_price: "92.92", open_tick_id: expect.any(Number), close_tick_id: expect.any(Number) });
    const close = await tickWindow(d.close_tick_id);
    expect(close.tick.price).toBe("90.00");
    expect(Number(parseUnits(close.tick.price, 2))).toBeLessThanOrEqual(Number(parseUnits(d.trigger_price, 2)));
    // The tick before it had not crossed: the index stood above the liquidation price.
    expect(close.before.some((t) => t.price === "92.93")).toBe(true);
    expect((await tickWindow(d.open_tick_id)).tick.price).toBe(d.open_price);
  });

  it("names the tick that reached a short's take-profit", async () => {
    await setIndex("101.00");
    const u = await leverUser("100");
    const p = (await open(u.token, { type: 2, stop_profit: "95" })).body.message;
    await setIndex("95.00");
    await sweepNow();
    const d = (await api(`/lever/position?id=${p.id}`, { token: u.token })).body.message;
    expect(d).toMatchObject({ status: 4, close_reason: "profit", close_price: "95.00", trigger_price: "95.00" });
    expect((await tickWindow(d.close_tick_id)).tick.price).toBe("95.00");
  });

  it("shows a position closed by its owner with its close tick and no trigger price", async () => {
    await setIndex("101.00");
    const u = await leverUser("100");
    const p = (await open(u.token, {})).body.message;
    await setIndex("103.00");
    expect((await api("/lever/close", { token: u.token, body: { id: p.id } })).body.type).toBe("ok");
    const d = (await api(`/lever/position?id=${p.id}`, { token: u.token })).body.message;
    expect(d).toMatchObject({ status: 4, close_reason: "user", close_price: "103.00", trigger_price: null });
    expect((await tickWindow(d.close_tick_id)).tick.price).toBe("103.00");
  });

  it("reads as not found for another user, and refuses bad ids and a missing login", async () => {
    await setIndex("101.00");
    const owner = await leverUser("100");
    const other = await makeUser({ verified: 2 });
    const p = (await open(owner.token, {})).body.message;
    const theirs = await api(`/lever/position?id=${p.id}`, { token: other.token });
    expect(theirs.status).toBe(404);
    expect(theirs.body.code).toBe("not_found");
    expect((await api(`/lever/position?id=${p.id}`)).body.type).toBe("999");
    expect((await api("/lever/position?id=-4", { token: owner.token })).body.code).toBe("invalid_param");
    expect((await api(`/lever/position?id=${p.id}`, { token: owner.token })).body.message).toMatchObject({ id: p.id, status: 2, close_tick_id: null, trigger_price: null });
  });
});
