/**
 * The spot desk: the pair's limit order book. It runs commands through the pure engine
 * (durable/engine/), mirrors the book, journal, trades and candles into the object's SQLite, and
 * turns each transaction's results into one typed outbox entry (ledger deltas, order updates,
 * trades). It never touches D1's ledger: the outbox drain does, through the ledger module.
 */
import {
  KlineAggregator,
  KLINE_PERIODS,
  SpotEngine,
  releaseDelta,
  settleFill,
  type AccountDelta,
  type Candle,
  type Command,
  type CommandResult,
  type EngineSnapshot,
  type KlinePeriod,
  type PairConfig,
} from "../../engine/index.ts";
import { baseUnitsPerLot, quoteUnitsPerTickLot, quoteUnitsToNotionalCeil } from "../../engine/units.ts";
import { formatUnits } from "../../../schemas/money.ts";
import { bookIndex, priceBand, type BookTop } from "../../engine/index-price.ts";
import type { FanoutHost } from "../fanout.ts";
import type { TickerRow } from "../read-model.ts";
import type { ConditionalUpdate, NewConditionalRow, NewOrderRow, SpotCommandEntry, SpotTrade } from "../outbox.ts";
import type { Leg } from "../../money/index.ts";
import { condHold, condReleaseLegs, doneLegs, fillLegs, perReceiver, refusedLegs, spotHold } from "../legs.ts";
import { CHILD_ID_BASE, ConditionalBook } from "../../engine/conditional.ts";
import { rowToCandle, rowToSnapshotOrder, saveCandles, type PairStorage } from "../storage.ts";

const SYSTEM_FEES = 0;
export const RECENT_DEALS = 20;

/** What the Worker sends to book an order (already validated and frozen in D1). */
export interface PlaceInput {
  pairId: number;
  orderId: number;
  userId: number;
  side: "buy" | "sell";
  /** Limit price in price units; for a market order the protective limit (the order is IOC). */
  price: number;
  qty: number;
  tif: "GTC" | "IOC";
  /** Minimal units the Worker froze for this order, released in full if the engine refuses it. */
  reservedUnits: string;
  /**
   * Market buy by total: the most to spend in price × quantity units. The order then buys
   * best-first up to `price` (the band) and at most `qty` lots, until the budget runs out.
   */
  budget?: number;
  /** The client's order id, for the D1 row the drain writes when balances live in the account objects (`ACCOUNTS=objects`). */
  clientOid?: string | null;
  /**
   * `ACCOUNTS=objects`: the pair's minimum notional (quote units) the Worker priced the order on,
   * believing the pair open. A pair closed since, or with another minimum, refuses the order as
   * PAIR_CHANGED with its state and records nothing (the Worker gives the hold back and prices again).
   */
  minNotional?: string;
}

/** What the pair object knows of its own state (`ACCOUNTS=objects`: it decides at `place`; `setPairState` pushes changes). */
export interface PairState {
  open: boolean;
  /** Quote minimal units. */
  minNotional: string;
}

export interface PlaceResult {
  ok: boolean;
  code?: string;
  /** Refused with PAIR_CHANGED: the pair's state now (the Worker prices again on it). */
  pair?: PairState;
  /** Refused with PRICE_BAND: the prices (in ticks) a limit order could have had, around the index at its arrival. */
  band?: { low: number; high: number };
  /** Quantity filled by this command. */
  filled: number;
  /** Still resting in the book. */
  remaining: number;
  status: "open" | "filled" | "cancelled" | "rejected";
}

export interface PairInfo {
  pairId: number;
  currencyId: number;
  legalId: number;
  symbol: string;
  priceDecimals: number;
  qtyDecimals: number;
  baseScale: number;
  quoteScale: number;
  minNotional: number;
  makerFeeBps: number;
  takerFeeBps: number;
  /** Open for orders (D1's `pairs.open`; `setPairState` pushes a change). Absent in an object stored before session 16: read from D1 once. */
  open?: boolean;
}

export interface Deal {
  time: number;
  direction: "buy" | "sell";
  price: string;
  amount: string;
}

export type AppliedResult = Extract<CommandResult, { ok: true }>;

export interface Bar {
  time: number;
  open: string;
  high: string;
  low: string;
  close: string;
  volume: string;
}

export interface DayMarketOut {
  open: string | null;
  high: string | null;
  low: string | null;
  close: string | null;
  volume: string;
  /** 24 h volume in the quote currency (USDT), two decimals */
  quote_volume: string;
  change: string;
}

/**
 * The output of the commands of one transaction, before finish() writes it: every table once per
 * transaction, however many commands and trades (each candle once, each book row once).
 */
