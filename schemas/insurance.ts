/**
 * Contract-asset cover, the spec's insurance (issue #19 §4; spec §9): priced, reserved cover for
 * the seconds (`micro`) account. Amounts are decimal strings, rates percent strings ("5" = 5 %),
 * times epoch milliseconds, days UTC calendar days "YYYY-MM-DD" (T+1 is the next UTC day).
 *
 *   GET  /api/insurance/plans           (public)   → insurancePlansSchema (plans + running totals)
 *   POST /api/insurance/buy             (verified) insuranceBuySchema {plan_id, amount} → insuranceCoverSchema
 *   GET  /api/insurance/my?page=        (session)  insuranceMyQuerySchema → insuranceMySchema
 *   POST /api/insurance/claim           (verified) insuranceClaimSchema {id} → insuranceClaimResultSchema
 *   GET  /api/admin/insurance/plans     (operator) → insurancePlansSchema (closed plans too)
 *   POST /api/admin/insurance/plans     (operator, audited) insurancePlanCreateSchema → insurancePlanSchema
 *   POST /api/admin/insurance/close     (operator, audited) insurancePlanCloseSchema → insurancePlanSchema
 *
 * The rule, the same on every screen and in the API:
 *   value of the account = insured amount + the net result (wins − stakes lost − fees) of the
 *   user's seconds contracts in the plan's currency opened from the cover's start (or from the
 *   user's last claim, if later). Transfers in and out do not count.
 *   claim: when value ≤ 50 % of the insured amount and no seconds contract is open → pays `cover`
 *   (cover_percent of the insured amount, at most 50 %: never more than the loss), once.
 *   ends: when value has reached 200 % (+100 %), or at end_at; the reserve goes back to the house.
 *   at most two payouts per user and UTC day; a further claim is queued and paid the next UTC day.
 */
import { z } from "zod";
import { idInput, limitInput, multiLineText, pageInput, singleLineText, TEXT_CHARS } from "./strict.ts";
import { decimalStringSchema } from "./money.ts";

/** A claim needs the value at or below this percentage of the insured amount (spec: "loses 50 %"). */
export const CLAIM_AT_PERCENT = "50";
/** The cover ends once the value reaches this percentage of the insured amount (spec: "100 % profit"). */
export const END_AT_PERCENT = "200";
/** Payouts per user and UTC day; later claims are paid the next UTC day (spec §9). */
export const PAYOUTS_PER_DAY = 2;

const id = idInput({ message: "invalid_param" });

// ---- public and user endpoints ----

/** One insured amount a plan offers, with what it costs and pays. */
export const insuranceQuoteSchema = z.object({
  /** the insured amount */
  amount: z.string(),
  /** paid once at purchase, from the spot account, to the exchange */
  premium: z.string(),
  /** what a qualifying claim pays into the seconds account, reserved by the exchange at purchase */
  cover: z.string(),
});

export const insurancePlanSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  currency_id: z.number().int(),
  currency: z.string(),
  /** the insured amounts offered, with premium and cover of each */
  quotes: z.array(insuranceQuoteSchema),
  premium_percent: z.string(),
  cover_percent: z.string(),
  claim_at_percent: z.string(),
  end_at_percent: z.string(),
  /** cover term in days from the effective day */
  days: z.number().int(),
  /** 1 on sale, 0 closed */
  status: z.number().int(),
  /** the most cover this plan may hold reserved at once, what is reserved now, and what is left to sell */
  capacity: z.string(),
  reserved: z.string(),
  available: z.string(),
  /** running totals of this plan */
  premiums_collected: z.string(),
  claims_paid: z.string(),
  covers_sold: z.number().int(),
  claims_count: z.number().int(),
  created_at: z.number().int(),
  closed_at: z.number().int().nullable(),
});
export type InsurancePlan = z.infer<typeof insurancePlanSchema>;

/** Running totals per currency over every plan, published. */
export const insuranceTotalSchema = z.object({
  currency_id: z.number().int(),
  currency: z.string(),
  premiums_collected: z.string(),
  claims_paid: z.string(),
  /** cover the exchange holds reserved for live covers now */
  reserved: z.string(),
  covers_sold: z.number().int(),
  claims_count: z.number().int(),
});

