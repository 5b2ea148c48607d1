// Adapter exposing our matching engine to the shared order-book harness
// (the external order-book harness that bench/run.mjs finds through ORDERBOOK_BENCH; its README gives the interface).
// It drives `SpotEngine.book`, the numeric core that `SpotEngine.execute` (the Durable Object's
// entry point) runs: same validation, matching, STP check and fill tape; it skips only the event
// objects, fees and depth-change lists built around the core. Every limit gets its own owner (its
// id) and market orders owner -1, so self-trade prevention is checked but never triggers.
import { loadEngine } from "./build-engine.mjs";

const { SpotEngine } = await loadEngine();

export const name = "honest-exchange engine (core)";
export const stringIds = false;

export function create() {
  const engine = new SpotEngine({
    symbol: "BENCH/USDT",
    tickSize: 1,
    lotSize: 1,
    minNotional: 0,
    makerFeeBps: 10,
    takerFeeBps: 20,
    feeAccount: "fees",
    baseUnitsPerLot: 100,
    quoteUnitsPerTickLot: 1,
  });
  const book = engine.book;
  let marketId = 0;
  return {
    limit(side, price, qty, id) {
      if (book.limit(id, id, side, price, qty, false) !== 0) throw new Error(`limit ${id} rejected`);
      return book.filled;
    },
    market(side, qty) {
      if (book.market(--marketId, -1, side, qty, -1) !== 0) throw new Error("market rejected");
      return book.filled;
    },
    cancel(id) {
      return book.cancel(id) !== null;
    },
    size() {
      return book.orders.size;
    },
  };
}
