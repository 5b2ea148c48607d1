/**
 * Operator console contract (/api/admin/*): list filters, decisions with a reason, and two-operator
 * balance adjustments. Operators decide on deposits, withdrawals, identity submissions and
 * adjustments; nothing here can touch a trade, a price or a contract outcome.
 */
import { z } from "zod";
import { idInput, intInput, multiLineText, singleLineText, TEXT_CHARS } from "./strict.ts";
import { depositStatusSchema } from "./deposit.ts";
import { pageQuerySchema, pageSchema } from "./envelope.ts";
import { withdrawalStatusSchema } from "./withdrawal.ts";
import { amountInputSchema, currencyIdSchema, walletAccountSchema } from "./wallet.ts";

export const adminListQuerySchema = pageQuerySchema.extend({
  status: intInput({ max: 5 }).optional(),
  user_id: intInput({ min: -Number.MAX_SAFE_INTEGER }).optional(),
});

export const idParamSchema = z.object({ id: idInput() });
/** Path of POST /api/admin/withdrawals/:id/:action. */
export const withdrawalActionParamSchema = z.object({ id: idInput(), action: z.enum(["approve", "reject", "chain-success", "chain-failure"]) });

export const TXID_MIN = 8;
export const TXID_MAX = 128;

/** A decision. Rejections (and chain failures) need a reason; approvals may carry one. */
export const decisionSchema = z.object({
  reason: z.string().trim().refine(multiLineText, TEXT_CHARS).max(500).optional().default(""),
  txid: z.string({ message: "txid_invalid" }).trim().refine(singleLineText, TEXT_CHARS).max(TXID_MAX, { message: "txid_invalid" }).regex(/^[A-Za-z0-9]*$/, { message: "txid_invalid" }).optional().default(""),
});

/**
 * The transaction id that marks a withdrawal sent on chain (required there): letters and digits,
 * TXID_MIN to TXID_MAX of them once trimmed (a chain's hash is 64 hex digits, "0x"-prefixed on some).
 */
export const chainTxidSchema = z
  .string({ message: "txid_required" })
  .trim()
  .refine(singleLineText, TEXT_CHARS)
  .min(1, { message: "txid_required" })
  .min(TXID_MIN, { message: "txid_invalid" })
  .max(TXID_MAX, { message: "txid_invalid" })
  .regex(/^[A-Za-z0-9]+$/, { message: "txid_invalid" });

/**
 * A balance adjustment request. user_id > 0 adjusts that user's account against the treasury;
 * user_id = -3 funds (+) or defunds (-) the treasury itself. amount is signed.
 */
export const adjustmentRequestSchema = z.object({
  user_id: z.union([z.number().int(), z.string().regex(/^-?\d{1,12}$/).transform(Number)], { message: "invalid_param" }),
  currency_id: currencyIdSchema,
  account: walletAccountSchema.optional().default("change"),
  amount: amountInputSchema,
  reason: z.string({ message: "reason_required" }).trim().refine(multiLineText, TEXT_CHARS).min(1, { message: "reason_required" }).max(500),
});

export const userSearchQuerySchema = pageQuerySchema.extend({ q: z.string().trim().refine(singleLineText, TEXT_CHARS).max(254).optional().default("") });

export const auditQuerySchema = pageQuerySchema.extend({
  operator_id: intInput({ min: -Number.MAX_SAFE_INTEGER }).optional(),
  action: z.string().max(64).optional(),
  target_type: z.string().max(32).optional(),
  target_id: z.string().max(64).optional(),
});

// ── Answers of the console ─────────────────────────────────────────────────────────────────────
// Lists are classic answers with the page shape `{ total, lists }`.

const id = z.number().int();
const operatorId = z.number().int().nullable();

export const adminDepositSchema = z.object({
  id,
  user_id: id,
  account: z.string(),
  currency_id: id,
  currency_name: z.string(),
  amount: z.string(),
  address: z.string(),
  network: z.string(),
  hash: z.string(),
  pic: z.string().nullable(),
  status: depositStatusSchema,
  status_text: z.string(),
  reason: z.string(),
  reviewed_by: operatorId,
  reviewed_at: z.string().nullable(),
  /** Worth more than the two-operator limit: credited only on a second, different operator's approval. */
  needs_second: z.boolean(),
  first_approved_by: operatorId,
  awaiting_second_approval: z.boolean(),
  /** The viewing operator gave the first approval: the second must come from someone else. */
  approved_first_by_you: z.boolean(),
  /** The claim is the viewing operator's own: they may not decide it. */
  own: z.boolean(),
  time_format: z.string(),
});
export type AdminDeposit = z.infer<typeof adminDepositSchema>;
export const adminDepositPageSchema = pageSchema(adminDepositSchema);

export const adminWithdrawalSchema = z.object({
  id,
  user_id: id,
  account: z.string(),
  currency_id: id,
  currency_name: z.string(),
  network: z.number().int(),
  network_name: z.string(),
  address: z.string(),
  memo: z.string(),
  number: z.string(),
  charge: z.string(),
  total: z.string(),
  status: withdrawalStatusSchema,
  status_text: z.string(),
  reason: z.string(),
  txid: z.string(),
  reviewed_by: operatorId,
  settled_by: operatorId,
  own: z.boolean(),
  time_format: z.string(),
});
export type AdminWithdrawal = z.infer<typeof adminWithdrawalSchema>;
export const adminWithdrawalPageSchema = pageSchema(adminWithdrawalSchema);

