/** The shape of a cron job (worker/scheduled.ts looks them up by cron expression). */

/** When the cron fired: its expression and the time every job of this run uses as "now". */
export interface Tick {
  cron: string;
  now: number;
}

/** One idempotent unit of cron work: a cron that fires twice is harmless. */
export interface Job {
  /** Named in the log when it fails. */
  name: string;
  run(env: Env, tick: Tick): Promise<void>;
}
