/**
 * Account guards (issue #29): passkeys (WebAuthn), the second factor that confirms a withdrawal or a
 * security change, the anti-phishing code, the withdrawal whitelist, the settings lock and the
 * proof of the account's e-mail or phone.
 *
 *   POST /api/security/passkeys/options          → passkeyCreationOptionsSchema (WebAuthn JSON)
 *   POST /api/security/passkeys                  passkeyRegisterSchema → passkeySchema
 *   GET  /api/security/passkeys                  → passkeyListSchema
 *   POST /api/security/passkeys/{id}/delete      secondFactorSchema → deletedSchema
 *   POST /api/security/passkeys/confirm/options  → passkeyRequestOptionsSchema (a confirmation)
 *   POST /api/user/login/passkey/options         → passkeyRequestOptionsSchema (a sign-in)
 *   POST /api/user/login/passkey                 passkeyLoginSchema → session
 *   GET  /api/security/settings                  → securitySettingsSchema
 *   POST /api/security/anti_phishing             antiPhishingSchema → securitySettingsSchema
 *   POST /api/security/whitelist                 whitelistSchema → securitySettingsSchema
 *   POST /api/security/lock                      lockSchema → securitySettingsSchema
 *   GET  /api/user/verify_contact                → contactStateSchema
 *   POST /api/user/verify_contact                verifyContactSchema → contactStateSchema
 *   POST /api/user/verify_contact/resend         → contactStateSchema
 */
import { z } from "zod";
import { flagInput, intInput, lineText, singleLineText, TEXT_CHARS } from "./strict.ts";

/** A base64url field of a WebAuthn answer (bounded: nothing a real authenticator sends is longer). */
const b64url = (max: number) =>
  z
    .string()
    .max(max, { message: "passkey_invalid" })
    .regex(/^[A-Za-z0-9_-]*$/, { message: "passkey_invalid" });

/** The fields every WebAuthn answer has around its `response`. */
const credentialFields = {
  id: b64url(1400).min(16, { message: "passkey_invalid" }),
  rawId: b64url(1400),
  type: z.literal("public-key", { message: "passkey_invalid" }),
  authenticatorAttachment: z.enum(["platform", "cross-platform"]).optional(),
  /** Not used (no extensions are asked for); accepted as sent. */
  clientExtensionResults: z.unknown().optional(),
};

/** What `navigator.credentials.create()` answered, as @simplewebauthn/browser sends it. */
export const registrationResponseSchema = z.object({
  ...credentialFields,
  response: z.object({
    clientDataJSON: b64url(4096),
    attestationObject: b64url(16384),
    authenticatorData: b64url(8192).optional(),
    transports: z.array(z.string().max(20).refine(singleLineText, TEXT_CHARS)).max(8).optional(),
    publicKeyAlgorithm: z.number().int().optional(),
    publicKey: b64url(4096).optional(),
  }),
});

/** What `navigator.credentials.get()` answered. */
export const authenticationResponseSchema = z.object({
  ...credentialFields,
  response: z.object({
    clientDataJSON: b64url(4096),
    authenticatorData: b64url(8192),
    signature: b64url(2048),
    userHandle: b64url(512).optional(),
  }),
});
export type PasskeyAssertion = z.output<typeof authenticationResponseSchema>;

/**
 * The second factor of a withdrawal or a security change: the authenticator code, or a passkey's
 * answer to a confirmation challenge (POST /api/security/passkeys/confirm/options) instead.
 */
export const secondFactorSchema = z.object({
  totp_code: lineText(10, { min: 0 }).optional(),
  passkey: authenticationResponseSchema.optional(),
});
export type SecondFactor = z.output<typeof secondFactorSchema>;

/** A passkey's name: what the user calls the device that holds it. */
export const passkeyNameSchema = lineText(40, { message: "passkey_name" });

export const passkeyRegisterSchema = secondFactorSchema.extend({
  name: passkeyNameSchema,
  response: registrationResponseSchema,
});

export const passkeyLoginSchema = z.object({ response: authenticationResponseSchema });

/** WebAuthn options as JSON for @simplewebauthn/browser (shape checked by the browser, not here). */
export const passkeyCreationOptionsSchema = z.object({ challenge: z.string(), rp: z.object({ id: z.string().optional(), name: z.string() }) }).loose();
export const passkeyRequestOptionsSchema = z.object({ challenge: z.string(), rpId: z.string().optional() }).loose();

export const passkeySchema = z.object({
  id: z.number().int(),
  name: z.string(),
  /** "YYYY-MM-DD HH:mm:ss", Beijing time */
  created_at: z.string(),
  last_used_at: z.string().nullable(),
});
export type Passkey = z.infer<typeof passkeySchema>;
export const passkeyListSchema = z.array(passkeySchema);
export const passkeyIdParamSchema = z.object({ id: intInput({ min: 1, max: 2 ** 31 }) });
export const deletedSchema = z.object({ deleted: z.literal(true) });

/** 4-20 letters or digits, shown at the top of every e-mail and SMS the exchange sends. */
export const antiPhishingSchema = secondFactorSchema.extend({
  code: z
    .string({ message: "anti_phishing_format" })
    .trim()
    .regex(/^[A-Za-z0-9]{4,20}$/, { message: "anti_phishing_format" }),
});

export const whitelistSchema = secondFactorSchema.extend({ on: flagInput() });

/** The most days a settings lock may run for. */
export const LOCK_MAX_DAYS = 365;
export const lockSchema = secondFactorSchema.extend({ days: intInput({ min: 1, max: LOCK_MAX_DAYS, message: "lock_days" }) });

/** GET /api/security/settings: the account's guards as the security screens show them. */
export const securitySettingsSchema = z.object({
  totp_enabled: z.boolean(),
  passkeys: z.number().int(),
  /** The code itself: only its owner ever reads it, and it is what they compare mails with. */
  anti_phishing_code: z.string().nullable(),
  whitelist: z.boolean(),
  /** ISO time the settings lock runs until, or null when not locked. */
  locked_until: z.string().nullable(),
  /** Beijing time of the same, for display. */
  locked_until_text: z.string().nullable(),
  contact_verified: z.boolean(),
});
export type SecuritySettings = z.infer<typeof securitySettingsSchema>;

/** POST /api/user/verify_contact: the 6-digit code sent to the account's e-mail or phone. */
export const verifyContactSchema = z.object({
  code: z.string({ message: "code_required" }).trim().min(1, { message: "code_required" }).max(16, { message: "code_wrong" }).regex(/^\d{6}$/, { message: "code_wrong" }),
});
/** The proof of the account's e-mail or phone, as the banner shows it. */
export const contactStateSchema = z.object({
  contact_verified: z.boolean(),
  /** Where the code goes: the e-mail address or the phone the account registered with. */
  channel: z.enum(["email", "sms"]),
  /** Seconds until another code may be asked for (0: now). */
  resend_in: z.number().int(),
});
export type ContactState = z.infer<typeof contactStateSchema>;
