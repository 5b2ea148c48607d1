/**
 * API keys for bots (issue #29): making, listing and deleting keys. How a request is signed is in
 * worker/lib/api-keys.ts and the OpenAPI document's `apiKey` security scheme.
 */
import { z } from "zod";
import { idInput, lineText, secretInput } from "./strict.ts";

export const API_KEY_SCOPES = ["read", "trade"] as const;
export type ApiKeyScopeName = (typeof API_KEY_SCOPES)[number];
/** Addresses one key may be bound to. */
export const API_KEY_MAX_IPS = 10;
/** Live keys one account may hold. */
export const API_KEY_MAX_PER_USER = 20;

const IPV4 = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;
const IPV6 = /^(?=.*:)[0-9a-fA-F:]{2,39}$/;

/** One IPv4 or IPv6 address, as Cloudflare's CF-Connecting-IP writes it. */
export const ipAddressSchema = z
  .string({ message: "apikey_ips" })
  .trim()
  .max(39, { message: "apikey_ips" })
  .refine((s) => IPV4.test(s) || (IPV6.test(s) && (s.match(/::/g) ?? []).length <= 1), { message: "apikey_ips" })
  .transform((s) => s.toLowerCase());

/** POST /api/apikeys: a label, its scopes, optional addresses, and the second factor (as other security changes). */
export const apiKeyCreateSchema = z.object({
  label: lineText(40, { message: "apikey_label" }),
  scopes: z
    .array(z.enum(API_KEY_SCOPES, { message: "apikey_scopes" }), { message: "apikey_scopes" })
    .min(1, { message: "apikey_scopes" })
    .max(2, { message: "apikey_scopes" })
    .refine((s) => new Set(s).size === s.length, { message: "apikey_scopes" }),
  ips: z.array(ipAddressSchema, { message: "apikey_ips" }).max(API_KEY_MAX_IPS, { message: "apikey_ips" }).optional(),
  /** The authenticator code, when the account has one enabled. */
  totp_code: z.string().trim().regex(/^\d{6}$/, { message: "totp_wrong" }).optional(),
  /** The fund password, when the account has no authenticator. */
  fund_password: secretInput(z.string().max(64, { message: "fund_password_wrong" })).optional(),
});

export const apiKeyViewSchema = z.object({
  id: z.number().int(),
  api_key: z.string(),
  label: z.string(),
  scopes: z.array(z.enum(API_KEY_SCOPES)),
  ips: z.array(z.string()),
  /** ms since the epoch */
  created_at: z.number().int(),
  /** ms since the epoch; null for a key bound to addresses (it does not expire) */
  expires_at: z.number().int().nullable(),
  last_used_at: z.number().int().nullable(),
  expired: z.boolean(),
});
export type ApiKeyView = z.infer<typeof apiKeyViewSchema>;

/** The answer to POST /api/apikeys: the key with its secret, shown this once and never again. */
export const apiKeyCreatedSchema = apiKeyViewSchema.extend({ secret: z.string() });
export type ApiKeyCreated = z.infer<typeof apiKeyCreatedSchema>;

export const apiKeyListSchema = z.object({ list: z.array(apiKeyViewSchema) });
export const apiKeyIdParamSchema = z.object({ id: idInput() });
export const apiKeyDeletedSchema = z.object({ deleted: z.literal(true) });
