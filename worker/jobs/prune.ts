/** Housekeeping: expired captchas, old rate-limit windows, API-key signatures past their window and sign-ins past 90 days; keep the tables small. */
import { pruneCaptchasStatement } from "../domain/auth/captcha.ts";
import { pruneRateLimitsStatement } from "../lib/ratelimit.ts";
import { pruneApiKeySignaturesStatement } from "../lib/api-keys.ts";
import { pruneLoginEventsStatement } from "../domain/security/sessions.ts";
import type { Job } from "./job.ts";

export const pruneJob: Job = {
  name: "prune",
  async run(env, { now }) {
    await env.DB.batch([pruneCaptchasStatement(env.DB, now), pruneRateLimitsStatement(env.DB, now), pruneApiKeySignaturesStatement(env.DB, now), pruneLoginEventsStatement(env.DB, now)]);
  },
};
