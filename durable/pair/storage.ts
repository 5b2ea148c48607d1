/**
 * The pair object's own SQLite: its ordered migrations, the `meta` key/value rows and the row
 * mappers. Migrations are `{ id, sql }` run in order under blockConcurrencyWhile; ids 1-3 are the
 * ones objects created before the split already ran (kept byte for byte, so their data survives).
 */
import type { Candle, KlinePeriod, SnapshotOrder } from "../engine/index.ts";

export const MIGRATIONS: readonly { id: number; sql: string }[] = [
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
  {
    // The scheduler's due times, one row per kind of work (drain, expiry, sweep). The one alarm is
    // always the earliest of them; `rev` tells a finished run whether the row was moved meanwhile.
    // Objects from before the scheduler may have outbox rows waiting: they are due now.
    id: 4,
    sql: `CREATE TABLE IF NOT EXISTS schedule (kind TEXT PRIMARY KEY, due INTEGER NOT NULL, rev INTEGER NOT NULL DEFAULT 0);
          INSERT OR IGNORE INTO schedule (kind, due) SELECT 'drain', 0 WHERE EXISTS (SELECT 1 FROM outbox WHERE drained_at IS NULL);`,
  },
  {
    // Seconds contracts (desks/seconds.ts): the public index ticks (kept at least 90 days), the
    // contracts this pair accepted (status 1 trading, 2 settling: result written and sent to the
    // outbox, 3 settled: D1 applied it), and tombstones of contracts the reconciler refunded.
    id: 5,
    sql: `CREATE TABLE IF NOT EXISTS ticks (id INTEGER PRIMARY KEY AUTOINCREMENT, price INTEGER NOT NULL, at INTEGER NOT NULL);
          CREATE INDEX IF NOT EXISTS ticks_at ON ticks(at);
          CREATE TABLE IF NOT EXISTS contracts (
            id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL, currency_id INTEGER NOT NULL, currency_name TEXT NOT NULL,
            currency_scale INTEGER NOT NULL, type INTEGER NOT NULL, stake INTEGER NOT NULL, fee INTEGER NOT NULL, hold INTEGER NOT NULL,
            ratio_bps INTEGER NOT NULL, seconds INTEGER NOT NULL, open_tick_id INTEGER NOT NULL, open_price INTEGER NOT NULL,
            created_at INTEGER NOT NULL, end_at INTEGER NOT NULL, status INTEGER NOT NULL,
            end_tick_id INTEGER, end_price INTEGER, result INTEGER);
          CREATE INDEX IF NOT EXISTS contracts_due ON contracts(status, end_at);
          CREATE INDEX IF NOT EXISTS contracts_user ON contracts(user_id, status);
          CREATE TABLE IF NOT EXISTS contract_tombstones (id INTEGER PRIMARY KEY, at INTEGER NOT NULL);`,
  },
  {
    // Leveraged positions (desks/lever.ts): status 1 pending, 2 trading, 3 closing (closed here,
    // on its way to D1), 4 closed, 5 revoked. liq_price / cap_price are kept so the sweep selects
    // only positions the index may trigger; night_day is the last day an overnight fee was taken.
    id: 6,
    sql: `CREATE TABLE IF NOT EXISTS lever_positions (
            id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL, currency_id INTEGER NOT NULL, type INTEGER NOT NULL,
            lots INTEGER NOT NULL, size_units INTEGER NOT NULL, margin INTEGER NOT NULL, fee INTEGER NOT NULL, hold INTEGER NOT NULL,
            fee_bps INTEGER NOT NULL, overnight_bps INTEGER NOT NULL, maintenance_bps INTEGER NOT NULL,
            target_price INTEGER, stop_profit INTEGER, stop_loss INTEGER, open_price INTEGER, open_tick_id INTEGER,
            overnight INTEGER NOT NULL DEFAULT 0, night_day INTEGER, liq_price INTEGER, cap_price INTEGER,
            status INTEGER NOT NULL, close_price INTEGER, close_tick_id INTEGER, close_fee INTEGER, profit INTEGER, payout INTEGER,
            close_reason TEXT, created_at INTEGER NOT NULL, open_at INTEGER, closed_at INTEGER);
          CREATE INDEX IF NOT EXISTS lever_live ON lever_positions(status, id);
          CREATE INDEX IF NOT EXISTS lever_user ON lever_positions(user_id, status);
          CREATE TABLE IF NOT EXISTS lever_tombstones (id INTEGER PRIMARY KEY, at INTEGER NOT NULL);`,
  },
  {
    // Conditional spot orders (desks/conditional.ts): status 1 open (watched), 2 triggered (its
    // child order placed), 3 cancelled, 4 refused. `seq` is the placement order (ties fire in it);
    // a trailing stop's tracked extreme is not written per trade: it is recomputed at load from
    // `placed_trade` (the last trade id at placement), `extreme0` and the trades since.
    id: 7,
    sql: `CREATE TABLE IF NOT EXISTS conditionals (
            id INTEGER PRIMARY KEY, owner INTEGER NOT NULL, side TEXT NOT NULL, type TEXT NOT NULL, qty INTEGER NOT NULL,
            price INTEGER NOT NULL, stop INTEGER, limit_price INTEGER, callback_bps INTEGER, activation INTEGER,
            own_units TEXT NOT NULL, child_units TEXT NOT NULL, currency INTEGER NOT NULL,
            status INTEGER NOT NULL, reason TEXT, seq INTEGER NOT NULL, placed_trade INTEGER NOT NULL, extreme0 INTEGER,
            trigger_price INTEGER, at INTEGER NOT NULL);
          CREATE INDEX IF NOT EXISTS conditionals_open ON conditionals(status, seq);
          CREATE INDEX IF NOT EXISTS conditionals_owner ON conditionals(owner, status);`,
  },
  {
    // A position's leverage (`ACCOUNTS=objects`: a command's answer is the object's row, D1's row
    // is not read back; desks/lever.ts). NULL for positions taken before it: their answer is D1's.
    id: 8,
    sql: `ALTER TABLE lever_positions ADD COLUMN multiple INTEGER;`,
  },
  {
    // `ACCOUNTS=objects`: whether a contract's or a position's open fee has left the user's hold for
    // the fee shard (1: legs committed at the acceptance, or at a pending open's fill; the settle or
    // close then spends no fee). 0 for every row from before (the fee still in the hold: the old
    // settle and close shape) and for a pending open not filled yet.
    id: 9,
    sql: `ALTER TABLE contracts ADD COLUMN fee_paid INTEGER NOT NULL DEFAULT 0;
          ALTER TABLE lever_positions ADD COLUMN fee_paid INTEGER NOT NULL DEFAULT 0;`,
  },
];

