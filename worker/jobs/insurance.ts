/**
 * Cron (every minute, and 00:00 UTC): contract-asset cover. Pays claims queued on an earlier UTC
 * day (at most two payouts per user and day), ends covers past their end date and covers whose
 * seconds account reached +100 %, releasing each reserve to the treasury. Each cover moves once
 * (guarded state change + the `insurance:{id}:settle` movement key); bounded per invocation, the
 * next minute goes on.
 */
import { runInsuranceCron } from "../domain/insurance/covers.ts";
import type { Job } from "./job.ts";

export const insuranceJob: Job = {
  name: "insurance",
  async run(env, { now }) {
    const r = await runInsuranceCron(env, now);
    if (r.paid + r.expired + r.profit > 0) console.log(JSON.stringify({ level: "info", event: "insurance_cron", ...r }));
  },
};
