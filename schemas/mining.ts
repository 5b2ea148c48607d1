/**
 * Mining plans (issue #20 §1; the spec's "mining machines", honest version): shares of named,
 * existing hashrate. Nothing is promised: a plan shows what its pool actually paid, recorded by one
 * operator with evidence and approved by another, and the hourly cron pays that out pro rata to
 * the shares held in the hour, minus the plan's stated fee. Amounts are decimal strings; times
 * epoch milliseconds; an hour is named by its start (UTC, a multiple of 3,600,000 ms).
 *
 *   GET  /api/mining/plans                        (public)   → miningPlansSchema
 *   GET  /api/mining/payouts?plan_id=&page=       (public)   miningPayoutsQuerySchema → miningPayoutsSchema
 *   POST /api/mining/buy                          (verified) miningBuySchema {plan_id, shares} → miningHoldingSchema
 *   GET  /api/mining/my                           (session)  → miningMySchema
 *   GET  /api/admin/mining/plans                  (operator) → miningPlansSchema (closed plans too)
 *   POST /api/admin/mining/plans                  (operator, audited) miningPlanCreateSchema → miningPlanSchema
 *   POST /api/admin/mining/close                  (operator, audited) miningPlanCloseSchema → miningPlanSchema
 *   GET  /api/admin/mining/payouts?status=        (operator) → miningAdminPayoutsSchema
 *   POST /api/admin/mining/payouts                (operator, audited) miningPayoutRecordSchema → miningAdminPayoutSchema
 *   POST /api/admin/mining/payouts/approve        (a second operator, audited) miningPayoutDecideSchema → miningAdminPayoutSchema
 *   POST /api/admin/mining/payouts/reject         (a second operator, audited) miningPayoutDecideSchema → miningAdminPayoutSchema
 *
 * The rule, the same on every screen and in the API:
 *   a purchase's shares count for every hour that starts at or after the purchase and before its
 *   term end (purchase + the plan's days);
 *   per share and hour = recorded amount ÷ the plan's total shares (unsold shares are the house's);
 *   a holder's gross = ⌊amount × shares held ÷ total shares⌋; net = ⌊gross × (10000 − fee_bps) ÷ 10000⌋;
 *   the fee (gross − net), the unsold shares' part and the rounding remainder return to the exchange.
 */
import { z } from "zod";
import { idInput, intInput, limitInput, multiLineText, pageInput, PLAIN_INT_RE, singleLineText, TEXT_CHARS } from "./strict.ts";
import { DECIMAL_RE } from "./decimal.ts";
import { HOUR_MS } from "./mining-calc.ts";


const id = idInput({ message: "invalid_param" });

// ---- public and user endpoints ----

/** One UTC day of the last 30: what the pool paid per share that day (paid hours only). */
export const miningDaySchema = z.object({
  /** "YYYY-MM-DD" (UTC) */
  day: z.string(),
  per_share: z.string(),
});

export const miningPlanSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  pool: z.string(),
  pool_account: z.string(),
  worker: z.string(),
  /** the stated total hashrate of all shares, with its unit */
  hashrate: z.string(),
  shares: z.number().int(),
  sold: z.number().int(),
  shares_left: z.number().int(),
  price: z.string(),
  price_currency_id: z.number().int(),
  price_currency: z.string(),
  /** each purchase's term, in days from the purchase */
  days: z.number().int(),
  /** the stated fee on each payout, in basis points and in percent */
  fee_bps: z.number().int(),
  fee_percent: z.string(),
  other_fees: z.string(),
  payout_currency_id: z.number().int(),
  payout_currency: z.string(),
  /** "open" on sale, "closed" (no new shares; holdings run to their end) */
  status: z.enum(["open", "closed"]),
  /** the last 30 days' PAID payouts (recorded, approved and paid by the cron): per share, before the fee */
  paid_30d_per_share: z.string(),
  paid_30d_hours: z.number().int(),
  /** days of the 30 the plan existed (the average's divisor) */
  days_30d: z.number().int(),
  /** average per share per UTC day over those days, before the fee (the calculator's default) */
  avg_day_per_share: z.string(),
  series_30d: z.array(miningDaySchema),
  /** the last traded price of the payout currency in the price currency ("0": none), for the calculator */
  reference_price: z.string(),
  created_at: z.number().int(),
  closed_at: z.number().int().nullable(),
});
export type MiningPlan = z.infer<typeof miningPlanSchema>;

export const miningPlansSchema = z.array(miningPlanSchema);

export const miningPayoutsQuerySchema = z.object({
  plan_id: id,
  page: pageInput(),
  limit: limitInput(100, 50),
});

/** A recorded hour, public. Pending ones (recorded, approved) are not counted in the 30-day figures until paid. */
export const miningPayoutSchema = z.object({
  id: z.number().int(),
  plan_id: z.number().int(),
  /** the hour's start (epoch ms, UTC) */
  hour: z.number().int(),
  amount: z.string(),
  currency: z.string(),
  /** the pool's payout id or transaction hash, as recorded */
  evidence: z.string(),
  /** "pending" (recorded, waiting for a second operator), "approved" (held by the exchange, to be paid), "paid", "rejected" */
  status: z.enum(["pending", "approved", "paid", "rejected"]),
  /** amount ÷ the plan's shares */
  per_share: z.string(),
  /** once paid: what users received in total, the fees, and what returned to the exchange (fees, unsold shares, rounding) */
  paid_to_users: z.string(),
  fees: z.string(),
  held_shares: z.number().int(),
  paid_at: z.number().int().nullable(),
});
export type MiningPayout = z.infer<typeof miningPayoutSchema>;

