/**
 * Operator console contract (/api/admin/*): list filters, decisions with a reason, and two-operator
 * balance adjustments. Operators decide on deposits, withdrawals, identity submissions and
 * adjustments; nothing here can touch a trade, a price or a contract outcome.
 */
import { z } from "zod";
import { pageQuerySchema } from "./envelope.ts";
import { amountInputSchema, currencyIdSchema, walletAccountSchema } from "./wallet.ts";

export const adminListQuerySchema = pageQuerySchema.extend({
  status: z.coerce.number().int().min(0).max(5).optional(),
  user_id: z.coerce.number().int().optional(),
});

export const idParamSchema = z.object({ id: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER) });

/** A decision. Rejections (and chain failures) need a reason; approvals may carry one. */
export const decisionSchema = z.object({
  reason: z.string().trim().max(500).optional().default(""),
  txid: z.string().trim().max(128).regex(/^[A-Za-z0-9]*$/, { message: "invalid_field" }).optional().default(""),
});

/**
 * A balance adjustment request. user_id > 0 adjusts that user's account against the treasury;
 * user_id = -3 funds (+) or defunds (-) the treasury itself. amount is signed.
 */
export const adjustmentRequestSchema = z.object({
  user_id: z.union([z.number().int(), z.string().regex(/^-?\d{1,12}$/).transform(Number)], { message: "invalid_param" }),
  currency_id: currencyIdSchema,
  account: walletAccountSchema.optional().default("change"),
  amount: amountInputSchema,
  reason: z.string({ message: "reason_required" }).trim().min(1, { message: "reason_required" }).max(500),
});

export const userSearchQuerySchema = pageQuerySchema.extend({ q: z.string().trim().max(254).optional().default("") });

export const auditQuerySchema = pageQuerySchema.extend({
  operator_id: z.coerce.number().int().optional(),
  action: z.string().max(64).optional(),
  target_type: z.string().max(32).optional(),
  target_id: z.string().max(64).optional(),
});
