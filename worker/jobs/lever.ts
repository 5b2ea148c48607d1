/**
 * Leveraged positions' cron work (worker/domain/lever/positions.ts):
 *  - every minute, held positions (money frozen in D1, never confirmed by the pair object) are
 *    asked about after a grace period: known → noted, unknown → tombstoned there, refunded here once;
 *  - at 00:00 UTC and every minute after, each pair object takes the overnight fee of every day
 *    each position was held over and not yet charged (so a missed run is caught up), once per
 *    position and day (movement `lever:{id}:night:{day}`), so a cron that fires twice charges
 *    nothing twice; once a day is done the object answers at once until the next.
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
    if (charged > 0) console.log(JSON.stringify({ level: "info", event: "lever_overnight", charged }));
  },
};