interface Pending {
  at: number;
  entries: SpotCommandEntry["entries"];
  orders: SpotCommandEntry["orders"];
  trades: SpotTrade[];
  bars: Map<string, Candle>;
  counters: boolean;
  /** Journal rows [seq, orderId, cmd, at]. */
  journal: [number, number | null, string, number][];
  /** Orders journaled by this transaction: true = refused. */
  journaled: Map<number, boolean>;
  /** Every order whose book row may have changed: true = it rested in the book before this transaction. */
  book: Map<number, boolean>;
  /** Conditional orders that changed (desks/conditional.ts). */
  conditionals: ConditionalUpdate[];
  /** `legsMode` only: the money of the transaction as legs to the account objects (durable/pair/legs.ts). */
  legs: Leg[];
  /** `legsMode` only: D1 rows of the orders this transaction placed (nothing wrote them before). */
  newOrders: NewOrderRow[];
  /** `legsMode` only: D1 rows of the conditional orders this transaction took in. */
  newConditionals: NewConditionalRow[];
}

function emptyPending(): Pending {
  return { at: 0, entries: [], orders: [], trades: [], bars: new Map(), counters: false, journal: [], journaled: new Map(), book: new Map(), conditionals: [], legs: [], newOrders: [], newConditionals: [] };
}

/** What the object's storage knows about an order id before a place: tombstoned, journaled, refused. */
interface Seen {
  tombstoned: boolean;
  journaled: boolean;
  rejected: boolean;
  /** The user whose order the journal has under this id (null: none, or only this transaction's own rows). */
  owner: number | null;
}

/** The first journal row of an order id: its seq (negative: refused) and the user it was placed for (a command's `owner`, a refusal's `userId`). */
/** Values of a socket message counter a storage write covers (see `fanoutHost`). */
const COUNTER_BLOCK = 1_000;

const FIRST_JOURNAL = (id: string) =>
  `(SELECT min(seq) FROM journal WHERE order_id = ${id}) AS s,
   (SELECT coalesce(json_extract(cmd, '$.owner'), json_extract(cmd, '$.userId')) FROM journal WHERE order_id = ${id} ORDER BY seq LIMIT 1) AS u`;
const seenOf = (r: { t: unknown; s: unknown; u: unknown }): Seen => ({
  tombstoned: Number(r.t) === 1,
  journaled: r.s !== null,
  rejected: r.s !== null && Number(r.s) < 0,
  owner: r.u === null || r.u === undefined ? null : Number(r.u),
});

/** Reads the pair's row from D1 (the object learns which pair it is on first use). */
export async function loadPairInfo(db: D1Database, pairId: number): Promise<PairInfo> {
  const row = await db
    .prepare(
      `SELECT p.id, p.currency_id, p.legal_id, p.price_decimals, p.qty_decimals, p.min_notional, p.maker_fee_bps, p.taker_fee_bps, p.open,
              b.name AS base, b.scale AS base_scale, q.name AS quote, q.scale AS quote_scale
       FROM pairs p JOIN currencies b ON b.id = p.currency_id JOIN currencies q ON q.id = p.legal_id WHERE p.id = ?`,
    )
    .bind(pairId)
    .first<Record<string, number | string>>();
  if (!row) throw new Error(`unknown pair ${pairId}`);
  return {
    pairId,
    currencyId: Number(row.currency_id),
    legalId: Number(row.legal_id),
    symbol: `${row.base}/${row.quote}`,
    priceDecimals: Number(row.price_decimals),
    qtyDecimals: Number(row.qty_decimals),
    baseScale: Number(row.base_scale),
    quoteScale: Number(row.quote_scale),
    minNotional: Number(row.min_notional),
    makerFeeBps: Number(row.maker_fee_bps),
    takerFeeBps: Number(row.taker_fee_bps),
    open: Number(row.open) === 1,
  };
}

/** The engine's configuration for this pair, derived from the D1 pair row. */
function pairConfig(info: PairInfo): PairConfig {
  return {
    symbol: info.symbol,
    tickSize: 1,
    lotSize: 1,
    minNotional: Number(quoteUnitsToNotionalCeil(BigInt(info.minNotional), quoteUnitsPerTickLot(info))),
    makerFeeBps: info.makerFeeBps,
    takerFeeBps: info.takerFeeBps,
    feeAccount: SYSTEM_FEES,
    baseUnitsPerLot: baseUnitsPerLot(info),
    quoteUnitsPerTickLot: quoteUnitsPerTickLot(info),
  };
}