export const adminKycSchema = z.object({
  id,
  user_id: id,
  account: z.string(),
  level: z.number().int(),
  name: z.string().nullable(),
  type: z.number().int().nullable(),
  card_id: z.string().nullable(),
  front_pic: z.string().nullable(),
  reverse_pic: z.string().nullable(),
  hand_pic: z.string().nullable(),
  asset_pic: z.string().nullable(),
  asset_btc: z.string().nullable(),
  status: z.number().int(),
  reason: z.string(),
  reviewed_by: operatorId,
  own: z.boolean(),
  time_format: z.string(),
});
export type AdminKyc = z.infer<typeof adminKycSchema>;
export const adminKycPageSchema = pageSchema(adminKycSchema);

/** A decision's result: the record and its new status. */
export const decisionResultSchema = z.object({ id, status: z.number().int() });
/** A deposit decision: a first approval above the limit leaves it pending, awaiting a second operator. */
export const depositDecisionSchema = decisionResultSchema.extend({ awaiting_second_approval: z.boolean() });
export type DecisionResult = z.infer<typeof decisionResultSchema>;

export const adminUserRowSchema = z.object({
  id,
  account: z.string(),
  role: z.string(),
  review_status: z.number().int(),
  real_name: z.string().nullable(),
  locked: z.number().int(),
  created_at: z.string(),
});
export type AdminUserRow = z.infer<typeof adminUserRowSchema>;
export const adminUserPageSchema = pageSchema(adminUserRowSchema);

export const adminBalanceSchema = z.object({ currency_id: id, currency_name: z.string(), account: z.string(), available: z.string(), frozen: z.string() });

/** GET /api/admin/users/{id} (viewing it is audited). */
export const adminUserDetailSchema = z.object({
  user: adminUserRowSchema.extend({ has_fund_password: z.boolean(), kyc_level: z.number().int() }),
  bank: z.object({ real_name: z.string(), bank_account: z.string(), bank_name: z.string(), bank_branch: z.string() }).nullable(),
  balances: z.array(adminBalanceSchema),
});
export type AdminUserDetail = z.infer<typeof adminUserDetailSchema>;

export const ledgerRowSchema = z.object({
  id,
  movement_key: z.string(),
  kind: z.string(),
  currency_id: id,
  currency_name: z.string(),
  account: z.string(),
  d_available: z.string(),
  d_frozen: z.string(),
  memo: z.string(),
  time_format: z.string(),
});
export type LedgerRow = z.infer<typeof ledgerRowSchema>;
export const ledgerPageSchema = pageSchema(ledgerRowSchema);

/** GET /api/admin/treasury: balances of the system accounts (user ids ≤ 0). */
export const treasuryRowSchema = adminBalanceSchema.extend({ system_account: z.string(), user_id: id });
export const treasurySchema = z.array(treasuryRowSchema);

export const adjustmentSchema = z.object({
  id,
  user_id: id,
  user_account: z.string().nullable(),
  currency_id: id,
  currency_name: z.string(),
  account: z.string(),
  amount: z.string(),
  reason: z.string(),
  /** 0 waiting for a second operator, 1 applied, 2 rejected. */
  status: z.number().int(),
  requested_by: id,
  decided_by: operatorId,
  decision_reason: z.string(),
  time_format: z.string(),
  decided_at: z.string().nullable(),
});
export type Adjustment = z.infer<typeof adjustmentSchema>;
export const adjustmentPageSchema = pageSchema(adjustmentSchema);

/** POST /api/admin/adjustments: waiting for a second operator. */
export const adjustmentRequestedSchema = z.object({ id, status: z.literal(0), amount: z.string() });

export const auditRowSchema = z.object({
  id,
  operator_id: id,
  operator_account: z.string().nullable(),
  action: z.string(),
  target_type: z.string(),
  target_id: z.string(),
  reason: z.string(),
  /** The action's details as recorded (JSON), or null. */
  detail: z.unknown(),
  created_at: z.number(),
  time_format: z.string(),
  /** The user the action concerned (the reviewed record's owner, or the target user). */
  subject: z.object({ id, account: z.string() }).nullable(),
  /** The amount it moved or was about, as a decimal with its currency. */
  amount: z.object({ value: z.string(), currency: z.string() }).nullable(),
  /** The wallet account of an adjustment (change, micro, legal, lever). */
  wallet_account: z.string().nullable(),
  /** Accounts of the user ids the row names (subject, requester, first approver), by id. */
  accounts: z.record(z.string(), z.string()),
});
export type AuditRow = z.infer<typeof auditRowSchema>;
export const auditPageSchema = pageSchema(auditRowSchema);

/** One difference the reconciler found: which check, and the figures that disagree. */
export const differenceSchema = z.object({ check: z.string() }).catchall(z.union([z.string(), z.number()]));

export const reconcileStatsSchema = z.object({
  ledger_rows: z.number().int(),
  movements: z.number().int(),
  balance_rows: z.number().int(),
  open_holds: z.number().int(),
  hold_sources: z.array(z.string()),
});

/** GET /api/admin/reconcile: a fresh run, recorded as a report. */
export const reconcileResultSchema = z.object({
  ok: z.boolean(),
  checked_at: z.number(),
  differences: z.array(differenceSchema),
  stats: reconcileStatsSchema,
  report_id: id,
});
export type ReconcileResult = z.infer<typeof reconcileResultSchema>;

export const reconcileReportSchema = z.object({
  id,
  ok: z.boolean(),
  source: z.string(),
  differences: z.unknown(),
  stats: z.unknown(),
  time_format: z.string(),
});
export const reconcileReportPageSchema = pageSchema(reconcileReportSchema);
