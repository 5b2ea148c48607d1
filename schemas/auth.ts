/**
 * Accounts and sessions (spec §3 register payload, §5 validation). Shared by the web forms and
 * the worker routes; messages are catalogue keys (schemas/errors.ts).
 */
import { z } from "zod";
import { idInput, secretInput, singleLineText, TEXT_CHARS, textInput } from "./strict.ts";

export const EMAIL_RE = /^[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9.-]{1,180}\.[A-Za-z]{2,24}$/;
export const PHONE_RE = /^\d{5,20}$/;

/** Account kinds: 1 e-mail, 2 phone (spec: mode 2 for phone-like, 1 otherwise). */
export function accountMode(account: string): 1 | 2 | null {
  const a = account.trim();
  if (PHONE_RE.test(a)) return 2;
  if (EMAIL_RE.test(a)) return 1;
  return null;
}

/** Lower-cases e-mails and trims; phones are kept as digits. */
export function normaliseAccount(account: string): string {
  return account.trim().toLowerCase();
}

export const accountSchema = z
  .string({ message: "account_required" })
  .trim()
  .refine(singleLineText, TEXT_CHARS)
  .min(1, { message: "account_required" })
  .max(254, { message: "account_format" })
  .refine((a) => accountMode(a) !== null, { message: "account_format" })
  .transform(normaliseAccount);

export const emailSchema = z
  .string({ message: "email_required" })
  .trim()
  .refine(singleLineText, TEXT_CHARS)
  .max(254, { message: "email_required" })
  .regex(EMAIL_RE, { message: "email_required" })
  .transform(normaliseAccount);

/**
 * New passwords: 8-64 characters with at least one letter and one digit; any other printable
 * characters (spaces, symbols, any script) are allowed. The worker also refuses the most common
 * leaked passwords (worker/domain/auth/password-policy.ts). Existing shorter passwords still sign in.
 */
export const NEW_PASSWORD_MIN = 8;
export const NEW_PASSWORD_MAX = 64;
export const newPasswordSchema = z
  .string({ message: "password_rule" })
  .refine((p) => [...p].length >= NEW_PASSWORD_MIN && [...p].length <= NEW_PASSWORD_MAX, { message: "password_rule" })
  .refine((p) => /\p{L}/u.test(p) && /\d/.test(p) && !/\p{Cc}/u.test(p), { message: "password_rule" })
  .refine(singleLineText, TEXT_CHARS);

/** Login passwords: only the minimum length is checked before the hash comparison. */
export const loginPasswordSchema = secretInput(z
  .string({ message: "password_short" })
  .min(6, { message: "password_short" })
  .max(128, { message: "login_failed" }));

export const inviteCodeSchema = z
  .string()
  .trim()
  .refine(singleLineText, TEXT_CHARS)
  .max(16, { message: "invite_invalid" })
  .regex(/^[A-Za-z0-9]*$/, { message: "invite_invalid" })
  .transform((s) => s.toUpperCase());

export const countryCodeSchema = z
  .union([z.number().int().min(0).max(9999), z.string().regex(/^\+?\d{1,4}$/)], { message: "invalid_field" })
  .transform((v) => String(v).replace(/^\+/, ""));

export const checkAccountSchema = z.object({
  mode: idInput({ max: 2 }).optional(),
  account: accountSchema,
});

export const registerSchema = z
  .object({
    type: idInput({ max: 2 }).optional(),
    user_string: accountSchema,
    password: newPasswordSchema,
    re_password: z.string({ message: "password_mismatch" }).max(128),
    country_code: countryCodeSchema.default("86"),
    code_id: textInput(z.string({ message: "captcha_required" }).min(1, { message: "captcha_required" }).max(64)),
    code: z.string({ message: "captcha_required" }).trim().refine(singleLineText, TEXT_CHARS).min(1, { message: "captcha_required" }).max(16),
    extension_code: inviteCodeSchema.optional(),
  })
  .refine((v) => v.password === v.re_password, { message: "password_mismatch", path: ["re_password"] });
export type RegisterInput = z.input<typeof registerSchema>;

export const loginSchema = z.object({
  user_string: accountSchema,
  password: loginPasswordSchema,
  type: idInput({ max: 2 }).optional(),
});
export type LoginInput = z.input<typeof loginSchema>;

export const sendCodeSchema = z.object({
  user_string: emailSchema,
  type: z.literal("forget", { message: "invalid_field" }),
  lang: textInput(z.string().max(8)).optional(),
});

export const codeSchema = z.string({ message: "code_required" }).trim().regex(/^\d{6}$/, { message: "code_wrong" });

export const checkEmailSchema = z.object({
  user_string: emailSchema,
  email_code: codeSchema,
});

export const forgetSchema = z
  .object({
    account: emailSchema,
    password: newPasswordSchema,
    repassword: z.string({ message: "password_mismatch" }).max(128),
    code: codeSchema,
  })
  .refine((v) => v.password === v.repassword, { message: "password_mismatch", path: ["repassword"] });

export const updatePasswordSchema = z
  .object({
    oldpwd: secretInput(z.string({ message: "old_password_wrong" }).min(1, { message: "old_password_wrong" }).max(128)),
    newpwd: newPasswordSchema,
    repwd: z.string({ message: "password_mismatch" }).max(128),
  })
  .refine((v) => v.newpwd === v.repwd, { message: "password_mismatch", path: ["repwd"] });

/** GET /api/user/info */
export const userInfoSchema = z.object({
  id: z.number(),
  account: z.string(),
  extension_code: z.string(),
  is_seller: z.number(),
  review_status: z.number(),
  name: z.string().nullable(),
  role: z.enum(["user", "operator", "system"]),
  /** The e-mail or phone is proven with the code sent at registration (issue #29); until then no deposits, withdrawals, resets or API keys. */
  contact_verified: z.boolean(),
});
export type UserInfo = z.infer<typeof userInfoSchema>;

/** Login and register answers. */
export const sessionSchema = z.object({ token: z.string(), lastTime: z.number().nullable() });
export type Session = z.infer<typeof sessionSchema>;

/** POST /api/login/smscode: a captcha image (`code`, a data: URL of an SVG) and its id. */
export const captchaSchema = z.object({ code: z.string(), code_id: z.string() });
export type Captcha = z.infer<typeof captchaSchema>;

/** POST /api/new/check/account: the account is free; `mode` is 1 e-mail, 2 phone. */
export const accountCheckSchema = z.object({ mode: z.union([z.literal(1), z.literal(2)]).nullable() });
export type AccountCheck = z.infer<typeof accountCheckSchema>;

/** The one-word answers of logout ("ok"), code sending ("sent"), code check ("ok") and reset ("reset"). */
export const okWordSchema = z.literal("ok");
export const codeSentSchema = z.literal("sent");
export const passwordResetSchema = z.literal("reset");
