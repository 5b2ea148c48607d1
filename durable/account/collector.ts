/**
 * Collector objects: the read model's drain in objects mode (issue #28, session 15). Each account
 * object (and system shard) used to write its own D1 batch per drain window, so D1 took about two
 * statements per active account per 500 ms whatever the number of orders in it. Instead the
 * account's alarm hands what waits to a collector (`drain:{k}`, an instance of the same object
 * class as the accounts, bound to nothing), which gathers the hand-overs of every account that
 * arrive within COLLECT_MS and writes them to D1 in ONE statement (session 16: one row of
 * `read_model_batches` whose trigger spreads the movements, notifications, the system shards'
 * movements and the pairs' drain batches, migrations/0054; each user's bookmark `account_drained`
 * moves with their inserted movements, migrations/0052, as `system_drained` does, 0049). Pair
 * objects hand their drain batches of spot orders and trades over the same way
 * (durable/pair/read-model.ts), so one statement carries every pair's and account's window.
 *
 * The collector keeps nothing: a hand-over is an RPC that answers once D1 has committed its batch,
 * and only then does the account move its own bookmark. So:
 * - a collector that dies mid-batch (before or after D1 committed) fails its callers' calls; each
 *   account still holds its rows and hands them over again on its retry; D1's rows are keyed
 *   ((user, seq), (user, event key), (user, shard, seq)) and every insert is `ON CONFLICT DO
 *   NOTHING`, so a batch written twice changes nothing the second time (at least once from the
 *   account, exactly once in D1);
 * - while D1 fails, the collector answers `later` (with how long to wait, doubling to a bound) to
 *   the waiting hand-overs and to new ones until then, without calling D1: the accounts keep their
 *   rows and ask again then. Nothing is lost and D1 is not hammered.
 * Being stateless, the number of collectors (`DRAIN_COLLECTORS`, wrangler.toml [vars]) can be changed
 * at any time: an account simply hands its next rows to another one.
 *
 * A user's own reads do not wait for a collector: the statement asks the user's object to drain
 * (`accountDrain`, the direct path of durable/account/drain.ts) and reads D1 at that bookmark.
 */
import type { PendingMovement, PendingNotice } from "./book.ts";

/** How long a collector gathers hand-overs after the first one before it writes them (one D1 batch). */
export const COLLECT_MS = 500;
/** Rows (movements + notifications) per D1 batch at most; more wait for the next batch, at once. */
export const COLLECT_ROWS = 4_000;
/** The first wait after a failed batch; doubled per failure in a row, up to BACKOFF_MAX_MS. */
export const BACKOFF_MS = 1_000;
export const BACKOFF_MAX_MS = 30_000;
/** Collectors when the exchange does not say (wrangler.toml `DRAIN_COLLECTORS`). */
export const DEFAULT_COLLECTORS = 1;

export type DrainSource = { kind: "user"; userId: number } | { kind: "system"; userId: number; shard: number };

/** One pair drain batch for the read model (built by durable/pair/read-model.ts; its body is the spot rows' JSON its trigger reads). */
export interface PairBatch {
  pairId: number;
  batch: number;
  at: number;
  body: object;
  /** How many rows the body carries (a collector's window is cut by rows). */
  rows: number;
}

/** Who hands over: an account (a user or a system shard), or a pair object's drain batch (session 16, durable/pair/read-model.ts). */
export type CollectorSource = DrainSource | { kind: "pair"; pairId: number };

/** What an account hands to its collector: its rows not yet in the read model, oldest first; a pair: one drain batch (`pair`, no movements). */
export interface HandOver {
  source: CollectorSource;
  movements: PendingMovement[];
  notices: PendingNotice[];
  pair?: PairBatch;
}

/** `written`: D1 has every row of the hand-over (committed); `later`: nothing is known, ask again after `retryMs`. */
export type HandOverAnswer = { result: "written" } | { result: "later"; retryMs: number };

/**
 * Collectors in use: the exchange's `DRAIN_COLLECTORS` (0 to 256), else DEFAULT_COLLECTORS. 0: none,
 * every account object writes its own D1 batch per window as before session 15 (the fallback, and
 * the "before" of bench/d1-count.mjs `--collectors 0`).
 */
export function collectorCount(env: { DRAIN_COLLECTORS?: string }): number {
  const raw = env.DRAIN_COLLECTORS;
  const n = raw === undefined || raw === "" ? NaN : Number(raw);
  return Number.isInteger(n) && n >= 0 && n <= 256 ? n : DEFAULT_COLLECTORS;
}

/** The collector a source hands to: spread by its id (a system shard by id and shard). */
export function collectorName(source: CollectorSource, collectors: number): string {
  const n = source.kind === "user" ? source.userId : source.kind === "pair" ? source.pairId : Math.abs(source.userId) * 64 + source.shard;
  return `drain:${((n % collectors) + collectors) % collectors}`;
}

/**
 * The statement of one collector batch: ONE row of `read_model_batches` (migrations/0054) carrying
 * every hand-over of the window as JSON, spread by its trigger: users' movements (`m`, skipped per
 * (user, seq) already there), notifications (`n`, per (user, event key)), system shards' movements
 * (`s`, per (user, shard, seq)) and pairs' drain batches (`p`, per (pair, batch): a batch already
 * applied fires nothing). A user's bookmark (`account_drained`) moves with the user's movements
 * (the trigger of migrations/0052), so a reader that sees it sees them. A second copy of the whole
 * row changes nothing. (Before session 16: three statements, and the pairs wrote their own batches.)
 */
