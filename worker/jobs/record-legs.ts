/**
 * Every minute: legs that records in D1 owe the account objects and whose sender did not finish
 * (the Worker died after the record's batch, or an object was unreachable) are sent again
 * (worker/lib/record-legs.ts). Each object applies a key once, so a leg sent twice moves money once.
 * With ACCOUNTS=d1 the table stays empty and this is one read.
 */
import { resendRecordLegs } from "../lib/record-legs.ts";
import type { Job } from "./job.ts";

export const recordLegsJob: Job = {
  name: "record-legs",
  async run(env, { now }) {
    const { sent, left } = await resendRecordLegs(env, now);
    if (sent + left > 0) console.log(JSON.stringify({ level: "info", event: "record_legs_resent", sent, left }));
  },
};
