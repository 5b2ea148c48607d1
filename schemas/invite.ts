/**
 * Invitation rebates (issue #18 §2–§3): a published share of the fees that one's invitees really
 * paid, for three invite levels, plus an agent level's extra share on direct invitees' fees.
 * Amounts are decimal strings, rates decimal strings ("0.20" = 20 %), times epoch milliseconds,
 * days Beijing calendar days "YYYY-MM-DD". Lists take `page`/`limit` and answer `{total, data}`
 * like GET /api/notifications.
 *
 *   GET  /api/invite/info                 (session) → inviteInfoSchema
 *   GET  /api/invite/team?page=&level=    (session) inviteTeamQuerySchema → inviteTeamPageSchema
 *   GET  /api/invite/rebates?page=        (session) inviteRebateQuerySchema → inviteRebatePageSchema
 *   GET  /api/invite/terms                (public)  → inviteTermsSchema
 *   GET  /api/admin/invite/settings       (operator) → adminInviteSettingsSchema
 *   POST /api/admin/invite/settings       (operator, audited) inviteSettingsEditSchema → adminInviteSettingsSchema
 *   GET  /api/admin/invite/runs?page=     (operator) inviteRunQuerySchema → inviteRunPageSchema
 *   POST /api/admin/invite/run            (operator, audited) inviteRunRequestSchema → inviteRunSchema
 */
import { z } from "zod";
import { idInput, intInput, limitInput, multiLineText, pageInput, TEXT_CHARS } from "./strict.ts";

/** Products whose fees count (each fee movement of the ledger maps to one). */
export const inviteProducts = ["spot", "seconds", "lever", "conversion", "c2c"] as const;
export const inviteProductSchema = z.enum(inviteProducts);
export type InviteProduct = z.infer<typeof inviteProductSchema>;

export const inviteLevels = [1, 2, 3] as const;
export const inviteLevelSchema = z.union([z.literal(1), z.literal(2), z.literal(3)]);
export type InviteLevel = z.infer<typeof inviteLevelSchema>;
export const agentLevelSchema = z.number().int().min(0).max(5);

/** The most that all level rates plus the highest agent extra share may add up to. */
export const MAX_TOTAL_RATE = "0.30";
/** Months after the invitee's registration during which their fees pay a rebate. */
export const REBATE_MONTHS = 12;
/** The identity verification level an invitee needs before their fees earn anyone a rebate (the spec's level 2). */
export const REBATE_KYC_LEVEL = 2;

/** A rate as a decimal fraction, "0" – "1" with at most 4 decimals ("0.2", "0.005"). */
export const rateStringSchema = z.string({ message: "invalid_rate" }).regex(/^(0(\.\d{1,4})?|1(\.0{1,4})?)$/, { message: "invalid_rate" });
/** A Beijing calendar day "YYYY-MM-DD". */
export const daySchema = z
  .string({ message: "invalid_day" })
  .regex(/^\d{4}-\d{2}-\d{2}$/, { message: "invalid_day" })
  .refine((d) => !Number.isNaN(Date.parse(`${d}T00:00:00Z`)) && new Date(`${d}T00:00:00Z`).toISOString().slice(0, 10) === d, { message: "invalid_day" });
/** A whole USDT threshold, e.g. "1000" (decimals allowed up to 2). */
const usdtAmountSchema = z.string({ message: "invalid_amount" }).regex(/^\d{1,12}(\.\d{1,2})?$/, { message: "invalid_amount" });

export const levelRateSchema = z.object({ level: inviteLevelSchema, rate: z.string() });
export const agentLevelRowSchema = z.object({ level: z.number().int().min(1).max(5), threshold_usdt: z.string(), extra_rate: z.string() });

// ---- user endpoints ----

