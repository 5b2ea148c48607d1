/**
 * Authenticator app (TOTP, RFC 6238: SHA-1, 6 digits, 30 s) with the `otpauth` package.
 * Secrets are stored encrypted (AES-GCM, key derived from the PEPPER secret), so a copy of the
 * database alone cannot mint codes. A code is accepted once: the accepted time step is stored and
 * only a later step passes, in a conditional UPDATE that two racing requests cannot both win.
 */
import * as OTPAuth from "otpauth";
import { base64url } from "../../lib/crypto.ts";

const PERIOD = 30;
const enc = new TextEncoder();

async function key(pepper: string): Promise<CryptoKey> {
  if (!pepper) throw new Error("PEPPER secret is not configured");
  const raw = await crypto.subtle.digest("SHA-256", enc.encode(`totp-secret-key:${pepper}`));
  return crypto.subtle.importKey("raw", raw, "AES-GCM", false, ["encrypt", "decrypt"]);
}

function fromB64url(s: string): Uint8Array {
  const bin = atob(s.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((s.length + 3) % 4));
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
}

/** A new random secret (base32, 160 bits). */
export function newSecret(): string {
  return new OTPAuth.Secret({ size: 20 }).base32;
}

export async function encryptSecret(pepper: string, base32: string): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const ct = new Uint8Array(await crypto.subtle.encrypt({ name: "AES-GCM", iv }, await key(pepper), enc.encode(base32)));
  return `v1.${base64url(iv)}.${base64url(ct)}`;
}

export async function decryptSecret(pepper: string, stored: string): Promise<string> {
  const [v, iv, ct] = stored.split(".");
  if (v !== "v1" || !iv || !ct) throw new Error("unknown secret format");
  const plain = await crypto.subtle.decrypt({ name: "AES-GCM", iv: fromB64url(iv) }, await key(pepper), fromB64url(ct));
  return new TextDecoder().decode(plain);
}

function totp(base32: string, label: string, issuer: string) {
  return new OTPAuth.TOTP({ issuer, label, algorithm: "SHA1", digits: 6, period: PERIOD, secret: OTPAuth.Secret.fromBase32(base32) });
}

/** The otpauth:// URI an authenticator app scans. */
export function otpauthUri(base32: string, account: string, issuer: string): string {
  return totp(base32, account, issuer).toString();
}

/** The time step a code belongs to (current ±1 step), or null when it is wrong. */
export function matchStep(base32: string, code: string, now = Date.now()): number | null {
  const delta = totp(base32, "x", "x").validate({ token: code, timestamp: now, window: 1 });
  if (delta === null) return null;
  return Math.floor(now / 1000 / PERIOD) + delta;
}

/** The current code (tests and local tooling only). */
export function currentCode(base32: string, now = Date.now()): string {
  return totp(base32, "x", "x").generate({ timestamp: now });
}

/**
 * Checks a user's code and consumes its step. Returns false for a wrong code, a replayed code, or
 * when the user has no secret (or, with `enabledOnly`, no enabled secret).
 */
export async function consumeCode(db: D1Database, pepper: string, userId: number, code: string, enabledOnly: boolean, now = Date.now()): Promise<boolean> {
  const row = await db
    .prepare("SELECT secret_enc, enabled, last_step FROM totp_secrets WHERE user_id = ?")
    .bind(userId)
    .first<{ secret_enc: string; enabled: number; last_step: number }>();
  if (!row || (enabledOnly && !row.enabled)) return false;
  const step = matchStep(await decryptSecret(pepper, row.secret_enc), code, now);
  if (step === null || step <= row.last_step) return false;
  const r = await db.prepare("UPDATE totp_secrets SET last_step = ? WHERE user_id = ? AND last_step < ?").bind(step, userId, step).run();
  return r.meta.changes === 1;
}
