/**
 * API keys for bots (issue #29): signed requests without a password or a session.
 *
 * A request carries `X-API-KEY` (the key's public id), `X-API-TIMESTAMP` (ms since the epoch) and
 * `X-API-SIGNATURE` = lowercase hex HMAC-SHA256(secret, timestamp + METHOD + path-with-query + raw body).
 *
 * Deny by default: a key is accepted only by a route that names the scope it needs with
 * `apiKeyAccess("read" | "trade")` before its `requireUser` / `requireTrader`; those refuse any
 * request that carries `X-API-KEY` on a route without it (`apikey_scope`), so a key never withdraws,
 * never changes a security setting and never reaches a route someone forgot to think about.
 *
 * The secret. HMAC needs the secret on the server, so it cannot be stored as a one-way hash the way
 * a password is. It is not stored at all: it is derived, secret = base64url(HMAC-SHA256(K,
 * "api-key-secret:v1:" + api_key + ":" + salt)) where K comes from the PEPPER secret (a Worker
 * secret, never in D1) and the salt is random per key. The row keeps the salt and the secret's
 * SHA-256; a signature is checked with the secret derived again, and only when that secret still
 * hashes to the stored hash (a changed PEPPER makes every key unusable rather than different). A
 * copy of the database alone therefore neither signs nor reveals a secret; a copy of the database
 * AND the PEPPER does, exactly as for the authenticator secrets (account/totp.ts), which is the
 * same trust any server-side HMAC scheme places in its server.
 *
 * Checks, in order (cheap ones first): the timestamp within ±5 s of the server clock
 * (`apikey_timestamp`), the key known and not deleted (`apikey_invalid`), not expired (a key with
 * no address list lives 90 days: `apikey_expired`), the caller's address in the key's list when it
 * has one (`apikey_ip`), the signature (`apikey_signature`), the scope (`apikey_scope`), then one D1
 * batch that records the signature (a second request with the same signature inside the window is
 * `apikey_replayed`) and counts the key's own rate limit.
 */
import { createMiddleware } from "hono/factory";
import { uniqueSymbol } from "hono-openapi";
import type { AppEnv, ApiKeyAuth, SessionUser } from "./context.ts";
import { now as clockNow } from "./clock.ts";
import { base64url, sha256Hex, timingSafeEqual } from "./crypto.ts";
import { ApiError } from "./errors.ts";
import { clientIp, hitStatement } from "./ratelimit.ts";

export type ApiKeyScope = "read" | "trade";

export const API_KEY_HEADER = "x-api-key";
export const API_TIMESTAMP_HEADER = "x-api-timestamp";
export const API_SIGNATURE_HEADER = "x-api-signature";
/** How far a request's timestamp may be from the server clock, either way. */
export const API_KEY_WINDOW_MS = 5_000;
/** Lifetime of a key that is not bound to addresses. */
export const API_KEY_TTL_MS = 90 * 24 * 3600 * 1000;
/** Each key's own rate limit: requests per window. */
export const API_KEY_RATE = { limit: 600, windowMs: 60_000 } as const;

const enc = new TextEncoder();
const derivationKeys = new Map<string, Promise<CryptoKey>>();

function derivationKey(pepper: string): Promise<CryptoKey> {
  if (!pepper) throw new Error("PEPPER secret is not configured");
  let key = derivationKeys.get(pepper);
  if (!key) {
    key = crypto.subtle
      .digest("SHA-256", enc.encode(`api-key-derivation:${pepper}`))
      .then((raw) => crypto.subtle.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]));
    derivationKeys.set(pepper, key);
  }
  return key;
}

/** The secret of a key (see the header): derived from the server's PEPPER, the key's id and its salt. */
export async function deriveApiSecret(pepper: string, apiKey: string, salt: string): Promise<string> {
  const mac = await crypto.subtle.sign("HMAC", await derivationKey(pepper), enc.encode(`api-key-secret:v1:${apiKey}:${salt}`));
  return base64url(new Uint8Array(mac));
}

