/**
 * `SpotEngine`: the API the pair's Durable Object uses. It wraps the numeric matching core
 * (matching.ts) with everything a caller needs around a command: id/side checks, events in order
 * (accepted → fills and maker completions → booked or done), fees, reservation releases, the set
 * of changed depth levels, sequence numbers, depth queries, snapshot/restore and a state hash.
 *
 * Determinism: the state depends only on the pair configuration and the sequence of commands
 * (no clock, no randomness), so replaying a journal of commands into a fresh engine, or restoring
 * a snapshot, reproduces the same `stateHash()`. `seq` counts applied (non-rejected) commands.
 */
import { BUY, SELL, type Order, type SideCode, type BookSide } from "./book.ts";
import {
  CorruptSnapshotError,
  InvalidPairConfigError,
  InvariantError,
  REJECT_MESSAGES,
  type RejectCode,
} from "./errors.ts";
import { Fnv1a64 } from "./hash.ts";
import { OUTCOME_REASON, OUT_RESTED, OrderBook, REJECT_CODE, R_OK } from "./matching.ts";
import type {
  AccountId,
  CancelCommand,
  Command,
  CommandResult,
  Depth,
  DepthChange,
  EngineEvent,
  EngineSnapshot,
  LimitCommand,
  MarketCommand,
  OpenOrder,
  OrderId,
  PairConfig,
  Side,
  SnapshotOrder,
} from "./types.ts";

/** A validated pair configuration with the unit conversions as bigint. */
export interface Pair extends Readonly<PairConfig> {
  readonly baseUnitsPerLot: bigint;
  readonly quoteUnitsPerTickLot: bigint;
}

const SIDE_NAME: readonly Side[] = ["buy", "sell"];

function isPosSafeInt(n: unknown): n is number {
  return typeof n === "number" && Number.isSafeInteger(n) && n > 0;
}

function isKey(v: unknown): v is OrderId {
  return typeof v === "number" ? Number.isSafeInteger(v) : typeof v === "string" && v.length > 0;
}

function toUnits(name: string, v: unknown): bigint {
  if (typeof v === "bigint" && v > 0n) return v;
  if (isPosSafeInt(v)) return BigInt(v);
  throw new InvalidPairConfigError(`${name} must be a positive integer`);
}

/**
 * Checks a pair configuration and converts the unit factors to bigint. Throws
 * InvalidPairConfigError: a bad configuration is a deployment bug, not a user error.
 */
export function normalizePair(cfg: PairConfig): Pair {
  if (!isPosSafeInt(cfg.tickSize)) throw new InvalidPairConfigError("tickSize must be a positive safe integer");
  if (!isPosSafeInt(cfg.lotSize)) throw new InvalidPairConfigError("lotSize must be a positive safe integer");
  if (!Number.isSafeInteger(cfg.minNotional) || cfg.minNotional < 0)
    throw new InvalidPairConfigError("minNotional must be a non-negative safe integer");
  for (const k of ["makerFeeBps", "takerFeeBps"] as const) {
    const v = cfg[k];
    if (!Number.isSafeInteger(v) || v < 0 || v > 10000)
      throw new InvalidPairConfigError(`${k} must be an integer between 0 and 10000`);
  }
  if (!isKey(cfg.feeAccount)) throw new InvalidPairConfigError("feeAccount must be a safe integer or a non-empty string");
  return Object.freeze({
    ...cfg,
    baseUnitsPerLot: toUnits("baseUnitsPerLot", cfg.baseUnitsPerLot),
    quoteUnitsPerTickLot: toUnits("quoteUnitsPerTickLot", cfg.quoteUnitsPerTickLot),
  });
}

function sideCode(s: unknown): SideCode | -1 {
  return s === "buy" ? BUY : s === "sell" ? SELL : -1;
}

/** The matching engine of one spot pair. */
export class SpotEngine {
  /** Validated configuration. */
  readonly pair: Pair;
  /**
   * The numeric matching core, exposed as the lean entry point for benchmarks and bulk replay.
   * Calling it directly bypasses events, `seq` and `tradeSeq`.
   */
  readonly book: OrderBook;
  private _seq = 0;
  private _tradeSeq = 0;

