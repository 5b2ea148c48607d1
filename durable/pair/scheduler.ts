/**
 * One alarm, many kinds of due work. A Durable Object has a single alarm, so every part that needs
 * waking (the outbox drain, contract expiries, liquidation sweeps) registers a due time per kind
 * here, in the same transaction as the state that needs it, and the alarm is always set to the
 * earliest. Registering a later time never moves an earlier one. An alarm run executes every kind
 * that is due; a row is cleared only if nobody moved it during the run (`rev`), so work registered
 * meanwhile is never lost. Handlers must be idempotent (the runtime may fire an alarm twice).
 */
import type { PairStorage } from "./storage.ts";

export type DueKind = "drain" | "expiry" | "sweep";

/** Runs one kind's due work; throwing leaves it due, and the runtime retries the alarm. */
export type DueHandler = (now: number) => Promise<void>;

export class Scheduler {
  /** The alarm time last set by this instance; undefined = unknown (new instance, or after a run). */
  private armed: number | null | undefined;
  private handlers: Partial<Record<DueKind, DueHandler>> = {};

  constructor(private readonly store: PairStorage) {}

  /** Names the work an alarm run does for `kind`. */
  handle(kind: DueKind, handler: DueHandler): void {
    this.handlers[kind] = handler;
  }

  /** Marks `kind` due at `due` (or keeps its earlier due time) and arms the alarm for the earliest. */
  at(kind: DueKind, due: number): void {
    this.store.sql.exec(
      "INSERT INTO schedule (kind, due, rev) VALUES (?, ?, 0) ON CONFLICT (kind) DO UPDATE SET due = min(due, excluded.due), rev = rev + 1",
      kind,
      due,
    );
    this.arm();
  }

  /** Drops `kind`'s due time (nothing of that kind is waiting any more). */
  clear(kind: DueKind): void {
    this.store.sql.exec("DELETE FROM schedule WHERE kind = ?", kind);
    this.arm();
  }

  /** The earliest due time, i.e. when the alarm should fire (null = nothing due). */
  next(): number | null {
    const d = this.store.one<{ d: number | null }>("SELECT min(due) AS d FROM schedule")?.d;
    return d === null || d === undefined ? null : Number(d);
  }

  /** Due times per kind (for inspection and tests). */
  dues(): Partial<Record<DueKind, number>> {
    const out: Partial<Record<DueKind, number>> = {};
    for (const r of this.store.sql.exec("SELECT kind, due FROM schedule").toArray()) out[r.kind as DueKind] = Number(r.due);
    return out;
  }

  /** Forgets what it believes the alarm is (after a rolled-back transaction). */
  forget(): void {
    this.armed = undefined;
  }

  /**
   * The alarm: runs every kind due at `now`, earliest first, clears the rows nobody moved meanwhile,
   * and re-arms for what is left. Returns the kinds it ran.
   */
  async run(now = Date.now()): Promise<DueKind[]> {
    // The runtime cleared the alarm that brought us here.
    this.armed = undefined;
    const due = this.store.sql
      .exec("SELECT kind, rev FROM schedule WHERE due <= ? ORDER BY due, kind", now)
      .toArray()
      .map((r) => ({ kind: r.kind as DueKind, rev: Number(r.rev) }));
    for (const { kind, rev } of due) {
      // A throw leaves this kind (and the ones after it) due: the runtime retries the alarm with
      // backoff, and the next registration re-arms it in any case.
      await this.handlers[kind]?.(now);
      this.store.sql.exec("DELETE FROM schedule WHERE kind = ? AND rev = ?", kind, rev);
    }
    this.arm();
    return due.map((d) => d.kind);
  }

  private arm(): void {
    const next = this.next();
    if (next === this.armed) return;
    if (next === null) void this.store.storage.deleteAlarm();
    else void this.store.storage.setAlarm(next);
    this.armed = next;
  }
}
