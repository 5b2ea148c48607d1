/**
 * API keys for bots (issue #29; migrations/0042): made with the second factor, listed, deleted.
 * The secret is shown once and never stored (its derivation and the signature checks are in
 * worker/lib/api-keys.ts); every query is scoped to the owner.
 */
import { API_KEY_MAX_PER_USER, API_KEY_SCOPES, type apiKeyCreateSchema, type ApiKeyCreated, type ApiKeyView } from "../../../schemas/api-keys.ts";
import type { z } from "zod";
import { API_KEY_TTL_MS, deriveApiSecret } from "../../lib/api-keys.ts";
import type { SessionUser } from "../../lib/context.ts";
import { randomToken, sha256Hex } from "../../lib/crypto.ts";
import { ApiError, notFound } from "../../lib/errors.ts";
import { formatShanghai } from "../../lib/time.ts";
import { checkFundPassword, checkTotpIfEnabled } from "../account/security.ts";
import { announceNotifications } from "../notifications/inbox.ts";
import { batchUnlessLocked, refuseWhileLocked } from "../account/settings-lock.ts";

/** Where the owner's notice of a new key leads: the keys screen, to delete a key they did not make. */
const API_KEYS_LINK = "/security/api-keys";

/**
 * The second factor of a security change: the authenticator code when the account has one
 * enabled, otherwise the fund password (`apikey_second_factor` when it is not given).
 */
async function confirmSecondFactor(env: Env, userId: number, b: { totp_code?: string; fund_password?: string }): Promise<void> {
  const totp = await env.DB.prepare("SELECT 1 FROM totp_secrets WHERE user_id = ? AND enabled = 1").bind(userId).first();
  if (totp) return checkTotpIfEnabled(env, userId, b.totp_code);
  if (b.fund_password === undefined) throw new ApiError("apikey_second_factor", 400, { field: "fund_password" });
  await checkFundPassword(env, userId, b.fund_password);
}

interface KeyRow {
  id: number;
  api_key: string;
  label: string;
  scopes: string;
  ips: string | null;
  created_at: number;
  expires_at: number | null;
  last_used_at: number | null;
}

function view(r: KeyRow, now: number): ApiKeyView {
  return {
    id: r.id,
    api_key: r.api_key,
    label: r.label,
    scopes: r.scopes.split(",") as ApiKeyView["scopes"],
    ips: r.ips ? (JSON.parse(r.ips) as string[]) : [],
    created_at: r.created_at,
    expires_at: r.expires_at,
    last_used_at: r.last_used_at,
    expired: r.expires_at !== null && r.expires_at <= now,
  };
}

const COLUMNS = "id, api_key, label, scopes, ips, created_at, expires_at, last_used_at";

/** Makes a key; answers it with its secret, which is never shown again. */
export async function createApiKey(env: Env, user: SessionUser, input: z.output<typeof apiKeyCreateSchema>, now = Date.now()): Promise<ApiKeyCreated> {
  if (user.role !== "user") throw new ApiError("no_permission", 403);
  // A locked account's settings refuse new keys: early here, and for certain in the insert's batch.
  await refuseWhileLocked(env.DB, user.id, now);
  await confirmSecondFactor(env, user.id, input);
  const apiKey = `hx${randomToken(18)}`;
  const salt = randomToken(16);
  const secret = await deriveApiSecret(env.PEPPER, apiKey, salt);
  const scopes = API_KEY_SCOPES.filter((s) => input.scopes.includes(s)).join(",");
  const ips = input.ips && input.ips.length > 0 ? JSON.stringify([...new Set(input.ips)]) : null;
  const expiresAt = ips ? null : now + API_KEY_TTL_MS;
  // The count of live keys and the insert are one statement: parallel requests cannot pass the
  // limit. The owner's notification rides in the same batch and exists only when the key does.
  const notice = JSON.stringify({ label: input.label, scopes: scopes.replace(",", ", "), time: formatShanghai(now) });
  const [inserted] = await batchUnlessLocked(env.DB, user.id, [
    env.DB.prepare(
      `INSERT INTO api_keys (user_id, api_key, label, scopes, ips, salt, secret_hash, created_at, expires_at)
       SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9
       WHERE (SELECT count(*) FROM api_keys WHERE user_id = ?1 AND deleted_at IS NULL AND (expires_at IS NULL OR expires_at > ?8)) < ?10
       RETURNING ${COLUMNS}`,
    ).bind(user.id, apiKey, input.label, scopes, ips, salt, await sha256Hex(secret), now, expiresAt, API_KEY_MAX_PER_USER),
    env.DB.prepare(
      `INSERT INTO notifications (user_id, event_key, kind, params, link, created_at)
       SELECT user_id, 'apikey:' || id, 'apikey_created', ?2, ?3, ?4 FROM api_keys WHERE api_key = ?1
       ON CONFLICT (user_id, event_key) DO NOTHING`,
    ).bind(apiKey, notice, API_KEYS_LINK, now),
  ]);
  const row = inserted?.results[0] as KeyRow | undefined;
  if (!row) throw new ApiError("apikey_limit", 409, { max: API_KEY_MAX_PER_USER });
  await announceNotifications(env, [user.id]);
  return { ...view(row, now), secret };
}

/** One's keys (not deleted), newest first; expired ones are listed as expired. */
export async function listApiKeys(db: D1Database, userId: number, now = Date.now()): Promise<ApiKeyView[]> {
  const { results } = await db.prepare(`SELECT ${COLUMNS} FROM api_keys WHERE user_id = ? AND deleted_at IS NULL ORDER BY id DESC`).bind(userId).all<KeyRow>();
  return results.map((r) => view(r, now));
}

/** Deletes one of one's keys: its next request is refused (`apikey_invalid`). */
export async function deleteApiKey(db: D1Database, userId: number, id: number, now = Date.now()): Promise<void> {
  // The settings lock freezes API keys too: the delete runs in the lock's guarded batch.
  const [r] = await batchUnlessLocked(db, userId, [db.prepare("UPDATE api_keys SET deleted_at = ? WHERE id = ? AND user_id = ? AND deleted_at IS NULL").bind(now, id, userId)], now);
  if (!r || r.meta.changes === 0) throw notFound();
}
