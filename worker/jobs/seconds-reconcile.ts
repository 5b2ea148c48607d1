/**
 * Cron entry of the held seconds contracts (worker/domain/seconds/orders.ts): money frozen in D1
 * but never confirmed by the pair object (the Worker died between the two steps). After a grace
 * period the object is asked: a contract it knows becomes "trading" in D1; one it does not know is
 * tombstoned there first and refunded here once.
 */
import { reconcileHeldContracts } from "../domain/seconds/orders.ts";
import type { Job } from "./job.ts";

export const secondsHeldJob: Job = {
  name: "seconds-held",
  async run(env, { now }) {
    const r = await reconcileHeldContracts(env, now);
    if (r.refunded > 0 || r.confirmed > 0) console.warn(JSON.stringify({ level: "warn", event: "seconds_held_reconciled", ...r }));
  },
};
