/**
 * The browser's own check of a settlement (issue #20 §3): a seconds contract's result recomputed
 * from its entry and exit ticks and its ratio (web/src/features/seconds/verify.ts) — a win, a loss
 * and a tie both ways — compared with what was settled; and a leveraged position's closing tick
 * against the price its rule crossed (web/src/features/lever/verify.ts).
 */
import { describe, expect, it } from "vitest";
import type { TickWindow } from "../../schemas/seconds.ts";
import { checkContract, recomputeResult } from "../../web/src/features/seconds/verify.ts";
import { checkClose, crossed } from "../../web/src/features/lever/verify.ts";

const tick = (id: number, price: string, at: number) => ({ id, match_id: 1, price, at });
const win = (t: ReturnType<typeof tick>, before: ReturnType<typeof tick>[] = [], after: ReturnType<typeof tick>[] = []): TickWindow => ({ tick: t, before, after });

const contract = {
  type: 1 as 1 | 2,
  open_price: "101.00",
  end_price: "105.00",
  open_tick_id: 10,
  end_tick_id: 40,
  end_at: 40_500,
  profit_ratio: "82",
  number: "10.00000000",
  fact_profits: "8.20000000",
};
const entry = win(tick(10, "101.00", 10_000), [tick(9, "100.50", 9_000)], [tick(11, "101.00", 11_000)]);
const exit = win(tick(40, "105.00", 40_000), [tick(39, "104.00", 39_000)], [tick(41, "99.00", 41_000)]);

describe("recomputing a seconds contract in the browser", () => {
  it("pays an up contract stake × ratio when the exit is above the entry", () => {
    expect(recomputeResult(1, "101.00", "105.00", "82", "10.00000000")).toEqual({ won: true, result: "8.20000000" });
  });

  it("cuts a win to the stake's decimals, never rounding it up", () => {
    expect(recomputeResult(2, "101", "100", "82.5", "0.00000003")).toEqual({ won: true, result: "0.00000002" });
  });

  it("takes the stake of an up contract when the exit is below the entry", () => {
    expect(recomputeResult(1, "101.00", "100.99", "82", "10.00000000")).toEqual({ won: false, result: "-10.00000000" });
  });

  it("gives a tie to down: an up contract loses and a down contract wins", () => {
    expect(recomputeResult(1, "60500.00", "60500.00", "82", "10.00000000")).toEqual({ won: false, result: "-10.00000000" });
    expect(recomputeResult(2, "60500.00", "60500.00", "82", "10.00000000")).toEqual({ won: true, result: "8.20000000" });
  });

  it("says a contract matches when its ticks give the settled result", () => {
    expect(checkContract(contract, entry, exit)).toEqual({ entry: true, exit: true, recomputed: { won: true, result: "8.20000000" }, result: true, matches: true });
  });

  it("says a contract does not match when the settled result differs from the recomputed one", () => {
    const c = checkContract({ ...contract, fact_profits: "-10.00000000" }, entry, exit);
    expect(c).toMatchObject({ result: false, matches: false });
  });

  it("says it does not match when the exit tick is not the last one at or before the expiry", () => {
    // A later tick was still at or before the expiry: that one should have been the exit.
    const late = win(tick(40, "105.00", 40_000), [], [tick(41, "99.00", 40_400)]);
    expect(checkContract(contract, entry, late)).toMatchObject({ exit: false, matches: false });
    // A tick after the expiry is never the exit.
    expect(checkContract({ ...contract, end_at: 39_999 }, entry, exit)).toMatchObject({ exit: false, matches: false });
  });

  it("says it does not match when a tick's price is not the contract's price", () => {
    expect(checkContract({ ...contract, open_price: "100.00" }, entry, exit)).toMatchObject({ entry: false, matches: false });
  });
});

describe("checking a leveraged close in the browser", () => {
  it("sees a long liquidated at or below its liquidation price, a short at or above", () => {
    expect(crossed("liquidation", 1, "92.92", "92.92")).toBe(true);
    expect(crossed("liquidation", 1, "92.93", "92.92")).toBe(false);
    expect(crossed("liquidation", 2, "110.00", "109.08")).toBe(true);
    expect(crossed("liquidation", 2, "109.07", "109.08")).toBe(false);
  });

  it("sees take-profit and stop-loss by direction, the gain cap at or above its price, and no rule for an owner's close", () => {
    expect(crossed("profit", 1, "120.00", "120.00")).toBe(true);
    expect(crossed("profit", 2, "95.01", "95.00")).toBe(false);
    expect(crossed("loss", 1, "94.00", "95.00")).toBe(true);
    expect(crossed("loss", 2, "94.00", "95.00")).toBe(false);
    expect(crossed("cap", 1, "202.00", "202.00")).toBe(true);
    expect(crossed("user", 1, "100.00", null)).toBeNull();
  });

  it("matches a liquidation whose closing tick is at the close price and crossed the liquidation price, and not otherwise", () => {
    const p = { type: 1 as const, close_reason: "liquidation" as const, close_price: "90.00", close_tick_id: 7, trigger_price: "92.92" };
    const closeTick = win(tick(7, "90.00", 1), [tick(6, "92.93", 0)]);
    expect(checkClose(p, closeTick)).toEqual({ tick: true, crossed: true, matches: true });
    expect(checkClose({ ...p, trigger_price: "89.00" }, closeTick)).toMatchObject({ crossed: false, matches: false });
    expect(checkClose({ ...p, close_price: "91.00" }, closeTick)).toMatchObject({ tick: false, matches: false });
    expect(checkClose({ ...p, trigger_price: null }, closeTick)).toMatchObject({ matches: false });
    expect(checkClose({ ...p, close_reason: "user", trigger_price: null }, closeTick)).toEqual({ tick: true, crossed: null, matches: true });
  });
});
