/**
 * What the seconds-contract screens show before and while a contract runs
 * (web/src/features/seconds/logic.ts): the fee (rounded up), the win (cut) and the worst case before
 * confirming, exactly as the desk books them (durable/engine/seconds.ts); the stake checks (minimum,
 * maximum, decimals, stake + fee covered); the live result at the current index by the spec's tie
 * rule; the index price from the book; the countdown and status; and which contracts the running
 * list shows as results arrive from the list or the `closed_microorder` event.
 */
import { describe, expect, it } from "vitest";
import type { SecondsOrder } from "../../schemas/seconds.ts";
import {
  SETTLED_KEEP_MS,
  awaitingResult,
  checkStake,
  clockOffset,
  emptyRunning,
  indexPrice,
  liveResult,
  netResult,
  onClosed,
  onDismiss,
  onRunningList,
  phaseOf,
  previewContract,
  remainingShare,
  runningView,
  secondsLeft,
  signOf,
  wouldWin,
} from "../../web/src/features/seconds/logic.ts";
import { signedResult } from "../../web/src/features/seconds/display.ts";

const T0 = 1_800_000_000_000;

function makeOrder(over: Partial<SecondsOrder> = {}): SecondsOrder {
  return {
    id: 1,
    type: 1,
    symbol_name: "BTC/USDT",
    currency_name: "USDT",
    currency_id: 3,
    match_id: 1,
    open_price: "65000.00",
    end_price: null,
    number: "10.00000000",
    fee: "0.20000000",
    seconds: 60,
    profit_ratio: "85",
    fact_profits: null,
    status: 1,
    created_at: T0,
    create_time_format: "2027-01-15 16:00:00",
    end_at: T0 + 60_000,
    remain_milli_seconds: 60_000,
    open_tick_id: 100,
    end_tick_id: null,
    ...over,
  };
}

describe("before confirming: fee, win and worst case", () => {
  it("shows a 10 USDT stake at 85% with a 2% fee as fee 0.2, win +8.5 (+8.3 net of the fee), worst −10.2", () => {
    expect(previewContract("10", "85", "2", 8)).toEqual({ fee: "0.20000000", win: "8.50000000", winNet: "8.30000000", worst: "-10.20000000", cost: "10.20000000" });
  });

  it("shows the win net of the fee both ways, as the worst case already is (issue #16: +8 shown beside −10.2)", () => {
    // 10 at 80 % with 2 %: right +8 − 0.2 = +7.8; wrong −10 − 0.2 = −10.2.
    const p = previewContract("10", "80", "2", 8);
    expect([p?.winNet, p?.worst]).toEqual(["7.80000000", "-10.20000000"]);
    // A win smaller than the fee is a net loss, and says so.
    expect(previewContract("0.01", "85", "2", 2)?.winNet).toBe("-0.01");
  });

  it("rounds the fee up and cuts the win to the currency's minimal unit, as the desk books them", () => {
    // 0.01 × 2% = 0.0002 → at 2 decimals the fee is 0.01 (rounded up); 0.01 × 85% = 0.0085 → win 0.00 (cut).
    expect(previewContract("0.01", "85", "2", 2)).toEqual({ fee: "0.01", win: "0.00", winNet: "-0.01", worst: "-0.02", cost: "0.02" });
    // 0.00000001 BTC at 8 decimals: the fee is one unit, never zero.
    expect(previewContract("0.00000001", "80", "2", 8)?.fee).toBe("0.00000001");
  });

  it("handles fractional ratios exactly (87.5%)", () => {
    expect(previewContract("100", "87.5", "2", 8)?.win).toBe("87.50000000");
  });

  it("shows nothing for an amount that is not a valid stake", () => {
    expect(previewContract("", "85", "2", 8)).toBeNull();
    expect(previewContract("0", "85", "2", 8)).toBeNull();
    expect(previewContract("1.123", "85", "2", 2)).toBeNull();
  });
});

