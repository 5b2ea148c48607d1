// Adapter for the shared order-book harness that goes through `SpotEngine.execute`, the exact
// call the Durable Object makes: command objects in, event objects (with bigint fees) and depth
// changes out. Compare with orderbook-adapter.mjs (the numeric core alone) to see what the
// event layer costs per operation.
import { loadEngine } from "./build-engine.mjs";

const { SpotEngine } = await loadEngine();

export const name = "honest-exchange engine (execute)";
export const stringIds = false;

const SIDES = ["buy", "sell"];

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
  let marketId = 0;
  const filledOf = (r) => {
    if (!r.ok) throw new Error(`rejected: ${r.code}`);
    let f = 0;
    for (const e of r.events) if (e.type === "fill") f += e.qty;
    return f;
  };
  return {
    limit(side, price, qty, id) {
      return filledOf(engine.execute({ type: "limit", id, owner: id, side: SIDES[side], price, qty }));
    },
    market(side, qty) {
      return filledOf(engine.execute({ type: "market", id: --marketId, owner: -1, side: SIDES[side], qty }));
    },
    cancel(id) {
      return engine.execute({ type: "cancel", id }).ok;
    },
    size() {
      return engine.orderCount;
    },
  };
}