  /** Creates an empty book. Throws InvalidPairConfigError on a bad configuration. */
  constructor(pair: PairConfig) {
    this.pair = normalizePair(pair);
    this.book = new OrderBook(this.pair.tickSize, this.pair.lotSize, this.pair.minNotional);
  }

  /** Number of applied (non-rejected) commands so far. */
  get seq(): number {
    return this._seq;
  }

  /** Number of trades so far (the last fill's `tradeId`). */
  get tradeSeq(): number {
    return this._tradeSeq;
  }

  /** Number of resting orders. */
  get orderCount(): number {
    return this.book.orders.size;
  }

  /**
   * Applies one command and returns its events in order, plus the changed depth levels.
   * Rejections are returned as `{ ok: false, code, message }` and change nothing.
   */
  execute(cmd: Command): CommandResult {
    switch (cmd?.type) {
      case "limit":
        return this.placeLimit(cmd);
      case "market":
        return this.placeMarket(cmd);
      case "cancel":
        return this.cancel(cmd);
      default:
        return this.reject(null, "INVALID_COMMAND");
    }
  }

  private reject(id: OrderId | null, code: RejectCode): CommandResult {
    const message = REJECT_MESSAGES[code];
    return {
      ok: false,
      code,
      message,
      seq: this._seq,
      events: [{ type: "rejected", id: isKey(id) ? id : null, code, message }],
      depth: [],
    };
  }

  private placeLimit(cmd: LimitCommand): CommandResult {
    const { id, owner, price, qty } = cmd;
    if (!isKey(id)) return this.reject(null, "INVALID_ID");
    if (!isKey(owner)) return this.reject(id, "INVALID_OWNER");
    const side = sideCode(cmd.side);
    if (side === -1) return this.reject(id, "INVALID_SIDE");
    const tif = cmd.tif ?? "GTC";
    if (tif !== "GTC" && tif !== "IOC") return this.reject(id, "INVALID_COMMAND");
    const book = this.book;
    const rc = book.limit(id, owner, side, price, qty, tif === "IOC");
    if (rc !== R_OK) return this.reject(id, REJECT_CODE[rc]!);
    const events: EngineEvent[] = [
      {
        type: "accepted",
        id,
        owner,
        side: cmd.side,
        kind: "limit",
        price,
        qty,
        tif,
        budget: null,
        reservation: side === BUY ? price * qty : qty,
        reservationAsset: side === BUY ? "quote" : "base",
      },
    ];
    this.emitFills(events, id, owner, side, qty, side === BUY ? price : -1);
    const rem = book.remaining;
    if (book.outcome === OUT_RESTED && rem > 0) {
      events.push({ type: "booked", id, owner, side: cmd.side, price, remaining: rem });
    } else {
      events.push({
        type: "done",
        id,
        owner,
        side: cmd.side,
        reason: OUTCOME_REASON[book.outcome]!,
        remaining: rem,
        releasedReservation: side === BUY ? price * rem : rem,
        reservationAsset: side === BUY ? "quote" : "base",
      });
    }
    return this.accepted(events, side, book.outcome === OUT_RESTED && rem > 0 ? price : -1);
  }

  private placeMarket(cmd: MarketCommand): CommandResult {
    const { id, owner, qty } = cmd;
    if (!isKey(id)) return this.reject(null, "INVALID_ID");
    if (!isKey(owner)) return this.reject(id, "INVALID_OWNER");
    const side = sideCode(cmd.side);
    if (side === -1) return this.reject(id, "INVALID_SIDE");
    // -1 means "no budget" to the core; anything given but not a positive number must fail its check.
    const given = cmd.budget;
    const budget = given === undefined ? -1 : typeof given === "number" && given > 0 ? given : NaN;
    const book = this.book;
    const rc = book.market(id, owner, side, qty, budget);
    if (rc !== R_OK) return this.reject(id, REJECT_CODE[rc]!);
    const hasBudget = budget !== -1;
    const events: EngineEvent[] = [
      {
        type: "accepted",
        id,
        owner,
        side: cmd.side,
        kind: "market",
        price: null,
        qty,
        tif: "IOC",
        budget: hasBudget ? budget : null,
        reservation: side === SELL ? qty : hasBudget ? budget : 0,
        reservationAsset: side === BUY ? "quote" : "base",
      },
    ];
    // Budgeted market buy: each fill consumes exactly its cost from the reservation (reserved price = trade price).
    this.emitFills(events, id, owner, side, qty, side === BUY ? (hasBudget ? 0 : -2) : -1);
    const rem = book.remaining;
    events.push({
      type: "done",
      id,
      owner,
      side: cmd.side,
      reason: OUTCOME_REASON[book.outcome]!,
      remaining: rem,
      releasedReservation: side === SELL ? rem : hasBudget ? book.budgetLeft : 0,
      reservationAsset: side === BUY ? "quote" : "base",
    });
    return this.accepted(events, side, -1);
  }

