/**
 * Public data shapes of the spot matching engine: pair configuration, commands, events and
 * snapshots. Kept apart from the code so the Durable Object, the tests and the benchmark can share
 * them without pulling in the book.
 *
 * Units used throughout (all JS safe integers, never fractions):
 * - price: integer "price units" of the pair (e.g. cents for a 2-decimal price); `tickSize` is the
 *   grid step in those units.
 * - qty: integer "quantity units" of the base currency (e.g. 1e-6 BTC); `lotSize` is the grid step.
 * - notional: price × qty, in "tick·lot" units of the quote currency. A buy limit reserves
 *   price × qty notional; a market buy's budget is a notional.
 * Conversions to the currencies' minimal units (bigint) are `baseUnitsPerLot` and
 * `quoteUnitsPerTickLot`, applied only in settlement (see settlement.ts).
 */
import type { RejectCode } from "./errors.ts";

export type { RejectCode } from "./errors.ts";

/** Side of an order. */
export type Side = "buy" | "sell";

/** Order id: unique among open orders of a pair. Safe integer or non-empty string. */
export type OrderId = number | string;

/** Account (user) id. Safe integer or non-empty string. */
export type AccountId = number | string;

/** Time in force of a limit order: rest the remainder (GTC) or expire it (IOC). */
export type TimeInForce = "GTC" | "IOC";

/** Which asset an order's reservation is held in: quote for buys, base for sells. */
export type ReservationAsset = "base" | "quote";

/** Per-pair trading rules and unit conversions. */
export interface PairConfig {
  /** Display name, e.g. "BTC/USDT". Not used for matching. */
  symbol: string;
  /** Price grid step in price units (price % tickSize must be 0). Positive safe integer. */
  tickSize: number;
  /** Quantity grid step in quantity units (qty % lotSize must be 0). Positive safe integer. */
  lotSize: number;
  /** Minimum price × qty of a limit order, in notional (tick·lot) units. 0 disables the check. */
  minNotional: number;
  /** Fee of the resting side in basis points (0..10000), taken from the asset it receives. */
  makerFeeBps: number;
  /** Fee of the incoming side in basis points (0..10000), taken from the asset it receives. */
  takerFeeBps: number;
  /** Account credited with all fees of the pair. */
  feeAccount: AccountId;
  /** Base currency minimal units per quantity unit (e.g. 100 for 1e-6 BTC lots and 8-decimal BTC). */
  baseUnitsPerLot: bigint | number;
  /** Quote currency minimal units per notional unit (price unit × quantity unit). */
  quoteUnitsPerTickLot: bigint | number;
}

/** Place a limit order. GTC rests any remainder; IOC expires it. */
export interface LimitCommand {
  type: "limit";
  id: OrderId;
  owner: AccountId;
  side: Side;
  /** Limit price in price units. */
  price: number;
  /** Quantity in quantity units. */
  qty: number;
  /** Defaults to "GTC". */
  tif?: TimeInForce;
}

/**
 * Place a market order for a base quantity. A market buy may carry a `budget` (notional units):
 * matching stops before a fill would spend more than the budget. Without a budget a market buy
 * has no reservation and its fills are paid from the buyer's available balance.
 */
export interface MarketCommand {
  type: "market";
  id: OrderId;
  owner: AccountId;
  side: Side;
  qty: number;
  /** Buy only: quote cap in notional units; this is also the order's reservation. */
  budget?: number;
}

/** Cancel an open order. With `owner`, the order must belong to that account. */
export interface CancelCommand {
  type: "cancel";
  id: OrderId;
  owner?: AccountId;
}

/** Anything the engine can execute. A journal is a list of these. */
export type Command = LimitCommand | MarketCommand | CancelCommand;

/** Why an order left the engine. */
export type DoneReason =
  /** Fully filled. */
  | "filled"
  /** Cancelled by a cancel command. */
  | "cancelled"
  /** IOC or market remainder with no more liquidity within its limit. */
  | "expired"
  /** Self-trade prevention: the incoming order met its owner's resting order; remainder expired. */
  | "self_trade"
  /** Market buy: the next fill would have exceeded the budget. */
  | "budget";

/** The engine took the order (it may still fill, rest or expire in the same command). */
export interface AcceptedEvent {
  type: "accepted";
  id: OrderId;
  owner: AccountId;
  side: Side;
  kind: "limit" | "market";
  /** Limit price, or null for market orders. */
  price: number | null;
  qty: number;
  /** "GTC"/"IOC" for limits; "IOC" for market orders. */
  tif: TimeInForce;
  /** Market buy budget in notional units, or null. */
  budget: number | null;
  /** What the caller must have frozen for this order (notional for buys, qty for sells; 0 for an unbudgeted market buy). */
  reservation: number;
  reservationAsset: ReservationAsset;
}

