/**
 * PairDurableObject: one instance per trading pair (named `pair:{pairId}`).
 *
 * It owns the pair's order book, matching, recent deals, candles and the WebSocket fan-out. One
 * instance is enough because a book is a single serial sequence of commands: the object's
 * single-threaded execution is exactly the ordering a matching engine needs, and one pair's
 * traffic fits one object (see bench/README.md).
 *
 * Money never lives here. The Worker freezes funds in D1 before an order arrives; each command
 * is written (book rows, journal, outbox with the ledger deltas) in ONE synchronous SQLite
 * transaction, and an alarm drains the outbox into D1 in batches keyed by (pair, seq), so an
 * alarm that fires twice applies nothing twice. After eviction the book is rebuilt from SQLite.
 */
import { DurableObject } from "cloudflare:workers";
import {
  KlineAggregator,
  KLINE_PERIODS,
  SpotEngine,
  releaseDelta,
  settleFill,
  type AccountDelta,
  type Candle,
  type CommandResult,
  type EngineSnapshot,
  type KlinePeriod,
  type PairConfig,
  type SnapshotOrder,
} from "./engine/index.ts";
import { baseUnitsPerLot, quoteUnitsPerTickLot, quoteUnitsToNotionalCeil } from "./engine/units.ts";
import { formatUnits } from "../schemas/money.ts";
import { createPairProtocol, type PairSocketState } from "./protocol.ts";

const SYSTEM_FEES = 0;
const DRAIN_BATCH = 50;
/** Trades per INSERT statement in a drain (12 bound values each; D1 allows 100 per statement). */
const TRADES_PER_INSERT = 8;
const RECENT_DEALS = 20;

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
}

export interface PlaceResult {
  ok: boolean;
  code?: string;
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
}

/** One row of the outbox: everything D1 must learn from one command. */
interface OutboxPayload {
  at: number;
  /** [userId, currencyId, dAvailable, dFrozen] aggregated per account, minimal units as strings. */
  entries: [number, number, string, string][];
  /** [orderId, filledDelta, newStatus (1 open, 2 filled, 3 cancelled, 4 rejected) or 0 = unchanged, reason]. */
  orders: [number, number, number, string | null][];
  trades: {
    tradeId: number;
    price: number;
    qty: number;
    takerSide: "buy" | "sell";
    buyerId: number;
    sellerId: number;
    buyOrderId: number;
    sellOrderId: number;
    buyerFee: string;
    sellerFee: string;
    /** When the trade happened (rows written before drain batches carry only the row's `at`). */
    at?: number;
  }[];
}

export interface Deal {
  time: number;
  direction: "buy" | "sell";
  price: string;
  amount: string;
}

/** The output of the commands of one transaction, before flush() writes it. */
interface Pending {
  at: number;
  entries: OutboxPayload["entries"];
  orders: OutboxPayload["orders"];
  trades: OutboxPayload["trades"];
  bars: Map<string, Candle>;
  counters: boolean;
  depthChanged: boolean;
}

function emptyPending(): Pending {
  return { at: 0, entries: [], orders: [], trades: [], bars: new Map(), counters: false, depthChanged: false };
}