export class SpotDesk {
  info: PairInfo | null = null;
  engine: SpotEngine | null = null;
  private klines = new KlineAggregator();
  private arrival = 0;
  /** What the commands of the current transaction produced, written by finish() at its end. */
  private pending: Pending = emptyPending();
  /** Engine results of the current transaction, published once it has committed. */
  private published: AppliedResult[] = [];
  /** The last trade's price as stored; undefined = read it again (after a load or a failed transaction). */
  private lastPrice: number | null | undefined;
  /** `seen` answers read ahead for the orders of one transaction (`prefetch`). */
  private seenAhead = new Map<number, Seen>();
  /**
   * The reference a limit order's band is drawn around: the pair's index now (the object hands in
   * the seconds desk's `IndexSource`, so an external feed bands orders too). Null = no index (the
   * book is not two-sided): no band, see `placeOne`.
   */
  bandReference: (top: BookTop) => number | null = bookIndex;
  /**
   * The pair's open conditional orders (desks/conditional.ts runs them): every fill is reported to
   * it, which costs one size check while none is open; what fired is settled after the commands.
   */
  conditional = new ConditionalBook();
  /**
   * Balances live in the account objects (`ACCOUNTS=objects`): the orders' funds are holds there
   * (`spot_order:{id}`), so fills, releases and refusals become legs (`takeLegs`) instead of ledger
   * deltas, and the outbox entry carries the new orders' D1 rows. Set once by the object.
   */
  legsMode = false;
  /**
   * `legsMode`: OCO legs whose funds are their conditional order's hold (`spot_cond:{id}`), not a
   * `spot_order:` hold of their own (filled by desks/conditional.ts; an order leaves it when done).
   */
  readonly condLegs = new Set<number>();
  /** `legsMode`: what an order's done release leaves in its hold (an OCO leg cancelled by its stop: the child's part). */
  private readonly keepOnDone = new Map<number, bigint>();
  /** Which hold an order spends: a conditional order's child and an OCO's leg spend the conditional's hold. */
  readonly holdOf = (orderId: number): string =>
    orderId >= CHILD_ID_BASE ? condHold(orderId - CHILD_ID_BASE) : this.condLegs.size > 0 && this.condLegs.has(orderId) ? condHold(orderId) : spotHold(orderId);

  constructor(private readonly store: PairStorage) {}

  /** Rebuilds the book, counters and candles from SQLite. */
  load(info: PairInfo): void {
    const sql = this.store.sql;
    this.info = info;
    const rows = (side: "buy" | "sell") =>
      sql
        .exec(`SELECT id, owner, price, remaining FROM book WHERE side = ? ORDER BY price ${side === "buy" ? "DESC" : "ASC"}, arrival ASC`, side)
        .toArray()
        .map(rowToSnapshotOrder);
    const snap: EngineSnapshot = {
      version: 1,
      seq: Number(this.store.meta("seq") ?? 0),
      tradeSeq: Number(this.store.meta("tradeSeq") ?? 0),
      bids: rows("buy"),
      asks: rows("sell"),
    };
    this.engine = SpotEngine.restore(pairConfig(info), snap);
    this.lastPrice = undefined;
    this.arrival = Number(this.store.one<{ a: number | null }>("SELECT max(arrival) AS a FROM book")?.a ?? 0);
    this.klines = new KlineAggregator();
    for (const period of KLINE_PERIODS) {
      const bars = sql
        .exec("SELECT * FROM klines WHERE period = ? ORDER BY open_time DESC LIMIT 1500", period)
        .toArray()
        .reverse()
        .map((r) => rowToCandle(period, r));
      this.klines.load(period, bars);
    }
  }

  /** Starts a transaction's worth of commands. */
  begin(): void {
    this.pending = emptyPending();
    this.published = [];
    this.seenAhead.clear();
  }

  /**
   * After a failed storage write: the in-memory book (already changed by the engine) is dropped
   * and rebuilt from storage on the next call, so memory never runs ahead of what is durable.
   */
  drop(): void {
    this.engine = null;
    this.pending = emptyPending();
    this.published = [];
    this.seenAhead.clear();
    this.keepOnDone.clear();
    this.lastPrice = undefined;
  }

  /** Reads, in one statement, what storage knows of the orders the transaction is about to place. */
  prefetch(orderIds: number[]): void {
    if (orderIds.length < 2) return;
    const rows = this.store.sql
      .exec(
        `SELECT v.value AS id, EXISTS (SELECT 1 FROM tombstones WHERE order_id = v.value) AS t, ${FIRST_JOURNAL("v.value")}
         FROM json_each(?) AS v`,
        JSON.stringify(orderIds),
      )
      .toArray();
    for (const r of rows) this.seenAhead.set(Number(r.id), seenOf(r as { t: unknown; s: unknown; u: unknown }));
  }

