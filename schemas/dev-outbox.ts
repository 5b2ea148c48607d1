/** GET /api/dev/outbox (local development only): the newest e-mails, SMS codes and captcha answers as stored. */
import { z } from "zod";
import { decimalStringSchema } from "./money.ts";
import { idInput, intInput } from "./strict.ts";

export const devOutboxSchema = z.array(z.record(z.string(), z.unknown()));

/**
 * POST /api/dev/seconds/seed (local only, bench/seconds.mjs): many of the session user's own
 * contracts through the real submit path. No user id: it acts only on the session's user, and a
 * body naming one (or any other unknown field) is refused.
 */
export const devSecondsSeedSchema = z.strictObject({
  match_id: idInput({ message: "invalid_param" }),
  currency_id: idInput({ message: "invalid_param" }),
  number: decimalStringSchema,
  /** the second (ms since epoch) every contract ends in */
  end_at: idInput({ message: "invalid_param" }),
  count: intInput({ message: "invalid_param", max: 1000 }),
  concurrency: idInput({ message: "invalid_param", max: 32 }).optional(),
}, { error: "invalid_param" });
/** The contracts accepted, and why the others were refused (error key → count). */
export const devSecondsSeededSchema = z.object({ ids: z.array(z.number().int()), refused: z.record(z.string(), z.number().int()) });
