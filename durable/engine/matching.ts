/**
 * The matching core: validation against the pair's grid, price-time priority matching, resting
 * and cancelling. This is the hot path shared by the Durable Object (through `SpotEngine`) and the
 * benchmark, so it works only with numbers (ticks, lots), returns numeric codes, and reports fills
 * on a reusable "tape" of parallel arrays instead of allocating event objects; `SpotEngine` turns
 * the tape into events, fees and depth changes afterwards.
 *
 * Self-trade prevention (STP) policy: EXPIRE TAKER ("cancel newest"). When the incoming order
 * reaches a resting order of the same owner, matching stops; fills already made stand, the
 * resting order is untouched, and the incoming order's remainder is expired (never rests) with
 * reason "self_trade" and its reservation released. Orders of the same owner at worse prices
 * behind the blocking order are therefore not reached either.
 *
 * Market buy budget: matching stops before a fill would spend more than the remaining budget;
 * the last fill may be cut down to the largest lot multiple that the budget still pays for.
 */
import { BUY, BookSide, Order, SELL, type SideCode } from "./book.ts";
import type { RejectCode } from "./errors.ts";
import { OrderIndex, hashId } from "./order-index.ts";
import type { AccountId, DoneReason, OrderId } from "./types.ts";

/** Outcome of the last `limit`/`market` call (see `OrderBook.outcome`). */
export const OUT_RESTED = 0;
export const OUT_FILLED = 1;
export const OUT_EXPIRED = 2;
export const OUT_SELF_TRADE = 3;
export const OUT_BUDGET = 4;

/** Done reason for each outcome code (OUT_RESTED has none). */
export const OUTCOME_REASON: readonly (DoneReason | null)[] = [null, "filled", "expired", "self_trade", "budget"];

/** Numeric reject codes of the core; 0 = accepted. */
export const R_OK = 0;
export const R_INVALID_SIDE = 1;
export const R_INVALID_PRICE = 2;
export const R_PRICE_NOT_ON_TICK = 3;
export const R_INVALID_QTY = 4;
export const R_QTY_NOT_ON_LOT = 5;
export const R_BELOW_MIN_NOTIONAL = 6;
export const R_NOTIONAL_TOO_LARGE = 7;
export const R_INVALID_BUDGET = 8;
export const R_DUPLICATE_ID = 9;

/** Reject code string for each numeric core code. */
export const REJECT_CODE: readonly (RejectCode | null)[] = [
  null,
  "INVALID_SIDE",
  "INVALID_PRICE",
  "PRICE_NOT_ON_TICK",
  "INVALID_QTY",
  "QTY_NOT_ON_LOT",
  "BELOW_MIN_NOTIONAL",
  "NOTIONAL_TOO_LARGE",
  "INVALID_BUDGET",
  "DUPLICATE_ID",
];

const MAX_SAFE = Number.MAX_SAFE_INTEGER;
const POOL_MAX = 4096;

/**
 * A single pair's order book with the matching algorithm. Not safe to share between pairs.
 * After each `limit`/`market` call the public result fields (`filled`, `remaining`, `outcome`,
 * `budgetLeft`, and the fill tape `fillCount`/`fill*[0..fillCount)`) describe that call.
 */
export class OrderBook {
  readonly bids = new BookSide(BUY);
  readonly asks = new BookSide(SELL);
  /** Open orders by id: O(1) cancel. */
  readonly orders = new OrderIndex();
  /** Recycled order objects. */
  private readonly pool: Order[] = [];
  readonly tickSize: number;
  readonly lotSize: number;
  readonly minNotional: number;

  /** Quantity filled by the last call. */
  filled = 0;
  /** Quantity of the last order not filled (resting, or expired per `outcome`). */
  remaining = 0;
  /** OUT_* code of the last call. */
  outcome = OUT_RESTED;
  /** Budget left after the last budgeted market buy (notional units), else -1. */
  budgetLeft = -1;

  /** Number of fills on the tape from the last call. */
  fillCount = 0;
  readonly fillMakerId: OrderId[] = [];
  readonly fillMakerOwner: AccountId[] = [];
  readonly fillPrice: number[] = [];
  readonly fillQty: number[] = [];
  /** Maker quantity left after each fill. */
  readonly fillMakerLeft: number[] = [];

  /** Grid and minimum are assumed validated by the caller (see SpotEngine). */
  constructor(tickSize: number, lotSize: number, minNotional: number) {
    this.tickSize = tickSize;
    this.lotSize = lotSize;
    this.minNotional = minNotional;
  }

  /**
   * Limit order: validate, match against the opposite side up to `price`, then rest the remainder
   * (GTC) or expire it (`ioc`). Returns R_OK or a numeric reject code (nothing changed).
   */
  limit(id: OrderId, owner: AccountId, side: SideCode, price: number, qty: number, ioc: boolean): number {
    if (side !== BUY && side !== SELL) return R_INVALID_SIDE;
    if (!Number.isSafeInteger(price) || price <= 0) return R_INVALID_PRICE;
    // Integer division is slow; a grid step of 1 accepts every integer, so skip it then.
    if (this.tickSize !== 1 && price % this.tickSize !== 0) return R_PRICE_NOT_ON_TICK;
    if (!Number.isSafeInteger(qty) || qty <= 0) return R_INVALID_QTY;
    if (this.lotSize !== 1 && qty % this.lotSize !== 0) return R_QTY_NOT_ON_LOT;
    const notional = price * qty;
    if (notional > MAX_SAFE) return R_NOTIONAL_TOO_LARGE;
    if (notional < this.minNotional) return R_BELOW_MIN_NOTIONAL;
    const hash = hashId(id);
    if (this.orders.find(id, hash) !== undefined) return R_DUPLICATE_ID;

    // Most limit orders do not cross: skip the matching loop when the opposite best is out of reach.
    const opp = side === BUY ? this.asks.levels : this.bids.levels;
    const best = opp[opp.length - 1];
    let rem = qty;
    if (best !== undefined && (side === BUY ? best.price <= price : best.price >= price)) {
      rem = this.take(owner, side, price, qty, -1);
    } else {
      this.fillCount = 0;
      this.outcome = OUT_RESTED;
      this.budgetLeft = -1;
    }
    this.filled = qty - rem;
    this.remaining = rem;
    if (rem > 0 && this.outcome === OUT_RESTED) {
      if (ioc) this.outcome = OUT_EXPIRED;
      else this.insert(id, owner, side, price, rem, hash);
    }
    return R_OK;
  }