  /** Whether an order is tombstoned, journaled (and refused), this transaction's own journal rows included. */
  private seen(orderId: number): Seen {
    let seen = this.seenAhead.get(orderId);
    if (!seen) {
      const r = this.store.one<{ t: number; s: number | null; u: number | null }>(`SELECT EXISTS (SELECT 1 FROM tombstones WHERE order_id = ?1) AS t, ${FIRST_JOURNAL("?1")}`, orderId)!;
      seen = seenOf(r);
    }
    const own = this.pending.journaled.get(orderId);
    return own === undefined ? seen : { ...seen, journaled: true, rejected: own };
  }

  /**
   * `legsMode`: the legs of the transaction's commands and their event key (the first journal row's
   * seq: unique in this pair), or null when none moved money. Call before finish().
   */
  takeLegs(): { key: string; legs: Leg[] } | null {
    const p = this.pending;
    if (p.legs.length === 0) return null;
    const legs = p.legs;
    p.legs = [];
    // The first journal row's seq; a commit without one (a conditional order's own funds given back)
    // is named by its first leg's key, itself once per order and reason. (It was `t{ms}`: two such
    // commits in one millisecond had one key, and the second one's legs were dropped as a repeat.)
    const first = p.journal[0]?.[0];
    const commit = `${this.info!.pairId}:${first === undefined ? `l:${legs[0]!.key}` : `j${first}`}`;
    return { key: `spot:${commit}`, legs: perReceiver(legs, commit) };
  }

  /** The results to fan out once the transaction has committed. */
  takePublished(): AppliedResult[] {
    const out = this.published;
    this.published = [];
    return out;
  }

  placeOne(input: PlaceInput): PlaceResult {
    const engine = this.engine!;
    const info = this.info!;
    const seen = this.seen(input.orderId);
    if (seen.tombstoned) {
      // The reconciler already released this order's hold: it must never trade.
      return { ok: false, code: "TOMBSTONED", filled: 0, remaining: 0, status: "rejected" };
    }
    // Another user's order under this id (ids are drawn per request; with the balances in the account
    // objects nothing exchange-wide checks them before the pair): refused as taken, nothing recorded,
    // so the Worker releases its hold and draws again. Only the same user's retry is a replay.
    if (seen.journaled && seen.owner !== null && seen.owner !== input.userId) return { ok: false, code: "ID_TAKEN", filled: 0, remaining: 0, status: "rejected" };
    // legsMode: nor is the same user's order under the id of their OCO's leg (a spot and a conditional order drawn in one
    // millisecond, ids of the pair's slot: worker/lib/ids.ts spotOrderId). Read only on a replay's path; the leg's own
    // placement never reaches it (the conditional desk refuses a known id first).
    if (seen.journaled && this.legsMode && this.store.one("SELECT 1 AS x FROM conditionals WHERE id = ?", input.orderId) !== undefined)
      return { ok: false, code: "ID_TAKEN", filled: 0, remaining: 0, status: "rejected" };
    if (seen.journaled) return this.replayResult(input.orderId, seen.rejected);
    const now = Date.now();
    if (this.legsMode) this.pending.newOrders.push(newOrderRow(info, input, now));
    // The price band (PRICE_BAND_BPS around the index at arrival) for every limit order; market
    // orders (IOC) are banded around the best opposite price by the Worker. A book that is not
    // two-sided has no index and so no band: its first quotes make the price, and nothing that
    // values money reads a price from such a book (rebates use index ticks, which need both sides).
    // Cost: the book's best prices and the cached last trade, a median and two comparisons.
    if (input.tif === "GTC" && input.budget === undefined) {
      const index = this.bandReference(this.top());
      if (index !== null) {
        const band = priceBand(index);
        if (input.price < band.low || input.price > band.high) {
          return { ...this.refuse(info, input, { ...input, rejected: "PRICE_BAND", index }, "PRICE_BAND", now), band };
        }
      }
    }
    const cmd = this.commandFor(engine, input);
    if (cmd === null) return this.refuse(info, input, { ...input, rejected: "NO_LIQUIDITY" }, "NO_LIQUIDITY", now);
    const result = engine.execute(cmd);
    if (!result.ok) return this.refuse(info, input, { ...cmd, rejected: result.code }, result.code, now);
    if (cmd.type === "market" && cmd.qty < input.qty) {
      // Capped at the asks within the band: taking all of them leaves budget unspent, so the
      // order ended because the band ran out (expired), not because it got what it asked for.
      for (const ev of result.events) if (ev.type === "done" && ev.id === input.orderId && ev.reason === "filled") ev.reason = "expired";
    }
    this.persist(input.orderId, JSON.stringify(cmd), result, now);
    this.published.push(result);
    return summarise(result, input.orderId);
  }

  /** A ledger delta of the spot wallet for this transaction's outbox entry (a conditional order's hold). */
  addEntry(userId: number, currencyId: number, dAvailable: bigint, dFrozen: bigint, now: number): void {
    if (dAvailable === 0n && dFrozen === 0n) return;
    this.pending.at = now;
    this.pending.entries.push([userId, currencyId, dAvailable.toString(), dFrozen.toString()]);
  }

