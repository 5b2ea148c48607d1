/**
 * Who runs the outbox drain, and when. One drain at a time: a caller that comes while a drain runs
 * gets the NEXT run, which starts once the running one ends and so reads everything the caller
 * appended before asking (the running one may already have passed it). However many callers come
 * meanwhile, they share that one next run: never two drains at once, never more than one queued.
 *
 * The scheduler's "drain" kind does not wait for D1: it starts (or joins) a drain and keeps the
 * kind due RECHECK_MS later while it runs, so expiries and sweeps due meanwhile get the alarm
 * instead of queueing behind D1. The row is dropped only once the outbox is empty; a crash
 * mid-drain leaves it due and the next alarm drains again (the drain is idempotent).
 *
 * Two modes (`DrainMode`): the background run (the alarm, `inBackground`) is `collect`,
 * which in objects mode hands its batches to a collector object and so may wait for the
 * collector's window; `drain()` is `direct`: a caller waits for it. A `direct` request that finds
 * a `collect` run going hurries it (its collector writes now, and the run stops after that batch),
 * then runs itself. On D1's path the modes are the same.
 */

/**
 * How a drain run sends its batches: `direct` = its own D1 batch per drain batch (someone waits
 * for it); `collect` = the background run, which in objects mode hands pure spot batches to a
 * collector (read-model.ts). On D1's path both are the same.
 */
export type DrainMode = "direct" | "collect";

/** The part of the scheduler (scheduler.ts) the runner uses: the "drain" kind's handler and due row. */
export interface DrainSchedule {
  handle(kind: "drain", handler: (now: number) => Promise<number | null | void>): void;
  at(kind: "drain", due: number): void;
  clear(kind: "drain"): void;
}

/** While a drain runs in the background, its due row is kept this far ahead (a crash leaves it due). */
export const RECHECK_MS = 1000;

export class DrainRunner {
  private running: Promise<number> | null = null;
  private runningMode: DrainMode = "direct";
  private queued: Promise<number> | null = null;
  private queuedMode: DrainMode = "collect";
  /** A `direct` request waits behind the running `collect` run. */
  private hurried = false;

  /**
   * @param run applies the outbox to D1 (all of it, batch by batch) and answers how many rows; a
   * `collect` run stops early once `hurried()` is true
   * @param pending whether anything still waits for D1
   * @param hurry tells the running `collect` run that someone waits (outbox.ts `Outbox.hurry`)
   */
  constructor(
    private readonly run: (mode: DrainMode, hurried: () => boolean) => Promise<number>,
    private readonly pending: () => boolean,
    private readonly scheduler: DrainSchedule,
    private readonly hurry: () => void = () => {},
  ) {
    scheduler.handle("drain", (now) => {
      this.inBackground();
      return Promise.resolve(now + RECHECK_MS);
    });
  }

  /** Applies the outbox now; answers once a run that started after this call has ended. */
  drain(): Promise<number> {
    return this.request("direct");
  }

  private request(mode: DrainMode): Promise<number> {
    if (!this.running) return this.start(mode);
    if (!this.queued) this.queuedMode = mode;
    else if (mode === "direct") this.queuedMode = "direct";
    if (mode === "direct" && this.runningMode === "collect" && !this.hurried) {
      this.hurried = true;
      this.hurry();
    }
    this.queued ??= this.running
      .catch(() => 0)
      .then(() => {
        this.queued = null;
        // Someone may have started a run in between: it also began after our caller asked.
        return this.running ?? this.start(this.queuedMode);
      });
    return this.queued;
  }

  /** Whether a drain runs now (tests and tools). */
  get busy(): boolean {
    return this.running !== null;
  }

  /** Starts (or joins) a drain without waiting for it; the due row goes once nothing waits for D1. */
  inBackground(): void {
    this.request("collect")
      .then(
        () => {
          if (!this.pending()) this.scheduler.clear("drain");
        },
        (err: unknown) => {
          console.error(JSON.stringify({ level: "error", event: "drain_failed", error: String(err) }));
          this.scheduler.at("drain", Date.now() + RECHECK_MS);
        },
      )
      // Nobody awaits a background run: a failure of its own storage (the due row could not be
      // written or cleared) is logged here, never left as an unhandled rejection; the due row the
      // alarm keeps RECHECK_MS ahead while a drain runs wakes the object again.
      .catch((err: unknown) => console.error(JSON.stringify({ level: "error", event: "drain_schedule_failed", error: String(err) })));
  }

  private start(mode: DrainMode): Promise<number> {
    this.runningMode = mode;
    this.hurried = false;
    const run = this.run(mode, () => this.hurried).finally(() => {
      if (this.running === run) this.running = null;
    });
    this.running = run;
    return run;
  }
}
