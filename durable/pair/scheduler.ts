/**
 * One alarm, many kinds of due work. A Durable Object has a single alarm, so every part that needs
 * waking (the outbox drain, contract expiries, liquidation sweeps) registers a due time per kind
 * here, in the same transaction as the state that needs it, and the alarm is always set to the
 * earliest. Registering a later time never moves an earlier one. An alarm run executes every kind
 * that is due; a row is cleared only if nobody moved it during the run (`rev`), so work registered
 * meanwhile is never lost. Handlers must be idempotent (the runtime may fire an alarm twice).
 */
import type { PairStorage } from "./storage.ts";

export type DueKind = "drain" | "expiry" | "sweep" | "tick" | "legs";

/**
 * Runs one kind's due work; throwing leaves it due again RETRY_MS later (logged). It may answer
 * when its kind is next due (a heartbeat, the next contract expiry); null or nothing = not.
 */
export type DueHandler = (now: number) => Promise<number | null | void>;

/**
 * While a kind runs, its row is moved this far ahead: a crash in the middle leaves it due again
 * soon (the handler is idempotent), and a registration made during the run keeps its own time.
 */
const CLAIM_MS = 2000;
/**
 * A kind that failed is due again this much later. The alarm itself never fails: a runtime stops
 * retrying an alarm that keeps failing, and then nothing would wake the object for its due work.
 */
const RETRY_MS = 1000;

export class Scheduler {
  /** The alarm time last set by this instance; undefined = unknown (new instance, or after a run). */
  private armed: number | null | undefined;
  private handlers: Partial<Record<DueKind, DueHandler>> = {};
  /**
   * The table's rows as this instance last wrote or read them; null = read them again. Every write
   * of the table goes through this class (which keeps this in step), a rolled-back transaction
   * drops it (`forget`, a storage rollback hook) and an alarm run reads the table afresh.
   */
  private rows: Map<DueKind, { due: number; rev: number }> | null = null;
  /** The kind whose handler is running (a registration then must move its `rev`). */
  private running: DueKind | null = null;

  constructor(private readonly store: PairStorage) {
    store.onRollback(() => this.forget());
  }

  private known(): Map<DueKind, { due: number; rev: number }> {
    this.rows ??= new Map(this.store.sql.exec("SELECT kind, due, rev FROM schedule").toArray().map((r) => [r.kind as DueKind, { due: Number(r.due), rev: Number(r.rev) }]));
    return this.rows;
  }

  /** Names the work an alarm run does for `kind`. */
  handle(kind: DueKind, handler: DueHandler): void {
    this.handlers[kind] = handler;
  }

  /** Marks `kind` due at `due` (or keeps its earlier due time) and arms the alarm for the earliest. */
  at(kind: DueKind, due: number): void {
    const rows = this.known();
    const row = rows.get(kind);
    // Already due as early or earlier, and not running (where only a moved `rev` keeps the row): nothing to write.
    if (row && row.due <= due && this.running !== kind) return;
    this.store.sql.exec(
      "INSERT INTO schedule (kind, due, rev) VALUES (?, ?, 0) ON CONFLICT (kind) DO UPDATE SET due = min(due, excluded.due), rev = rev + 1",
      kind,
      due,
    );
    rows.set(kind, row ? { due: Math.min(row.due, due), rev: row.rev + 1 } : { due, rev: 0 });
    this.arm();
  }

  /** Whether `kind` has a due time. */
  has(kind: DueKind): boolean {
    return this.known().has(kind);
  }

  /** Drops `kind`'s due time (nothing of that kind is waiting any more). */
  clear(kind: DueKind): void {
    const rows = this.known();
    if (!rows.has(kind)) return;
    this.store.sql.exec("DELETE FROM schedule WHERE kind = ?", kind);
    rows.delete(kind);
    this.arm();
  }

  /** The earliest due time, i.e. when the alarm should fire (null = nothing due). */
  next(): number | null {
    let min: number | null = null;
    for (const { due } of this.known().values()) if (min === null || due < min) min = due;
    return min;
  }

  /** Due times per kind (for inspection and tests). */
  dues(): Partial<Record<DueKind, number>> {
    const out: Partial<Record<DueKind, number>> = {};
    for (const r of this.store.sql.exec("SELECT kind, due FROM schedule").toArray()) out[r.kind as DueKind] = Number(r.due);
    return out;
  }

  /** Arms the alarm for what the table says is due (on start: a lost alarm never strands due work). */
  resume(): void {
    this.armed = undefined;
    this.arm();
  }

  /** Forgets what it believes the alarm and the table are (after a rolled-back transaction). */
  forget(): void {
    this.armed = undefined;
    this.rows = null;
  }

  /**
   * The alarm: runs every kind due at `now`, earliest first, clears the rows nobody moved meanwhile,
   * and re-arms for what is left. Returns the kinds it ran.
   */
  async run(now = Date.now()): Promise<DueKind[]> {
    // The runtime cleared the alarm that brought us here; the table is read afresh (and again after
    // each of this run's own writes below).
    this.armed = undefined;
    this.rows = null;
    const due = this.store.sql
      .exec("SELECT kind, rev FROM schedule WHERE due <= ? ORDER BY due, kind", now)
      .toArray()
      .map((r) => ({ kind: r.kind as DueKind, rev: Number(r.rev) }));
    for (const { kind, rev } of due) {
      // Claimed: a registration made while the handler awaits lowers the due time and moves rev.
      this.store.sql.exec("UPDATE schedule SET due = ?, rev = ? WHERE kind = ? AND rev = ?", now + CLAIM_MS, rev + 1, kind, rev);
      this.rows = null;
      let next: number | null | void;
      this.running = kind;
      try {
        next = await this.handlers[kind]?.(now);
      } catch (err) {
        this.store.sql.exec("UPDATE schedule SET due = min(due, ?) WHERE kind = ?", now + RETRY_MS, kind);
        this.rows = null;
        console.error(JSON.stringify({ level: "error", event: "scheduled_work_failed", kind, error: String(err) }));
        continue;
      } finally {
        this.running = null;
      }
      if (typeof next === "number") {
        this.store.sql.exec("UPDATE schedule SET due = CASE WHEN rev = ? THEN ? ELSE min(due, ?) END WHERE kind = ?", rev + 1, next, next, kind);
      } else {
        this.store.sql.exec("DELETE FROM schedule WHERE kind = ? AND rev = ?", kind, rev + 1);
      }
      this.rows = null;
    }
    // The runtime deletes the alarm after a run unless it was moved from the time that fired, so
    // work due at or before `now` (registered during the run) is armed for just after it.
    this.armed = undefined;
    this.arm(now + 1);
    return due.map((d) => d.kind);
  }

  /** Sets the alarm to the earliest due time (not before `floor`). */
  private arm(floor = 1): void {
    const next = this.next();
    if (next === this.armed) return;
    if (next === null) void this.store.storage.deleteAlarm();
    // A due time of 0 means "now"; the runtime refuses times <= 0, and any past time fires at once.
    else void this.store.storage.setAlarm(Math.max(floor, next));
    this.armed = next;
  }
}