  private cancel(cmd: CancelCommand): CommandResult {
    const { id } = cmd;
    if (!isKey(id)) return this.reject(null, "INVALID_ID");
    const book = this.book;
    const found = book.orders.get(id);
    if (found === undefined) return this.reject(id, "UNKNOWN_ORDER");
    if (cmd.owner !== undefined && cmd.owner !== found.owner) return this.reject(id, "NOT_OWNER");
    const o = book.cancel(id)!;
    const side = SIDE_NAME[o.side]!;
    const events: EngineEvent[] = [
      {
        type: "done",
        id,
        owner: o.owner,
        side,
        reason: "cancelled",
        remaining: o.qty,
        releasedReservation: o.side === BUY ? o.price * o.qty : o.qty,
        reservationAsset: o.side === BUY ? "quote" : "base",
      },
    ];
    this._seq++;
    const lvl = (o.side === BUY ? book.bids : book.asks).find(o.price);
    return { ok: true, seq: this._seq, events, depth: [{ side, price: o.price, qty: lvl ? lvl.total : 0 }] };
  }

  /**
   * Turns the core's fill tape into fill events (+ maker done events).
   * `buyerPrice`: the taker buy's limit price; 0 = budgeted market buy (reserved = trade price);
   * -2 = unbudgeted market buy; -1 = taker is the seller.
   */
  private emitFills(
    events: EngineEvent[],
    takerId: OrderId,
    takerOwner: AccountId,
    side: SideCode,
    qty: number,
    buyerPrice: number,
  ): void {
    const book = this.book;
    const n = book.fillCount;
    const takerSide = SIDE_NAME[side]!;
    const makerSide = SIDE_NAME[1 - side]!;
    let takerLeft = qty;
    const { baseUnitsPerLot: bU, quoteUnitsPerTickLot: qU } = this.pair;
    const takerBps = BigInt(this.pair.takerFeeBps);
    const makerBps = BigInt(this.pair.makerFeeBps);
    const buyerBps = side === BUY ? takerBps : makerBps;
    const sellerBps = side === SELL ? takerBps : makerBps;
    for (let i = 0; i < n; i++) {
      const price = book.fillPrice[i]!;
      const q = book.fillQty[i]!;
      const makerId = book.fillMakerId[i]!;
      const makerOwner = book.fillMakerOwner[i]!;
      const makerLeft = book.fillMakerLeft[i]!;
      takerLeft -= q;
      // Same formula as settlement.fillFees, with the factors converted once per command.
      const buyerFee = buyerBps === 0n ? 0n : (BigInt(q) * bU * buyerBps) / 10000n;
      const sellerFee = sellerBps === 0n ? 0n : (BigInt(price * q) * qU * sellerBps) / 10000n;
      // Buyer's reserved price per lot: maker buy → its own price; taker limit buy → its limit.
      const reservedPrice = side === SELL ? price : buyerPrice > 0 ? buyerPrice : buyerPrice === 0 ? price : 0;
      events.push({
        type: "fill",
        tradeId: ++this._tradeSeq,
        takerId,
        makerId,
        takerOwner,
        makerOwner,
        takerSide,
        price,
        qty: q,
        notional: price * q,
        buyerFee,
        sellerFee,
        buyerReservedPrice: reservedPrice,
        makerRemaining: makerLeft,
        takerRemaining: takerLeft,
      });
      if (makerLeft === 0) {
        events.push({
          type: "done",
          id: makerId,
          owner: makerOwner,
          side: makerSide,
          reason: "filled",
          remaining: 0,
          releasedReservation: 0,
          reservationAsset: side === SELL ? "quote" : "base",
        });
      }
    }
  }

