/**
 * Public surface of the pure spot engine (no Workers imports: runs in Node and in a Durable
 * Object). The Durable Object uses `SpotEngine` for matching, `settleFill` / `releaseDelta` /
 * `reservationFor` for ledger amounts, and `KlineAggregator` / `dayStats` for market data.
 * `OrderBook` is the numeric core, exported for benchmarks.
 */
export * from "./types.ts";
export * from "./errors.ts";
export { SpotEngine, normalizePair, type Pair } from "./engine.ts";
export { OrderBook } from "./matching.ts";
export {
  settleFill,
  releaseDelta,
  reservationFor,
  fillFees,
  feeOf,
  type AccountDelta,
  type BalanceChange,
  type FillSettlement,
  type Reservation,
} from "./settlement.ts";
export * from "./units.ts";
export { Fnv1a64, fnv1a64Utf8 } from "./hash.ts";
export * from "./klines.ts";
