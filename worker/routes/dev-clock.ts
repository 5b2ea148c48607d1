/**
 * The dev clock (issue #27 §5; design and limits in worker/lib/clock.ts). The routes answer only
 * while DEV_CLOCK is "on" (set by `npm start`); in a deployed Worker they are indistinguishable
 * from an unknown path. Mounted before the dev outbox routes, which need DEV_OUTBOX instead.
 */
import { Hono } from "hono";
import type { AppEnv } from "../lib/context.ts";
import { devClockOn, devClockState } from "../lib/clock.ts";
import { ApiError, notFound } from "../lib/errors.ts";
import { answers, ok } from "../lib/respond.ts";
import { jsonBody } from "../lib/validate.ts";
import { devClockAdvanceSchema, devClockSchema, devCronRunSchema, devCronSchema } from "../../schemas/dev-clock.ts";
import { advanceClock } from "../domain/dev/clock.ts";
import { JOBS, runScheduled } from "../scheduled.ts";

export const devClockRoutes = new Hono<AppEnv>()
  .use("/dev/clock", async (c, next) => {
    if (!devClockOn(c.env)) throw notFound();
    await next();
  })
  .use("/dev/cron", async (c, next) => {
    if (!devClockOn(c.env)) throw notFound();
    await next();
  })
  .get("/dev/clock", answers(devClockSchema, { summary: "Local only (DEV_CLOCK=on): the time the exchange runs on, the machine's, and the offset between them" }), (c) => ok(c, devClockState()))
  .post("/dev/clock", jsonBody(devClockAdvanceSchema), answers(devClockSchema, { summary: "Local only (DEV_CLOCK=on): moves the clock of the Worker, the objects and the crons ahead by advance_s seconds (never back)" }), async (c) =>
    ok(c, await advanceClock(c.env, c.req.valid("json").advance_s)),
  )
  .post("/dev/cron", jsonBody(devCronSchema), answers(devCronRunSchema, { summary: 'Local only (DEV_CLOCK=on): runs one cron ("* * * * *", "0 0 * * *", "0 * * * *") now, with the moved clock, and waits for its jobs' }), async (c) => {
    const { cron } = c.req.valid("json");
    const jobs = JOBS[cron];
    if (!jobs) throw new ApiError("invalid_param", 400, { field: "cron" });
    const now = Date.now();
    let failed = 0;
    try {
      await runScheduled(cron, c.env, now);
    } catch (err) {
      // Each failed job is logged by runScheduled; the run itself answers how many failed.
      failed = err instanceof AggregateError ? err.errors.length : 1;
    }
    return ok(c, { cron, now, jobs: jobs.length, failed });
  });
