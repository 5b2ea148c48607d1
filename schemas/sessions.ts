/** Sessions as devices and the sign-in history (issue #29): GET /api/security/sessions, /revoke, /logins. */
import { z } from "zod";
import { flagInput, idInput } from "./strict.ts";

export const sessionViewSchema = z.object({
  id: z.number().int(),
  /** the system ("iOS", "Windows"), null when unknown */
  device: z.string().nullable(),
  /** the browser ("Safari", "Chrome"), null when unknown */
  browser: z.string().nullable(),
  ip: z.string().nullable(),
  /** where Cloudflare placed the address ("Tokyo, JP"), null when unknown */
  place: z.string().nullable(),
  /** ms since the epoch */
  created_at: z.number().int(),
  last_seen_at: z.number().int(),
  /** the session this request was made with */
  current: z.boolean(),
});
export type SessionView = z.infer<typeof sessionViewSchema>;
export const sessionListSchema = z.object({ list: z.array(sessionViewSchema) });

/** `{id}` ends one session, `{all: true}` every other one. */
export const sessionRevokeSchema = z.union([z.object({ id: idInput() }).strict(), z.object({ all: flagInput().pipe(z.literal(true)) }).strict()]);
export const sessionsRevokedSchema = z.object({ revoked: z.number().int() });

export const loginEventSchema = z.object({
  /** ms since the epoch */
  at: z.number().int(),
  ok: z.boolean(),
  ip: z.string(),
  device: z.string(),
  place: z.string().nullable(),
});
export type LoginEvent = z.infer<typeof loginEventSchema>;
export const loginEventListSchema = z.object({ list: z.array(loginEventSchema) });