  /** `legsMode`: a conditional order's own funds go back from its hold (`spot_cond:{id}:{why}`, once); else a ledger delta. */
  releaseConditional(o: { id: number; owner: number; side: "buy" | "sell" }, units: bigint, why: string, now: number): void {
    if (!this.legsMode) return this.addEntry(o.owner, o.side === "buy" ? this.info!.legalId : this.info!.currencyId, units, -units, now);
    this.pending.at = now;
    this.pending.legs.push(...condReleaseLegs(this.info!, o, units, why));
  }

  /** `legsMode`: the order's done release keeps `units` in its hold (the OCO leg an order's stop cancels: its child spends them). */
  keepOnCancel(orderId: number, units: bigint): void {
    this.keepOnDone.set(orderId, units);
  }

  /** `legsMode`: a conditional order's D1 row for the read model (the Worker wrote none). */
  noteNewConditional(row: NewConditionalRow): void {
    this.pending.newConditionals.push(row);
  }

  /** A conditional order's new state for this transaction's outbox entry. */
  noteConditional(update: ConditionalUpdate, now: number): void {
    this.pending.at = now;
    this.pending.conditionals.push(update);
  }

  /** Refuses an order that never reached the book (an OCO's leg whose conditional order was refused): journaled, its hold released. */
  rejectUnbooked(input: PlaceInput, code: string): PlaceResult {
    return this.refuse(this.info!, input, { ...input, rejected: code }, code, Date.now());
  }

  /** Refused (by the engine, or no ask within the band): recorded so a retry gives the same answer; the hold is released. */
  private refuse(info: PairInfo, input: PlaceInput, journal: object, code: string, now: number): PlaceResult {
    this.pending.journal.push([-input.orderId, input.orderId, JSON.stringify(journal), now]);
    this.pending.journaled.set(input.orderId, true);
    const currency = input.side === "buy" ? info.legalId : info.currencyId;
    const units = input.reservedUnits;
    this.pending.at = now;
    if (this.legsMode) this.pending.legs.push(...refusedLegs(info, input, this.holdOf));
    else this.pending.entries.push([input.userId, currency, units, (-BigInt(units)).toString()]);
    this.pending.orders.push([input.orderId, 0, 4, code]);
    return { ok: false, code, filled: 0, remaining: 0, status: "rejected" };
  }

  /**
   * The engine command for an order. A market buy by total becomes the engine's budgeted market
   * order, capped at the quantity resting at or below the band price: the engine's market order
   * has no price limit of its own, and in this synchronous call nothing else can reach the book,
   * so it can never fill above the band. Null when no ask sits within the band.
   */
  private commandFor(engine: SpotEngine, input: PlaceInput): Command | null {
    if (input.budget === undefined) {
      return { type: "limit", id: input.orderId, owner: input.userId, side: input.side, price: input.price, qty: input.qty, tif: input.tif };
    }
    let within = 0;
    for (const [price, qty] of engine.depth(1000).asks) {
      if (price > input.price) break;
      within += qty;
    }
    const qty = Math.min(within, input.qty);
    return qty > 0 ? { type: "market", id: input.orderId, owner: input.userId, side: "buy", qty, budget: input.budget } : null;
  }

  cancelOne(orderId: number, userId: number): { ok: boolean; code?: string } {
    const cmd = { type: "cancel" as const, id: orderId, owner: userId };
    const result = this.engine!.execute(cmd);
    if (!result.ok) return { ok: false, code: result.code };
    this.persist(null, JSON.stringify(cmd), result, Date.now());
    this.published.push(result);
    return { ok: true };
  }

  /** The user the journal has this order id for (null: not journaled, or only in this transaction). */
  ownerOf(orderId: number): number | null {
    return this.seen(orderId).owner;
  }

  /** Whether the journal has seen this order. */
  known(orderId: number): boolean {
    return this.pending.journaled.has(orderId) || this.store.one("SELECT 1 AS x FROM journal WHERE order_id = ?", orderId) !== undefined;
  }

  /** Records that an order must never be booked (the reconciler released its hold). */
  tombstone(orderId: number): void {
    this.store.sql.exec("INSERT INTO tombstones (order_id, at) VALUES (?, ?) ON CONFLICT DO NOTHING", orderId, Date.now());
  }