  /** Finishes an applied order command: bumps seq and collects changed depth levels. */
  private accepted(events: EngineEvent[], side: SideCode, bookedPrice: number): CommandResult {
    this._seq++;
    const book = this.book;
    const depth: DepthChange[] = [];
    const own = side === BUY ? book.bids : book.asks;
    const opp = side === BUY ? book.asks : book.bids;
    const ownName = SIDE_NAME[side]!;
    const oppName = SIDE_NAME[1 - side]!;
    const ownChange = bookedPrice > 0 ? { side: ownName, price: bookedPrice, qty: own.find(bookedPrice)!.total } : null;
    // Fill prices go from best to worse on the opposite side; record each distinct level once.
    const oppChanges: DepthChange[] = [];
    let last = -1;
    for (let i = 0; i < book.fillCount; i++) {
      const p = book.fillPrice[i]!;
      if (p === last) continue;
      last = p;
      const lvl = opp.find(p);
      oppChanges.push({ side: oppName, price: p, qty: lvl ? lvl.total : 0 });
    }
    if (side === BUY) {
      if (ownChange) depth.push(ownChange);
      for (const c of oppChanges) depth.push(c);
    } else {
      for (const c of oppChanges) depth.push(c);
      if (ownChange) depth.push(ownChange);
    }
    return { ok: true, seq: this._seq, events, depth };
  }

  /** Best bid price, or null. */
  bestBid(): number | null {
    return this.book.bids.best()?.price ?? null;
  }

  /** Best ask price, or null. */
  bestAsk(): number | null {
    return this.book.asks.best()?.price ?? null;
  }

  /** Top `levels` price levels per side, aggregated, best first. */
  depth(levels = 20): Depth {
    return { bids: topLevels(this.book.bids, levels), asks: topLevels(this.book.asks, levels) };
  }

  /** An open order by id, or undefined. */
  order(id: OrderId): OpenOrder | undefined {
    const o = this.book.orders.get(id);
    return o === undefined ? undefined : openOrder(o);
  }

  /** All open orders in priority order: bids best first, then asks best first; FIFO within a level. */
  openOrders(): OpenOrder[] {
    const out: OpenOrder[] = [];
    for (const side of [this.book.bids, this.book.asks]) forEachOrder(side, (o) => out.push(openOrder(o)));
    return out;
  }

  /** Full state as plain JSON-serialisable data. */
  snapshot(): EngineSnapshot {
    const dump = (side: BookSide): SnapshotOrder[] => {
      const out: SnapshotOrder[] = [];
      forEachOrder(side, (o) => out.push([o.id, o.owner, o.price, o.qty]));
      return out;
    };
    return { version: 1, seq: this._seq, tradeSeq: this._tradeSeq, bids: dump(this.book.bids), asks: dump(this.book.asks) };
  }

  /**
   * Rebuilds an engine from a snapshot. Throws CorruptSnapshotError if the snapshot does not
   * describe a valid book for this pair (off-grid, crossed, duplicate ids, bad counters).
   */
  static restore(pair: PairConfig, snap: EngineSnapshot): SpotEngine {
    const e = new SpotEngine(pair);
    if (snap?.version !== 1) throw new CorruptSnapshotError("unsupported snapshot version");
    if (!Number.isSafeInteger(snap.seq) || snap.seq < 0 || !Number.isSafeInteger(snap.tradeSeq) || snap.tradeSeq < 0)
      throw new CorruptSnapshotError("bad sequence counters");
    const book = e.book;
    for (const [side, list] of [
      [BUY, snap.bids],
      [SELL, snap.asks],
    ] as const) {
      if (!Array.isArray(list)) throw new CorruptSnapshotError("missing order list");
      let prev = side === BUY ? Infinity : 0;
      for (const entry of list) {
        const [id, owner, price, qty] = entry;
        if (!isKey(id) || !isKey(owner)) throw new CorruptSnapshotError(`bad id or owner in ${String(id)}`);
        if (!isPosSafeInt(price) || price % e.pair.tickSize !== 0) throw new CorruptSnapshotError(`bad price for ${id}`);
        if (!isPosSafeInt(qty) || qty % e.pair.lotSize !== 0 || price * qty > Number.MAX_SAFE_INTEGER)
          throw new CorruptSnapshotError(`bad quantity for ${id}`);
        if (side === BUY ? price > prev : price < prev) throw new CorruptSnapshotError(`orders out of priority order at ${id}`);
        prev = price;
        if (book.orders.has(id)) throw new CorruptSnapshotError(`duplicate order id ${id}`);
        book.insert(id, owner, side, price, qty);
      }
    }
    const bid = e.bestBid();
    const ask = e.bestAsk();
    if (bid !== null && ask !== null && bid >= ask) throw new CorruptSnapshotError("snapshot book is crossed");
    e._seq = snap.seq;
    e._tradeSeq = snap.tradeSeq;
    return e;
  }

