/**
 * Sessions: 256-bit random bearer tokens in the Authorization header, stored only as SHA-256,
 * with an absolute expiry; revoked at logout and at password change. Unknown, expired or revoked
 * tokens are answered with type 999.
 */
import { createMiddleware } from "hono/factory";
import type { Context } from "hono";
import type { AppEnv, SessionGuard, SessionUser } from "./context.ts";
import { sha256Hex, randomToken } from "./crypto.ts";
import { auditStatement } from "./guarded.ts";
import { ApiError, loginRequired, verifyRequired } from "./errors.ts";
import { errorResponse } from "./respond.ts";
import { carriesApiKey } from "./api-keys.ts";
import { accountsOnObjects, accountStub } from "./accounts.ts";
import { SESSION_GONE, type SessionProof } from "../../durable/account/sessions.ts";

/**
 * Deny by default for API keys (worker/lib/api-keys.ts): true when the route accepted the request's
 * key (`apiKeyAccess` set `c.var.user`), false when the request carries none; a key the route did
 * not accept is refused with `apikey_scope`, whatever else the request carries.
 */
function signedWithKey(c: Context<AppEnv>): boolean {
  if (c.get("apiKey")) return true;
  if (carriesApiKey(c.req.raw)) throw new ApiError("apikey_scope", 403);
  return false;
}

export const SESSION_TTL_MS = 30 * 24 * 3600 * 1000;

function bearer(req: Request): string | null {
  const h = req.headers.get("authorization")?.trim();
  if (!h) return null;
  const token = h.toLowerCase().startsWith("bearer ") ? h.slice(7).trim() : h;
  return token.length >= 20 && token.length <= 200 ? token : null;
}

/** Resolves the session of a request, or null (and keeps a hint of it for the order path: below). */
export async function sessionUser(db: D1Database, req: Request, now = Date.now()): Promise<SessionUser | null> {
  const token = bearer(req);
  if (!token) return null;
  const user = await sessionOfToken(db, token, now);
  if (user) rememberHint(token, user, now);
  else hints.delete(token);
  // "Last seen" of the devices list, written at most once a minute per session.
  if (user && (user.lastSeenAt ?? 0) < now - LAST_SEEN_STEP_MS) {
    await db.prepare("UPDATE sessions SET last_seen_at = ? WHERE id = ?").bind(now, user.sessionId).run();
  }
  return user;
}

/** How stale a session's last_seen_at may get before a request writes it again. */
const LAST_SEEN_STEP_MS = 60_000;

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
      `SELECT s.id AS session_id, s.last_seen_at, u.id, u.account, u.role, u.review_status, u.locked
       FROM sessions s JOIN users u ON u.id = s.user_id
       WHERE s.token_hash = ? AND s.revoked_at IS NULL AND s.expires_at > ?`,
    )
    .bind(tokenHash, now)
    .first<{ session_id: number; last_seen_at: number | null; id: number; account: string; role: SessionUser["role"]; review_status: number; locked: number }>();
  if (!row || row.locked) return null;
  return { id: row.id, account: row.account, role: row.role, reviewStatus: row.review_status, sessionId: row.session_id, lastSeenAt: row.last_seen_at ?? 0 };
}

/** How many of a user's newest live sessions `liveSessionsStatement` lists (a user has at most 16 channel sockets). */
export const LIVE_SESSIONS_PER_USER = 16;

/**
 * The rule of `sessionOfTokenHash` for many users at once, as a statement to put in another D1
 * batch (the pair object's drain reads the live sessions of the users it is about to notify in the
 * same transaction that applies their events): rows `{ user_id, session_id }`, each user's newest
 * LIVE_SESSIONS_PER_USER live sessions. A session missing from the answer is ended or beyond that
 * limit: whoever uses the list checks such a session with `sessionOfTokenHash` before trusting it.
 */
export function liveSessionsStatement(db: D1Database, userIds: number[], now = Date.now()): D1PreparedStatement {
  return db
    .prepare(
      `SELECT user_id, session_id FROM (
         SELECT s.user_id, s.id AS session_id, row_number() OVER (PARTITION BY s.user_id ORDER BY s.id DESC) AS n
         FROM sessions s JOIN users u ON u.id = s.user_id
         WHERE s.user_id IN (SELECT value FROM json_each(?)) AND s.revoked_at IS NULL AND s.expires_at > ? AND u.locked = 0)
       WHERE n <= ?`,
    )
    .bind(JSON.stringify(userIds), now, LIVE_SESSIONS_PER_USER);
}