/** Lowercase hex HMAC-SHA256(secret, timestamp + METHOD + path-with-query + body): what a client sends. */
export async function signRequest(secret: string, timestamp: string, method: string, pathWithQuery: string, body: string): Promise<string> {
  const key = await crypto.subtle.importKey("raw", enc.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const mac = await crypto.subtle.sign("HMAC", key, enc.encode(`${timestamp}${method.toUpperCase()}${pathWithQuery}${body}`));
  return [...new Uint8Array(mac)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

interface KeyRow {
  id: number;
  user_id: number;
  scopes: string;
  ips: string | null;
  salt: string;
  secret_hash: string;
  expires_at: number | null;
  account: string;
  role: SessionUser["role"];
  review_status: number;
  locked: number;
}

/**
 * Accepts a request signed with an API key of `scope` on this route (place it before
 * requireUser / requireTrader). A request without `X-API-KEY` passes through to the session checks.
 */
export function apiKeyAccess(scope: ApiKeyScope) {
  const middleware = createMiddleware<AppEnv>(async (c, next) => {
    const apiKey = c.req.header(API_KEY_HEADER);
    if (apiKey === undefined) return next();
    const { user, key } = await verifySignedRequest(c.env, c.req.raw, apiKey, scope, await c.req.text());
    c.set("user", user);
    c.set("apiKey", key);
    await next();
  });
  // The OpenAPI document lists the key as a second way in (security schemes in routes/docs.ts).
  const spec = { security: [{ apiKey: [], apiTimestamp: [], apiSignature: [] }], "x-api-key-scope": scope };
  return Object.assign(middleware, { [uniqueSymbol]: { spec } });
}

/** Whether a request carries an API key (the session middlewares refuse it unless the route accepted it). */
export function carriesApiKey(req: Request): boolean {
  return req.headers.has(API_KEY_HEADER);
}

async function verifySignedRequest(env: Env, req: Request, apiKey: string, scope: ApiKeyScope, body: string): Promise<{ user: SessionUser; key: ApiKeyAuth }> {
  const now = clockNow();
  const timestamp = req.headers.get(API_TIMESTAMP_HEADER) ?? "";
  const signature = (req.headers.get(API_SIGNATURE_HEADER) ?? "").trim();
  if (!/^\d{1,16}$/.test(timestamp) || Math.abs(Number(timestamp) - now) > API_KEY_WINDOW_MS) throw new ApiError("apikey_timestamp", 401);
  if (!/^[0-9a-f]{64}$/.test(signature)) throw new ApiError("apikey_signature", 401);
  if (!/^[A-Za-z0-9_-]{8,64}$/.test(apiKey)) throw new ApiError("apikey_invalid", 401);
  const row = await env.DB.prepare(
    `SELECT k.id, k.user_id, k.scopes, k.ips, k.salt, k.secret_hash, k.expires_at, u.account, u.role, u.review_status, u.locked
     FROM api_keys k JOIN users u ON u.id = k.user_id WHERE k.api_key = ? AND k.deleted_at IS NULL`,
  )
    .bind(apiKey)
    .first<KeyRow>();
  if (!row) throw new ApiError("apikey_invalid", 401);
  if (row.locked) throw new ApiError("account_locked", 403);
  if (row.expires_at !== null && row.expires_at <= now) throw new ApiError("apikey_expired", 401);
  if (row.ips !== null && !(JSON.parse(row.ips) as string[]).includes(clientIp(req, env))) throw new ApiError("apikey_ip", 403);
  const secret = await deriveApiSecret(env.PEPPER, apiKey, row.salt);
  if (!timingSafeEqual(await sha256Hex(secret), row.secret_hash)) throw new ApiError("apikey_invalid", 401);
  const url = new URL(req.url);
  const expected = await signRequest(secret, timestamp, req.method, url.pathname + url.search, body);
  if (!timingSafeEqual(expected, signature)) throw new ApiError("apikey_signature", 401);
  const scopes = row.scopes.split(",") as ApiKeyScope[];
  if (!scopes.includes(scope)) throw new ApiError("apikey_scope", 403);
  const [seen, counted] = await env.DB.batch<{ count: number }>([
    env.DB.prepare("INSERT INTO api_key_signatures (key_id, signature, seen_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING").bind(row.id, signature, now),
    hitStatement(env.DB, `apikey:${row.id}`, API_KEY_RATE.windowMs, now),
    env.DB.prepare("UPDATE api_keys SET last_used_at = ?1 WHERE id = ?2 AND (last_used_at IS NULL OR last_used_at < ?1 - 60000)").bind(now, row.id),
  ]);
  if ((seen?.meta.changes ?? 0) === 0) throw new ApiError("apikey_replayed", 401);
  if ((counted?.results[0]?.count ?? Number.MAX_SAFE_INTEGER) > API_KEY_RATE.limit) throw new ApiError("too_many_requests", 429);
  return {
    user: { id: row.user_id, account: row.account, role: row.role, reviewStatus: row.review_status, sessionId: 0 },
    key: { id: row.id, scopes },
  };
}

/** Forgets signatures older than the window can accept (the cron's housekeeping). */
export function pruneApiKeySignaturesStatement(db: D1Database, now: number): D1PreparedStatement {
  return db.prepare("DELETE FROM api_key_signatures WHERE seen_at < ?").bind(now - 60_000);
}
