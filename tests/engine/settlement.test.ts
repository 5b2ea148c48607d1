/**
 * Settlement math: fills and completions become balance deltas in minimal units that the ledger
 * can book as they are — exactly conserved, scaled by the pair's unit factors, fees rounded down.
 */
import { describe, expect, it } from "vitest";
import {
  SpotEngine,
  baseUnits,
  feeOf,
  quoteUnits,
  releaseDelta,
  reservationFor,
  settleFill,
  type AccountDelta,
} from "../../durable/engine/index.ts";
import { doneOf, fills, limit, makePair, market, ok } from "./helpers.ts";

function total(ds: AccountDelta[]): { base: bigint; quote: bigint } {
  return ds.reduce(
    (t, d) => ({ base: t.base + d.base.available + d.base.frozen, quote: t.quote + d.quote.available + d.quote.frozen }),
    { base: 0n, quote: 0n },
  );
}

// BTC (8 decimals) with 6-decimal quantities: 100 satoshi per quantity unit.
// USDT (8 decimals), price with 2 decimals × quantity with 6 decimals = 1e-8 USDT: 1 unit per tick·lot.
const btc = makePair({ makerFeeBps: 10, takerFeeBps: 20, baseUnitsPerLot: 100n, quoteUnitsPerTickLot: 1n, feeAccount: "fees" });

describe("settlement", () => {
  it("moves base from seller to buyer and quote from buyer to seller, minus fees", () => {
    const e = new SpotEngine(btc);
    ok(e, limit({ id: "ask", owner: "seller", side: "sell", price: 6_000_000, qty: 500_000 })); // 0.5 BTC at 60,000.00
    const [f] = fills(ok(e, limit({ id: "bid", owner: "buyer", side: "buy", price: 6_100_000, qty: 500_000 })));
    const s = settleFill(btc, f!);
    // Buyer reserved 61,000 × 0.5 = 30,500 USDT; pays 30,000; gets 500 back; receives 0.5 BTC minus 0.2%.
    expect(s.buyer).toEqual({
      account: "buyer",
      base: { available: 50_000_000n - 100_000n, frozen: 0n },
      quote: { available: 50_000_000_000n, frozen: -3_050_000_000_000n },
    });
    // Seller had 0.5 BTC frozen; receives 30,000 USDT minus 0.1% (maker).
    expect(s.seller).toEqual({
      account: "seller",
      base: { available: 0n, frozen: -50_000_000n },
      quote: { available: 3_000_000_000_000n - 3_000_000_000n, frozen: 0n },
    });
    expect(s.fee).toEqual({ account: "fees", base: { available: 100_000n, frozen: 0n }, quote: { available: 3_000_000_000n, frozen: 0n } });
    expect(total([s.buyer, s.seller, s.fee])).toEqual({ base: 0n, quote: 0n });
  });

  it("pays an unbudgeted market buy from the buyer's available balance", () => {
    const e = new SpotEngine(btc);
    ok(e, limit({ owner: "seller", side: "sell", price: 100, qty: 10 }));
    const [f] = fills(ok(e, market({ owner: "buyer", qty: 10 })));
    expect(f?.buyerReservedPrice).toBe(0);
    const s = settleFill(btc, f!);
    expect(s.buyer.quote).toEqual({ available: -1000n, frozen: 0n });
    expect(total([s.buyer, s.seller, s.fee])).toEqual({ base: 0n, quote: 0n });
  });

  it("releases a finished order's reservation from frozen to available in minimal units", () => {
    const pair = makePair({ baseUnitsPerLot: 100n, quoteUnitsPerTickLot: 3n });
    const e = new SpotEngine(pair);
    const r = e.execute(limit({ id: "b", owner: "u", side: "buy", price: 7, qty: 5, tif: "IOC" }));
    const done = doneOf(r.events, "b")!;
    expect(releaseDelta(pair, done)).toEqual({ account: "u", base: { available: 0n, frozen: 0n }, quote: { available: 105n, frozen: -105n } });
    const s = e.execute(market({ id: "s", owner: "u", side: "sell", qty: 4 }));
    expect(releaseDelta(pair, doneOf(s.events, "s")!).base).toEqual({ available: 400n, frozen: -400n });
  });

  it("tells the caller what to freeze for each kind of order", () => {
    const pair = makePair({ baseUnitsPerLot: 100n, quoteUnitsPerTickLot: 2n });
    expect(reservationFor(pair, limit({ side: "buy", price: 50, qty: 3 }))).toEqual({ asset: "quote", amount: 150, units: 300n });
    expect(reservationFor(pair, limit({ side: "sell", price: 50, qty: 3 }))).toEqual({ asset: "base", amount: 3, units: 300n });
    expect(reservationFor(pair, market({ side: "buy", qty: 3, budget: 1000 }))).toEqual({ asset: "quote", amount: 1000, units: 2000n });
    expect(reservationFor(pair, market({ side: "buy", qty: 3 }))).toEqual({ asset: "quote", amount: 0, units: 0n });
    expect(reservationFor(pair, market({ side: "sell", qty: 3 }))).toEqual({ asset: "base", amount: 3, units: 300n });
  });

  it("rounds fees down and converts units with bigint beyond 2^53", () => {
    expect(feeOf(9_999n, 1)).toBe(0n);
    expect(feeOf(10_000n, 1)).toBe(1n);
    expect(feeOf(123_456_789n, 25)).toBe(308_641n);
    const big = makePair({ baseUnitsPerLot: 10n ** 12n, quoteUnitsPerTickLot: 10n ** 10n });
    expect(baseUnits(big, 2 ** 40)).toBe(2n ** 40n * 10n ** 12n);
    expect(quoteUnits(big, Number.MAX_SAFE_INTEGER)).toBe(BigInt(Number.MAX_SAFE_INTEGER) * 10n ** 10n);
  });

  it("conserves every currency across a whole trading session", () => {
    const pair = makePair({ makerFeeBps: 7, takerFeeBps: 13, baseUnitsPerLot: 37n, quoteUnitsPerTickLot: 11n });
    const e = new SpotEngine(pair);
    const ds: AccountDelta[] = [];
    const owners = ["a", "b", "c"];
    for (let i = 0; i < 300; i++) {
      const owner = owners[i % 3]!;
      const side = (i * 7) % 2 === 0 ? "buy" : "sell";
      const cmd = i % 5 === 4 ? market({ owner, side, qty: 1 + (i % 9), ...(side === "buy" ? { budget: 5000 } : {}) }) : limit({ owner, side, price: 90 + ((i * 13) % 21), qty: 1 + (i % 7) });
      const r = e.execute(cmd);
      for (const ev of r.events) {
        if (ev.type === "fill") {
          const s = settleFill(pair, ev);
          ds.push(s.buyer, s.seller, s.fee);
        }
      }
    }
    expect(ds.length).toBeGreaterThan(30);
    expect(total(ds)).toEqual({ base: 0n, quote: 0n });
  });
});