/**
 * Session hints: the order path's way around one D1 read and one SHA-256 per order (issue #17,
 * bench/README.md). Each isolate remembers, per bearer token, the session it resolved to the last
 * time D1 was asked (any route), for HINT_MS. A hint is never trusted on its own: `requireTrader`
 * uses it only for a verified plain user, and then the order's freeze batch itself carries the
 * check (`LIVE_TRADER_USER_ID`: the order row's user id comes from the live session, so a revoked,
 * expired or locked session, or a user no longer verified, fails the whole batch and nothing is
 * written). Whatever else the request answers (a refusal, a validation error, a batch with
 * nothing to freeze) waits for an explicit D1 check first. So the bound on revocation is zero:
 * a session ended in D1 never freezes funds, books an order or gets an answer other than its
 * session error, in any isolate. HINT_MS and HINT_MAX only bound memory and how long a stale hint
 * costs one failed batch.
 */
export const HINT_MS = 5 * 60_000;
const HINT_MAX = 10_000;
const hints = new Map<string, { user: SessionUser; at: number }>();

function rememberHint(token: string, user: SessionUser, now: number) {
  hints.delete(token);
  hints.set(token, { user, at: now });
  // Forget the oldest (insertion order).
  if (hints.size > HINT_MAX) hints.delete(hints.keys().next().value!);
}

function hintOf(token: string, now: number): SessionUser | null {
  const h = hints.get(token);
  if (!h) return null;
  if (now - h.at > HINT_MS) {
    hints.delete(token);
    return null;
  }
  return h.user;
}

/**
 * The live-session check of `sessionOfTokenHash` plus `requireVerified` and `refuseOperatorMoney`
 * (a plain user), as a scalar subquery for a write: the session's user id, or NULL when any of it
 * no longer holds. Binds, in order: session id, user id, now.
 */
export const LIVE_TRADER_USER_ID = `(SELECT s.user_id FROM sessions s JOIN users u ON u.id = s.user_id
  WHERE s.id = ? AND s.user_id = ? AND s.revoked_at IS NULL AND s.expires_at > ? AND u.locked = 0 AND u.review_status = 2 AND u.role = 'user')`;

/** Thrown by a write that carried `LIVE_TRADER_USER_ID` and found the session no longer live (nothing was written). */
export class SessionGone extends Error {
  constructor() {
    super("session_gone");
  }
}

/** The full check of a trading route: session from D1, operators refused (audited), verification required. */
async function traderFromD1(c: Context<AppEnv>): Promise<SessionUser> {
  const user = await sessionUser(c.env.DB, c.req.raw);
  if (!user) throw loginRequired();
  c.set("user", user);
  if (user.role === "operator" && c.env.OPERATOR_MONEY !== "on") {
    await auditStatement(c.env.DB, { operatorId: user.id, action: "operator.money.refused", targetType: "route", targetId: `${c.req.method} ${c.req.routePath}`, reason: "operator_money_off" }).run();
    throw new ApiError("operator_money_off", 403);
  }
  if (user.reviewStatus !== 2) throw verifyRequired();
  return user;
}

/**
 * `requireUser`, `refuseOperatorMoney` and `requireVerified` in one, for the routes that place
 * orders: with a hint of a verified plain user, the checks ride in the order's freeze batch
 * (`c.var.sessionGuard`, see "Session hints" above); without one, they are made in D1 first, as
 * the three middlewares do. Either way the answer is the one the D1 state gives.
 */
export const requireTrader = createMiddleware<AppEnv>(async (c, next) => {
  if (signedWithKey(c)) {
    // The key's user was read from D1 with the key: the same rules as traderFromD1 (keys are never made for operators).
    if (c.get("user").role !== "user") throw new ApiError("no_permission", 403);
    if (c.get("user").reviewStatus !== 2) throw verifyRequired();
    return next();
  }
  const token = bearer(c.req.raw);
  const hint = token ? hintOf(token, Date.now()) : null;
  if (!hint || hint.role !== "user" || hint.reviewStatus !== 2) {
    await traderFromD1(c);
    return next();
  }
  const unconfirmed = await underGuard(c, next, hint, "trader");
  if (!unconfirmed) return;
  // No freeze batch confirmed the session (a refusal, bad input, a replay, or the batch found it
  // gone): D1 decides before anything is answered.
  const { gone } = unconfirmed;
  try {
    await traderFromD1(c);
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    c.res = errorResponse(c, err);
    return;
  }
  // Live after all (it changed back between the batch and this check): nothing was written, so
  // the client may simply send it again.
  if (gone) c.res = errorResponse(c, new ApiError("try_again", 503));
});