/** GET /api/invite/info */
export const inviteInfoSchema = z.object({
  /** one's own invite code (users.extension_code) */
  code: z.string(),
  /** the registration link with the code, e.g. "https://host/#/register?code=AB12CD" */
  link: z.string(),
  /** today's level rates */
  level_rates: z.array(levelRateSchema),
  /** 0 = no agent level yet */
  agent_level: agentLevelSchema,
  /** the extra share on level-1 fees at one's agent level ("0" at level 0) */
  agent_rate: z.string(),
  /** the next agent level and how far one is from it; null at level 5 */
  agent_next: z
    .object({ level: z.number().int().min(1).max(5), threshold_usdt: z.string(), fees_30d_usdt: z.string(), extra_rate: z.string() })
    .nullable(),
  /** fees (USDT) paid by one's invitees of levels 1–3 over the last 30 settled days */
  fees_30d_usdt: z.string(),
  invitees: z.object({
    total: z.number().int(),
    /** with identity verified at level 2 (the spec: invitees must pass level 2 verification to earn their inviter a rebate) */
    verified: z.number().int(),
    level1: z.number().int(),
    level2: z.number().int(),
    level3: z.number().int(),
  }),
  /** all rebates ever paid to one, USDT */
  earned_usdt: z.string(),
  months: z.number().int(),
});
export type InviteInfo = z.infer<typeof inviteInfoSchema>;

export const inviteTeamQuerySchema = z.object({
  page: pageInput(),
  limit: limitInput(50, 20),
  /** only one level; all three when absent */
  level: intInput({ message: "invalid_param" }).pipe(inviteLevelSchema).optional(),
});

/**
 * Why a team member does or does not earn one a rebate: "eligible"; "unverified" (identity not yet
 * verified at level 2); "same_identity" (verified with the same identity as an inviter up the chain: pays
 * nothing, for good); "expired" (more than 12 months since their registration).
 */
export const inviteeStatusSchema = z.enum(["eligible", "unverified", "same_identity", "expired"]);
export type InviteeStatus = z.infer<typeof inviteeStatusSchema>;

export const inviteTeamMemberSchema = z.object({
  /** masked, e.g. "de***@exchange.test" or "138****5678" */
  account: z.string(),
  level: inviteLevelSchema,
  /** registration time */
  joined_at: z.number().int(),
  /** verified at the level rebates need (kyc_level >= kyc_level_needed) */
  verified: z.boolean(),
  /** the identity verification level approved for this member: 0 none, 1 name and document, 2 pictures too */
  kyc_level: z.number().int().min(0).max(2),
  /** the level rebates need (REBATE_KYC_LEVEL) */
  kyc_level_needed: z.number().int(),
  status: inviteeStatusSchema,
  /** fees (USDT) this member paid that counted for one's rebates, all settled days (= fees_counted_usdt) */
  fees_usdt: z.string(),
  /** every fee this member paid on settled days, valued in USDT at the day's reference (the index ticks' median) */
  fees_paid_usdt: z.string(),
  /** the part of them that counted for one's rebates (valued the same way) */
  fees_counted_usdt: z.string(),
});
export type InviteTeamMember = z.infer<typeof inviteTeamMemberSchema>;
export const inviteTeamPageSchema = z.object({ total: z.number().int(), data: z.array(inviteTeamMemberSchema) });
export type InviteTeamPage = z.infer<typeof inviteTeamPageSchema>;

export const inviteRebateQuerySchema = z.object({
  page: pageInput(),
  limit: limitInput(50, 20),
});

/** One rebate line: what one invitee's fees of one product on one day paid one. */
export const inviteRebateSchema = z.object({
  day: z.string(),
  level: inviteLevelSchema,
  /** masked account of the invitee */
  invitee: z.string(),
  product: inviteProductSchema,
  /** the fees valued in USDT at the day's close */
  fee_usdt: z.string(),
  /** the rate applied (on level 1: level rate + agent extra) */
  rate: z.string(),
  /** of `rate`, the agent level's extra share ("0" when none) */
  agent_rate: z.string(),
  amount: z.string(),
  currency: z.literal("USDT"),
  paid_to: z.enum(["lever", "change"]),
  created_at: z.number().int(),
});
export type InviteRebate = z.infer<typeof inviteRebateSchema>;
export const inviteRebatePageSchema = z.object({ total: z.number().int(), data: z.array(inviteRebateSchema) });
export type InviteRebatePage = z.infer<typeof inviteRebatePageSchema>;

