/**
 * Legs that the D1 products' transitions owe the account objects (savings interest and ends,
 * cover payouts, mining payouts, launches, votes; worker/lib/product-objects.ts), sent again until
 * every object answered: a request or cron run that wrote them sends them at once, so this only
 * finds those whose first sending failed. Nothing to do unless `ACCOUNTS=objects`.
 */
import { accountsOnObjects } from "../lib/accounts.ts";
import { deliverOwed } from "../lib/product-objects.ts";
import type { Job } from "./job.ts";

export const objectLegsJob: Job = {
  name: "object-legs",
  async run(env) {
    if (!accountsOnObjects(env)) return;
    const r = await deliverOwed(env);
    if (r.sent + r.refused + r.failed > 0) console.log(JSON.stringify({ level: "info", event: "object_legs", ...r }));
  },
};
