/**
 * Every minute (objects mode): the treasury's conversion holds whose Worker never came back are
 * finished or given back, once (worker/domain/conversion/orphans.ts). A conversion's record and
 * the house's legs then go through `record_legs` like every D1 record's (the `record-legs` job
 * resends what was not answered). With the switch off nothing holds anything: no reads at all.
 */
import { reconcileConversionHolds } from "../domain/conversion/orphans.ts";
import type { Job } from "./job.ts";

export const conversionHoldsJob: Job = {
  name: "conversion-holds",
  async run(env, { now }) {
    const c = await reconcileConversionHolds(env, now);
    if (c.checked > 0) console.warn(JSON.stringify({ level: "warn", event: "conversion_holds_reconciled", ...c }));
  },
};
