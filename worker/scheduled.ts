/**
 * Cron jobs (wrangler.toml [triggers]), looked up by cron expression. Each job is one file in
 * worker/jobs/ exporting a `Job`; it is idempotent (a cron that fires twice is harmless). A cron's
 * jobs run one after the other in the listed order, all with the same "now"; a job that fails is
 * logged and does not stop the jobs after it. To add a job, add it to its cron's line.
 */
import type { Job } from "./jobs/job.ts";
import { pruneJob } from "./jobs/prune.ts";
import { ledgerReconcileJob } from "./jobs/reconcile.ts";
import { spotOrphansJob } from "./jobs/spot-reconcile.ts";
import { secondsHeldJob } from "./jobs/seconds-reconcile.ts";
import { c2cExpiry } from "./jobs/c2c-expiry.ts";
import { leverHeldJob, leverOvernightJob } from "./jobs/lever.ts";
import { supportAutoCloseJob } from "./jobs/support-autoclose.ts";
import { inviteRebatesJob } from "./jobs/invite-rebates.ts";
import { voteReleaseJob } from "./jobs/vote-release.ts";
import { insuranceJob } from "./jobs/insurance.ts";
import { launchSettleJob } from "./jobs/launch.ts";
import { earnInterestJob } from "./jobs/earn.ts";
import { liabilitiesJob } from "./jobs/liabilities.ts";
import { miningPayJob } from "./jobs/mining.ts";
import { recordLegsJob } from "./jobs/record-legs.ts";
import { conversionHoldsJob } from "./jobs/conversion-holds.ts";
import { moneyJobsPaused } from "./lib/maintenance.ts";

export const JOBS: Readonly<Record<string, readonly Job[]>> = {
  // Every minute (C2C: unpaid orders cancelled within 60 s of their window's end); the ledger
  // reconciliation itself runs only every tenth minute.
  // Overnight fees run every minute too: a pair object charges each UTC day once (and catches up
  // days a missed run skipped), so the 00:00 run is only the first chance, not the only one.
  "* * * * *": [pruneJob, c2cExpiry, spotOrphansJob, secondsHeldJob, leverHeldJob, leverOvernightJob, supportAutoCloseJob, inviteRebatesJob, voteReleaseJob, insuranceJob, launchSettleJob, earnInterestJob, liabilitiesJob, miningPayJob, recordLegsJob, conversionHoldsJob, ledgerReconcileJob],
  // 00:00 UTC = 08:00 Beijing time: the previous Beijing day's invitation rebates (the every-minute
  // run goes on with a settlement that did not fit in one invocation); the day's liabilities
  // snapshot (issue #20 §2; the every-minute run goes on with it the same way).
  "0 0 * * *": [pruneJob, leverOvernightJob, inviteRebatesJob, insuranceJob, earnInterestJob, liabilitiesJob, ledgerReconcileJob],
  // Every hour: mining payouts for the hours that have ended (issue #20 §1, spec "mining
  // settlement per hour"); the every-minute run goes on with one that did not fit.
  "0 * * * *": [miningPayJob],
};

/**
 * The jobs that move money (release holds, pay, charge, settle): skipped while the maintenance
 * window is on (worker/lib/maintenance.ts). Every job is in one of the two lists
 * (tests/api/maintenance.test.ts); the others only read, prune or close support tickets.
 */
export const MONEY_JOBS: ReadonlySet<string> = new Set([
  c2cExpiry.name,
  spotOrphansJob.name,
  secondsHeldJob.name,
  leverHeldJob.name,
  leverOvernightJob.name,
  inviteRebatesJob.name,
  voteReleaseJob.name,
  insuranceJob.name,
  launchSettleJob.name,
  earnInterestJob.name,
  miningPayJob.name,
  recordLegsJob.name,
  conversionHoldsJob.name,
]);
export const QUIET_JOBS: ReadonlySet<string> = new Set([pruneJob.name, supportAutoCloseJob.name, liabilitiesJob.name, ledgerReconcileJob.name]);

/** Runs a cron's jobs; answers the names of the jobs it skipped for the maintenance window. */
export async function runScheduled(cron: string, env: Env, now = Date.now()): Promise<string[]> {
  const jobs = JOBS[cron];
  if (!jobs) {
    console.error(JSON.stringify({ level: "error", event: "cron_unknown", cron }));
    return [];
  }
  // Read once per run (a cron fires at most once a minute): never a remembered value here.
  // With ACCOUNTS=objects the cut-over not recorded pauses them too (worker/lib/maintenance.ts).
  const paused = jobs.some((j) => !QUIET_JOBS.has(j.name)) ? await moneyJobsPaused(env, now) : null;
  const skipped: string[] = [];
  const failed: unknown[] = [];
  for (const job of jobs) {
    if (paused && !QUIET_JOBS.has(job.name)) {
      skipped.push(job.name);
      continue;
    }
    try {
      await job.run(env, { cron, now });
    } catch (err) {
      failed.push(err);
      console.error(JSON.stringify({ level: "error", event: "cron_job_failed", cron, job: job.name, error: String(err), stack: (err as Error)?.stack }));
    }
  }
  // The invocation still reports failure (the runtime logs the rejected waitUntil).
  if (skipped.length > 0) console.log(JSON.stringify({ level: "info", event: "cron_jobs_paused", cron, reason: paused, jobs: skipped }));
  if (failed.length > 0) throw new AggregateError(failed, `${failed.length} cron job(s) failed`);
  return skipped;
}
