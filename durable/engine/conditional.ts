/**
 * Conditional spot orders, pure: what each one holds, and the rules that turn trades into
 * triggered orders. A conditional order becomes an ordinary limit order (its "child") when its
 * trigger fires; until then its funds are held exactly as that limit order's would be.
 *
 *   stop_limit  when the last trade reaches `stop` (a sell: falls to it; a buy: rises to it), a
 *               limit order at `price` is placed.
 *   oco         a limit order at `price` is placed at once (the "leg", id = the order's id) and a
 *               stop-limit (`stop` → a limit at `limitPrice`) waits: the leg's first fill cancels
 *               the stop; the stop firing cancels the leg. Never both.
 *   trailing    from its activation (at once, or when the price first reaches `activation`), it
 *               tracks the high (sell) or low (buy); when the price comes back `callbackBps`
 *               basis points from it, a limit order at `price` is placed.
 *
 * Holds (minimal units, one currency): a sell holds `qty` base whatever the type. A buy holds
 * limit price × qty quote for its child; an OCO buy holds max(leg, child): the leg's own hold is
 * the leg order's, and the conditional order holds the rest (`own`). When the stop fires, the
 * leg's release and the child's hold net to (child − own) more frozen, so the total is always
 * "what the open orders and open conditional orders hold".
 *
 * `ConditionalBook` keeps the open ones and a queue of the fills the desk reports; `settle` runs
 * the queue through the triggers and tells the desk (its ports) what to cancel and place. A
 * child's own fills go back into the queue, so a cascade settles in one call, each order once.
 */
import { lotsToBaseUnits, notionalToQuoteUnits } from "./units.ts";
import { TriggerBook, type Fired } from "./triggers.ts";

export type ConditionalType = "stop_limit" | "oco" | "trailing";

export interface ConditionalOrder {
  id: number;
  owner: number;
  side: "buy" | "sell";
  type: ConditionalType;
  /** lots */
  qty: number;
  /** the child's limit price (stop_limit, trailing) or the OCO leg's limit price, in ticks */
  price: number;
  /** stop_limit and oco: the trigger price */
  stop: number | null;
  /** oco: the stop child's limit price */
  limitPrice: number | null;
  /** trailing */
  callbackBps: number | null;
  activation: number | null;
  /** trailing, once active: the tracked extreme (ticks) */
  extreme?: number | null;
}

/** Pair factors for holds. */
export interface HoldFactors {
  basePerLot: bigint;
  quotePerTickLot: bigint;
}

/** The child order's id: a range no Worker-drawn order id reaches before 2061 (ids: ms since 2026 × 4096 + 12 random bits). */
export const CHILD_ID_BASE = 2 ** 52;
export const childId = (id: number) => CHILD_ID_BASE + id;

/** The limit price of the order a conditional order places when it fires. */
export function childPrice(o: ConditionalOrder): number {
  return o.type === "oco" ? o.limitPrice! : o.price;
}

/** What a limit order of this side, price and quantity holds. */
export function limitHold(f: HoldFactors, side: "buy" | "sell", price: number, qty: number): bigint {
  return side === "sell" ? lotsToBaseUnits(BigInt(qty), f.basePerLot) : notionalToQuoteUnits(BigInt(price) * BigInt(qty), f.quotePerTickLot);
}

/**
 * What placing a conditional order freezes: `leg` for an OCO's limit leg (an ordinary order),
 * `own` for the conditional order itself (the rest), `child` what its child will hold.
 */
export function conditionalHolds(f: HoldFactors, o: Pick<ConditionalOrder, "side" | "type" | "qty" | "price" | "limitPrice">) {
  const child = limitHold(f, o.side, o.type === "oco" ? o.limitPrice! : o.price, o.qty);
  if (o.type !== "oco") return { leg: 0n, own: child, child, total: child };
  const leg = limitHold(f, o.side, o.price, o.qty);
  const own = child > leg ? child - leg : 0n;
  return { leg, own, child, total: leg + own };
}

/** What the desk must do for the book (its ports). */
export interface ConditionalPorts {
  /** Cancel an OCO's resting leg (it may already be gone) because its stop fired. */
  cancelLeg(legId: number, owner: number, order: ConditionalOrder): void;
  /** The order fired: its stop or trailing condition met by `fired.price`. Place its child next. */
  triggered(order: ConditionalOrder, fired: Fired): void;
  /** Place the child limit order; its fills come back through `noteFill`. */
  placeChild(order: ConditionalOrder, id: number, price: number): void;
  /** An OCO's stop leg cancelled because the limit leg filled. */
  ocoFilled(order: ConditionalOrder): void;
}

export class ConditionalBook {
  readonly triggers = new TriggerBook();
  /** open conditional orders by id */
  readonly open = new Map<number, ConditionalOrder>();
  /** OCO legs resting in the book → their conditional order */
  private readonly legs = new Map<number, number>();
  private readonly fills: { price: number; maker: number; taker: number }[] = [];

  /** Watches an order (its OCO leg is placed by the caller). `last`: the last trade price, which a trailing stop without activation starts from. */
  add(o: ConditionalOrder, last: number | null): void {
    if (o.type === "trailing") {
      this.triggers.add({ kind: "trail", id: o.id, side: o.side, callbackBps: o.callbackBps!, activation: o.activation, extreme: o.extreme ?? null }, last);
    } else {
      this.triggers.add({ kind: "stop", id: o.id, side: o.side, stop: o.stop! });
    }
    this.open.set(o.id, o);
    if (o.type === "oco") this.legs.set(o.id, o.id);
  }

  /** Whether the orders of an id are watched here. */
  has(id: number): boolean {
    return this.open.has(id);
  }

  /** Stops watching an order (its cancel); returns it, or undefined if it was not open. */
  remove(id: number): ConditionalOrder | undefined {
    const o = this.open.get(id);
    if (!o) return undefined;
    this.open.delete(id);
    this.legs.delete(id);
    this.triggers.remove(id);
    return o;
  }

  /** Whether an order id is an OCO leg whose stop still waits (cheap: one map lookup). */
  isLeg(orderId: number): boolean {
    return this.legs.has(orderId);
  }

  /** The desk reports each fill of the book, in order. Cheap: nothing is checked until `settle`. */
  noteFill(price: number, maker: number, taker: number): void {
    if (this.open.size > 0) this.fills.push({ price, maker, taker });
  }

  /** Runs the reported fills through OCO links and triggers until nothing more fires. */
  settle(ports: ConditionalPorts): void {
    for (let i = 0; i < this.fills.length; i++) {
      const f = this.fills[i]!;
      for (const id of [f.maker, f.taker]) {
        const condId = this.legs.get(id);
        if (condId === undefined) continue;
        // The leg traded: the stop leg is cancelled (the leg itself stays an ordinary order).
        const o = this.remove(condId)!;
        ports.ocoFilled(o);
      }
      if (this.open.size === 0) continue;
      for (const fired of this.triggers.onTrade(f.price)) {
        const o = this.open.get(fired.id);
        if (!o) continue;
        this.open.delete(o.id);
        if (o.type === "oco") {
          this.legs.delete(o.id);
          ports.cancelLeg(o.id, o.owner, o);
        }
        ports.triggered(o, fired);
        ports.placeChild(o, childId(o.id), childPrice(o));
      }
    }
    this.fills.length = 0;
  }
}