/** Synchronous access to the object's SQLite, with the meta rows and transactions. */
export class PairStorage {
  readonly sql: SqlStorage;

  constructor(readonly storage: DurableObjectStorage) {
    this.sql = storage.sql;
  }

  /** Runs the migrations not yet applied (PRAGMA user_version is not allowed in a DO: meta keeps it). */
  migrate(migrations: readonly { id: number; sql: string }[] = MIGRATIONS): void {
    this.sql.exec("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)");
    const done = Number(this.meta("schema_version") ?? 0);
    for (const m of migrations) {
      if (m.id <= done) continue;
      this.storage.transactionSync(() => {
        this.sql.exec(m.sql);
        this.setMeta("schema_version", m.id);
      });
    }
  }

  private rollbackHooks: (() => void)[] = [];

  /**
   * Runs `fn` as one synchronous transaction: everything it writes commits together or not at all.
   * When it throws (rolled back), every `onRollback` hook runs before the error goes on.
   */
  transaction<T>(fn: () => T): T {
    try {
      return this.storage.transactionSync(fn);
    } catch (err) {
      for (const hook of this.rollbackHooks) hook();
      throw err;
    }
  }

  /**
   * Calls `hook` after any transaction rolled back: a part that keeps in memory what its rows say
   * (the newest tick, the schedule, the last trade) forgets it there and reads it again when needed.
   */
  onRollback(hook: () => void): void {
    this.rollbackHooks.push(hook);
  }

  one<T>(query: string, ...args: SqlStorageValue[]): T | undefined {
    return this.sql.exec(query, ...args).toArray()[0] as T | undefined;
  }

  meta(key: string): string | undefined {
    return this.one<{ value: string }>("SELECT value FROM meta WHERE key = ?", key)?.value;
  }

  setMeta(key: string, value: string | number): void {
    this.sql.exec("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value", key, String(value));
  }
}

/** A `klines` row as the engine's candle. */
export function rowToCandle(period: KlinePeriod, r: Record<string, SqlStorageValue>): Candle {
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

/** A `book` row as a snapshot order. */
export function rowToSnapshotOrder(r: Record<string, SqlStorageValue>): SnapshotOrder {
  return [Number(r.id), Number(r.owner), Number(r.price), Number(r.remaining)] as SnapshotOrder;
}

/** Upserts candles, all in one statement (ON CONFLICT keeps each one's open). */
export function saveCandles(sql: SqlStorage, bars: Iterable<Candle>): void {
  const rows = [...bars].map((b) => [b.period, b.openTime, b.closeTime, b.open, b.high, b.low, b.close, b.volume, b.quoteVolume.toString(), b.trades]);
  if (rows.length === 0) return;
  sql.exec(
    `INSERT INTO klines (period, open_time, close_time, open, high, low, close, volume, quote_volume, trades)
     SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4, value ->> 5, value ->> 6, value ->> 7, value ->> 8, value ->> 9
     FROM json_each(?) WHERE true
     ON CONFLICT (period, open_time) DO UPDATE SET high = excluded.high, low = excluded.low, close = excluded.close,
       volume = excluded.volume, quote_volume = excluded.quote_volume, trades = excluded.trades`,
    JSON.stringify(rows),
  );
}