  /** Builds an engine by applying a journal of commands to an empty book. */
  static replay(pair: PairConfig, journal: Iterable<Command>): SpotEngine {
    const e = new SpotEngine(pair);
    for (const cmd of journal) e.execute(cmd);
    return e;
  }

  /**
   * Deterministic fingerprint (FNV-1a 64, hex) of the full state: counters and every resting
   * order (id, owner, price, remaining) in priority order. Equal state ⇔ equal hash (barring collisions).
   */
  stateHash(): string {
    const h = new Fnv1a64();
    h.string("spot-engine/1").uint(this._seq).uint(this._tradeSeq);
    for (const side of [this.book.bids, this.book.asks]) {
      h.byte(0x7c).uint(side.levels.length);
      for (let i = side.levels.length - 1; i >= 0; i--) {
        const lvl = side.levels[i]!;
        h.byte(0x4c).uint(lvl.price).uint(lvl.count);
        for (let o = lvl.head; o !== null; o = o.next) h.id(o.id).id(o.owner).uint(o.qty);
      }
    }
    return h.digest();
  }

  /**
   * Verifies internal consistency (level totals and counts, sort order, id map, uncrossed book).
   * Throws InvariantError. O(orders): for tests and post-restore checks, not per command.
   */
  checkInvariants(): void {
    let seen = 0;
    for (const side of [this.book.bids, this.book.asks]) {
      let prevKey = -Infinity;
      for (const lvl of side.levels) {
        if (!(lvl.key > prevKey)) throw new InvariantError("levels out of order");
        prevKey = lvl.key;
        let total = 0;
        let count = 0;
        let prev: Order | null = null;
        for (let o = lvl.head; o !== null; o = o.next) {
          if (o.prev !== prev || o.level !== lvl || o.price !== lvl.price || o.side !== side.side || o.qty <= 0)
            throw new InvariantError(`order ${o.id} badly linked`);
          if (this.book.orders.get(o.id) !== o) throw new InvariantError(`order ${o.id} missing from id map`);
          total += o.qty;
          count++;
          prev = o;
        }
        if (lvl.tail !== prev || count === 0 || lvl.count !== count || lvl.total !== total)
          throw new InvariantError(`level ${lvl.price} totals wrong`);
        if (side.find(lvl.price) !== lvl) throw new InvariantError(`level ${lvl.price} missing from the price index`);
        seen += count;
      }
      if (side.indexedLevels !== side.levels.length) throw new InvariantError("price index has stale levels");
    }
    if (seen !== this.book.orders.size) throw new InvariantError("id map has orders not in the book");
    const bid = this.bestBid();
    const ask = this.bestAsk();
    if (bid !== null && ask !== null && bid >= ask) throw new InvariantError("book is crossed");
  }
}

function forEachOrder(side: BookSide, f: (o: Order) => void): void {
  const levels = side.levels;
  for (let i = levels.length - 1; i >= 0; i--) for (let o = levels[i]!.head; o !== null; o = o.next) f(o);
}

function topLevels(side: BookSide, n: number): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  const levels = side.levels;
  for (let i = levels.length - 1; i >= 0 && out.length < n; i--) out.push([levels[i]!.price, levels[i]!.total]);
  return out;
}

function openOrder(o: Order): OpenOrder {
  const buy = o.side === BUY;
  return {
    id: o.id,
    owner: o.owner,
    side: SIDE_NAME[o.side]!,
    price: o.price,
    remaining: o.qty,
    reservation: buy ? o.price * o.qty : o.qty,
    reservationAsset: buy ? "quote" : "base",
  };
}