export function collectorStatements(db: D1Database, handOvers: readonly HandOver[]): D1PreparedStatement[] {
  const movements: unknown[][] = [];
  const notices: unknown[][] = [];
  const system: unknown[][] = [];
  const pairs: unknown[][] = [];
  for (const h of handOvers) {
    if (h.source.kind === "pair") {
      if (h.pair) pairs.push([h.pair.pairId, h.pair.batch, h.pair.body, h.pair.at]);
      continue;
    }
    if (h.source.kind === "system") {
      const { userId, shard } = h.source;
      for (const m of h.movements) system.push([userId, shard, m.seq, m.ref, m.kind, m.currency, m.d_available, m.d_frozen, m.at]);
      continue;
    }
    const userId = h.source.userId;
    for (const m of h.movements) movements.push([userId, m.seq, m.ref, m.kind, m.currency, m.d_available, m.d_frozen, m.at]);
    for (const n of h.notices) notices.push([userId, n.event_key, n.kind, n.params, n.link, n.created_at]);
  }
  if (movements.length + notices.length + system.length + pairs.length === 0) return [];
  const body: Record<string, unknown[][]> = {};
  if (movements.length > 0) body.m = movements;
  if (notices.length > 0) body.n = notices;
  if (system.length > 0) body.s = system;
  if (pairs.length > 0) body.p = pairs;
  return [db.prepare("INSERT INTO read_model_batches (body) VALUES (?)").bind(JSON.stringify(body))];
}

/** Rows a hand-over carries (a window is cut at COLLECT_ROWS). */
export function handOverRows(h: HandOver): number {
  return h.movements.length + h.notices.length + (h.pair?.rows ?? 0);
}

interface Waiter {
  handOver: HandOver;
  rows: number;
  answer: (a: HandOverAnswer) => void;
}

/** What a collector has done since it started (tests and tools). */
export interface CollectorStats {
  batches: number;
  handOvers: number;
  /** Pairs' drain batches written (durable/pair/read-model.ts). */
  pairBatches: number;
  failures: number;
  /** Not before this time (ms) does it call D1 again; 0 when it is not backing off. */
  backoffUntil: number;
}

/**
 * The gathering, in memory. `write` sends one batch to D1 (the object passes
 * `db.batch(collectorStatements(...))`); its failure answers `later` to every hand-over of the
 * batch and to those waiting, and starts the back-off.
 */
export class DrainCollector {
  private waiting: Waiter[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  private flushing = false;
  /** Someone waits for a hand-over of the batch being written or of the window after it: that one is written at once. */
  private urgent = false;
  private failuresInRow = 0;
  readonly stats: CollectorStats = { batches: 0, handOvers: 0, pairBatches: 0, failures: 0, backoffUntil: 0 };

  constructor(
    private readonly write: (handOvers: HandOver[]) => Promise<unknown>,
    private readonly clock: () => number = Date.now,
    private readonly windowMs = COLLECT_MS,
  ) {}

  /** Answers once the hand-over is in D1 (`written`) or, when D1 fails, `later`. */
  take(handOver: HandOver): Promise<HandOverAnswer> {
    const wait = this.stats.backoffUntil - this.clock();
    if (wait > 0) return Promise.resolve({ result: "later", retryMs: wait });
    return new Promise((answer) => {
      this.waiting.push({ handOver, rows: handOverRows(handOver), answer });
      this.schedule(this.windowMs);
    });
  }

  /**
   * Writes the open window now instead of at its end (a pair whose drain someone waits for: a
   * user's own order list). While a batch is being written, the next one starts as soon as it ends.
   */
  hurry(): void {
    if (this.flushing) {
      this.urgent = true;
      return;
    }
    if (this.timer === undefined) return;
    clearTimeout(this.timer);
    void this.flush();
  }

  private schedule(delay: number): void {
    if (this.timer !== undefined || this.flushing || this.waiting.length === 0) return;
    this.timer = setTimeout(() => void this.flush(), delay);
  }

  private async flush(): Promise<void> {
    this.timer = undefined;
    this.flushing = true;
    this.urgent = false;
    // Oldest first, up to COLLECT_ROWS rows (always at least one hand-over).
    let rows = 0;
    let n = 0;
    while (n < this.waiting.length && (n === 0 || rows + this.waiting[n]!.rows <= COLLECT_ROWS)) rows += this.waiting[n++]!.rows;
    const batch = this.waiting.splice(0, n);
    const cut = this.waiting.length > 0;
    try {
      await this.write(batch.map((w) => w.handOver));
      this.failuresInRow = 0;
      this.stats.batches += 1;
      this.stats.handOvers += batch.length;
      this.stats.pairBatches += batch.filter((w) => w.handOver.source.kind === "pair").length;
      for (const w of batch) w.answer({ result: "written" });
    } catch (err) {
      this.failuresInRow += 1;
      this.stats.failures += 1;
      const retryMs = Math.min(BACKOFF_MAX_MS, BACKOFF_MS * 2 ** (this.failuresInRow - 1));
      this.stats.backoffUntil = this.clock() + retryMs;
      console.error(JSON.stringify({ level: "warn", msg: "read-model collector batch failed; backing off", retryMs, error: String(err).slice(0, 300) }));
      // Those waiting would meet the same D1: they ask again later too.
      for (const w of [...batch, ...this.waiting.splice(0)]) w.answer({ result: "later", retryMs });
    } finally {
      this.flushing = false;
      // A batch cut at COLLECT_ROWS leaves hand-overs that waited a whole window already: at once;
      // those that came while D1 wrote wait a window of their own.
      this.schedule(cut || this.urgent ? 0 : this.windowMs);
    }
  }
}
