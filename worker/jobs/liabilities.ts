/**
 * Proof of liabilities (issue #20 §2): at 00:00 UTC start the day's snapshot and build it as far as
 * one invocation allows; every minute, go on with a snapshot an earlier invocation left unfinished
 * (worker/domain/transparency/snapshot.ts: bounded statements and time per invocation).
 */
import { CRON_BUDGET, runSnapshot, startSnapshot, unfinishedSnapshot } from "../domain/transparency/snapshot.ts";
import type { Job } from "./job.ts";

export const liabilitiesJob: Job = {
  name: "liabilities",
  async run(env, { cron, now }) {
    if (cron === "0 0 * * *") await startSnapshot(env.DB, { trigger: "cron", day: new Date(now).toISOString().slice(0, 10), now });
    const id = await unfinishedSnapshot(env.DB);
    if (id !== null) await runSnapshot(env, id, CRON_BUDGET);
  },
};