  /**
   * Market order for `qty` (IOC at any price). `budget` (notional units) caps a buy's spending;
   * pass -1 for none. Returns R_OK or a numeric reject code (nothing changed).
   */
  market(id: OrderId, owner: AccountId, side: SideCode, qty: number, budget: number): number {
    if (side !== BUY && side !== SELL) return R_INVALID_SIDE;
    if (!Number.isSafeInteger(qty) || qty <= 0) return R_INVALID_QTY;
    if (this.lotSize !== 1 && qty % this.lotSize !== 0) return R_QTY_NOT_ON_LOT;
    if (budget !== -1 && (side !== BUY || !Number.isSafeInteger(budget) || budget <= 0)) return R_INVALID_BUDGET;
    if (this.orders.has(id)) return R_DUPLICATE_ID;

    const rem = this.take(owner, side, side === BUY ? Infinity : 0, qty, budget);
    this.filled = qty - rem;
    this.remaining = rem;
    if (rem > 0 && this.outcome === OUT_RESTED) this.outcome = OUT_EXPIRED;
    return R_OK;
  }

  /**
   * Removes an open order; returns it (with its remaining qty and price), or null if unknown.
   * The returned object is recycled by the next command: read it before calling the book again.
   */
  cancel(id: OrderId): Order | null {
    const o = this.orders.take(id);
    if (o === undefined) return null;
    const level = o.level!;
    level.unlink(o);
    if (level.count === 0) (o.side === BUY ? this.bids : this.asks).remove(level);
    this.release(o);
    return o;
  }

  /** Rests an order without matching (used after matching, and by snapshot restore). */
  insert(id: OrderId, owner: AccountId, side: SideCode, price: number, qty: number, hash = hashId(id)): Order {
    const o = this.pool.pop()?.reset(id, owner, side, price, qty, hash) ?? new Order(id, owner, side, price, qty, hash);
    (side === BUY ? this.bids : this.asks).getOrCreate(price).push(o);
    this.orders.add(o);
    return o;
  }

  /** Returns a finished order object to the pool (bounded): steady-state trading allocates no orders. */
  private release(o: Order): void {
    if (this.pool.length < POOL_MAX) this.pool.push(o);
  }

  /**
   * Matches an incoming order against the opposite side. `limit` is the worst acceptable price
   * (Infinity / 0 for market orders). Records fills on the tape, sets `outcome` to OUT_FILLED,
   * OUT_SELF_TRADE, OUT_BUDGET or OUT_RESTED (= stopped by price or empty book), and `budgetLeft`.
   * Returns the unfilled quantity.
   */
  private take(owner: AccountId, side: SideCode, limit: number, qty: number, budget: number): number {
    const isBuy = side === BUY;
    const oppSide = isBuy ? this.asks : this.bids;
    const levels = oppSide.levels;
    const orders = this.orders;
    const lot = this.lotSize;
    const tMakerId = this.fillMakerId;
    const tMakerOwner = this.fillMakerOwner;
    const tPrice = this.fillPrice;
    const tQty = this.fillQty;
    const tLeft = this.fillMakerLeft;
    let n = 0;
    let rem = qty;
    let outcome = OUT_RESTED;

    outer: while (rem > 0) {
      const li = levels.length - 1;
      if (li < 0) break;
      const level = levels[li]!;
      const p = level.price;
      if (isBuy ? p > limit : p < limit) break;
      let o = level.head;
      while (o !== null) {
        if (o.owner === owner) {
          outcome = OUT_SELF_TRADE;
          break outer;
        }
        const oq = o.qty;
        let q = oq < rem ? oq : rem;
        if (budget >= 0) {
          const lotCost = p * lot;
          let afford = Math.floor(budget / lotCost);
          if (afford * lotCost > budget) afford--; // guard against rounding up in the division
          afford *= lot;
          if (afford < q) {
            if (afford <= 0) {
              outcome = OUT_BUDGET;
              break outer;
            }
            q = afford;
          }
          budget -= p * q;
        }
        const left = oq - q;
        tMakerId[n] = o.id;
        tMakerOwner[n] = o.owner;
        tPrice[n] = p;
        tQty[n] = q;
        tLeft[n] = left;
        n++;
        rem -= q;
        if (left === 0) {
          // Maker done: it is the head of its level, so unlink from the front.
          const next = o.next;
          orders.remove(o);
          level.head = next;
          if (next === null) level.tail = null;
          else next.prev = null;
          level.total -= oq;
          level.count--;
          o.next = null;
          o.level = null;
          o.qty = 0;
          this.release(o);
          o = next;
        } else {
          o.qty = left;
          level.total -= q;
        }
        if (rem === 0) break;
      }
      if (level.head === null) oppSide.popBest();
    }
    if (rem === 0) outcome = OUT_FILLED;
    this.fillCount = n;
    this.outcome = outcome;
    this.budgetLeft = budget;
    return rem;
  }
}
