/**
 * A deliberately naive reference implementation of the engine's rules, for property tests:
 * one flat array of open orders, searched linearly for the best price and the oldest order on
 * every fill. Slow and obviously correct; shares no code with durable/engine.
 */
import type { Command, DoneReason, RejectCode } from "../../durable/engine/index.ts";

export interface RefPair {
  tickSize: number;
  lotSize: number;
  minNotional: number;
}

export interface RefOrder {
  id: number | string;
  owner: number | string;
  side: "buy" | "sell";
  price: number;
  remaining: number;
  /** Arrival number: smaller = earlier. */
  arrival: number;
}

export interface RefFill {
  takerId: number | string;
  makerId: number | string;
  price: number;
  qty: number;
}

export interface RefDone {
  id: number | string;
  reason: DoneReason;
  remaining: number;
  released: number;
}

export type RefResult =
  | { ok: false; code: RejectCode }
  | { ok: true; fills: RefFill[]; done: RefDone[]; booked: { id: number | string; remaining: number } | null };

const isKey = (v: unknown): boolean =>
  typeof v === "number" ? Number.isInteger(v) && Math.abs(v) <= Number.MAX_SAFE_INTEGER : typeof v === "string" && v !== "";
const isPosInt = (v: unknown): v is number => typeof v === "number" && Number.isInteger(v) && v > 0 && v <= Number.MAX_SAFE_INTEGER;

export class RefBook {
  open: RefOrder[] = [];
  private arrivals = 0;

  constructor(private readonly pair: RefPair) {}

  /** Open orders of a side in priority order (best price, then earliest). */
  sideOrders(side: "buy" | "sell"): RefOrder[] {
    return this.open
      .filter((o) => o.side === side)
      .sort((a, b) => (a.price !== b.price ? (side === "buy" ? b.price - a.price : a.price - b.price) : a.arrival - b.arrival));
  }

  execute(cmd: Command): RefResult {
    if (cmd.type === "cancel") {
      if (!isKey(cmd.id)) return { ok: false, code: "INVALID_ID" };
      const o = this.open.find((x) => x.id === cmd.id);
      if (!o) return { ok: false, code: "UNKNOWN_ORDER" };
      if (cmd.owner !== undefined && cmd.owner !== o.owner) return { ok: false, code: "NOT_OWNER" };
      this.open = this.open.filter((x) => x !== o);
      const released = o.side === "buy" ? o.price * o.remaining : o.remaining;
      return { ok: true, fills: [], done: [{ id: o.id, reason: "cancelled", remaining: o.remaining, released }], booked: null };
    }
    if (cmd.type !== "limit" && cmd.type !== "market") return { ok: false, code: "INVALID_COMMAND" };
    if (!isKey(cmd.id)) return { ok: false, code: "INVALID_ID" };
    if (!isKey(cmd.owner)) return { ok: false, code: "INVALID_OWNER" };
    if (cmd.side !== "buy" && cmd.side !== "sell") return { ok: false, code: "INVALID_SIDE" };
    const { tickSize, lotSize, minNotional } = this.pair;
    if (cmd.type === "limit") {
      if (cmd.tif !== undefined && cmd.tif !== "GTC" && cmd.tif !== "IOC") return { ok: false, code: "INVALID_COMMAND" };
      if (!isPosInt(cmd.price)) return { ok: false, code: "INVALID_PRICE" };
      if (cmd.price % tickSize !== 0) return { ok: false, code: "PRICE_NOT_ON_TICK" };
    }
    if (!isPosInt(cmd.qty)) return { ok: false, code: "INVALID_QTY" };
    if (cmd.qty % lotSize !== 0) return { ok: false, code: "QTY_NOT_ON_LOT" };
    if (cmd.type === "limit") {
      if (BigInt(cmd.price) * BigInt(cmd.qty) > BigInt(Number.MAX_SAFE_INTEGER)) return { ok: false, code: "NOTIONAL_TOO_LARGE" };
      if (cmd.price * cmd.qty < minNotional) return { ok: false, code: "BELOW_MIN_NOTIONAL" };
    } else if (cmd.budget !== undefined && (cmd.side !== "buy" || !isPosInt(cmd.budget))) {
      return { ok: false, code: "INVALID_BUDGET" };
    }
    if (this.open.some((o) => o.id === cmd.id)) return { ok: false, code: "DUPLICATE_ID" };

    const isBuy = cmd.side === "buy";
    const limitPrice = cmd.type === "limit" ? cmd.price : null;
    let budget = cmd.type === "market" && cmd.budget !== undefined ? cmd.budget : null;
    let remaining = cmd.qty;
    const fills: RefFill[] = [];
    const done: RefDone[] = [];
    let stop: DoneReason | null = null;
    while (remaining > 0) {
      const maker = this.sideOrders(isBuy ? "sell" : "buy")[0];
      if (!maker) break;
      if (limitPrice !== null && (isBuy ? maker.price > limitPrice : maker.price < limitPrice)) break;
      if (maker.owner === cmd.owner) {
        stop = "self_trade";
        break;
      }
      let qty = Math.min(maker.remaining, remaining);
      if (budget !== null) {
        let lots = qty / lotSize;
        while (lots > 0 && lots * lotSize * maker.price > budget) lots--;
        if (lots === 0) {
          stop = "budget";
          break;
        }
        qty = lots * lotSize;
        budget -= qty * maker.price;
      }
      fills.push({ takerId: cmd.id, makerId: maker.id, price: maker.price, qty });
      maker.remaining -= qty;
      remaining -= qty;
      if (maker.remaining === 0) {
        this.open = this.open.filter((o) => o !== maker);
        done.push({ id: maker.id, reason: "filled", remaining: 0, released: 0 });
      }
    }
    const releasedFor = (rem: number): number =>
      !isBuy ? rem : limitPrice !== null ? limitPrice * rem : budget !== null ? budget : 0;
    if (remaining === 0) {
      done.push({ id: cmd.id, reason: "filled", remaining: 0, released: releasedFor(0) });
      return { ok: true, fills, done, booked: null };
    }
    if (stop === null && cmd.type === "limit" && (cmd.tif ?? "GTC") === "GTC") {
      this.open.push({ id: cmd.id, owner: cmd.owner, side: cmd.side, price: cmd.price, remaining, arrival: this.arrivals++ });
      return { ok: true, fills, done, booked: { id: cmd.id, remaining } };
    }
    done.push({ id: cmd.id, reason: stop ?? "expired", remaining, released: releasedFor(remaining) });
    return { ok: true, fills, done, booked: null };
  }
}
