/**
 * The dev clock (local only, DEV_CLOCK=on; worker/lib/clock.ts): GET /api/dev/clock shows it,
 * POST /api/dev/clock moves it ahead, POST /api/dev/cron runs a cron now with the moved clock.
 */
import { z } from "zod";

/** At most a year per move; time only goes ahead. */
export const DEV_CLOCK_MAX_ADVANCE_S = 366 * 86_400;

export const devClockAdvanceSchema = z.strictObject(
  {
    advance_s: z.number({ message: "invalid_param" }).int({ message: "invalid_param" }).min(1, { message: "invalid_param" }).max(DEV_CLOCK_MAX_ADVANCE_S, { message: "invalid_param" }),
  },
  { error: "invalid_param" },
);

/** now: the time the exchange runs on (ms); real_now: the machine's; offset_s: how far ahead. */
export const devClockSchema = z.object({ now: z.number().int(), real_now: z.number().int(), offset_s: z.number().int().nonnegative() });

export const devCronSchema = z.strictObject({ cron: z.string({ message: "invalid_param" }).min(1, { message: "invalid_param" }).max(40, { message: "invalid_param" }) }, { error: "invalid_param" });

/** The cron that ran, the time its jobs saw as now, how many jobs it has and how many failed (logged). */
export const devCronRunSchema = z.object({ cron: z.string(), now: z.number().int(), jobs: z.number().int(), failed: z.number().int() });
