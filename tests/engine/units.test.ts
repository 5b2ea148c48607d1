/**
 * Unit conversions between the engine's grid (price ticks, quantity lots) and the currencies'
 * minimal units: exact in bigint, including amounts past 2^53 where a float would round.
 */
import { describe, expect, it } from "vitest";
import {
  baseUnits,
  baseUnitsPerLot,
  lotsToBaseUnits,
  notionalToQuoteUnits,
  quoteUnits,
  quoteUnitsPerTickLot,
  quoteUnitsToNotionalCeil,
} from "../../durable/engine/units.ts";

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER); // 2^53 - 1

// BTC/USDT as seeded: USDT and BTC at 8 decimals, prices with 2 decimals, quantities with 6.
const btcUsdt = { quoteScale: 8, baseScale: 8, priceDecimals: 2, qtyDecimals: 6 };

describe("unit factors", () => {
  it("gives 1 quote unit per tick·lot and 100 satoshi per lot for BTC/USDT", () => {
    expect(quoteUnitsPerTickLot(btcUsdt)).toBe(1n);
    expect(baseUnitsPerLot(btcUsdt)).toBe(100n);
  });

  it("scales by a power of ten when the grid is coarser than the currency", () => {
    expect(quoteUnitsPerTickLot({ quoteScale: 8, priceDecimals: 2, qtyDecimals: 2 })).toBe(10_000n);
    expect(baseUnitsPerLot({ baseScale: 8, qtyDecimals: 0 })).toBe(100_000_000n);
  });

  it("refuses a grid finer than the currency", () => {
    expect(() => quoteUnitsPerTickLot({ quoteScale: 4, priceDecimals: 3, qtyDecimals: 2 })).toThrow(RangeError);
    expect(() => baseUnitsPerLot({ baseScale: 2, qtyDecimals: 3 })).toThrow(RangeError);
  });
});

describe("ticks and lots to minimal units", () => {
  it("multiplies exactly", () => {
    expect(notionalToQuoteUnits(12_345n * 2_000_000n, 1n)).toBe(24_690_000_000n);
    expect(lotsToBaseUnits(1_500_000n, 100n)).toBe(150_000_000n);
    expect(baseUnits({ baseUnitsPerLot: 100n, quoteUnitsPerTickLot: 1n }, 7)).toBe(700n);
    expect(quoteUnits({ baseUnitsPerLot: 100, quoteUnitsPerTickLot: 10 }, 7)).toBe(70n);
  });

  it("stays exact just below and past 2^53, where a float product would round", () => {
    expect(lotsToBaseUnits(MAX_SAFE, 1n)).toBe(MAX_SAFE);
    expect(lotsToBaseUnits(MAX_SAFE, 100n)).toBe(900_719_925_474_099_100n);
    expect(notionalToQuoteUnits(MAX_SAFE + 2n, 10n)).toBe(90_071_992_547_409_930n);
    // The float version of the same product is off: the reason these are bigint.
    expect(Number(MAX_SAFE) * 100 === 900_719_925_474_099_100).toBe(true);
    expect(BigInt(Number(MAX_SAFE) * 100)).not.toBe(lotsToBaseUnits(MAX_SAFE, 100n));
    expect(baseUnits({ baseUnitsPerLot: 100n, quoteUnitsPerTickLot: 1n }, Number.MAX_SAFE_INTEGER)).toBe(MAX_SAFE * 100n);
  });
});

describe("minimum notional in tick·lot units", () => {
  it("rounds a minimum in quote units up to the next whole tick·lot", () => {
    expect(quoteUnitsToNotionalCeil(1_000_000n, 1n)).toBe(1_000_000n);
    expect(quoteUnitsToNotionalCeil(1_000_001n, 10n)).toBe(100_001n);
    expect(quoteUnitsToNotionalCeil(1_000_000n, 10n)).toBe(100_000n);
    expect(quoteUnitsToNotionalCeil(1n, 10_000n)).toBe(1n);
    expect(quoteUnitsToNotionalCeil(0n, 10_000n)).toBe(0n);
  });

  it("is exact near 2^53, where dividing a float and rounding up is not", () => {
    // 2^53 + 1 is not a float: Math.ceil((2^53 + 1) / 1) would give 2^53.
    expect(quoteUnitsToNotionalCeil(MAX_SAFE + 2n, 1n)).toBe(MAX_SAFE + 2n);
    expect(quoteUnitsToNotionalCeil(MAX_SAFE, 2n)).toBe(4_503_599_627_370_496n);
    expect(quoteUnitsToNotionalCeil(MAX_SAFE * 10n + 1n, 10n)).toBe(MAX_SAFE + 1n);
  });

  it("refuses a non-positive factor", () => {
    expect(() => quoteUnitsToNotionalCeil(5n, 0n)).toThrow(RangeError);
  });
});
