/**
 * Passkeys (WebAuthn, issue #29) with @simplewebauthn/server, which verifies with WebCrypto and
 * runs in Workers as it is.
 *
 * Three ceremonies, each with its own challenge: `register` (a signed-in user adds a passkey),
 * `confirm` (a signed-in user answers with one of their passkeys instead of an authenticator code,
 * for a withdrawal or a security change) and `login` (anyone signs in with a discoverable passkey).
 * A challenge is random, lives CHALLENGE_TTL_MS and is used once: the conditional UPDATE that
 * claims it runs before its answer is checked, so a replayed or raced answer finds it spent.
 * Confirmations are also counted per user before they are checked (like authenticator codes).
 *
 * The relying party is the host the request came to (localhost in development): the passkey is
 * bound to that name by the browser, and its answers are checked against that origin.
 */
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from "@simplewebauthn/server";
import type { AuthenticatorTransport } from "@simplewebauthn/server";
import type { z } from "zod";
import type { authenticationResponseSchema, Passkey, registrationResponseSchema } from "../../../schemas/security.ts";
import { now } from "../../lib/clock.ts";
import { base64url, randomToken } from "../../lib/crypto.ts";
import { ApiError, notFound } from "../../lib/errors.ts";
import { reserveAttempt } from "../../lib/ratelimit.ts";
import { formatShanghai } from "../../lib/time.ts";
import { announceNotifications } from "../notifications/inbox.ts";
import { signIn } from "../auth/devices.ts";
import { batchUnlessLocked, refuseWhileLocked, securityNotice } from "./settings-lock.ts";

export const CHALLENGE_TTL_MS = 5 * 60_000;
export const MAX_PASSKEYS = 10;
const CONFIRM_MAX_FAILURES = 5;
const CONFIRM_WINDOW_MS = 15 * 60_000;

/** Who the passkeys belong to: the request's host name, and the origin the browser reports. */
export interface RelyingParty {
  id: string;
  origins: string[];
  name: string;
}

/**
 * The relying party of a request: its own host, plus (when the app is served from other origins,
 * APP_ORIGIN) the request's Origin if it is one of them, with that origin's host as the id.
 */
export function relyingParty(req: Request, env: Pick<Env, "BRAND"> & { APP_ORIGIN?: string }): RelyingParty {
  const url = new URL(req.url);
  const name = env.BRAND || "Exchange";
  const allowed = (env.APP_ORIGIN ?? "").split(",").map((o) => o.trim()).filter((o) => o !== "");
  const origin = req.headers.get("origin");
  if (origin && allowed.includes(origin)) return { id: new URL(origin).hostname, origins: [origin], name };
  return { id: url.hostname, origins: [url.origin], name };
}

type Purpose = "register" | "login" | "confirm";

async function newChallenge(db: D1Database, purpose: Purpose, userId: number | null): Promise<string> {
  const challenge = randomToken(32);
  const at = now();
  await db.batch([
    // Old challenges go as new ones come (an index on expires_at keeps this cheap).
    db.prepare("DELETE FROM webauthn_challenges WHERE expires_at < ?").bind(at - CHALLENGE_TTL_MS),
    db
      .prepare("INSERT INTO webauthn_challenges (challenge, user_id, purpose, created_at, expires_at) VALUES (?, ?, ?, ?, ?)")
      .bind(challenge, userId, purpose, at, at + CHALLENGE_TTL_MS),
  ]);
  return challenge;
}

/** The challenge inside an answer's clientDataJSON, or null when it cannot be read. */
function challengeOf(clientDataJSON: string): string | null {
  try {
    const json = atob(clientDataJSON.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((clientDataJSON.length + 3) % 4));
    const c = (JSON.parse(json) as { challenge?: unknown }).challenge;
    return typeof c === "string" && c.length <= 200 ? c : null;
  } catch {
    return null;
  }
}

/**
 * Claims (spends) the answer's challenge: it must be one this exchange issued for this purpose and
 * user, unexpired and never used. Spent before the answer is checked, so it is used at most once.
 */
async function claimChallenge(db: D1Database, clientDataJSON: string, purpose: Purpose, userId: number | null): Promise<string> {
  const challenge = challengeOf(clientDataJSON);
  if (!challenge) throw new ApiError("passkey_invalid");
  const at = now();
  const r = await db
    .prepare("UPDATE webauthn_challenges SET used_at = ? WHERE challenge = ? AND purpose = ? AND user_id IS ? AND used_at IS NULL AND expires_at > ?")
    .bind(at, challenge, purpose, userId, at)
    .run();
  if (r.meta.changes !== 1) throw new ApiError("passkey_expired");
  return challenge;
}

function fromB64url(s: string): Uint8Array<ArrayBuffer> {
  const bin = atob(s.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((s.length + 3) % 4));
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
}

