/**
 * Cron (hourly, "0 * * * *"; the every-minute cron goes on with a payout that did not fit in one
 * invocation, or one approved after its hour's run): pays every approved, unpaid (plan, hour)
 * whose hour has ended, pro rata to the shares held in it, minus the plan's stated fee
 * (worker/domain/mining/pay.ts: keyed per (plan, hour, user), so a second run or a crash pays
 * nothing twice), at most 20 batches of 100 holders per invocation. Nothing is paid that was not
 * recorded by one operator and approved by another.
 */
import { payDueHours } from "../domain/mining/pay.ts";
import type { Job } from "./job.ts";

export const miningPayJob: Job = {
  name: "mining-pay",
  async run(env, { now }) {
    const r = await payDueHours(env, now);
    if (r.paid + r.credited > 0) console.log(JSON.stringify({ level: "info", event: "mining_paid", ...r }));
  },
};
