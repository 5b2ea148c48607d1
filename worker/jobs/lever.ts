/**
 * Leveraged positions' cron work (worker/domain/lever/positions.ts):
 *  - every minute, held positions (money frozen in D1, never confirmed by the pair object) are
 *    asked about after a grace period: known → noted, unknown → tombstoned there, refunded here once;
 *  - at 00:00 UTC, each pair object takes that day's overnight fee from every position held over
 *    the day's start, once per position and day (movement `lever:{id}:night:{day}`), so a cron that
 *    fires twice charges nothing twice.
 */
import { chargeOvernight, reconcileHeldPositions } from "../domain/lever/positions.ts";
import type { Job } from "./job.ts";

export const leverHeldJob: Job = {
  name: "lever-held",
  async run(env, { now }) {
    const r = await reconcileHeldPositions(env, now);
    if (r.refunded > 0 || r.confirmed > 0) console.warn(JSON.stringify({ level: "warn", event: "lever_held_reconciled", ...r }));
  },
};

export const leverOvernightJob: Job = {
  name: "lever-overnight",
  async run(env, { now }) {
    const charged = await chargeOvernight(env, now);
    console.log(JSON.stringify({ level: "info", event: "lever_overnight", charged }));
  },
};