interface CredentialRow {
  id: number;
  user_id: number;
  credential_id: string;
  public_key: string;
  counter: number;
  transports: string;
  name: string;
}

function transportsOf(row: Pick<CredentialRow, "transports">): AuthenticatorTransport[] {
  try {
    return JSON.parse(row.transports) as AuthenticatorTransport[];
  } catch {
    return [];
  }
}

/** One's passkeys, newest first. */
export async function listPasskeys(db: D1Database, userId: number): Promise<Passkey[]> {
  const { results } = await db
    .prepare("SELECT id, name, created_at, last_used_at FROM passkeys WHERE user_id = ? ORDER BY id DESC")
    .bind(userId)
    .all<{ id: number; name: string; created_at: number; last_used_at: number | null }>();
  return results.map((r) => ({ id: r.id, name: r.name, created_at: formatShanghai(r.created_at), last_used_at: r.last_used_at === null ? null : formatShanghai(r.last_used_at) }));
}

/** Options for adding a passkey: a discoverable credential (so it can sign in), none already held. */
export async function registrationOptions(env: Env, user: { id: number; account: string }, rp: RelyingParty) {
  const db = env.DB;
  await refuseWhileLocked(db, user.id);
  const { results } = await db.prepare("SELECT credential_id, transports FROM passkeys WHERE user_id = ?").bind(user.id).all<{ credential_id: string; transports: string }>();
  if (results.length >= MAX_PASSKEYS) throw new ApiError("passkey_limit", 409, { max: MAX_PASSKEYS });
  const challenge = await newChallenge(db, "register", user.id);
  // Spread into a plain object: the answer's schema is an open record of WebAuthn fields.
  return { ...(await generateRegistrationOptions({
    rpName: rp.name,
    rpID: rp.id,
    userName: user.account,
    userID: Uint8Array.from(new TextEncoder().encode(`user:${user.id}`)),
    challenge: fromB64url(challenge),
    attestationType: "none",
    excludeCredentials: results.map((r) => ({ id: r.credential_id, transports: transportsOf(r) })),
    authenticatorSelection: { residentKey: "required", userVerification: "preferred" },
  })) };
}

/**
 * Adds a passkey from the browser's answer to a registration challenge (frozen by the settings
 * lock; notified). The caller has checked the second factor when the account already has one.
 */
export async function registerPasskey(env: Env, userId: number, name: string, response: z.output<typeof registrationResponseSchema>, rp: RelyingParty): Promise<Passkey> {
  const db = env.DB;
  await refuseWhileLocked(db, userId);
  const challenge = await claimChallenge(db, response.response.clientDataJSON, "register", userId);
  let info;
  try {
    const v = await verifyRegistrationResponse({ response: { ...response, clientExtensionResults: {} }, expectedChallenge: challenge, expectedOrigin: rp.origins, expectedRPID: rp.id, requireUserVerification: false });
    if (!v.verified) throw new ApiError("passkey_wrong");
    info = v.registrationInfo;
  } catch (err) {
    if (err instanceof ApiError) throw err;
    throw new ApiError("passkey_wrong");
  }
  const cred = info.credential;
  const at = now();
  let results: D1Result[];
  try {
    results = await batchUnlessLocked(db, userId, [
      db
        .prepare(
          `INSERT INTO passkeys (user_id, credential_id, public_key, counter, transports, name, created_at)
           SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7 WHERE (SELECT count(*) FROM passkeys WHERE user_id = ?1) < ?8 RETURNING id`,
        )
        .bind(userId, cred.id, base64url(cred.publicKey), cred.counter, JSON.stringify(cred.transports ?? []), name, at, MAX_PASSKEYS),
      securityNotice(db, userId, "security_passkey_added", { name }, at),
    ]);
  } catch (err) {
    if (/UNIQUE constraint failed/i.test(String(err))) throw new ApiError("passkey_exists", 409);
    throw err;
  }
  const id = (results[0]?.results?.[0] as { id: number } | undefined)?.id;
  if (id === undefined) throw new ApiError("passkey_limit", 409, { max: MAX_PASSKEYS });
  await announceNotifications(env, [userId]);
  return { id, name, created_at: formatShanghai(at), last_used_at: null };
}

/** Removes one of one's passkeys (frozen by the lock; notified); someone else's answers as missing. */
export async function deletePasskey(env: Env, userId: number, id: number): Promise<void> {
  const db = env.DB;
  const row = await db.prepare("SELECT name FROM passkeys WHERE id = ? AND user_id = ?").bind(id, userId).first<{ name: string }>();
  if (!row) throw notFound();
  const [del] = await batchUnlessLocked(db, userId, [
    db.prepare("DELETE FROM passkeys WHERE id = ? AND user_id = ?").bind(id, userId),
    securityNotice(db, userId, "security_passkey_removed", { name: row.name }),
  ]);
  if (del?.meta.changes !== 1) throw notFound();
  await announceNotifications(env, [userId]);
}