  /**
   * Writes what the transaction's commands left pending (the counters and every candle they
   * touched) and returns the outbox entry with their ledger deltas, order updates and trades, or
   * null when D1 has nothing to learn.
   */
  finish(): SpotCommandEntry | null {
    const p = this.pending;
    this.pending = emptyPending();
    this.seenAhead.clear();
    const sql = this.store.sql;
    const engine = this.engine!;
    // The book rows of every order the commands touched, as the book now has them: one upsert for
    // those resting (a new one gets the next arrival; an existing one keeps its own), one delete
    // for those gone that had a row.
    const rest: [number, number, string, number, number, number][] = [];
    const gone: number[] = [];
    for (const [id, wasBooked] of p.book) {
      const open = engine.order(id);
      if (open) rest.push([id, Number(open.owner), open.side, open.price, open.remaining, ++this.arrival]);
      else if (wasBooked) gone.push(id);
    }
    if (gone.length > 0) sql.exec("DELETE FROM book WHERE id IN (SELECT value FROM json_each(?))", JSON.stringify(gone));
    if (rest.length > 0) {
      sql.exec(
        `INSERT INTO book (id, owner, side, price, remaining, arrival)
         SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4, value ->> 5 FROM json_each(?) WHERE true
         ON CONFLICT (id) DO UPDATE SET remaining = excluded.remaining`,
        JSON.stringify(rest),
      );
    }
    if (p.journal.length > 0) {
      sql.exec("INSERT INTO journal (seq, order_id, cmd, at) SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3 FROM json_each(?)", JSON.stringify(p.journal));
    }
    if (p.trades.length > 0) {
      sql.exec(
        "INSERT INTO trades (trade_id, price, qty, taker_side, at) SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4 FROM json_each(?)",
        JSON.stringify(p.trades.map((t) => [t.tradeId, t.price, t.qty, t.takerSide, t.at])),
      );
    }
    if (p.counters) {
      sql.exec(
        "INSERT INTO meta (key, value) VALUES ('seq', ?), ('tradeSeq', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        String(engine.seq),
        String(engine.tradeSeq),
      );
    }
    saveCandles(sql, p.bars.values());
    if (p.orders.length === 0 && p.entries.length === 0 && p.trades.length === 0 && p.conditionals.length === 0 && p.newConditionals.length === 0) return null;
    const entry: SpotCommandEntry = { kind: "spot", at: p.at, entries: p.entries, orders: p.orders, trades: p.trades };
    if (p.conditionals.length > 0) entry.conditionals = p.conditionals;
    if (p.newOrders.length > 0) entry.newOrders = p.newOrders;
    if (p.newConditionals.length > 0) entry.newConditionals = p.newConditionals;
    return entry;
  }

  /**
   * Records one applied command for finish(): the orders it touched (their book rows), its journal
   * row, candles and trades, and its ledger deltas for the pending outbox entry. Runs inside
   * transactionSync.
   */
  private persist(orderId: number | null, cmdJson: string, result: AppliedResult, now: number) {
    const engine = this.engine!;
    const pair = engine.pair;
    const info = this.info!;
    const deltas = new Map<string, [number, number, bigint, bigint]>();
    const add = (d: AccountDelta) => {
      for (const [currency, change] of [
        [info.currencyId, d.base],
        [info.legalId, d.quote],
      ] as const) {
        if (change.available === 0n && change.frozen === 0n) continue;
        const key = `${d.account}:${currency}`;
        const cur = deltas.get(key) ?? [Number(d.account), currency, 0n, 0n];
        cur[2] += change.available;
        cur[3] += change.frozen;
        deltas.set(key, cur);
      }
    };
    const orders = new Map<number, [number, number, number, string | null]>();
    const touch = (id: number) => {
      let o = orders.get(id);
      if (!o) orders.set(id, (o = [id, 0, 0, null]));
      return o;
    };
    const p = this.pending;
    for (const ev of result.events) {
      if (ev.type === "fill") {
        if (this.legsMode) p.legs.push(...fillLegs(info, pair, ev, this.holdOf));
        else {
          const s = settleFill(pair, ev);
          add(s.buyer);
          add(s.seller);
          add(s.fee);
        }
        touch(Number(ev.takerId))[1] += ev.qty;
        touch(Number(ev.makerId))[1] += ev.qty;
        const buyerIsTaker = ev.takerSide === "buy";
        p.trades.push({
          tradeId: ev.tradeId,
          price: ev.price,
          qty: ev.qty,
          takerSide: ev.takerSide,
          buyerId: Number(buyerIsTaker ? ev.takerOwner : ev.makerOwner),
          sellerId: Number(buyerIsTaker ? ev.makerOwner : ev.takerOwner),
          buyOrderId: Number(buyerIsTaker ? ev.takerId : ev.makerId),
          sellOrderId: Number(buyerIsTaker ? ev.makerId : ev.takerId),
          buyerFee: ev.buyerFee.toString(),
          sellerFee: ev.sellerFee.toString(),
          at: now,
        });
        this.lastPrice = ev.price;
        this.conditional.noteFill(ev.price, Number(ev.makerId), Number(ev.takerId));
        for (const bar of this.klines.addTrade({ time: now, price: ev.price, qty: ev.qty })) p.bars.set(`${bar.period}:${bar.openTime}`, bar);
      } else if (ev.type === "booked") {
        touch(Number(ev.id))[2] = 1;
      } else if (ev.type === "done") {
        if (this.legsMode) {
          const id = Number(ev.id);
          p.legs.push(...doneLegs(info, pair, ev, this.holdOf, this.keepOnDone.get(id)));
          this.keepOnDone.delete(id);
          this.condLegs.delete(id);
        }
        else add(releaseDelta(pair, ev));
        const o = touch(Number(ev.id));
        o[2] = ev.reason === "filled" || ev.reason === "budget" ? 2 : 3; // a market buy by total is done when its budget is spent
        o[3] = ev.reason;
      }
    }
    // The book rows of every order the command touched are written by finish(); an order other than
    // the one this command places was resting before it (a maker, a cancelled order).
    for (const id of orders.keys()) if (!p.book.has(id)) p.book.set(id, id !== orderId);
    p.journal.push([result.seq, orderId, cmdJson, now]);
    if (orderId !== null) p.journaled.set(orderId, false);
    p.at = now;
    p.counters = true;
    for (const [u, c, a, f] of deltas.values()) p.entries.push([u, c, a.toString(), f.toString()]);
    p.orders.push(...orders.values());
  }