const MIGRATIONS: { id: number; sql: string }[] = [
  {
    id: 1,
    sql: `
      CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS book (
        id INTEGER PRIMARY KEY, owner INTEGER NOT NULL, side TEXT NOT NULL,
        price INTEGER NOT NULL, remaining INTEGER NOT NULL, arrival INTEGER NOT NULL);
      CREATE INDEX IF NOT EXISTS book_priority ON book(side, price, arrival);
      CREATE TABLE IF NOT EXISTS journal (seq INTEGER PRIMARY KEY, order_id INTEGER, cmd TEXT NOT NULL, at INTEGER NOT NULL);
      CREATE INDEX IF NOT EXISTS journal_order ON journal(order_id);
      CREATE TABLE IF NOT EXISTS outbox (id INTEGER PRIMARY KEY AUTOINCREMENT, payload TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS tombstones (order_id INTEGER PRIMARY KEY, at INTEGER NOT NULL);
      CREATE TABLE IF NOT EXISTS trades (trade_id INTEGER PRIMARY KEY, price INTEGER NOT NULL, qty INTEGER NOT NULL, taker_side TEXT NOT NULL, at INTEGER NOT NULL);
      CREATE TABLE IF NOT EXISTS klines (
        period TEXT NOT NULL, open_time INTEGER NOT NULL, close_time INTEGER NOT NULL,
        open INTEGER NOT NULL, high INTEGER NOT NULL, low INTEGER NOT NULL, close INTEGER NOT NULL,
        volume INTEGER NOT NULL, quote_volume TEXT NOT NULL, trades INTEGER NOT NULL,
        PRIMARY KEY (period, open_time));
    `,
  },
  {
    // Drained rows are kept for an hour (marked, not deleted) so a lost or repeated drain can be
    // replayed and inspected; the movement key in D1 still makes a replay apply nothing.
    id: 2,
    sql: `ALTER TABLE outbox ADD COLUMN drained_at INTEGER;
          CREATE INDEX IF NOT EXISTS outbox_pending ON outbox(drained_at, id);`,
  },
  {
    // Drain batches: the rows of one drain are fixed (batch number) before D1 hears of them and
    // applied as one movement keyed by that number. Rows written before this migration were
    // drained one movement per row; the first drain checks those keys (legacy_outbox_max).
    id: 3,
    sql: `ALTER TABLE outbox ADD COLUMN batch INTEGER;
          CREATE INDEX IF NOT EXISTS outbox_batch ON outbox(batch);
          INSERT OR REPLACE INTO meta (key, value) SELECT 'legacy_outbox_max', COALESCE(MAX(id), 0) FROM outbox;`,
  },
];

