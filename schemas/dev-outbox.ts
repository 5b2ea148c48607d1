/** GET /api/dev/outbox (local development only): the newest e-mails, SMS codes and captcha answers as stored. */
import { z } from "zod";

export const devOutboxSchema = z.array(z.record(z.string(), z.unknown()));

/**
 * POST /api/dev/seconds/seed (local only, bench/seconds.mjs): many of the session user's own
 * contracts through the real submit path. No user id: it acts only on the session's user, and a
 * body naming one (or any other unknown field) is refused.
 */
export const devSecondsSeedSchema = z.strictObject({
  match_id: z.number({ message: "invalid_param" }).int().positive(),
  currency_id: z.number({ message: "invalid_param" }).int().positive(),
  number: z.string({ message: "invalid_amount" }).regex(/^\d{1,20}(\.\d{1,30})?$/, { message: "invalid_amount" }),
  /** the second (ms since epoch) every contract ends in */
  end_at: z.number({ message: "invalid_param" }).int().positive(),
  count: z.number({ message: "invalid_param" }).int().min(0).max(1000),
  concurrency: z.number({ message: "invalid_param" }).int().min(1).max(32).optional(),
}, { error: "invalid_param" });
/** The contracts accepted, and why the others were refused (error key → count). */
export const devSecondsSeededSchema = z.object({ ids: z.array(z.number().int()), refused: z.record(z.string(), z.number().int()) });