export const miningPayoutsSchema = z.object({ total: z.number().int(), data: z.array(miningPayoutSchema) });
export type MiningPayouts = z.infer<typeof miningPayoutsSchema>;

/** POST /api/mining/buy */
export const miningBuySchema = z.object({
  plan_id: id,
  shares: idInput({ message: "mining_shares", max: 100_000_000 }),
});

/** A purchase (the spec's mining order): "in_progress" until its term ends, then "completed". */
export const miningHoldingSchema = z.object({
  id: z.number().int(),
  plan_id: z.number().int(),
  plan_name: z.string(),
  shares: z.number().int(),
  cost: z.string(),
  price_currency: z.string(),
  payout_currency: z.string(),
  /** its shares count for hours starting at or after start_at and before end_at */
  start_at: z.number().int(),
  end_at: z.number().int(),
  status: z.enum(["in_progress", "completed"]),
  created_at: z.number().int(),
});
export type MiningHolding = z.infer<typeof miningHoldingSchema>;

/** One hour paid to the user (all of their holdings of the plan together). */
export const miningCreditSchema = z.object({
  plan_id: z.number().int(),
  plan_name: z.string(),
  hour: z.number().int(),
  shares: z.number().int(),
  gross: z.string(),
  fee: z.string(),
  amount: z.string(),
  currency: z.string(),
  evidence: z.string(),
  paid_at: z.number().int(),
});
export type MiningCredit = z.infer<typeof miningCreditSchema>;

export const miningMySchema = z.object({
  holdings: z.array(miningHoldingSchema),
  /** the latest 100 hours paid to the user */
  payouts: z.array(miningCreditSchema),
  /** per payout currency, everything received so far (net) */
  totals: z.array(z.object({ currency: z.string(), amount: z.string() })),
});
export type MiningMy = z.infer<typeof miningMySchema>;

// ---- operator console ----

const reason = z.string({ message: "reason_required" }).trim().refine(multiLineText, TEXT_CHARS).min(1, { message: "reason_required" }).max(500);
const text = (key: "mining_name" | "mining_pool", max: number) => z.string({ message: key }).trim().refine(singleLineText, TEXT_CHARS).min(1, { message: key }).max(max, { message: key });

/** POST /api/admin/mining/plans: lists a plan (audited). The price is in USDT; the terms never change. */
export const miningPlanCreateSchema = z.object({
  name: text("mining_name", 60),
  pool: text("mining_pool", 60),
  pool_account: text("mining_pool", 80),
  worker: text("mining_pool", 80),
  /** the total hashrate with its unit, e.g. "100 TH/s" */
  hashrate: z.string({ message: "mining_hashrate" }).regex(/^\d{1,12}(\.\d{1,6})? ?[KMGTPE]?H\/s$/, { message: "mining_hashrate" }),
  shares: idInput({ message: "mining_plan_shares", max: 100_000_000 }),
  /** the price of one share, USDT */
  price: z.string({ message: "invalid_amount" }).regex(DECIMAL_RE, { message: "invalid_amount" }),
  days: idInput({ message: "mining_days", max: 3650 }),
  fee_bps: intInput({ message: "mining_fee", max: 10_000 }),
  other_fees: z.string().trim().refine(multiLineText, TEXT_CHARS).max(200, { message: "too_long" }).default(""),
  payout_currency_id: id,
  reason,
});

export const miningPlanCloseSchema = z.object({ id, reason });

/**
 * The hour a payout is for: its start, as an ISO 8601 UTC time ("2026-11-26T09:00:00Z") or epoch
 * milliseconds (3600000 × n). It must be a whole hour that has ended.
 */
export const miningHourSchema = z.union([z.number(), z.string()], { message: "mining_hour" }).transform((v, ctx) => {
  // Epoch digits or an ISO time exactly as written: no spaces, signs, exponents or hex.
  const ms = typeof v === "number" ? v : PLAIN_INT_RE.test(v) ? Number(v) : /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d{1,3})?)?(Z|[+-]\d\d:\d\d)$/.test(v) ? Date.parse(v) : NaN;
  if (!Number.isSafeInteger(ms) || ms <= 0 || ms % HOUR_MS !== 0) {
    ctx.addIssue({ code: "custom", message: "mining_hour" });
    return z.NEVER;
  }
  return ms;
});

/** POST /api/admin/mining/payouts: what the pool paid for one plan and one hour, with its evidence. */
export const miningPayoutRecordSchema = z.object({
  plan_id: id,
  hour: miningHourSchema,
  /** in the plan's payout currency */
  amount: z.string({ message: "invalid_amount" }).regex(DECIMAL_RE, { message: "invalid_amount" }),
  /** the pool's payout id or the transaction hash */
  evidence: z.string({ message: "mining_evidence" }).trim().refine(singleLineText, TEXT_CHARS).min(4, { message: "mining_evidence" }).max(200, { message: "mining_evidence" }),
  reason,
});

export const miningPayoutDecideSchema = z.object({ id, reason });

export const miningAdminPayoutsQuerySchema = z.object({
  status: z.enum(["recorded", "approved", "paid", "rejected", "all"], { message: "invalid_param" }).default("all"),
});

export const miningAdminPayoutSchema = miningPayoutSchema.extend({
  plan_name: z.string(),
  recorded_by: z.number().int(),
  recorded_at: z.number().int(),
  record_reason: z.string(),
  decided_by: z.number().int().nullable(),
  decided_at: z.number().int().nullable(),
  decide_reason: z.string(),
});
export type MiningAdminPayout = z.infer<typeof miningAdminPayoutSchema>;
export const miningAdminPayoutsSchema = z.array(miningAdminPayoutSchema);

// The payout rule and the break-even calculator live in ./mining-calc.ts (no zod: the screens import it alone).
export * from "./mining-calc.ts";