  /** A repeated place(): the truth from the journal — resting, refused, or finished (D1 has the detail). */
  private replayResult(orderId: number, rejected: boolean): PlaceResult {
    const open = this.engine!.order(orderId);
    if (open) return { ok: true, filled: 0, remaining: open.remaining, status: "open" };
    return rejected
      ? { ok: false, code: "REJECTED", filled: 0, remaining: 0, status: "rejected" }
      : { ok: true, filled: 0, remaining: 0, status: "filled" };
  }

  // ---------------------------------------------------------------- reads and formatting

  /** Best prices and the last trade price, in price units. */
  top(): { bestBid: number | null; bestAsk: number | null; last: number | null } {
    const engine = this.engine!;
    if (this.lastPrice === undefined) {
      const last = this.store.one<{ price: number }>("SELECT price FROM trades ORDER BY trade_id DESC LIMIT 1");
      this.lastPrice = last ? Number(last.price) : null;
    }
    return { bestBid: engine.bestBid(), bestAsk: engine.bestAsk(), last: this.lastPrice };
  }

  price(units: number): string {
    return formatUnits(BigInt(units), this.info!.priceDecimals);
  }

  qty(units: number): string {
    return formatUnits(BigInt(units), this.info!.qtyDecimals);
  }

  /** A notional in tick·lot units (price × qty) as a quote-currency amount with two decimals (cut). */
  quoteAmount(notional: bigint): string {
    return formatUnits(notional, this.info!.priceDecimals + this.info!.qtyDecimals, 2);
  }

  /** `levels` per side as decimal strings. */
  depthLevels(levels = 6): { bids: [string, string][]; asks: [string, string][] } {
    const d = this.engine!.depth(levels);
    return {
      bids: d.bids.map(([p, q]) => [this.price(p), this.qty(q)] as [string, string]),
      asks: d.asks.map(([p, q]) => [this.price(p), this.qty(q)] as [string, string]),
    };
  }

  /** Newest deals, newest first. */
  deals(limit = RECENT_DEALS): Deal[] {
    return this.store.sql
      .exec("SELECT price, qty, taker_side, at FROM trades ORDER BY trade_id DESC LIMIT ?", limit)
      .toArray()
      .map((r) => ({ time: Number(r.at), direction: r.taker_side as "buy" | "sell", price: this.price(Number(r.price)), amount: this.qty(Number(r.qty)) }));
  }

  /** Candles of one period between two times (ms), oldest first. */
  bars(period: KlinePeriod, from: number, to: number, limit = 500): Bar[] {
    return this.store.sql
      .exec("SELECT * FROM klines WHERE period = ? AND open_time >= ? AND open_time <= ? ORDER BY open_time DESC LIMIT ?", period, from, to, limit)
      .toArray()
      .reverse()
      .map((r) => this.barOut(rowToCandle(period, r)));
  }

  barOut(c: Candle): Bar {
    return { time: c.openTime, open: this.price(c.open), high: this.price(c.high), low: this.price(c.low), close: this.price(c.close), volume: this.qty(c.volume) };
  }

  /** 24-hour statistics from real trades only. */
  dayMarket(now: number): DayMarketOut {
    const s = this.klines.dayMarket(now);
    const p = (v: number | null) => (v === null ? null : this.price(v));
    return { open: p(s.open), high: p(s.high), low: p(s.low), close: p(s.last), volume: this.qty(s.volume), quote_volume: this.quoteAmount(s.quoteVolume), change: s.change };
  }