describe("stake checks before sending", () => {
  const rules = { min: "1", max: "5000", scale: 2, feePercent: "2", balance: "100.00" };

  it("asks for an amount, and refuses zero or text", () => {
    expect(checkStake("", rules)).toEqual({ key: "empty" });
    expect(checkStake("0", rules)).toEqual({ key: "format" });
    expect(checkStake("1e3", rules)).toEqual({ key: "format" });
  });

  it("refuses more decimals than the currency has", () => {
    expect(checkStake("1.005", rules)).toEqual({ key: "decimals", decimals: 2 });
    expect(checkStake("1.50", rules)).toBeNull();
  });

  it("refuses below the minimum and above the maximum, and accepts both bounds", () => {
    expect(checkStake("0.99", rules)).toEqual({ key: "min", min: "1" });
    expect(checkStake("1", rules)).toBeNull();
    expect(checkStake("5000.01", { ...rules, balance: null })).toEqual({ key: "max", max: "5000" });
    expect(checkStake("5000", { ...rules, balance: null })).toBeNull();
  });

  it("needs stake plus fee in the micro account: 98.04 + 1.97 fee is too much for 100, 98 + 1.96 is not", () => {
    expect(checkStake("98.04", rules)).toEqual({ key: "balance", cost: "100.01" });
    expect(checkStake("98.03", rules)).toBeNull(); // fee 1.9606 → 1.97 (up); 98.03 + 1.97 = 100.00
    expect(checkStake("98", rules)).toBeNull();
  });

  it("compares against a balance sent with more decimals than the stake", () => {
    expect(checkStake("10", { ...rules, balance: "10.19999999" })).toEqual({ key: "balance", cost: "10.20" });
    expect(checkStake("10", { ...rules, balance: "10.20000000" })).toBeNull();
  });
});

describe("the tie rule and the live result at the current index (spec §4)", () => {
  it("up wins only above the entry; down wins at or below it", () => {
    expect(wouldWin(1, "100.00", "100.01")).toBe(true);
    expect(wouldWin(1, "100.00", "100.00")).toBe(false);
    expect(wouldWin(1, "100.00", "99.99")).toBe(false);
    expect(wouldWin(2, "100.00", "100.00")).toBe(true);
    expect(wouldWin(2, "100.00", "99.99")).toBe(true);
    expect(wouldWin(2, "100.00", "100.01")).toBe(false);
    expect(wouldWin(1, "100.00", null)).toBeNull();
  });

  it("an up order shows +stake × ratio% above the open price and −stake otherwise", () => {
    const up = makeOrder({ type: 1, open_price: "65000.00" });
    expect(liveResult(up, "65000.01", 8)).toEqual({ won: true, amount: "8.50000000" });
    expect(liveResult(up, "65000.00", 8)).toEqual({ won: false, amount: "-10.00000000" });
  });

  it("a down order wins at an equal price", () => {
    const down = makeOrder({ type: 2, open_price: "65000.00" });
    expect(liveResult(down, "65000.00", 8)).toEqual({ won: true, amount: "8.50000000" });
    expect(liveResult(down, "65000.5", 8)).toEqual({ won: false, amount: "-10.00000000" });
  });

  it("has no result while there is no index price", () => {
    expect(liveResult(makeOrder(), null, 8)).toBeNull();
  });

  it("colours a result green only above zero (a zero result is red, spec §4), by the one amount rule", () => {
    expect(signedResult("8.5", "USDT")).toEqual({ text: "+8.50", tone: "up" });
    expect(signedResult("-10", "USDT")).toEqual({ text: "-10.00", tone: "down" });
    expect(signedResult("0.00", "USDT")).toEqual({ text: "0.00", tone: "down" });
    expect(signedResult("0.123456789", "BTC")).toEqual({ text: "+0.123456789", tone: "up" });
    expect(signOf("-0.00")).toBe(0);
  });
});

describe("the index price from the live book", () => {
  it("is the median of last trade, best bid and best ask", () => {
    expect(indexPrice("100.00", "99.00", "101.00")).toBe("100.00");
    // a trade printed far above the book cannot move it past the best ask
    expect(indexPrice("150.00", "99.00", "101.00")).toBe("101.00");
    expect(indexPrice("50.00", "99.00", "101.00")).toBe("99.00");
  });

  it("is the mid rounded down before the first trade, and absent without a two-sided book", () => {
    expect(indexPrice(null, "99.00", "100.01")).toBe("99.50");
    expect(indexPrice("100", null, "101.00")).toBeNull();
    expect(indexPrice("100", "99.00", null)).toBeNull();
  });
});