/** The command was refused; nothing changed. */
export interface RejectedEvent {
  type: "rejected";
  id: OrderId | null;
  code: RejectCode;
  message: string;
}

/**
 * One trade between the incoming (taker) order and a resting (maker) order, at the maker's price.
 * Fees are in the minimal units of the asset each side receives: the buyer's fee in base, the
 * seller's in quote. `settleFill` turns this into balance deltas.
 */
export interface FillEvent {
  type: "fill";
  /** Engine-wide trade sequence number (1, 2, 3, ...), part of the engine state. */
  tradeId: number;
  takerId: OrderId;
  makerId: OrderId;
  takerOwner: AccountId;
  makerOwner: AccountId;
  /** Side of the taker; the maker is on the other side. */
  takerSide: Side;
  /** Trade price (the maker's limit price), price units. */
  price: number;
  /** Traded quantity, quantity units. */
  qty: number;
  /** price × qty, notional units. */
  notional: number;
  /** Fee paid by the buyer, base minimal units: floor(qty·baseUnitsPerLot·bps / 10000). */
  buyerFee: bigint;
  /** Fee paid by the seller, quote minimal units: floor(notional·quoteUnitsPerTickLot·bps / 10000). */
  sellerFee: bigint;
  /**
   * Price per quantity unit that the buyer had frozen for this fill: the buyer's limit price for
   * a limit buy (the difference to `price` is released now: price improvement), the trade price
   * for a budgeted market buy, 0 for an unbudgeted market buy (paid from available).
   */
  buyerReservedPrice: number;
  /** Maker quantity still open after this fill (0 = maker done). */
  makerRemaining: number;
  /** Taker quantity still unfilled after this fill. */
  takerRemaining: number;
}

/** The order is resting in the book with `remaining` quantity (its reservation is price × remaining or remaining). */
export interface BookedEvent {
  type: "booked";
  id: OrderId;
  owner: AccountId;
  side: Side;
  price: number;
  remaining: number;
}

/** The order is finished; `releasedReservation` goes back from frozen to available. */
export interface DoneEvent {
  type: "done";
  id: OrderId;
  owner: AccountId;
  side: Side;
  reason: DoneReason;
  /** Quantity never filled (0 when filled). */
  remaining: number;
  /** Reservation left over, in notional units (buys) or quantity units (sells). */
  releasedReservation: number;
  reservationAsset: ReservationAsset;
}

/** Everything a command can emit, in order. */
export type EngineEvent = AcceptedEvent | RejectedEvent | FillEvent | BookedEvent | DoneEvent;

/** New aggregate quantity at one price level after a command (0 = level gone). */
export interface DepthChange {
  side: Side;
  price: number;
  qty: number;
}

/** Result of a command the engine applied. `seq` counts applied commands (rejections do not count). */
export interface CommandAccepted {
  ok: true;
  seq: number;
  events: EngineEvent[];
  /** Changed levels: bids best first, then asks best first. */
  depth: DepthChange[];
}

/** Result of a refused command: an expected outcome, not an exception. */
export interface CommandRejected {
  ok: false;
  code: RejectCode;
  message: string;
  /** The engine's `seq`, unchanged. */
  seq: number;
  events: [RejectedEvent];
  depth: [];
}

/** Result of `SpotEngine.execute`. */
export type CommandResult = CommandAccepted | CommandRejected;

/** Aggregated book: [price, total quantity] per level, best first. */
export interface Depth {
  bids: Array<[price: number, qty: number]>;
  asks: Array<[price: number, qty: number]>;
}

/** A resting order as seen from outside. */
export interface OpenOrder {
  id: OrderId;
  owner: AccountId;
  side: Side;
  price: number;
  remaining: number;
  /** Still frozen for this order: price × remaining for buys, remaining for sells. */
  reservation: number;
  reservationAsset: ReservationAsset;
}

/** One resting order in a snapshot: [id, owner, price, remaining]. */
export type SnapshotOrder = [id: OrderId, owner: AccountId, price: number, remaining: number];

/** Full, JSON-serialisable engine state. Orders are listed best level first, FIFO within a level. */
export interface EngineSnapshot {
  version: 1;
  seq: number;
  tradeSeq: number;
  bids: SnapshotOrder[];
  asks: SnapshotOrder[];
}
