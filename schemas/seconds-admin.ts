/**
 * Operator console for seconds contracts (/api/admin/seconds/*): the duration options and the
 * payable currencies' settings. Every edit is audited with a reason. An edit applies to contracts
 * accepted afterwards only (each contract keeps the ratio, fee and hold it was accepted with), and
 * there is deliberately no field here, or anywhere, that names a contract, a user or an outcome.
 */
import { z } from "zod";
import { idInput, intInput, multiLineText, TEXT_CHARS } from "./strict.ts";
import { decimalStringSchema } from "./money.ts";
import { payableCurrencySchema, secondsOptionSchema } from "./seconds.ts";

const reason = z.string({ message: "reason_required" }).trim().refine(multiLineText, TEXT_CHARS).min(1, { message: "reason_required" }).max(500);
const percent = z.string().regex(/^\d{1,3}(\.\d{1,2})?$/, { message: "invalid_param" });

/** POST /api/admin/seconds/options: adds or edits one duration. */
export const secondsOptionEditSchema = z.object({
  seconds: idInput({ message: "invalid_param", max: 86_400 }),
  /** the win in percent of the stake, 0.01 – 100 */
  profit_ratio: percent,
  status: intInput({ message: "invalid_param" }).pipe(z.union([z.literal(0), z.literal(1)])),
  reason,
});

/** POST /api/admin/seconds/currencies: adds or edits one payable currency. */
export const payableCurrencyEditSchema = z.object({
  currency_id: idInput({ message: "invalid_param" }),
  micro_numbers: z.array(decimalStringSchema).min(1).max(12),
  min_number: decimalStringSchema,
  max_number: decimalStringSchema,
  /** fee in percent of the stake, at most 10 */
  fee_percent: percent,
  /** the most the house may hold (maximum payouts) for one pair's open contracts, and for one user's open contracts on one pair */
  pair_exposure: decimalStringSchema,
  user_exposure: decimalStringSchema,
  status: intInput({ message: "invalid_param" }).pipe(z.union([z.literal(0), z.literal(1)])),
  reason,
});

export const adminSecondsOptionListSchema = z.array(secondsOptionSchema.extend({ updated_at: z.number().int() }));

export const adminPayableCurrencySchema = payableCurrencySchema.omit({ user_wallet: true }).extend({
  pair_exposure: z.string(),
  user_exposure: z.string(),
  status: z.number().int(),
  updated_at: z.number().int(),
});
export const adminPayableCurrencyListSchema = z.array(adminPayableCurrencySchema);