/** Runs the route under a hinted session's guard: null when a write or the account object confirmed the session, else whether it was found gone. */
async function underGuard(c: Context<AppEnv>, next: () => Promise<void>, hint: SessionUser, level: SessionGuard["level"]): Promise<{ gone: boolean } | null> {
  const guard: SessionGuard = { sessionId: hint.sessionId, userId: hint.id, level, confirmed: false };
  c.set("user", hint);
  c.set("sessionGuard", guard);
  await next();
  return guard.confirmed ? null : { gone: c.error instanceof SessionGone };
}

/**
 * Confirms a hinted session now (before work the freeze batch does not guard, like a replay's
 * booking); throws its session error. In objects mode the user's account object answers (from what
 * it remembers, durable/account/sessions.ts); D1 is read when it says no, for the error to give.
 */
export async function confirmTrader(c: Context<AppEnv>): Promise<void> {
  const guard = c.get("sessionGuard");
  if (!guard || guard.confirmed) return;
  if (accountsOnObjects(c.env) && (await accountStub(c.env, guard.userId).accountSessionCheck(guard.userId, { sessionId: guard.sessionId, level: guard.level }))) {
    guard.confirmed = true;
    return;
  }
  if (guard.level === "trader") await traderFromD1(c);
  else if (!(await sessionUser(c.env.DB, c.req.raw))) throw loginRequired();
  guard.confirmed = true;
}

/**
 * Objects mode: the session a call into the user's account object carries for the object to check
 * in that same call (`SessionProof`), or undefined when this request's session is already confirmed
 * (or the route has no hint). `carried` runs the call: any answer confirms the session; the object's
 * refusal becomes `SessionGone`, which the middleware answers with the session's error from D1.
 */
export function sessionProof(guard: SessionGuard | undefined): SessionProof | undefined {
  return guard && !guard.confirmed ? { sessionId: guard.sessionId, level: guard.level } : undefined;
}

export async function carried<P extends PromiseLike<unknown>>(guard: SessionGuard | undefined, call: P): Promise<Awaited<P>> {
  try {
    const answer = await call;
    if (guard) guard.confirmed = true;
    return answer;
  } catch (err) {
    if (String(err).includes(SESSION_GONE)) throw new SessionGone();
    throw err;
  }
}

/**
 * `requireUser` for a cancel or a transfer. On D1's path (and without a hint, or with an API key)
 * it is `requireUser`. In objects mode with a session hint, the user's account object checks the
 * session in the call that moves the money (a live session of an unlocked user: durable/account/sessions.ts);
 * whatever else the request answers waits for D1's check first, as `requireTrader` does.
 */
export const requireAccountUser = createMiddleware<AppEnv>(async (c, next) => {
  const token = accountsOnObjects(c.env) && !c.get("apiKey") && !carriesApiKey(c.req.raw) ? bearer(c.req.raw) : null;
  const hint = token ? hintOf(token, Date.now()) : null;
  if (!hint) return requireUser(c, next);
  const unconfirmed = await underGuard(c, next, hint, "user");
  if (!unconfirmed) return;
  const { gone } = unconfirmed;
  const user = await sessionUser(c.env.DB, c.req.raw);
  if (!user) {
    c.res = errorResponse(c, loginRequired());
    return;
  }
  c.set("user", user);
  if (gone) c.res = errorResponse(c, new ApiError("try_again", 503));
});

/** Requires a valid session; sets `c.var.user`. */
export const requireUser = createMiddleware<AppEnv>(async (c, next) => {
  if (signedWithKey(c)) return next();
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

/** What the sessions list shows of the device a session was made on (GET /api/security/sessions). */
export interface SessionDevice {
  browser: string | null;
  system: string | null;
  place: string | null;
}
const NO_DEVICE: SessionDevice = { browser: null, system: null, place: null };

/**
 * A new session's token (shown to the client once, never stored), its hash and the statements that
 * create it, for a batch that may carry more of the login (worker/domain/auth/devices.ts).
 */
export async function sessionStatements(db: D1Database, userId: number, ip: string, now = Date.now(), seen: SessionDevice = NO_DEVICE) {
  const token = randomToken(32);
  const tokenHash = await sha256Hex(token);
  const statements = [
    db
      .prepare("INSERT INTO sessions (token_hash, user_id, created_at, expires_at, ip, browser, system, place, last_seen_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")
      .bind(tokenHash, userId, now, now + SESSION_TTL_MS, ip, seen.browser, seen.system, seen.place, now),
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