export class PairDurableObject extends DurableObject<Env> {
  private sql: SqlStorage;
  private info: PairInfo | null = null;
  private engine: SpotEngine | null = null;
  private klines = new KlineAggregator();
  private arrival = 0;
  private depthSeq = 0;
  /** What the commands of the current transaction produced, written by flush() at its end. */
  private pending: Pending = emptyPending();
  /** Engine results of the current transaction, published once it has committed. */
  private published: Extract<CommandResult, { ok: true }>[] = [];
  private protocol = createPairProtocol(this);

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    ctx.blockConcurrencyWhile(async () => {
      this.migrate();
      const stored = this.meta("info");
      if (stored) this.load(JSON.parse(stored) as PairInfo);
    });
    ctx.setWebSocketAutoResponse(new WebSocketRequestResponsePair('{"type":"ping"}', '{"type":"pong"}'));
  }

  /** Ordered DO-SQLite migrations, run under blockConcurrencyWhile (PRAGMA user_version is not allowed here). */
  private migrate() {
    this.sql.exec("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)");
    const done = Number(this.meta("schema_version") ?? 0);
    for (const m of MIGRATIONS) {
      if (m.id <= done) continue;
      this.ctx.storage.transactionSync(() => {
        this.sql.exec(m.sql);
        this.setMeta("schema_version", m.id);
      });
    }
  }

  private sqlOne<T>(query: string, ...args: SqlStorageValue[]): T | undefined {
    const rows = this.sql.exec(query, ...args).toArray();
    return rows[0] as T | undefined;
  }

  private meta(key: string): string | undefined {
    return this.sqlOne<{ value: string }>("SELECT value FROM meta WHERE key = ?", key)?.value;
  }

  private setMeta(key: string, value: string | number) {
    this.sql.exec("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value", key, String(value));
  }

  /** The engine's configuration for this pair, derived from the D1 pair row. */
  private pairConfig(info: PairInfo): PairConfig {
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

  /** Rebuilds the book, counters and candles from SQLite. */
  private load(info: PairInfo) {
    this.info = info;
    const rows = (side: "buy" | "sell") =>
      this.sql
        .exec(
          `SELECT id, owner, price, remaining FROM book WHERE side = ? ORDER BY price ${side === "buy" ? "DESC" : "ASC"}, arrival ASC`,
          side,
        )
        .toArray()
        .map((r) => [Number(r.id), Number(r.owner), Number(r.price), Number(r.remaining)] as SnapshotOrder);
    const snap: EngineSnapshot = {
      version: 1,
      seq: Number(this.meta("seq") ?? 0),
      tradeSeq: Number(this.meta("tradeSeq") ?? 0),
      bids: rows("buy"),
      asks: rows("sell"),
    };
    this.engine = SpotEngine.restore(this.pairConfig(info), snap);
    this.arrival = Number(this.sqlOne<{ a: number | null }>("SELECT max(arrival) AS a FROM book")?.a ?? 0);
    this.depthSeq = Number(this.meta("depthSeq") ?? 0);
    this.klines = new KlineAggregator();
    for (const period of KLINE_PERIODS) {
      const bars = this.sql
        .exec("SELECT * FROM klines WHERE period = ? ORDER BY open_time DESC LIMIT 1500", period)
        .toArray()
        .reverse()
        .map((r) => rowToCandle(period, r));
      this.klines.load(period, bars);
    }
  }

  /** Loads the pair from D1 on first use (the object learns which pair it is). */
  private async ensure(pairId: number): Promise<SpotEngine> {
    if (this.engine && this.info?.pairId === pairId) return this.engine;
    if (this.info && this.info.pairId !== pairId) throw new Error(`pair object ${this.info.pairId} asked for pair ${pairId}`);
    const row = await this.env.DB.prepare(
      `SELECT p.id, p.currency_id, p.legal_id, p.price_decimals, p.qty_decimals, p.min_notional, p.maker_fee_bps, p.taker_fee_bps,
              b.name AS base, b.scale AS base_scale, q.name AS quote, q.scale AS quote_scale
       FROM pairs p JOIN currencies b ON b.id = p.currency_id JOIN currencies q ON q.id = p.legal_id WHERE p.id = ?`,
    )
      .bind(pairId)
      .first<Record<string, number | string>>();
    if (!row) throw new Error(`unknown pair ${pairId}`);
    const info: PairInfo = {
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
    };
    if (!this.engine) {
      this.setMeta("info", JSON.stringify(info));
      this.load(info);
    }
    return this.engine!;
  }

  // ---------------------------------------------------------------- commands (RPC)

  /** Books an order whose funds are already frozen in D1. */
  async place(input: PlaceInput): Promise<PlaceResult> {
    const engine = await this.ensure(input.pairId);
    return this.commit(() => [this.placeOne(engine, input)])[0]!;
  }

  /**
   * Books several orders of one request (the batch endpoint) in their given order, in one call and
   * one storage transaction: each order is still its own engine command and journal row, but the
   * batch shares one outbox row, one write of the counters and candles, and one alarm.
   */
  async placeMany(inputs: PlaceInput[]): Promise<PlaceResult[]> {
    if (inputs.length === 0) return [];
    const pairId = inputs[0]!.pairId;
    if (inputs.some((i) => i.pairId !== pairId)) throw new Error("placeMany: orders of different pairs");
    const engine = await this.ensure(pairId);
    return this.commit(() => inputs.map((input) => this.placeOne(engine, input)));
  }

  /** Cancels a user's open order; the release reaches D1 through the outbox. */
  async cancel(pairId: number, orderId: number, userId: number): Promise<{ ok: boolean; code?: string }> {
    const engine = await this.ensure(pairId);
    return this.commit(() => [this.cancelOne(engine, orderId, userId)])[0]!;
  }

  /** Cancels several of one user's orders; returns, per id, whether it was open and is now cancelled. */
  async cancelMany(pairId: number, orderIds: number[], userId: number): Promise<boolean[]> {
    const engine = await this.ensure(pairId);
    return this.commit(() => orderIds.map((id) => this.cancelOne(engine, id, userId))).map((r) => r.ok);
  }

  /**
   * Runs commands and writes all they produced in one synchronous transaction, then pushes their
   * realtime messages in order. If the storage write fails, the in-memory book (already changed
   * by the engine) is dropped and rebuilt from storage on the next call, so memory never runs
   * ahead of what is durable.
   */
  private commit<T>(run: () => T[]): T[] {
    let out: T[] = [];
    try {
      this.ctx.storage.transactionSync(() => {
        this.published = [];
        out = run();
        this.flush();
      });
    } catch (err) {
      this.engine = null;
      this.pending = emptyPending();
      this.published = [];
      throw err;
    }
    const results = this.published;
    this.published = [];
    this.protocol.publish(results);
    return out;
  }

  private placeOne(engine: SpotEngine, input: PlaceInput): PlaceResult {
    if (this.sqlOne("SELECT 1 AS x FROM tombstones WHERE order_id = ?", input.orderId)) {
      // The reconciler already released this order's hold: it must never trade.
      return { ok: false, code: "TOMBSTONED", filled: 0, remaining: 0, status: "rejected" };
    }
    if (this.sqlOne("SELECT 1 AS x FROM journal WHERE order_id = ?", input.orderId)) {
      return this.replayResult(input.orderId);
    }
    const cmd = { type: "limit" as const, id: input.orderId, owner: input.userId, side: input.side, price: input.price, qty: input.qty, tif: input.tif };
    const result = engine.execute(cmd);
    const now = Date.now();
    if (!result.ok) {
      // Refused by the engine: record it so a retry gives the same answer, and release the hold.
      this.sql.exec("INSERT INTO journal (seq, order_id, cmd, at) VALUES (?, ?, ?, ?)", -input.orderId, input.orderId, JSON.stringify({ ...cmd, rejected: result.code }), now);
      const currency = input.side === "buy" ? this.info!.legalId : this.info!.currencyId;
      const units = input.reservedUnits;
      this.pending.at = now;
      this.pending.entries.push([input.userId, currency, units, (-BigInt(units)).toString()]);
      this.pending.orders.push([input.orderId, 0, 4, result.code]);
      return { ok: false, code: result.code, filled: 0, remaining: 0, status: "rejected" };
    }
    this.persist(cmd.id, JSON.stringify(cmd), result, now);
    this.published.push(result);
    return summarise(result, input.orderId);
  }

  private cancelOne(engine: SpotEngine, orderId: number, userId: number): { ok: boolean; code?: string } {
    const cmd = { type: "cancel" as const, id: orderId, owner: userId };
    const result = engine.execute(cmd);
    if (!result.ok) return { ok: false, code: result.code };
    this.persist(null, JSON.stringify(cmd), result, Date.now());
    this.published.push(result);
    return { ok: true };
  }

  /**
   * Asked by the reconciler about an order that D1 still shows as submitted: "known" when the
   * object has seen it (the outbox will settle it), otherwise a tombstone is written so the order
   * can never be booked later, and the caller may release the hold.
   */
  async tombstone(pairId: number, orderId: number): Promise<"known" | "tombstoned"> {
    await this.ensure(pairId);
    if (this.sqlOne("SELECT 1 AS x FROM journal WHERE order_id = ?", orderId)) return "known";
    this.sql.exec("INSERT INTO tombstones (order_id, at) VALUES (?, ?) ON CONFLICT DO NOTHING", orderId, Date.now());
    return "tombstoned";
  }

  /** Best prices, for market orders' protective limits and the order form. */
  async top(pairId: number): Promise<{ bestBid: number | null; bestAsk: number | null; last: number | null }> {
    const engine = await this.ensure(pairId);
    const last = this.sqlOne<{ price: number }>("SELECT price FROM trades ORDER BY trade_id DESC LIMIT 1");
    return { bestBid: engine.bestBid(), bestAsk: engine.bestAsk(), last: last ? Number(last.price) : null };
  }

  /** Order book of `levels` per side as decimal strings, with the depth sequence number. */
  async depth(pairId: number, levels = 6) {
    const engine = await this.ensure(pairId);
    return this.depthMessage(engine, levels);
  }

  /** Newest deals, newest first. */
  async deals(pairId: number, limit = RECENT_DEALS): Promise<Deal[]> {
    await this.ensure(pairId);
    return this.sql
      .exec("SELECT price, qty, taker_side, at FROM trades ORDER BY trade_id DESC LIMIT ?", limit)
      .toArray()
      .map((r) => this.dealOf(Number(r.price), Number(r.qty), r.taker_side as "buy" | "sell", Number(r.at)));
  }

  /** Candles of one period between two times (ms), oldest first. */
  async bars(pairId: number, period: KlinePeriod, from: number, to: number, limit = 500) {
    await this.ensure(pairId);
    return this.sql
      .exec(
        "SELECT * FROM klines WHERE period = ? AND open_time >= ? AND open_time <= ? ORDER BY open_time DESC LIMIT ?",
        period,
        from,
        to,
        limit,
      )
      .toArray()
      .reverse()
      .map((r) => this.barOut(rowToCandle(period, r)));
  }

  /** 24-hour statistics from real trades only. */
  async dayMarket(pairId: number) {
    await this.ensure(pairId);
    return this.dayMarketOut(Date.now());
  }

  /**
   * Applies the outbox to D1 now (the alarm does the same); returns how many rows were applied.
   * Up to DRAIN_BATCH rows go as one movement (ledger deltas summed per account, one update per
   * order, the trades): the batch's members are written down in the object before the D1 call, so
   * a drain that runs again — after a crash, or twice — re-sends exactly the same rows under the
   * same key, and D1 refuses the second copy whole.
   */
  async drain(): Promise<number> {
    let applied = 0;
    for (;;) {
      const head = this.sqlOne<{ id: number; batch: number | null }>("SELECT id, batch FROM outbox WHERE drained_at IS NULL ORDER BY id LIMIT 1");
      if (!head) return applied;
      let batchNo = head.batch;
      if (batchNo === null) {
        batchNo = Number(this.meta("drain_batch") ?? 0) + 1;
        const last = this.sql
          .exec("SELECT id FROM outbox WHERE drained_at IS NULL AND batch IS NULL ORDER BY id LIMIT 1 OFFSET ?", DRAIN_BATCH - 1)
          .toArray()[0];
        const upTo = last ? Number(last.id) : Number.MAX_SAFE_INTEGER;
        this.ctx.storage.transactionSync(() => {
          this.setMeta("drain_batch", batchNo!);
          this.sql.exec("UPDATE outbox SET batch = ? WHERE drained_at IS NULL AND batch IS NULL AND id <= ?", batchNo, upTo);
        });
      }
      let rows = this.sql.exec("SELECT id, payload FROM outbox WHERE batch = ? AND drained_at IS NULL ORDER BY id", batchNo).toArray();
      rows = await this.withoutLegacyApplied(rows);
      if (rows.length > 0) {
        const payloads = rows.map((r) => JSON.parse(String(r.payload)) as OutboxPayload);
        try {
          await this.env.DB.batch(this.drainStatements(batchNo, payloads));
        } catch (err) {
          // Already applied by a drain whose note did not survive: nothing to do twice.
          if (!/UNIQUE constraint failed: movements\.key/.test(String(err))) throw err;
        }
      }
      const now = Date.now();
      this.sql.exec("UPDATE outbox SET drained_at = ? WHERE batch = ? AND drained_at IS NULL", now, batchNo);
      this.sql.exec("DELETE FROM outbox WHERE drained_at < ?", now - 3600_000);
      applied += rows.length;
      await this.publishTicker();
    }
  }

  /** Rows from before drain batches that a per-row drain may already have applied (key spot:{pair}:{id}). */
  private async withoutLegacyApplied(rows: Record<string, SqlStorageValue>[]) {
    const legacyMax = Number(this.meta("legacy_outbox_max") ?? 0);
    const legacy = rows.filter((r) => Number(r.id) <= legacyMax);
    if (legacy.length === 0) return rows;
    const keys = legacy.map((r) => `spot:${this.info!.pairId}:${Number(r.id)}`);
    const { results } = await this.env.DB.prepare(`SELECT key FROM movements WHERE key IN (${keys.map(() => "?").join(", ")})`)
      .bind(...keys)
      .all<{ key: string }>();
    const done = new Set(results.map((r) => r.key));
    return rows.filter((r) => !done.has(`spot:${this.info!.pairId}:${Number(r.id)}`));
  }

  override async alarm(): Promise<void> {
    await this.drain();
  }

  // ---------------------------------------------------------------- persistence

  /**
   * Writes what the transaction's commands left pending: one outbox row with all their ledger
   * deltas, order updates and trades; the counters; every candle they touched; and the alarm that
   * drains the outbox once this output is durable (a crash before that leaves the alarm set).
   */
  private flush() {
    const p = this.pending;
    this.pending = emptyPending();
    if (p.orders.length > 0 || p.entries.length > 0 || p.trades.length > 0) {
      const payload: OutboxPayload = { at: p.at, entries: p.entries, orders: p.orders, trades: p.trades };
      this.sql.exec("INSERT INTO outbox (payload) VALUES (?)", JSON.stringify(payload));
      this.ctx.storage.setAlarm(p.at);
    }
    // One depth update per transaction: a batch publishes the book once, as it stands after it.
    if (p.depthChanged) this.depthSeq++;
    if (p.counters) {
      this.setMeta("seq", this.engine!.seq);
      this.setMeta("tradeSeq", this.engine!.tradeSeq);
      this.setMeta("depthSeq", this.depthSeq);
    }
    for (const bar of p.bars.values()) this.saveBar(bar);
  }

  /**
   * Writes one applied command: book rows of every order it touched, the journal row, candles,
   * trades and the outbox row with the ledger deltas. Runs inside transactionSync.
   */
  private persist(orderId: number | null, cmdJson: string, result: Extract<CommandResult, { ok: true }>, now: number) {
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
    const trades: OutboxPayload["trades"] = [];
    for (const ev of result.events) {
      if (ev.type === "fill") {
        const s = settleFill(pair, ev);
        add(s.buyer);
        add(s.seller);
        add(s.fee);
        touch(Number(ev.takerId))[1] += ev.qty;
        touch(Number(ev.makerId))[1] += ev.qty;
        const buyerIsTaker = ev.takerSide === "buy";
        trades.push({
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
        });
        this.sql.exec("INSERT INTO trades (trade_id, price, qty, taker_side, at) VALUES (?, ?, ?, ?, ?)", ev.tradeId, ev.price, ev.qty, ev.takerSide, now);
        for (const bar of this.klines.addTrade({ time: now, price: ev.price, qty: ev.qty })) this.pending.bars.set(`${bar.period}:${bar.openTime}`, bar);
      } else if (ev.type === "booked") {
        touch(Number(ev.id))[2] = 1;
      } else if (ev.type === "done") {
        add(releaseDelta(pair, ev));
        const o = touch(Number(ev.id));
        o[2] = ev.reason === "filled" ? 2 : 3;
        o[3] = ev.reason;
      }
    }
    // Mirror the book rows of every order the command touched.
    for (const id of orders.keys()) {
      const open = engine.order(id);
      if (!open) this.sql.exec("DELETE FROM book WHERE id = ?", id);
      else if (this.sqlOne("SELECT 1 AS x FROM book WHERE id = ?", id)) this.sql.exec("UPDATE book SET remaining = ? WHERE id = ?", open.remaining, id);
      else this.sql.exec("INSERT INTO book (id, owner, side, price, remaining, arrival) VALUES (?, ?, ?, ?, ?, ?)", id, Number(open.owner), open.side, open.price, open.remaining, ++this.arrival);
    }
    this.sql.exec("INSERT INTO journal (seq, order_id, cmd, at) VALUES (?, ?, ?, ?)", result.seq, orderId, cmdJson, now);
    const p = this.pending;
    if (result.depth.length > 0) p.depthChanged = true;
    p.at = now;
    p.counters = true;
    for (const [u, c, a, f] of deltas.values()) p.entries.push([u, c, a.toString(), f.toString()]);
    p.orders.push(...orders.values());
    for (const t of trades) p.trades.push({ ...t, at: now });
  }

  private saveBar(bar: Candle) {
    this.sql.exec(
      `INSERT INTO klines (period, open_time, close_time, open, high, low, close, volume, quote_volume, trades)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (period, open_time) DO UPDATE SET high = excluded.high, low = excluded.low, close = excluded.close,
         volume = excluded.volume, quote_volume = excluded.quote_volume, trades = excluded.trades`,
      bar.period,
      bar.openTime,
      bar.closeTime,
      bar.open,
      bar.high,
      bar.low,
      bar.close,
      bar.volume,
      bar.quoteVolume.toString(),
      bar.trades,
    );
  }

  /**
   * D1 statements for one drain batch: one movement, its ledger rows summed per (user, currency),
   * one update per order with its fills summed, and the trades (each with its own time), several
   * per INSERT. Per-trade detail lives in spot_trades; the ledger carries the net of the batch.
   */
  private drainStatements(batchNo: number, ps: OutboxPayload[]): D1PreparedStatement[] {
    const db = this.env.DB;
    const info = this.info!;
    const key = `spot:${info.pairId}:b${batchNo}`;
    const at = ps[ps.length - 1]!.at;
    const stmts = [db.prepare("INSERT INTO movements (key, kind, created_at) VALUES (?, 'spot', ?)").bind(key, at)];
    const sums = new Map<string, [number, number, bigint, bigint]>();
    const orders = new Map<number, [filled: number, status: number, reason: string | null]>();
    const trades: (OutboxPayload["trades"][number] & { at: number })[] = [];
    for (const p of ps) {
      for (const [userId, currencyId, dAvail, dFrozen] of p.entries) {
        const k = `${userId}:${currencyId}`;
        const cur = sums.get(k) ?? [userId, currencyId, 0n, 0n];
        cur[2] += BigInt(dAvail);
        cur[3] += BigInt(dFrozen);
        sums.set(k, cur);
      }
      for (const [orderId, filled, status, reason] of p.orders) {
        const o = orders.get(orderId) ?? [0, 0, null];
        o[0] += filled;
        // 0 = unchanged; "open" never overrides a finished status seen earlier in the batch.
        if (status !== 0 && !(status === 1 && o[1] > 1)) o[1] = status;
        if (reason !== null) o[2] = reason;
        orders.set(orderId, o);
      }
      for (const t of p.trades) trades.push({ ...t, at: t.at ?? p.at });
    }
    for (const [userId, currencyId, dAvail, dFrozen] of sums.values()) {
      if (dAvail === 0n && dFrozen === 0n) continue;
      stmts.push(
        db
          .prepare(
            "INSERT INTO ledger (movement_key, user_id, currency_id, account, d_available, d_frozen, kind, memo, created_at) VALUES (?, ?, ?, 'change', ?, ?, 'spot', ?, ?)",
          )
          .bind(key, userId, currencyId, dAvail.toString(), dFrozen.toString(), info.symbol, at),
      );
    }
    for (const [orderId, [filled, status, reason]] of orders) {
      stmts.push(
        db
          .prepare(
            `UPDATE spot_orders SET filled = filled + ?, status = CASE WHEN ? = 0 THEN status WHEN ? = 1 AND status > 1 THEN status ELSE ? END,
               done_reason = COALESCE(?, done_reason), updated_at = ? WHERE id = ?`,
          )
          .bind(filled, status, status, status, reason, at, orderId),
      );
    }
    for (let i = 0; i < trades.length; i += TRADES_PER_INSERT) {
      const chunk = trades.slice(i, i + TRADES_PER_INSERT);
      stmts.push(
        db
          .prepare(
            `INSERT INTO spot_trades (pair_id, trade_id, price, qty, taker_side, buyer_id, seller_id, buy_order_id, sell_order_id, buyer_fee, seller_fee, created_at) VALUES ` +
              chunk.map(() => "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)").join(", "),
          )
          .bind(...chunk.flatMap((t) => [info.pairId, t.tradeId, t.price, t.qty, t.takerSide, t.buyerId, t.sellerId, t.buyOrderId, t.sellOrderId, t.buyerFee, t.sellerFee, t.at])),
      );
    }
    return stmts;
  }

  /** Writes the pair's 24 h statistics to D1 for the quotation endpoints. */
  private async publishTicker() {
    const dm = this.dayMarketOut(Date.now());
    if (dm.close === null) return;
    await this.env.DB.prepare(
      `INSERT INTO tickers (pair_id, last_price, open_24h, high_24h, low_24h, volume_24h, change_24h, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (pair_id) DO UPDATE SET last_price = excluded.last_price, open_24h = excluded.open_24h, high_24h = excluded.high_24h,
         low_24h = excluded.low_24h, volume_24h = excluded.volume_24h, change_24h = excluded.change_24h, updated_at = excluded.updated_at`,
    )
      .bind(this.info!.pairId, dm.close, dm.open ?? dm.close, dm.high ?? dm.close, dm.low ?? dm.close, dm.volume, dm.change, Date.now())
      .run();
  }

  /** A repeated place(): the truth from the journal — resting, refused, or finished (D1 has the detail). */
  private replayResult(orderId: number): PlaceResult {
    const open = this.engine!.order(orderId);
    if (open) return { ok: true, filled: 0, remaining: open.remaining, status: "open" };
    const rejected = this.sqlOne("SELECT 1 AS x FROM journal WHERE order_id = ? AND seq < 0", orderId);
    return rejected
      ? { ok: false, code: "REJECTED", filled: 0, remaining: 0, status: "rejected" }
      : { ok: true, filled: 0, remaining: 0, status: "filled" };
  }

  // ---------------------------------------------------------------- formatting and realtime

  price(units: number): string {
    return formatUnits(BigInt(units), this.info!.priceDecimals);
  }

  qty(units: number): string {
    return formatUnits(BigInt(units), this.info!.qtyDecimals);
  }

  private dealOf(price: number, qty: number, side: "buy" | "sell", at: number): Deal {
    return { time: at, direction: side, price: this.price(price), amount: this.qty(qty) };
  }

  depthMessage(engine: SpotEngine, levels = 6) {
    const d = engine.depth(levels);
    return {
      seq: this.depthSeq,
      bids: d.bids.map(([p, q]) => [this.price(p), this.qty(q)] as [string, string]),
      asks: d.asks.map(([p, q]) => [this.price(p), this.qty(q)] as [string, string]),
    };
  }

  barOut(c: Candle) {
    return {
      time: c.openTime,
      open: this.price(c.open),
      high: this.price(c.high),
      low: this.price(c.low),
      close: this.price(c.close),
      volume: this.qty(c.volume),
    };
  }

  dayMarketOut(now: number) {
    const s = this.klines.dayMarket(now);
    const p = (v: number | null) => (v === null ? null : this.price(v));
    return { open: p(s.open), high: p(s.high), low: p(s.low), close: p(s.last), volume: this.qty(s.volume), change: s.change };
  }

  currentBars(): { period: KlinePeriod; bar: ReturnType<PairDurableObject["barOut"]> }[] {
    const out: { period: KlinePeriod; bar: ReturnType<PairDurableObject["barOut"]> }[] = [];
    for (const period of KLINE_PERIODS) {
      const c = this.klines.current(period);
      if (c) out.push({ period, bar: this.barOut(c) });
    }
    return out;
  }

  get pairInfo(): PairInfo | null {
    return this.info;
  }

  get database(): D1Database {
    return this.env.DB;
  }

  get book(): SpotEngine | null {
    return this.engine;
  }

  // ---------------------------------------------------------------- WebSocket (hibernation API)

  override async fetch(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const pairId = Number(url.searchParams.get("pair"));
    await this.ensure(pairId);
    if (request.headers.get("upgrade")?.toLowerCase() !== "websocket") return new Response("expected websocket", { status: 426 });
    const { 0: client, 1: server } = new WebSocketPair();
    this.ctx.acceptWebSocket(server);
    server.serializeAttachment({ topics: [], userId: null } satisfies PairSocketState);
    return new Response(null, { status: 101, webSocket: client });
  }

  override async webSocketMessage(ws: WebSocket, message: string | ArrayBuffer): Promise<void> {
    await this.protocol.onMessage(ws, message);
  }

  override async webSocketClose(ws: WebSocket, code: number): Promise<void> {
    // 1005/1006 cannot be echoed (InvalidAccessError): answer a normal closure.
    ws.close(code === 1005 || code === 1006 ? 1000 : code, "bye");
  }

  sockets(): WebSocket[] {
    return this.ctx.getWebSockets();
  }
}

function rowToCandle(period: KlinePeriod, r: Record<string, SqlStorageValue>): Candle {
  return {
    period,
    openTime: Number(r.open_time),
    closeTime: Number(r.close_time),
    open: Number(r.open),
    high: Number(r.high),
    low: Number(r.low),
    close: Number(r.close),
    volume: Number(r.volume),
    quoteVolume: BigInt(String(r.quote_volume)),
    trades: Number(r.trades),
  } as Candle;
}

function summarise(result: Extract<CommandResult, { ok: true }>, orderId: number): PlaceResult {
  let filled = 0;
  let remaining = 0;
  let status: PlaceResult["status"] = "open";
  for (const ev of result.events) {
    if (ev.type === "fill" && Number(ev.takerId) === orderId) filled += ev.qty;
    if (ev.type === "booked" && Number(ev.id) === orderId) remaining = ev.remaining;
    if (ev.type === "done" && Number(ev.id) === orderId) status = ev.reason === "filled" ? "filled" : "cancelled";
  }
  return { ok: true, filled, remaining, status };
}