/** Options for confirming with one of one's passkeys (passkey_none when there is none). */
export async function confirmationOptions(env: Env, userId: number, rp: RelyingParty) {
  const db = env.DB;
  const { results } = await db.prepare("SELECT credential_id, transports FROM passkeys WHERE user_id = ?").bind(userId).all<{ credential_id: string; transports: string }>();
  if (results.length === 0) throw new ApiError("passkey_none", 409);
  const challenge = await newChallenge(db, "confirm", userId);
  return {
    ...(await generateAuthenticationOptions({
      rpID: rp.id,
      challenge: fromB64url(challenge),
      allowCredentials: results.map((r) => ({ id: r.credential_id, transports: transportsOf(r) })),
      userVerification: "preferred",
    })),
  };
}

/** Options for signing in with a passkey the browser finds itself (no account named). */
export async function loginOptions(env: Env, rp: RelyingParty) {
  const challenge = await newChallenge(env.DB, "login", null);
  return { ...(await generateAuthenticationOptions({ rpID: rp.id, challenge: fromB64url(challenge), userVerification: "preferred" })) };
}

/** Checks an answer against the stored credential and moves its counter; passkey_wrong otherwise. */
async function verifyAnswer(db: D1Database, row: CredentialRow, response: z.output<typeof authenticationResponseSchema>, challenge: string, rp: RelyingParty): Promise<void> {
  let newCounter: number;
  try {
    const v = await verifyAuthenticationResponse({
      // No extensions are asked for, so none are read.
      response: { ...response, clientExtensionResults: {} },
      expectedChallenge: challenge,
      expectedOrigin: rp.origins,
      expectedRPID: rp.id,
      credential: { id: row.credential_id, publicKey: fromB64url(row.public_key), counter: row.counter, transports: transportsOf(row) },
      requireUserVerification: false,
    });
    if (!v.verified) throw new ApiError("passkey_wrong");
    newCounter = v.authenticationInfo.newCounter;
  } catch (err) {
    if (err instanceof ApiError) throw err;
    throw new ApiError("passkey_wrong");
  }
  // The counter only moves forward (authenticators that keep none always send 0): a cloned
  // authenticator replaying an old count loses the race here.
  const r = await db
    .prepare("UPDATE passkeys SET counter = ?1, last_used_at = ?2 WHERE id = ?3 AND (counter < ?1 OR (counter = 0 AND ?1 = 0))")
    .bind(newCounter, now(), row.id)
    .run();
  if (r.meta.changes !== 1) throw new ApiError("passkey_wrong");
}

const CREDENTIAL_COLUMNS = "id, user_id, credential_id, public_key, counter, transports, name";

/** Confirms a withdrawal or a security change with one of the user's passkeys (counted before it is checked). */
export async function verifyPasskeyConfirmation(env: Env, userId: number, response: z.output<typeof authenticationResponseSchema>, rp: RelyingParty): Promise<void> {
  const db = env.DB;
  const attempt = await reserveAttempt(db, `passkey-fail:${userId}`, CONFIRM_MAX_FAILURES, CONFIRM_WINDOW_MS);
  const challenge = await claimChallenge(db, response.response.clientDataJSON, "confirm", userId);
  const row = await db.prepare(`SELECT ${CREDENTIAL_COLUMNS} FROM passkeys WHERE credential_id = ? AND user_id = ?`).bind(response.id, userId).first<CredentialRow>();
  if (!row) throw new ApiError("passkey_wrong");
  await verifyAnswer(db, row, response, challenge, rp);
  await attempt.refund();
}

/** Signs in with a passkey: a session token for its account (as a password login makes one). */
export async function loginWithPasskey(env: Env, ip: string, userAgent: string | null | undefined, response: z.output<typeof authenticationResponseSchema>, rp: RelyingParty) {
  const db = env.DB;
  const challenge = await claimChallenge(db, response.response.clientDataJSON, "login", null);
  const row = await db.prepare(`SELECT ${CREDENTIAL_COLUMNS} FROM passkeys WHERE credential_id = ?`).bind(response.id).first<CredentialRow>();
  if (!row) throw new ApiError("passkey_wrong");
  await verifyAnswer(db, row, response, challenge, rp);
  const user = await db.prepare("SELECT locked, last_login_at FROM users WHERE id = ?").bind(row.user_id).first<{ locked: number; last_login_at: number | null }>();
  if (!user) throw new ApiError("passkey_wrong");
  if (user.locked) throw new ApiError("account_locked", 403);
  const token = await signIn(env, row.user_id, ip, userAgent);
  return { token, lastTime: user.last_login_at };
}