describe("countdown and status", () => {
  it("counts down while running and turns to settling when time is up, before the server says so", () => {
    const o = makeOrder();
    expect(phaseOf(o, T0 + 1_000)).toEqual({ phase: "running", remainMs: 59_000 });
    expect(secondsLeft(59_000)).toBe(59);
    expect(secondsLeft(200)).toBe(1);
    expect(phaseOf(o, T0 + 60_000)).toEqual({ phase: "settling", remainMs: 0 });
    expect(phaseOf(makeOrder({ status: 2 }), T0)).toEqual({ phase: "settling", remainMs: 0 });
    expect(phaseOf(makeOrder({ status: 3 }), T0)).toEqual({ phase: "settled", remainMs: 0 });
    expect(phaseOf(makeOrder({ status: 4 }), T0)).toEqual({ phase: "revoked", remainMs: 0 });
  });

  it("never shows more time left than the contract's duration, even when the clock estimate runs early", () => {
    // answered at the server's T0, read 150 ms "before" it (a stale local clock): still 60, not 61
    expect(phaseOf(makeOrder(), T0 - 150)).toEqual({ phase: "running", remainMs: 60_000 });
    expect(secondsLeft(phaseOf(makeOrder(), T0 - 150).remainMs)).toBe(60);
  });

  it("fills the ring by the share of time left", () => {
    expect(remainingShare(makeOrder(), 30_000)).toBe(0.5);
    expect(remainingShare(makeOrder(), 90_000)).toBe(1);
    expect(remainingShare(makeOrder(), 0)).toBe(0);
  });

  it("reads the server's clock from a running order", () => {
    // the server said 50 s left at its T0+10s; we received it at our T0+12s: the server is 2 s behind us
    const o = makeOrder({ remain_milli_seconds: 50_000 });
    expect(clockOffset([o], T0 + 12_000)).toBe(-2_000);
    expect(clockOffset([makeOrder({ status: 3, remain_milli_seconds: 0 })], T0)).toBeNull();
  });
});

describe("the running list as results arrive", () => {
  const running = makeOrder({ id: 7 });
  const settled = makeOrder({ id: 7, status: 3, end_price: "65010.00", fact_profits: "8.50000000", end_tick_id: 160, remain_milli_seconds: 0 });

  it("shows running contracts, newest first", () => {
    const older = makeOrder({ id: 6, created_at: T0 - 5_000 });
    const s = onRunningList(emptyRunning(), [older, running], T0);
    expect(runningView(s, [older, running], T0).map((o) => o.id)).toEqual([7, 6]);
  });

  it("shows a settled contract's result net of its fee: a win of 8.5 as +8.3, a loss of 10 as −10.2", () => {
    expect(netResult("8.50000000", "0.20000000")).toBe("8.30000000");
    expect(netResult("-10.00000000", "0.20000000")).toBe("-10.20000000");
    expect(netResult("-10", "0.2")).toBe("-10.2");
    expect(netResult(null, "0.2")).toBeNull();
  });

  it("keeps a settled contract in the running list with its result for minutes, until its owner dismisses it", () => {
    expect(SETTLED_KEEP_MS).toBeGreaterThanOrEqual(5 * 60_000);
    let s = onRunningList(emptyRunning(), [running], T0);
    s = onClosed(s, settled, T0 + 61_000);
    expect(runningView(s, [], T0 + 61_000 + 60_000)).toEqual([settled]);
    // A running contract cannot be dismissed; a finished one can, and stays dismissed when the list answers again.
    expect(onDismiss(onRunningList(emptyRunning(), [running], T0), 7)).toEqual(onRunningList(emptyRunning(), [running], T0));
    s = onDismiss(s, 7);
    expect(runningView(s, [running], T0 + 61_000 + 60_000)).toEqual([]);
    s = onRunningList(s, [settled], T0 + 62_000);
    expect(runningView(s, [settled], T0 + 62_000)).toEqual([]);
  });

  it("replaces a running contract with its closed_microorder record, keeps it a while, then drops it", () => {
    let s = onRunningList(emptyRunning(), [running], T0);
    s = onClosed(s, settled, T0 + 61_000);
    // the list may still answer the stale running row: the final record wins
    expect(runningView(s, [running], T0 + 61_000)).toEqual([settled]);
    expect(runningView(s, [running], T0 + 61_000 + SETTLED_KEEP_MS - 1)).toEqual([settled]);
    expect(runningView(s, [running], T0 + 61_000 + SETTLED_KEEP_MS)).toEqual([]);
  });

  it("takes the final record from a refetched list when no event came", () => {
    let s = onRunningList(emptyRunning(), [running], T0);
    s = onRunningList(s, [settled], T0 + 62_000);
    expect(runningView(s, [settled], T0 + 62_000)).toEqual([settled]);
    expect(runningView(s, [settled], T0 + 62_000 + SETTLED_KEEP_MS)).toEqual([]);
  });

  it("does not show contracts that were settled before this screen saw them run", () => {
    const s = onRunningList(emptyRunning(), [settled], T0);
    expect(runningView(s, [settled], T0)).toEqual([]);
  });

  it("keeps asking while a contract waits for its result, and stops once the record is in", () => {
    let s = onRunningList(emptyRunning(), [running], T0);
    expect(awaitingResult(runningView(s, [running], T0 + 30_000), T0 + 30_000)).toBe(false);
    expect(awaitingResult(runningView(s, [running], T0 + 60_000), T0 + 60_000)).toBe(true);
    s = onClosed(s, settled, T0 + 61_000);
    expect(awaitingResult(runningView(s, [running], T0 + 61_000), T0 + 61_000)).toBe(false);
  });
});
