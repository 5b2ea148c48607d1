/**
 * The chart page's order book grouped by a price step (issue #30): each side's levels summed into
 * buckets of `step` price units: a bid's bucket is its price rounded down, an ask's rounded up, so
 * a grouped row never shows a better price than an order in it has. Prices and amounts stay
 * decimal strings; sums are bigint minimal units (lib/amount.ts).
 */
import { decimalsOf, fromUnits, toUnits } from "../../lib/amount.ts";
import type { Level } from "../../lib/market/index.ts";

/** The steps offered for a pair whose prices carry `decimals` places: 1, 10, 100 and 1000 ticks (0.01, 0.1, 1, 10 for two decimals). */
export function groupSteps(decimals: number): string[] {
  return [0, 1, 2, 3].map((k) => fromUnits(10n ** BigInt(k), decimals, Math.max(0, decimals - k)));
}

/** The decimals of a side's prices and amounts, read from the levels themselves ("100.00" → 2). */
export function bookDecimals(levels: readonly Level[]): { price: number; qty: number } {
  const first = levels[0];
  return first ? { price: decimalsOf(first[0]), qty: decimalsOf(first[1]) } : { price: 2, qty: 6 };
}

/**
 * One side's levels summed per bucket of `step` (a decimal string, one of `groupSteps`), best first;
 * `side` decides the rounding. Prices come back with the step's decimals.
 */
export function groupLevels(levels: readonly Level[], step: string, side: "bids" | "asks", decimals: { price: number; qty: number }): Level[] {
  const stepUnits = toUnits(step, decimals.price);
  if (stepUnits === null || stepUnits <= 0n) return [...levels];
  const shown = Math.min(decimals.price, decimalsOf(step));
  const buckets = new Map<bigint, bigint>();
  for (const [p, q] of levels) {
    const price = toUnits(p, decimals.price);
    const qty = toUnits(q, decimals.qty);
    if (price === null || qty === null) continue;
    const down = (price / stepUnits) * stepUnits;
    const bucket = side === "bids" || down === price ? down : down + stepUnits;
    buckets.set(bucket, (buckets.get(bucket) ?? 0n) + qty);
  }
  const keys = [...buckets.keys()].sort((a, b) => (a === b ? 0 : (side === "bids" ? a > b : a < b) ? -1 : 1));
  return keys.map((k) => [fromUnits(k, decimals.price, shown), fromUnits(buckets.get(k)!, decimals.qty)] as Level);
}