/** GET /api/invite/terms (public) */
export const inviteTermsSchema = z.object({
  level_rates: z.array(levelRateSchema),
  agent_levels: z.array(agentLevelRowSchema),
  months: z.number().int(),
  max_total_rate: z.string(),
  /** the products whose fees count */
  products: z.array(inviteProductSchema),
  /** the Beijing day from which these rates apply */
  effective_from: z.string(),
  /** rates an operator set that apply from a later day, if any */
  next: z.object({ level_rates: z.array(levelRateSchema), agent_levels: z.array(agentLevelRowSchema), effective_from: z.string() }).nullable(),
});
export type InviteTerms = z.infer<typeof inviteTermsSchema>;

// ---- operator console ----

export const inviteSettingsSchema = z.object({
  level_rates: z.array(levelRateSchema),
  agent_levels: z.array(agentLevelRowSchema),
  effective_from: z.string(),
  updated_at: z.number().int(),
});
export type InviteSettings = z.infer<typeof inviteSettingsSchema>;

/** GET|POST /api/admin/invite/settings: today's settings and the ones set for a later day. */
export const adminInviteSettingsSchema = z.object({
  current: inviteSettingsSchema,
  next: inviteSettingsSchema.nullable(),
  max_total_rate: z.string(),
});
export type AdminInviteSettings = z.infer<typeof adminInviteSettingsSchema>;

/**
 * POST /api/admin/invite/settings: the three level rates and the five agent levels (thresholds
 * rising, extra shares not falling); level rates + highest extra share ≤ 0.30. Takes effect from
 * the next Beijing day. Audited with the reason.
 */
export const inviteSettingsEditSchema = z.object({
  level_rates: z
    .array(z.object({ level: intInput({ message: "invalid_param" }).pipe(inviteLevelSchema), rate: rateStringSchema }))
    .length(3, { message: "invalid_param" }),
  agent_levels: z
    .array(
      z.object({
        level: idInput({ message: "invalid_param", max: 5 }),
        threshold_usdt: usdtAmountSchema,
        extra_rate: rateStringSchema,
      }),
    )
    .length(5, { message: "invalid_param" }),
  reason: z.string({ message: "reason_required" }).trim().refine(multiLineText, TEXT_CHARS).min(1, { message: "reason_required" }).max(500),
});
export type InviteSettingsEdit = z.infer<typeof inviteSettingsEditSchema>;

export const inviteRunStatusSchema = z.enum(["running", "done"]);

/** One day's settlement run (the report the console shows). */
export const inviteRunSchema = z.object({
  day: z.string(),
  status: inviteRunStatusSchema,
  /** inviters paid so far */
  inviters_paid: z.number().int(),
  /** total paid, USDT */
  total_paid_usdt: z.string(),
  /** fees counted (invitees' fees of the day with a rebate-eligible inviter), USDT */
  fees_counted_usdt: z.string(),
  /** invocations (cron or console) that worked on this day */
  invocations: z.number().int(),
  /** D1 statements they ran */
  statements: z.number().int(),
  started_at: z.number().int(),
  finished_at: z.number().int().nullable(),
});
export type InviteRun = z.infer<typeof inviteRunSchema>;

export const inviteRunQuerySchema = z.object({
  page: pageInput(),
  limit: limitInput(50, 20),
});
export const inviteRunPageSchema = z.object({ total: z.number().int(), data: z.array(inviteRunSchema) });
export type InviteRunPage = z.infer<typeof inviteRunPageSchema>;

/** POST /api/admin/invite/run: settle a past Beijing day now (idempotent; audited). */
export const inviteRunRequestSchema = z.object({
  day: daySchema,
  reason: z.string({ message: "reason_required" }).trim().refine(multiLineText, TEXT_CHARS).min(1, { message: "reason_required" }).max(500),
});
export type InviteRunRequest = z.infer<typeof inviteRunRequestSchema>;
