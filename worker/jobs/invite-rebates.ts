/**
 * Invitation rebates (issue #18 §2): at 00:00 UTC (08:00 Beijing) settle the Beijing day that just
 * ended; every minute, go on with a run an earlier invocation left unfinished (each invocation
 * stays within its statement budget), and start yesterday's run if the 00:00 cron never came.
 */
import { dayBefore, settleDay } from "../domain/invite/settle.ts";
import { unfinishedRuns } from "../domain/invite/runs.ts";
import { dayEnd } from "../domain/invite/days.ts";
import type { Job } from "./job.ts";

/** Start after the day's end plus this, so the pair objects' last drains of the day have landed. */
const CATCH_UP_AFTER_MS = 5 * 60_000;

export const inviteRebatesJob: Job = {
  name: "invite_rebates",
  async run(env, { cron, now }) {
    const yesterday = dayBefore(now);
    if (cron === "0 0 * * *") {
      await settleDay(env, yesterday, now, 600);
      return;
    }
    const { started, unfinished } = await unfinishedRuns(env.DB, yesterday);
    const day = unfinished ?? (!started && now >= dayEnd(yesterday) + CATCH_UP_AFTER_MS ? yesterday : null);
    if (day) await settleDay(env, day, now, 300);
  },
};
