/**
 * Earn: savings (issue #19 §1, DESIGN §11). Operators publish products (a coin, flexible or a fixed
 * term of 7/30/90 days, an APR, per-user minimum and maximum, and a finite interest budget that the
 * treasury freezes when the product is created). Subscribing freezes the principal in the user's
 * own spot account and reserves the position's interest from the budget at once; the daily cron
 * accrues amount × APR / 365 (rounded down to the unit) once per position and day.
 *
 * Amounts are decimal strings in the product's coin; the APR is a decimal string in percent
 * ("5.25") and, exactly, `apr_bps` (525); days are UTC calendar days "YYYY-MM-DD"; times ms.
 *
 *   GET  /api/earn/products                 (public; `my_open` with a session) → earnProductListSchema
 *   POST /api/earn/subscribe                (session) earnSubscribeSchema → earnPositionSchema
 *   GET  /api/earn/positions                (session) → earnPositionListSchema
 *   POST /api/earn/redeem                   (session) earnRedeemSchema → earnPositionSchema
 *   GET  /api/admin/earn/products           (operator) → earnAdminProductListSchema
 *   POST /api/admin/earn/products           (operator, audited) earnProductCreateSchema → earnAdminProductListSchema
 *   POST /api/admin/earn/close              (operator, audited) earnProductCloseSchema → earnAdminProductListSchema
 */
import { z } from "zod";
import { idInput, intInput, multiLineText, TEXT_CHARS } from "./strict.ts";
import { decimalStringSchema } from "./money.ts";

/** The fixed terms on offer; 0 is flexible (redeem any time). */
export const earnTerms = [0, 7, 30, 90] as const;
export const earnTermSchema = z.union([z.literal(0), z.literal(7), z.literal(30), z.literal(90)], { message: "earn_term" });
export type EarnTerm = z.infer<typeof earnTermSchema>;

/**
 * A flexible position always has this many days of interest reserved ahead: the days it is paid
 * are reserved again from the budget while the budget lasts; when it cannot be, the reserve runs
 * down and interest stops once it is used up (the principal stays redeemable at once).
 */
export const FLEX_RESERVE_DAYS = 30;

const id = idInput({ message: "invalid_param" });

/** An APR in percent, 0.01 – 100 with at most 2 decimals ("5", "5.25"): basis points exactly, never a float. */
export const aprStringSchema = z
  .string({ message: "earn_apr" })
  .regex(/^\d{1,3}(\.\d{1,2})?$/, { message: "earn_apr" });

/** "5.25" → 525 (the schema above guarantees the shape). */
export function aprToBps(apr: string): number {
  const [i, f = ""] = apr.trim().split(".");
  return Number(i) * 100 + Number(f.padEnd(2, "0"));
}
/** 525 → "5.25" */
export function bpsToApr(bps: number): string {
  return `${Math.floor(bps / 100)}.${String(bps % 100).padStart(2, "0")}`;
}

// ---- user endpoints ----

export const earnProductSchema = z.object({
  id: z.number().int(),
  currency_id: z.number().int(),
  currency: z.string(),
  /** the coin's scale: amounts have at most this many decimals */
  scale: z.number().int(),
  /** 0 = flexible */
  term_days: z.number().int(),
  kind: z.enum(["flexible", "fixed"]),
  /** percent a year, "5.25" */
  apr: z.string(),
  apr_bps: z.number().int(),
  /** per subscription */
  min_amount: z.string(),
  /** one user's open positions in this product together */
  max_amount: z.string(),
  /** the interest budget frozen from the treasury's reserved marketing budget when the product was created */
  budget: z.string(),
  /** what new subscriptions can still be promised: budget − reserved − paid − released */
  remaining: z.string(),
  /** interest promised to open positions and not yet paid */
  reserved: z.string(),
  /** interest paid so far */
  paid: z.string(),
  /** the largest new subscription the remaining budget can cover (its interest reserve), never above max_amount */
  budget_covers: z.string(),
  /** days of interest a flexible position keeps reserved ahead (FLEX_RESERVE_DAYS); 0 for fixed */
  reserve_days: z.number().int(),
  status: z.enum(["open", "closed"]),
  /** the caller's open principal in it ("0" without a session) */
  my_open: z.string(),
  created_at: z.number().int(),
});
export type EarnProduct = z.infer<typeof earnProductSchema>;
export const earnProductListSchema = z.array(earnProductSchema);

/** POST /api/earn/subscribe */
export const earnSubscribeSchema = z.object({ product_id: id, amount: decimalStringSchema });
export type EarnSubscribe = z.infer<typeof earnSubscribeSchema>;
/** POST /api/earn/redeem */
export const earnRedeemSchema = z.object({ position_id: id });

export const earnPositionSchema = z.object({
  id: z.number().int(),
  product_id: z.number().int(),
  currency_id: z.number().int(),
  currency: z.string(),
  term_days: z.number().int(),
  kind: z.enum(["flexible", "fixed"]),
  apr: z.string(),
  apr_bps: z.number().int(),
  /** the principal: frozen in one's own spot account while open */
  amount: z.string(),
  /** interest of one full day */
  daily: z.string(),
  /** interest accrued so far */
  earned: z.string(),
  /** the part of it paid into one's spot account (flexible: daily; fixed: at maturity) */
  paid: z.string(),
  /** interest reserved for it in the budget and not yet paid */
  reserved: z.string(),
  /** interest days accrued */
  days: z.number().int(),
  /** the UTC day the first interest day starts on (the subscription's; each interest day is 24 hours of holding from the subscription) */
  first_day: z.string(),
  /** fixed: the UTC day principal + interest are paid (the day of matures_at); null for flexible */
  maturity_day: z.string().nullable(),
  /** fixed: when the last interest day ends (term × 24 hours after subscribing); principal + interest are paid by the next run; null for flexible */
  matures_at: z.number().int().nullable(),
  status: z.enum(["open", "redeemed", "matured"]),
  created_at: z.number().int(),
  closed_at: z.number().int().nullable(),
});
export type EarnPosition = z.infer<typeof earnPositionSchema>;
export const earnPositionListSchema = z.array(earnPositionSchema);

// ---- operator console ----

export const earnAdminProductSchema = earnProductSchema.extend({
  released: z.string(),
  open_positions: z.number().int(),
  open_principal: z.string(),
  created_by: z.number().int(),
  closed_by: z.number().int().nullable(),
  closed_at: z.number().int().nullable(),
});
export const earnAdminProductListSchema = z.array(earnAdminProductSchema);

const reason = z.string({ message: "reason_required" }).trim().refine(multiLineText, TEXT_CHARS).min(1, { message: "reason_required" }).max(500);

/** POST /api/admin/earn/products: amounts in the coin, decimal strings. */
export const earnProductCreateSchema = z.object({
  currency_id: id,
  term_days: intInput({ message: "earn_term" }).pipe(earnTermSchema),
  apr: aprStringSchema.refine((v) => aprToBps(v) >= 1 && aprToBps(v) <= 10000, { message: "earn_apr" }),
  min_amount: decimalStringSchema,
  max_amount: decimalStringSchema,
  budget: decimalStringSchema,
  reason,
});
export type EarnProductCreate = z.infer<typeof earnProductCreateSchema>;

/** POST /api/admin/earn/close */
export const earnProductCloseSchema = z.object({ product_id: id, reason });
