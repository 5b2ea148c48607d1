/**
 * The conditional desk: the pair's stop-limit, OCO and trailing-stop orders (the rules are in
 * durable/engine/conditional.ts and triggers.ts). The Worker has already frozen the funds in D1
 * (and, for an OCO, written its limit leg's order row); this desk keeps the order in the object's
 * SQLite and in the spot desk's ConditionalBook, places an OCO's leg through the spot desk, and
 * after the spot commands of each transaction settles what their fills fired: each fired order's
 * child is an ordinary limit order through `SpotDesk.placeOne` (journal, price band, outbox and
 * all). Its state changes and hold movements ride in the same transaction's spot outbox entry.
 *
 * A triggered limit price outside the price band (the index moved far since placement) is
 * refused like any limit order: its funds go back at once, the conditional order shows as
 * triggered and its order as rejected (PRICE_BAND). It is never re-priced.
 */
import { ConditionalBook, childId, conditionalHolds, type ConditionalOrder, type ConditionalPorts, type ConditionalType } from "../../engine/conditional.ts";
import type { ConditionalChild } from "../outbox.ts";
import type { PairStorage } from "../storage.ts";
import type { PlaceResult, SpotDesk } from "./spot.ts";

/**
 * What the Worker sends to watch a conditional order (its funds already frozen in D1). Prices in
 * ticks, qty in lots. `maxOpen`: the most open conditional orders its owner may have here (this one
 * refused with LIMIT, its hold released, when they already have that many).
 */
export type ConditionalInput = Omit<ConditionalOrder, "owner" | "extreme"> & { pairId: number; userId: number; maxOpen?: number; clientOid?: string | null };

export interface ConditionalResult {
  ok: boolean;
  code?: string;
  status: "open" | "triggered" | "cancelled" | "rejected";
  /** an OCO's limit leg as the book took it */
  leg?: PlaceResult;
}

const STATUS = ["submitted", "open", "triggered", "cancelled", "rejected"] as const;

/** What D1 froze for an order this object may never have seen: its own hold, side and type. */
export interface Unseen {
  own: string;
  side: "buy" | "sell";
  type: ConditionalType;
}

export class ConditionalDesk {
  constructor(
    private readonly store: PairStorage,
    private readonly spot: SpotDesk,
  ) {}

  private factors() {
    const e = this.spot.engine!.pair;
    return { basePerLot: BigInt(e.baseUnitsPerLot), quotePerTickLot: BigInt(e.quoteUnitsPerTickLot) };
  }

  private currency(side: "buy" | "sell") {
    const info = this.spot.info!;
    return side === "buy" ? info.legalId : info.currencyId;
  }

  /** Rebuilds the open conditional orders (after the spot desk's load): trailing extremes from the trades since placement. */
  load(): void {
    const book = new ConditionalBook();
    this.spot.conditional = book;
    const sql = this.store.sql;
    // Balances in the account objects: OCO legs still resting spend their conditional order's hold.
    this.spot.condLegs.clear();
    if (this.spot.legsMode) for (const r of sql.exec("SELECT id FROM conditionals WHERE type = 'oco' AND id IN (SELECT id FROM book)").toArray()) this.spot.condLegs.add(Number(r.id));
    const rows = sql.exec("SELECT * FROM conditionals WHERE status = 1 ORDER BY seq").toArray();
    const last = this.spot.top().last;
    for (const r of rows) {
      const o = rowToOrder(r);
      if (o.type === "trailing") o.extreme = this.extremeSince(o, Number(r.placed_trade), r.extreme0 === null ? null : Number(r.extreme0));
      book.add(o, last);
    }
  }

  /** A trailing stop's extreme from its stored start and the trades since (null: not yet active). */
  private extremeSince(o: ConditionalOrder, placedTrade: number, extreme0: number | null): number | null {
    const sell = o.side === "sell";
    const agg = sell ? "max" : "min";
    let from = placedTrade;
    const extreme = extreme0;
    if (extreme === null) {
      // Activated by the first trade at or beyond the activation price, if any.
      const first = this.store.one<{ id: number | null }>(`SELECT min(trade_id) AS id FROM trades WHERE trade_id > ? AND price ${sell ? ">=" : "<="} ?`, placedTrade, o.activation!);
      if (first?.id == null) return null;
      from = Number(first.id) - 1;
    }
    const seen = this.store.one<{ p: number | null }>(`SELECT ${agg}(price) AS p FROM trades WHERE trade_id > ?`, from)?.p;
    if (seen == null) return extreme;
    if (extreme === null) return Number(seen);
    return sell ? Math.max(extreme, Number(seen)) : Math.min(extreme, Number(seen));
  }

