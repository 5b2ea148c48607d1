/**
 * Sessions: 256-bit random bearer tokens in the Authorization header, stored only as SHA-256,
 * with an absolute expiry; revoked at logout and at password change. Unknown, expired or revoked
 * tokens are answered with type 999.
 */
import { createMiddleware } from "hono/factory";
import type { AppEnv, SessionUser } from "./context.ts";
import { sha256Hex, randomToken } from "./crypto.ts";
import { auditStatement } from "./guarded.ts";
import { ApiError, loginRequired, verifyRequired } from "./errors.ts";

export const SESSION_TTL_MS = 30 * 24 * 3600 * 1000;

function bearer(req: Request): string | null {
  const h = req.headers.get("authorization")?.trim();
  if (!h) return null;
  const token = h.toLowerCase().startsWith("bearer ") ? h.slice(7).trim() : h;
  return token.length >= 20 && token.length <= 200 ? token : null;
}

/** Resolves the session of a request, or null. */
export async function sessionUser(db: D1Database, req: Request, now = Date.now()): Promise<SessionUser | null> {
  const token = bearer(req);
  return token ? sessionOfToken(db, token, now) : null;
}

/** Resolves a session token from elsewhere than the Authorization header (the user channel's upgrade), or null. */
export async function sessionOfToken(db: D1Database, token: string, now = Date.now()): Promise<SessionUser | null> {
  if (token.length < 20 || token.length > 200) return null;
  return sessionOfTokenHash(db, await sha256Hex(token), now);
}

/**
 * The one query that decides whether a session is live: known, not revoked (logout, password
 * change), not expired, and its user not locked. Takes the token's SHA-256 (what the sessions table
 * stores), so a holder of the hash alone, like the user channel re-checking an open socket before
 * each push, never needs to keep the token itself.
 */
export async function sessionOfTokenHash(db: D1Database, tokenHash: string, now = Date.now()): Promise<SessionUser | null> {
  const row = await db
    .prepare(
      `SELECT s.id AS session_id, u.id, u.account, u.role, u.review_status, u.locked
       FROM sessions s JOIN users u ON u.id = s.user_id
       WHERE s.token_hash = ? AND s.revoked_at IS NULL AND s.expires_at > ?`,
    )
    .bind(tokenHash, now)
    .first<{ session_id: number; id: number; account: string; role: SessionUser["role"]; review_status: number; locked: number }>();
  if (!row || row.locked) return null;
  return { id: row.id, account: row.account, role: row.role, reviewStatus: row.review_status, sessionId: row.session_id };
}

/** Requires a valid session; sets `c.var.user`. */
export const requireUser = createMiddleware<AppEnv>(async (c, next) => {
  const user = await sessionUser(c.env.DB, c.req.raw);
  if (!user) throw loginRequired();
  c.set("user", user);
  await next();
});

/** Requires identity verification (review_status 2): 998 otherwise. Use after requireUser. */
export const requireVerified = createMiddleware<AppEnv>(async (c, next) => {
  if (c.get("user").reviewStatus !== 2) throw verifyRequired();
  await next();
});

/** Requires the operator role. Use after requireUser. */
export const requireOperator = createMiddleware<AppEnv>(async (c, next) => {
  if (c.get("user").role !== "operator") throw new ApiError("no_permission", 403);
  await next();
});

/**
 * Operator accounts do not trade, deposit or withdraw unless the deployment allows it
 * (OPERATOR_MONEY = "on"); every refusal is audited. Use after requireUser on money-moving routes.
 */
export const refuseOperatorMoney = createMiddleware<AppEnv>(async (c, next) => {
  const user = c.get("user");
  if (user.role === "operator" && c.env.OPERATOR_MONEY !== "on") {
    await auditStatement(c.env.DB, { operatorId: user.id, action: "operator.money.refused", targetType: "route", targetId: `${c.req.method} ${c.req.routePath}`, reason: "operator_money_off" }).run();
    throw new ApiError("operator_money_off", 403);
  }
  await next();
});

/**
 * A new session's token (shown to the client once, never stored), its hash and the statements that
 * create it, for a batch that may carry more of the login (worker/domain/auth/devices.ts).
 */
export async function sessionStatements(db: D1Database, userId: number, ip: string, now = Date.now()) {
  const token = randomToken(32);
  const tokenHash = await sha256Hex(token);
  const statements = [
    db.prepare("INSERT INTO sessions (token_hash, user_id, created_at, expires_at, ip) VALUES (?, ?, ?, ?, ?)").bind(tokenHash, userId, now, now + SESSION_TTL_MS, ip),
    db.prepare("UPDATE users SET last_login_at = ? WHERE id = ?").bind(now, userId),
  ];
  return { token, tokenHash, statements };
}

/** Creates a session and returns its token (shown to the client once, never stored). */
export async function createSession(db: D1Database, userId: number, ip: string, now = Date.now()) {
  const { token, statements } = await sessionStatements(db, userId, ip, now);
  await db.batch(statements);
  return token;
}
