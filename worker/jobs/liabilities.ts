/**
 * Proof of liabilities (issue #20 §2): at 00:00 UTC start the day's snapshot and build it as far as
 * one invocation allows; every minute, go on with a snapshot an earlier invocation left unfinished
 * (worker/domain/transparency/snapshot.ts: bounded statements and time per invocation) or, when
 * none is building and the day has no daily snapshot yet (the 00:00 invocation was missed), start
 * it: once per UTC day, whatever its outcome (the unique index on the cron's day decides).
 */
import { CRON_BUDGET, dailySnapshotExists, runSnapshot, startSnapshot, unfinishedSnapshot } from "../domain/transparency/snapshot.ts";
import type { Job } from "./job.ts";

export const liabilitiesJob: Job = {
  name: "liabilities",
  async run(env, { cron, now }) {
    const day = new Date(now).toISOString().slice(0, 10);
    if (cron === "0 0 * * *") await startSnapshot(env.DB, { trigger: "cron", day, now });
    let id = await unfinishedSnapshot(env.DB);
    if (id === null && !(await dailySnapshotExists(env.DB, day))) id = await startSnapshot(env.DB, { trigger: "cron", day, now });
    if (id !== null) await runSnapshot(env, id, CRON_BUDGET);
  },
};
