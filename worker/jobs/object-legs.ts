/**
 * Cron entry of what D1's products owe the account objects (objects mode): legs of a deposit
 * credited or a withdrawal decided whose delivery did not complete (the Worker died after the
 * decision's batch) are sent again, each applied once by its key
 * (worker/domain/wallet/object-legs.ts); and the treasury's conversion holds whose Worker never came
 * back are finished or given back (worker/domain/conversion/orphans.ts). Nothing to do with the
 * switch off (no decision writes any, no conversion holds anything).
 */
import { accountsOnObjects } from "../lib/accounts.ts";
import { resendObjectLegs } from "../domain/wallet/object-legs.ts";
import { reconcileConversionHolds } from "../domain/conversion/orphans.ts";
import type { Job } from "./job.ts";

export const objectLegsJob: Job = {
  name: "object-legs",
  async run(env, { now }) {
    if (!accountsOnObjects(env)) return;
    const r = await resendObjectLegs(env, now);
    if (r.pending > 0) console.warn(JSON.stringify({ level: "warn", event: "object_legs_resent", ...r }));
    const c = await reconcileConversionHolds(env, now);
    if (c.checked > 0) console.warn(JSON.stringify({ level: "warn", event: "conversion_holds_reconciled", ...c }));
  },
};
