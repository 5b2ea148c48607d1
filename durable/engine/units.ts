/**
 * The only conversions between the engine's grid and money. The book works in price ticks
 * (10^-priceDecimals of the quote currency) and quantity lots (10^-qtyDecimals of the base
 * currency); balances and the ledger work in each currency's minimal units (10^-scale).
 * One tick × one lot is worth 10^(quoteScale - priceDecimals - qtyDecimals) quote units, and one
 * lot 10^(baseScale - qtyDecimals) base units. Everything here is bigint: no float ever touches
 * an amount, so values past 2^53 stay exact (callers check the D1 limits themselves).
 */

/** Digits of a pair's grid and of its two currencies, as stored in D1. */
export interface PairDigits {
  priceDecimals: number;
  qtyDecimals: number;
  baseScale: number;
  quoteScale: number;
}

function pow10(exponent: number): bigint {
  // A negative exponent means the grid is finer than the currency: such a pair cannot settle.
  if (!Number.isSafeInteger(exponent) || exponent < 0) throw new RangeError(`unit exponent ${exponent} must be a non-negative integer`);
  return 10n ** BigInt(exponent);
}

/** Quote minimal units per (price tick × quantity lot). */
export function quoteUnitsPerTickLot(d: Pick<PairDigits, "quoteScale" | "priceDecimals" | "qtyDecimals">): bigint {
  return pow10(d.quoteScale - d.priceDecimals - d.qtyDecimals);
}

/** Base minimal units per quantity lot. */
export function baseUnitsPerLot(d: Pick<PairDigits, "baseScale" | "qtyDecimals">): bigint {
  return pow10(d.baseScale - d.qtyDecimals);
}

/** Quote minimal units of a notional given in tick·lot units (price × qty), exact. */
export function notionalToQuoteUnits(notionalTickLots: bigint, perTickLot: bigint): bigint {
  return notionalTickLots * perTickLot;
}

/** Base minimal units of a quantity given in lots, exact. */
export function lotsToBaseUnits(lots: bigint, perLot: bigint): bigint {
  return lots * perLot;
}

/**
 * The smallest notional in tick·lot units worth at least `quoteUnits` (rounded up, so an order
 * just under a minimum given in quote units is refused rather than let through).
 */
export function quoteUnitsToNotionalCeil(quoteUnits: bigint, perTickLot: bigint): bigint {
  if (perTickLot <= 0n) throw new RangeError("units per tick·lot must be positive");
  if (quoteUnits <= 0n) return quoteUnits / perTickLot;
  return (quoteUnits + perTickLot - 1n) / perTickLot;
}

/** The two factors as a pair config carries them (bigint, or a number that is a safe integer). */
type Factors = { baseUnitsPerLot: bigint | number; quoteUnitsPerTickLot: bigint | number };

/** Engine quantity (lots, a safe integer) → base minimal units. */
export function baseUnits(pair: Factors, qty: number): bigint {
  return lotsToBaseUnits(BigInt(qty), BigInt(pair.baseUnitsPerLot));
}

/** Engine notional (tick·lot units, a safe integer) → quote minimal units. */
export function quoteUnits(pair: Factors, notional: number): bigint {
  return notionalToQuoteUnits(BigInt(notional), BigInt(pair.quoteUnitsPerTickLot));
}
