/**
 * Cron entry of the legs D1 decisions owe the account objects (objects mode,
 * worker/domain/wallet/object-legs.ts): legs of a deposit credited or a withdrawal decided whose
 * delivery did not complete (the Worker died after the decision's batch) are sent again; each
 * applies once by its key. Nothing to do with the switch off (no decision writes any).
 */
import { accountsOnObjects } from "../lib/accounts.ts";
import { resendObjectLegs } from "../domain/wallet/object-legs.ts";
import type { Job } from "./job.ts";

export const objectLegsJob: Job = {
  name: "object-legs",
  async run(env, { now }) {
    if (!accountsOnObjects(env)) return;
    const r = await resendObjectLegs(env, now);
    if (r.pending > 0) console.warn(JSON.stringify({ level: "warn", event: "object_legs_resent", ...r }));
  },
};