  /** Starts watching an order (inside the spot commit). A repeated id answers the stored state. */
  place(input: ConditionalInput): ConditionalResult {
    const prior = this.store.one<{ status: number; owner: number }>("SELECT status, owner FROM conditionals WHERE id = ?", input.id);
    // Another user's order under this id (balances in the account objects: nothing exchange-wide drew it): refused, nothing recorded.
    if (prior && Number(prior.owner) !== input.userId) return { ok: false, code: "ID_TAKEN", status: "rejected" };
    if (prior) return { ok: prior.status !== 4, status: STATUS[prior.status] === "submitted" ? "open" : (STATUS[prior.status] as ConditionalResult["status"]) };
    // legsMode: an OCO whose leg's id is a spot order's here (anyone's, drawn in the same millisecond) is refused as taken
    // before anything is recorded, as above (the leg would be taken for that order's replay).
    if (this.spot.legsMode && input.type === "oco" && this.spot.known(input.id)) return { ok: false, code: "ID_TAKEN", status: "rejected" };
    const now = Date.now();
    const { pairId: _pair, userId, maxOpen, clientOid, ...fields } = input;
    const o: ConditionalOrder = { ...fields, owner: userId };
    const holds = conditionalHolds(this.factors(), o);
    const currency = this.currency(o.side);
    if (this.spot.legsMode) {
      // Its funds are one hold `spot_cond:{id}` in the owner's object (leg + own): the OCO leg and the child spend it.
      this.spot.noteNewConditional([o.id, userId, o.side, o.type, o.qty, o.price, o.stop, o.limitPrice, o.callbackBps, o.activation, holds.own.toString(), currency, clientOid ?? null, now]);
      if (o.type === "oco") this.spot.condLegs.add(o.id);
    }
    const last = this.spot.top().last;
    // A condition already met when it arrives (the price moved since the Worker looked), or a
    // trailing stop with nothing to start from, is refused: all it froze goes back.
    const met = o.stop !== null && last !== null && (o.side === "buy" ? last >= o.stop : last <= o.stop);
    const noStart = o.type === "trailing" && o.activation === null && last === null;
    if (met || noStart) return this.refuse(o, holds, met ? "WOULD_TRIGGER" : "NO_PRICE", now);
    // The Worker looked before freezing; two placements at once may both have passed it.
    if (maxOpen !== undefined && this.openCount(userId) >= maxOpen) return this.refuse(o, holds, "LIMIT", now);
    const seq = Number(this.store.meta("cond_seq") ?? 0) + 1;
    this.store.setMeta("cond_seq", seq);
    const extreme0 = o.type === "trailing" && o.activation === null ? last : null;
    this.store.sql.exec(
      `INSERT INTO conditionals (id, owner, side, type, qty, price, stop, limit_price, callback_bps, activation, own_units, child_units, currency, status, seq, placed_trade, extreme0, at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?)`,
      o.id, o.owner, o.side, o.type, o.qty, o.price, o.stop, o.limitPrice, o.callbackBps, o.activation, holds.own.toString(), holds.child.toString(), currency, seq, this.spot.engine!.tradeSeq, extreme0, now,
    );
    this.spot.conditional.add(o, last);
    this.spot.noteConditional([o.id, 1, null, null, null, o.owner], now);
    if (o.type !== "oco") return { ok: true, status: "open" };
    const leg = this.spot.placeOne({ pairId: input.pairId, orderId: o.id, userId: o.owner, side: o.side, price: o.price, qty: o.qty, tif: "GTC", reservedUnits: holds.leg.toString() });
    if (!leg.ok) {
      this.spot.condLegs.delete(o.id);
      // The leg was refused (its hold released by the spot desk): the stop goes with it.
      this.spot.conditional.remove(o.id);
      // ID_TAKEN (objects mode: another user's order has the leg's id): nothing recorded for the leg; the Worker releases the whole hold and draws again.
      this.close(o, 4, leg.code ?? "REJECTED", now, !(this.spot.legsMode && leg.code === "ID_TAKEN"));
      return { ok: false, code: leg.code, status: "rejected", leg };
    }
    return { ok: true, status: this.spot.conditional.has(o.id) ? "open" : "cancelled", leg };
  }

