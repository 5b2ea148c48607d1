/**
 * Cron (every minute): releases the holds of listing-vote rounds that are over (their window ended,
 * or an operator closed or cancelled them), at most RELEASES_PER_RUN per run; the next run goes on
 * with the rest. Each release is keyed by (round, voter), so a run that fires twice releases
 * nothing twice (worker/domain/vote/release.ts).
 */
import { releaseDueHolds } from "../domain/vote/release.ts";
import type { Job } from "./job.ts";

export const voteReleaseJob: Job = {
  name: "vote-release",
  async run(env, { now }) {
    const r = await releaseDueHolds(env, now);
    if (r.released > 0) console.log(JSON.stringify({ level: "info", event: "vote_holds_released", ...r }));
  },
};