  /** The first traded price (a 1-minute candle's open) within the last `windowMs` up to `now`, or null (alerts' moves). */
  windowOpen(windowMs: number, now: number): number | null {
    const from = now - windowMs;
    const bars = this.klines.bars("1min", Math.ceil(windowMs / 60_000) + 1);
    for (const b of bars) if (b.openTime >= from - 59_999 && b.openTime <= now) return b.open;
    return null;
  }

  currentBars(): { period: KlinePeriod; bar: Bar }[] {
    const out: { period: KlinePeriod; bar: Bar }[] = [];
    for (const period of KLINE_PERIODS) {
      const c = this.klines.current(period);
      if (c) out.push({ period, bar: this.barOut(c) });
    }
    return out;
  }

  /** What the fan-out reads from this desk; the object adds its sockets. */
  fanoutHost(sockets: () => WebSocket[]): FanoutHost {
    const info = () => this.info;
    const engine = () => this.engine;
    const counters = new Map<string, { value: number; stored: number }>();
    const counted = (key: string) => {
      let c = counters.get(key);
      if (!c) {
        const stored = Number(this.store.meta(key) ?? 0);
        counters.set(key, (c = { value: stored, stored }));
      }
      return c;
    };
    return {
      get pairInfo() {
        return info();
      },
      get book() {
        return engine();
      },
      sockets,
      depthLevels: (levels) => this.depthLevels(levels),
      deals: (limit) => this.deals(limit),
      dayMarket: (now) => this.dayMarket(now),
      currentBars: () => this.currentBars(),
      price: (u) => this.price(u),
      qty: (u) => this.qty(u),
      // The sockets' message counters, kept here: storage holds the end of a block of COUNTER_BLOCK
      // values, written when a counter passes it, so a message costs no read or write. After a
      // restart a counter goes on from its block's end (the sockets reconnect and take a snapshot).
      counter: (key) => counted(key).value,
      setCounter: (key, value) => {
        const c = counted(key);
        c.value = value;
        if (value <= c.stored) return;
        c.stored = value + COUNTER_BLOCK;
        this.store.setMeta(key, c.stored);
      },
    };
  }

  /** The statement that writes the pair's 24 h statistics to D1 for the quotation endpoints (sent with a drain batch), or null before any trade. */
  tickerStatement(db: D1Database): D1PreparedStatement | null {
    const row = this.tickerRow();
    if (row === null) return null;
    return db
      .prepare(
        `INSERT INTO tickers (pair_id, last_price, open_24h, high_24h, low_24h, volume_24h, quote_volume_24h, change_24h, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (pair_id) DO UPDATE SET last_price = excluded.last_price, open_24h = excluded.open_24h, high_24h = excluded.high_24h,
           low_24h = excluded.low_24h, volume_24h = excluded.volume_24h, quote_volume_24h = excluded.quote_volume_24h,
           change_24h = excluded.change_24h, updated_at = excluded.updated_at`,
      )
      .bind(this.info!.pairId, ...row);
  }

  /** The quotation table's row now (without the pair id), as `tickerStatement` writes it; null before the first trade. */
  tickerRow(): TickerRow | null {
    const dm = this.dayMarket(Date.now());
    if (dm.close === null) return null;
    return [dm.close, dm.open ?? dm.close, dm.high ?? dm.close, dm.low ?? dm.close, dm.volume, dm.quote_volume, dm.change, Date.now()];
  }
}

function summarise(result: AppliedResult, orderId: number): PlaceResult {
  let filled = 0;
  let remaining = 0;
  let status: PlaceResult["status"] = "open";
  for (const ev of result.events) {
    if (ev.type === "fill" && Number(ev.takerId) === orderId) filled += ev.qty;
    if (ev.type === "booked" && Number(ev.id) === orderId) remaining = ev.remaining;
    if (ev.type === "done" && Number(ev.id) === orderId) status = ev.reason === "filled" || ev.reason === "budget" ? "filled" : "cancelled";
  }
  return { ok: true, filled, remaining, status };
}

/** The D1 row of an order placed with its funds held in its owner's account object (status 0: the drain's update moves it on). */
function newOrderRow(info: PairInfo, input: PlaceInput, now: number): NewOrderRow {
  return [
    input.orderId,
    input.userId,
    input.side,
    input.tif === "IOC" ? "market" : "limit",
    input.price,
    input.qty,
    input.reservedUnits,
    input.side === "buy" ? info.legalId : info.currencyId,
    input.clientOid ?? null,
    input.budget ?? null,
    now,
  ];
}