  private refuse(o: ConditionalOrder, holds: ReturnType<typeof conditionalHolds>, code: string, now: number): ConditionalResult {
    this.store.sql.exec(
      `INSERT INTO conditionals (id, owner, side, type, qty, price, own_units, child_units, currency, status, reason, seq, placed_trade, at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 4, ?, 0, 0, ?)`,
      o.id, o.owner, o.side, o.type, o.qty, o.price, holds.own.toString(), holds.child.toString(), this.currency(o.side), code, now,
    );
    this.spot.releaseConditional(o, holds.own, "refused", now);
    if (o.type === "oco") this.spot.rejectUnbooked({ pairId: this.spot.info!.pairId, orderId: o.id, userId: o.owner, side: o.side, price: o.price, qty: o.qty, tif: "GTC", reservedUnits: holds.leg.toString() }, code);
    this.spot.condLegs.delete(o.id);
    this.spot.noteConditional([o.id, 4, code, null, null, o.owner], now);
    return { ok: false, code, status: "rejected" };
  }

  /** Marks an order finished (3 cancelled, 4 refused) and releases its own hold. */
  private close(o: ConditionalOrder, status: 3 | 4, reason: string, now: number, release = true) {
    this.store.sql.exec("UPDATE conditionals SET status = ?, reason = ? WHERE id = ?", status, reason, o.id);
    if (release) this.spot.releaseConditional(o, conditionalHolds(this.factors(), o).own, "closed", now);
    this.spot.noteConditional([o.id, status, reason, null, null, o.owner], now);
  }

  /**
   * Cancels one of a user's conditional orders (inside the spot commit). One the object never saw
   * (its placement never arrived) is recorded as cancelled here, so it can never be watched later,
   * and `unseen` (what D1 froze for it) is released.
   */
  cancel(id: number, userId: number, unseen: Unseen | null): { ok: boolean; code?: string } {
    const now = Date.now();
    const row = this.store.one<{ owner: number; status: number }>("SELECT owner, status FROM conditionals WHERE id = ?", id);
    if (row && Number(row.owner) !== userId) return { ok: false, code: "NOT_FOUND" };
    if (row && Number(row.status) !== 1) return { ok: false, code: "NOT_OPEN" };
    if (!row) {
      if (!unseen) return { ok: false, code: "NOT_FOUND" };
      this.closeUnseen(id, userId, unseen, 3, "user", now);
      return { ok: true };
    }
    const o = this.spot.conditional.remove(id);
    if (!o) return { ok: false, code: "NOT_OPEN" };
    this.close(o, 3, "user", now);
    if (o.type === "oco" && this.spot.engine!.order(o.id)) this.spot.cancelOne(o.id, userId);
    return { ok: true };
  }

  /**
   * The reconciler asks about an order D1 has shown as submitted for a while (its Worker died
   * between the freeze and this object, or D1 has not heard the answer). Known: its state reaches
   * D1 through the outbox (the caller nudges the drain). Unknown: it is recorded here as refused
   * (`orphaned`), so a late placement of it is refused too, and `unseen` (what D1 froze for it)
   * is released through the outbox. An OCO's limit leg is a spot order: the spot reconciler
   * releases its hold (worker/domain/spot/orphans.ts); it is tombstoned here as well.
   */
  orphan(id: number, userId: number, unseen: Unseen): "known" | "tombstoned" {
    if (this.store.one("SELECT 1 AS x FROM conditionals WHERE id = ?", id)) return "known";
    this.closeUnseen(id, userId, unseen, 4, "orphaned", Date.now());
    if (unseen.type === "oco" && !this.spot.known(id)) this.spot.tombstone(id);
    return "tombstoned";
  }

  /**
   * `ACCOUNTS=objects`: the orphan sweep of the owner's account object asks about a `spot_cond:{id}`
   * hold. Known (this pair took the order in, or refused it and released the hold): its legs resolve
   * the hold. Unknown: recorded here as refused (`orphaned`), so a late placement is refused with
   * nothing moved, and the object releases the hold itself (`{hold}:orphan`).
   */
  verdict(id: number, userId: number): "known" | "tombstoned" {
    const row = this.store.one<{ owner: number }>("SELECT owner FROM conditionals WHERE id = ?", id);
    if (row) return Number(row.owner) === userId ? "known" : "tombstoned";
    this.store.sql.exec(
      `INSERT INTO conditionals (id, owner, side, type, qty, price, own_units, child_units, currency, status, reason, seq, placed_trade, at)
       VALUES (?, ?, 'buy', 'stop_limit', 0, 0, '0', '0', 0, 4, 'orphaned', 0, 0, ?)`,
      id, userId, Date.now(),
    );
    if (!this.spot.known(id)) this.spot.tombstone(id);
    return "tombstoned";
  }

