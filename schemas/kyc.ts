/**
 * Identity verification and account security (spec §3 identity and bank fields, §4 verification
 * states, §5 identity, bank card and fund password rules). Shared by the web forms and the worker.
 */
import { z } from "zod";
import { intInput, secretInput, singleLineText, TEXT_CHARS } from "./strict.ts";

/** review_status on the user (spec §4, plus the rejected state the spec shows as a label). */
export const reviewStatus = { none: 0, pending: 1, approved: 2, rejected: 3 } as const;

/** Document types: 1 ID card, 2 driver licence, 3 passport. */
export const documentTypeSchema = intInput({ message: "invalid_param" }).pipe(z.union([z.literal(1), z.literal(2), z.literal(3)], { message: "invalid_param" }));

/** A real name: no digits (spec §5), no control characters. */
export const realNameSchema = z
  .string()
  .trim()
  .refine(singleLineText, TEXT_CHARS)
  .min(1, { message: "missing_field" })
  .max(64)
  // Control characters are matched on purpose: a name must not contain them.
  // eslint-disable-next-line no-control-regex
  .regex(/^[^\d\uff10-\uff19\u0000-\u001f\u007f]+$/, { message: "name_no_digits" });

/** A document number: letters, digits and dashes; hence no Chinese characters (spec §5). */
export const cardIdSchema = z
  .string()
  .trim()
  .refine(singleLineText, TEXT_CHARS)
  .regex(/^[A-Za-z0-9-]{4,32}$/, { message: "card_id_invalid" });

const pic = z.string().trim().refine(singleLineText, TEXT_CHARS).max(200).optional();

/**
 * POST /api/user/real_name. `level` is optional: it defaults to the highest level whose fields are
 * present. Level 1: name, type, card_id. Level 2: front_pic, reverse_pic, hand_pic.
 * Level 3: asset_pic (and assets above the published threshold in BTC).
 */
export const identityFormSchema = z.object({
  level: intInput({ message: "invalid_param" }).pipe(z.union([z.literal(1), z.literal(2), z.literal(3)], { message: "invalid_param" })).optional(),
  name: realNameSchema.optional(),
  type: documentTypeSchema.optional(),
  card_id: cardIdSchema.optional(),
  front_pic: pic,
  reverse_pic: pic,
  hand_pic: pic,
  asset_pic: pic,
});
export type IdentityForm = z.infer<typeof identityFormSchema>;

/** The Luhn checksum of a card number (digits only). */
export function luhnValid(digits: string): boolean {
  if (!/^\d+$/.test(digits)) return false;
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}

/** A bank card number: spaces and dashes are dropped, 12-19 digits, Luhn-valid (card_invalid). */
export const bankCardNumberSchema = z
  .union([z.string(), z.number()], { message: "card_invalid" })
  .transform((v) => String(v).replace(/[\s-]/g, ""))
  .pipe(z.string().regex(/^\d{12,19}$/, { message: "card_invalid" }).refine(luhnValid, { message: "card_invalid" }));

/** POST /api/user/cash_save. bank_name may be left empty when the card's bank is known. */
export const bankCardSchema = z.object({
  real_name: realNameSchema,
  bank_account: bankCardNumberSchema,
  bank_name: z.string().trim().refine(singleLineText, TEXT_CHARS).max(64).optional().default(""),
  bank_branch: z.string().trim().refine(singleLineText, TEXT_CHARS).max(100).optional().default(""),
});

/** Fund password: exactly 6 digits (spec §5). */
export const fundPasswordRuleSchema = z.string().regex(/^\d{6}$/, { message: "fund_password_rule" });

/**
 * POST /api/user/fund_password. Setting the first one needs the login password; changing it needs
 * the login password or the current fund password.
 */
export const fundPasswordSchema = z
  .object({
    fund_password: fundPasswordRuleSchema,
    re_fund_password: z.string().max(64).optional(),
    login_password: secretInput(z.string().max(128)).optional(),
    old_fund_password: secretInput(z.string().max(64)).optional(),
  })
  .refine((b) => b.re_fund_password === undefined || b.re_fund_password === b.fund_password, {
    message: "password_mismatch",
    path: ["re_fund_password"],
  });

export const totpCodeSchema = z.object({ code: z.string().trim().regex(/^\d{6}$/, { message: "totp_wrong" }) });

/** GET /api/user/bank_name?card= (on-blur autofill; a prefix of 6+ digits is enough). */
export const bankNameQuerySchema = z.object({
  card: z.string().transform((v) => v.replace(/[\s-]/g, "")).pipe(z.string().regex(/^\d{6,19}$/, { message: "card_invalid" })),
});

/** The receiving bank card as shown back (card number masked). */
export const bankCardViewSchema = z.object({ real_name: z.string(), bank_account: z.string(), bank_name: z.string(), bank_branch: z.string() });
export type BankCardView = z.infer<typeof bankCardViewSchema>;

/** GET /api/user/center: profile, identity state (card number masked) and security flags. */
export const userCenterSchema = z.object({
  id: z.number().int(),
  account: z.string(),
  extension_code: z.string(),
  is_seller: z.number().int(),
  /** 0 none, 1 under review, 2 approved, 3 rejected (spec §4). */
  review_status: z.number().int(),
  /** Highest approved level (0-3). */
  level: z.number().int(),
  /** The level of the submission waiting for review, if any. */
  pending_level: z.number().int().nullable(),
  /** Only once verified (review_status 2). */
  name: z.string().nullable(),
  /** 1 ID card, 2 driver licence, 3 passport. */
  type: z.number().int().nullable(),
  card_id: z.string().nullable(),
  rejection_reason: z.string().nullable(),
  bank: bankCardViewSchema.nullable(),
  has_fund_password: z.boolean(),
  totp_enabled: z.boolean(),
  created_at: z.string(),
});
export type UserCenter = z.infer<typeof userCenterSchema>;

/** POST /api/user/real_name */
export const identitySubmittedSchema = z.object({ level: z.number().int(), review_status: z.number().int(), submitted: z.literal(true) });
export type IdentitySubmitted = z.infer<typeof identitySubmittedSchema>;

/** GET /api/user/bank_name: the bank a card number belongs to, when known. */
export const bankLookupSchema = z.object({ bank_name: z.string().nullable(), valid: z.boolean() });
export type BankLookup = z.infer<typeof bankLookupSchema>;

/** POST /api/user/fund_password */
export const fundPasswordSetSchema = z.object({ has_fund_password: z.literal(true) });

/** POST /api/user/totp/enrol: the secret, its otpauth URI and a QR code (PNG data URL) of it. */
export const totpEnrolmentSchema = z.object({ secret: z.string(), uri: z.string(), qrcode: z.string() });
export type TotpEnrolment = z.infer<typeof totpEnrolmentSchema>;

/** POST /api/user/totp/confirm and /disable */
export const totpStateSchema = z.object({ totp_enabled: z.boolean() });
