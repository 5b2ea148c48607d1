/**
 * Factories shared by the engine tests: a pair with overridable rules, commands with defaults,
 * and small selectors over a command's events.
 */
import {
  SpotEngine,
  type CancelCommand,
  type CommandResult,
  type DoneEvent,
  type EngineEvent,
  type FillEvent,
  type LimitCommand,
  type MarketCommand,
  type PairConfig,
} from "../../durable/engine/index.ts";

/** A BTC/USDT-like pair: 2-decimal prices, 6-decimal quantities, 8-decimal currencies. */
export function makePair(overrides: Partial<PairConfig> = {}): PairConfig {
  return {
    symbol: "BTC/USDT",
    tickSize: 1,
    lotSize: 1,
    minNotional: 0,
    makerFeeBps: 0,
    takerFeeBps: 0,
    feeAccount: "fees",
    baseUnitsPerLot: 100n,
    quoteUnitsPerTickLot: 1n,
    ...overrides,
  };
}

/** A fresh engine for `makePair(overrides)`. */
export function makeEngine(overrides: Partial<PairConfig> = {}): SpotEngine {
  return new SpotEngine(makePair(overrides));
}

let nextId = 1;
/** A unique order id for tests that do not care about it. */
export function freshId(): number {
  return nextId++;
}

/** A GTC limit order with defaults (buy 1 lot at 100 for "alice"). */
export function limit(o: Partial<LimitCommand> = {}): LimitCommand {
  return { type: "limit", id: freshId(), owner: "alice", side: "buy", price: 100, qty: 1, ...o };
}

/** A market order with defaults (buy 1 lot for "bob"). */
export function market(o: Partial<MarketCommand> = {}): MarketCommand {
  return { type: "market", id: freshId(), owner: "bob", side: "buy", qty: 1, ...o };
}

/** A cancel command. */
export function cancel(id: number | string, owner?: string | number): CancelCommand {
  return owner === undefined ? { type: "cancel", id } : { type: "cancel", id, owner };
}

/** Executes and asserts the command was applied; returns its events. */
export function ok(engine: SpotEngine, cmd: Parameters<SpotEngine["execute"]>[0]): EngineEvent[] {
  const r = engine.execute(cmd);
  if (!r.ok) throw new Error(`expected ${JSON.stringify(cmd)} to be accepted, got ${r.code}`);
  return r.events;
}

/** The fill events of a list. */
export function fills(events: EngineEvent[]): FillEvent[] {
  return events.filter((e): e is FillEvent => e.type === "fill");
}

/** The done event of an order in a list. */
export function doneOf(events: EngineEvent[], id: number | string): DoneEvent | undefined {
  return events.find((e): e is DoneEvent => e.type === "done" && e.id === id);
}

/** The rejection code of a result, or "ok". */
export function codeOf(r: CommandResult): string {
  return r.ok ? "ok" : r.code;
}
