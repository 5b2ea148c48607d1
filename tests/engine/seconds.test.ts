/**
 * Seconds contracts as money: the tie rule, the win and loss amounts, the fee rounded up, and the
 * two properties the design promises — the result depends on (direction, entry, exit, ratio, stake)
 * only, and open + settle nets to zero per currency with the house paying exactly the result.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bookIndex, tickDue } from "../../durable/engine/index-price.ts";
import {
  acceptanceMoney,
  bpsToPercent,
  openLegs,
  percentToBps,
  refundLegs,
  settleLegs,
  settleSeconds,
  type SecondsLeg,
  type SecondsRole,
} from "../../durable/engine/seconds.ts";

const E8 = 100_000_000n;

describe("tie rule", () => {
  it("pays an up contract only when the exit is above the entry", () => {
    expect(settleSeconds(1, 100, 101, 8500, 10n * E8)).toEqual({ won: true, result: 850_000_000n });
    expect(settleSeconds(1, 100, 100, 8500, 10n * E8)).toEqual({ won: false, result: -10n * E8 });
    expect(settleSeconds(1, 100, 99, 8500, 10n * E8)).toEqual({ won: false, result: -10n * E8 });
  });

  it("pays a down contract when the exit is at or below the entry", () => {
    expect(settleSeconds(2, 100, 99, 8000, 10n * E8).won).toBe(true);
    expect(settleSeconds(2, 100, 100, 8000, 10n * E8)).toEqual({ won: true, result: 8n * E8 });
    expect(settleSeconds(2, 100, 101, 8000, 10n * E8)).toEqual({ won: false, result: -10n * E8 });
  });
});

describe("acceptance money", () => {
  it("rounds the fee up and cuts the house's hold to minimal units", () => {
    // 1 minimal unit at 2 %: the fee is 0.02 units, charged as 1; the win 0.85 units cut to 0.
    expect(acceptanceMoney(1n, 8500, 200)).toEqual({ stake: 1n, fee: 1n, hold: 0n });
    expect(acceptanceMoney(10n * E8, 8500, 200)).toEqual({ stake: 10n * E8, fee: 20_000_000n, hold: 850_000_000n });
    expect(acceptanceMoney(333n, 8250, 200)).toEqual({ stake: 333n, fee: 7n, hold: 274n });
  });

  it("refuses a stake that is not positive", () => {
    expect(() => acceptanceMoney(0n, 8500, 200)).toThrow(RangeError);
  });

  it("reads and writes ratios as percent text", () => {
    expect(percentToBps("85")).toBe(8500);
    expect(percentToBps("82.5")).toBe(8250);
    expect(percentToBps("8.x")).toBeNull();
    expect(bpsToPercent(8250)).toBe("82.5");
    expect(bpsToPercent(200)).toBe("2");
    expect(bpsToPercent(8205)).toBe("82.05");
  });
});

const sum = (legs: SecondsLeg[], role?: SecondsRole) =>
  legs.filter((l) => role === undefined || l.role === role).reduce((s, l) => s + l.dAvailable + l.dFrozen, 0n);

const stakeArb = fc.bigInt({ min: 1n, max: 9_000_000_000_000n });
const priceArb = fc.integer({ min: 1, max: 2_000_000_000 });
const ratioArb = fc.integer({ min: 1, max: 10_000 });

describe("properties", () => {
  it("settles the same (direction, entry, exit, ratio, stake) the same way whatever else differs", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(1 as const, 2 as const),
        priceArb,
        priceArb,
        ratioArb,
        stakeArb,
        // Everything that must not matter: who, which order, when, and how other stakes were sized.
        fc.record({ userId: fc.integer(), orderId: fc.integer(), at: fc.integer({ min: 0 }), others: fc.array(stakeArb, { maxLength: 20 }) }),
        fc.record({ userId: fc.integer(), orderId: fc.integer(), at: fc.integer({ min: 0 }), others: fc.array(stakeArb, { maxLength: 20 }) }),
        (dir, entry, exit, ratio, stake, a, b) => {
          // A book of contracts settled in a different order and context gives each the same result.
          const settleAll = (ctx: typeof a) =>
            [...ctx.others, stake].map((s, i) => ({ i, s, ctx, r: settleSeconds(dir, entry, exit, ratio, s) })).find((x) => x.s === stake && x.i === ctx.others.length)!.r;
          expect(settleAll(a)).toEqual(settleAll(b));
          expect(settleSeconds.length).toBe(5);
          const r = settleSeconds(dir, entry, exit, ratio, stake);
          expect(r.won).toBe(dir === 1 ? exit > entry : exit <= entry);
          expect(r.result).toBe(r.won ? (stake * BigInt(ratio)) / 10_000n : -stake);
        },
      ),
    );
  });

  it("nets every movement to zero, and open + settle moves exactly the result and the fee", () => {
    fc.assert(
      fc.property(fc.constantFrom(1 as const, 2 as const), priceArb, priceArb, ratioArb, fc.integer({ min: 0, max: 1000 }), stakeArb, (dir, entry, exit, ratio, fee, stake) => {
        const m = acceptanceMoney(stake, ratio, fee);
        const r = settleSeconds(dir, entry, exit, ratio, stake);
        const open = openLegs(m);
        const settle = settleLegs(m, r);
        expect(sum(open)).toBe(0n);
        expect(sum(settle)).toBe(0n);
        const all = [...open, ...settle];
        expect(sum(all, "user")).toBe(r.result - m.fee);
        expect(sum(all, "house")).toBe(-r.result);
        expect(sum(all, "fees")).toBe(m.fee);
        // Nothing stays frozen once settled, and the house never pays more than it held.
        for (const role of ["user", "house"] as const) expect(all.filter((l) => l.role === role).reduce((s, l) => s + l.dFrozen, 0n)).toBe(0n);
        expect(r.result <= m.hold).toBe(true);
        // A refund undoes the acceptance exactly.
        expect(sum([...open, ...refundLegs(m)], "user")).toBe(0n);
        expect(sum(refundLegs(m))).toBe(0n);
      }),
    );
  });
});

describe("index price", () => {
  it("is the median of last trade, best bid and best ask, and none without a two-sided book", () => {
    expect(bookIndex({ last: 105, bestBid: 100, bestAsk: 110 })).toBe(105);
    expect(bookIndex({ last: 500, bestBid: 100, bestAsk: 110 })).toBe(110);
    expect(bookIndex({ last: 1, bestBid: 100, bestAsk: 110 })).toBe(100);
    expect(bookIndex({ last: null, bestBid: 100, bestAsk: 111 })).toBe(105);
    expect(bookIndex({ last: 105, bestBid: null, bestAsk: 110 })).toBeNull();
    expect(bookIndex({ last: 105, bestBid: 100, bestAsk: null })).toBeNull();
  });

  it("never leaves the spread, whatever the last trade printed", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1e9 }), fc.integer({ min: 0, max: 1e6 }), fc.option(fc.integer({ min: 1, max: 2e9 })), (bid, spread, last) => {
        const ix = bookIndex({ last, bestBid: bid, bestAsk: bid + spread })!;
        expect(ix).toBeGreaterThanOrEqual(bid);
        expect(ix).toBeLessThanOrEqual(bid + spread);
      }),
    );
  });

  it("records a tick when the value changes or the last one is a second old", () => {
    expect(tickDue(null, 5, 0)).toBe(true);
    expect(tickDue({ price: 5, at: 0 }, 5, 999)).toBe(false);
    expect(tickDue({ price: 5, at: 0 }, 5, 1000)).toBe(true);
    expect(tickDue({ price: 5, at: 0 }, 6, 1)).toBe(true);
    expect(tickDue({ price: 5, at: 0 }, null, 5000)).toBe(false);
  });
});