  /** Records an order this object never watched as finished, releasing what D1 froze for it. */
  private closeUnseen(id: number, userId: number, unseen: Unseen, status: 3 | 4, reason: string, now: number) {
    this.store.sql.exec(
      `INSERT INTO conditionals (id, owner, side, type, qty, price, own_units, child_units, currency, status, reason, seq, placed_trade, at)
       VALUES (?, ?, ?, ?, 0, 0, ?, '0', ?, ?, ?, 0, 0, ?)`,
      id, userId, unseen.side, unseen.type, unseen.own, this.currency(unseen.side), status, reason, now,
    );
    this.spot.releaseConditional({ id, owner: userId, side: unseen.side }, BigInt(unseen.own), "closed", now);
    this.spot.noteConditional([id, status, reason, null, null, userId], now);
  }

  /** How many of a user's conditional orders this pair watches (index conditionals_owner). */
  openCount(userId: number): number {
    return Number(this.store.one<{ n: number }>("SELECT count(*) AS n FROM conditionals WHERE owner = ? AND status = 1", userId)?.n ?? 0);
  }

  /** The ids of a user's open conditional orders here. */
  openOf(userId: number): number[] {
    return this.store.sql
      .exec("SELECT id FROM conditionals WHERE owner = ? AND status = 1 ORDER BY seq", userId)
      .toArray()
      .map((r) => Number(r.id));
  }

  /** Settles what the transaction's fills fired (called once its commands ran, inside the same transaction). */
  settle(): void {
    this.spot.conditional.settle(this.ports);
  }

  private readonly ports: ConditionalPorts = {
    cancelLeg: (legId, owner, o) => {
      if (!this.spot.engine!.order(legId)) return;
      if (this.spot.legsMode) {
        // The leg and the child share the hold (leg + own): the leg's release leaves the child's part, child − own.
        const h = conditionalHolds(this.factors(), o);
        this.spot.keepOnCancel(legId, h.child - h.own);
      }
      this.spot.cancelOne(legId, owner);
    },
    triggered: (o, fired) => {
      const now = Date.now();
      const h = conditionalHolds(this.factors(), o);
      const child: ConditionalChild = [childId(o.id), o.owner, o.side, o.type === "oco" ? o.limitPrice! : o.price, o.qty, h.child.toString(), this.currency(o.side)];
      this.store.sql.exec("UPDATE conditionals SET status = 2, trigger_price = ? WHERE id = ?", fired.trigger, o.id);
      // The hold moves to the child: for an OCO the leg's release (its cancel) and the child's hold net to child − own.
      // With balances in the account objects the child spends the conditional order's hold as it is (SpotDesk.holdOf).
      const more = h.child - h.own;
      if (!this.spot.legsMode) this.spot.addEntry(o.owner, this.currency(o.side), -more, more, now);
      this.spot.noteConditional([o.id, 2, null, fired.trigger, child, o.owner], now);
    },
    placeChild: (o, id, price) => {
      const h = conditionalHolds(this.factors(), o);
      this.spot.placeOne({ pairId: this.spot.info!.pairId, orderId: id, userId: o.owner, side: o.side, price, qty: o.qty, tif: "GTC", reservedUnits: h.child.toString() });
    },
    ocoFilled: (o) => this.close(o, 3, "oco_filled", Date.now()),
  };
}

function rowToOrder(r: Record<string, SqlStorageValue>): ConditionalOrder {
  const n = (v: SqlStorageValue | undefined) => (v === null || v === undefined ? null : Number(v));
  return {
    id: Number(r.id),
    owner: Number(r.owner),
    side: r.side as "buy" | "sell",
    type: r.type as ConditionalType,
    qty: Number(r.qty),
    price: Number(r.price),
    stop: n(r.stop),
    limitPrice: n(r.limit_price),
    callbackBps: n(r.callback_bps),
    activation: n(r.activation),
  };
}
