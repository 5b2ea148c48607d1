/**
 * Cron (every minute): launch projects whose commit window has ended are allocated, cancelled ones
 * refunded, commitment by commitment (worker/domain/launch/settle.ts: each one batch keyed by the
 * subscription, so a second run or a crash settles nothing twice), at most 200 per invocation.
 * Vesting needs no job: `claim` moves what has vested at the time of the claim.
 */
import { settleLaunches } from "../domain/launch/settle.ts";
import type { Job } from "./job.ts";

export const launchSettleJob: Job = {
  name: "launch-settle",
  async run(env, { now }) {
    const r = await settleLaunches(env, now);
    if (r.closed + r.settled + r.finished > 0) console.log(JSON.stringify({ level: "info", event: "launch_settled", ...r }));
  },
};
