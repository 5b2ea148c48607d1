/**
 * Cron entry of the ledger reconciliation (worker/domain/ledger/reconcile.ts). The every-minute
 * trigger runs it every tenth minute (it scans the whole ledger); the daily trigger always runs it. A failure of
 * the job itself is logged loudly and never stops the other cron jobs.
 */
import { reconcileAndRecord } from "../domain/ledger/reconcile.ts";
import type { Job } from "./job.ts";

export const RECONCILE_EVERY_MINUTES = 10;

export async function reconcileJob(cron: string, env: Env, now = new Date()): Promise<void> {
  if (cron === "* * * * *" && now.getUTCMinutes() % RECONCILE_EVERY_MINUTES !== 0) return;
  try {
    await reconcileAndRecord(env.DB, "cron", env);
  } catch (err) {
    console.error(JSON.stringify({ level: "error", event: "reconciliation_failed", error: String(err), stack: (err as Error)?.stack }));
  }
}

export const ledgerReconcileJob: Job = {
  name: "ledger-reconcile",
  run: (env, { cron, now }) => reconcileJob(cron, env, new Date(now)),
};
