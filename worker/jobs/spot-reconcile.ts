/**
 * Cron entry of the orphaned-hold reconciler (worker/domain/spot/orphans.ts): spot orders whose
 * funds were frozen but that never reached their pair object are tombstoned and released; so are
 * conditional orders stuck at "submitted".
 */
import { reconcileConditionalOrders, reconcileSpotOrders } from "../domain/spot/orphans.ts";
import type { Job } from "./job.ts";

export { ORPHAN_GRACE_MS, reconcileConditionalOrders, reconcileSpotOrders } from "../domain/spot/orphans.ts";

export const spotOrphansJob: Job = {
  name: "spot-orphans",
  async run(env, { now }) {
    const spot = await reconcileSpotOrders(env, now);
    if (spot.released > 0) console.warn(JSON.stringify({ level: "warn", event: "spot_orphans_released", ...spot }));
    const conditional = await reconcileConditionalOrders(env, now);
    if (conditional.released > 0) console.warn(JSON.stringify({ level: "warn", event: "spot_conditional_orphans_released", ...conditional }));
  },
};
