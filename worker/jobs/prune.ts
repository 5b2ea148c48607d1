/** Housekeeping: expired captchas and old rate-limit windows are useless; keep the tables small. */
import { pruneCaptchasStatement } from "../domain/auth/captcha.ts";
import { pruneRateLimitsStatement } from "../lib/ratelimit.ts";
import type { Job } from "./job.ts";

export const pruneJob: Job = {
  name: "prune",
  async run(env, { now }) {
    await env.DB.batch([pruneCaptchasStatement(env.DB, now), pruneRateLimitsStatement(env.DB, now)]);
  },
};