export const insurancePlansSchema = z.object({
  plans: z.array(insurancePlanSchema),
  totals: z.array(insuranceTotalSchema),
  claim_at_percent: z.string(),
  end_at_percent: z.string(),
  payouts_per_day: z.number().int(),
});
export type InsurancePlans = z.infer<typeof insurancePlansSchema>;

/** POST /api/insurance/buy: insure `amount` (one of the plan's amounts). */
export const insuranceBuySchema = z.object({
  plan_id: id,
  amount: decimalStringSchema,
});

export const insuranceStatuses = ["pending", "active", "claimable", "processing", "paid", "ended"] as const;
export const insuranceStatusSchema = z.enum(insuranceStatuses);
export type InsuranceStatus = z.infer<typeof insuranceStatusSchema>;

export const insuranceCoverSchema = z.object({
  id: z.number().int(),
  plan_id: z.number().int(),
  plan_name: z.string(),
  currency_id: z.number().int(),
  currency: z.string(),
  /** the insured amount */
  amount: z.string(),
  premium: z.string(),
  cover: z.string(),
  /**
   * pending: bought, in force from start_at (00:00 UTC of the next day); active: in force;
   * claimable: in force and the value is at or below the claim threshold; processing: claimed, the
   * day's two payouts were made, paid on pay_day by the cron; paid; ended (see end_reason).
   */
  status: insuranceStatusSchema,
  /** "profit" (the value reached end_at_value), "expired" (end_at passed), or "" */
  end_reason: z.string(),
  start_at: z.number().int(),
  end_at: z.number().int(),
  /** the account's value by the rule above, its net result since `measured_from`, and the two thresholds */
  value: z.string(),
  net: z.string(),
  claim_at_value: z.string(),
  end_at_value: z.string(),
  measured_from: z.number().int(),
  /** open seconds contracts: a claim waits until they have settled */
  open_contracts: z.number().int(),
  claimed_at: z.number().int().nullable(),
  /** the UTC day a queued claim is paid ("" unless processing) */
  pay_day: z.string(),
  paid_at: z.number().int().nullable(),
  ended_at: z.number().int().nullable(),
  created_at: z.number().int(),
});
export type InsuranceCover = z.infer<typeof insuranceCoverSchema>;

export const insuranceMyQuerySchema = z.object({
  page: pageInput(),
  limit: limitInput(50, 20),
});

export const insuranceMySchema = z.object({
  total: z.number().int(),
  data: z.array(insuranceCoverSchema),
});
export type InsuranceMy = z.infer<typeof insuranceMySchema>;

/** POST /api/insurance/claim */
export const insuranceClaimSchema = z.object({ id });

export const insuranceClaimResultSchema = z.object({
  /** "paid": the cover is in the seconds account now; "queued": paid on `cover.pay_day` (UTC) by the cron */
  result: z.enum(["paid", "queued"]),
  cover: insuranceCoverSchema,
});

// ---- operator console ----

const reason = z.string({ message: "reason_required" }).trim().refine(multiLineText, TEXT_CHARS).min(1, { message: "reason_required" }).max(500);
const percent = z.string({ message: "insurance_percent" }).regex(/^\d{1,3}(\.\d{1,2})?$/, { message: "insurance_percent" });

/** POST /api/admin/insurance/plans: publishes a plan (audited). Its terms never change afterwards; it can only be closed. */
export const insurancePlanCreateSchema = z.object({
  name: z.string({ message: "insurance_name" }).trim().refine(singleLineText, TEXT_CHARS).min(1, { message: "insurance_name" }).max(60, { message: "insurance_name" }),
  currency_id: id,
  /** the insured amounts offered, 1 to 8 */
  amounts: z.array(decimalStringSchema, { message: "insurance_amounts" }).min(1, { message: "insurance_amounts" }).max(8, { message: "insurance_amounts" }),
  /** premium in percent of the insured amount, 0.01 – 100 */
  premium_percent: percent,
  /** what a claim pays, in percent of the insured amount, 0.01 – 50 (never more than the loss a claim needs) */
  cover_percent: percent,
  days: idInput({ message: "insurance_days", max: 365 }),
  /** the most cover the plan may hold reserved at once */
  capacity: decimalStringSchema,
  reason,
});

export const insurancePlanCloseSchema = z.object({ id, reason });
