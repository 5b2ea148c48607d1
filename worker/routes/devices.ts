/**
 * Sessions as devices and the sign-in history (issue #29): list one's sessions, end one or every
 * other one (their next request and open sockets are refused at once), and the last 90 days of
 * sign-ins and failed attempts. Rules in worker/domain/security/sessions.ts.
 */
import { Hono } from "hono";
import { loginEventListSchema, sessionListSchema, sessionRevokeSchema, sessionsRevokedSchema } from "../../schemas/sessions.ts";
import { requireUser } from "../lib/auth.ts";
import type { AppEnv } from "../lib/context.ts";
import { rateLimit } from "../lib/ratelimit.ts";
import { answers, ok } from "../lib/respond.ts";
import { jsonBody } from "../lib/validate.ts";
import { listLogins, listSessions, revokeSessions } from "../domain/security/sessions.ts";

export const deviceRoutes = new Hono<AppEnv>()
  .get("/security/sessions", requireUser, answers(sessionListSchema, { summary: "One's signed-in devices (sessions), this one marked `current`", auth: true }), async (c) => {
    const user = c.get("user");
    return ok(c, { list: await listSessions(c.env.DB, user.id, user.sessionId) });
  })
  .post("/security/sessions/revoke", requireUser, jsonBody(sessionRevokeSchema), answers(sessionsRevokedSchema, { summary: "Sign out one device ({id}) or every other one ({all: true})", auth: true }), async (c) => {
    const user = c.get("user");
    await rateLimit(c.env.DB, `revoke:${user.id}`, 30, 60_000);
    return ok(c, { revoked: await revokeSessions(c.env, user.id, user.sessionId, c.req.valid("json")) });
  })
  .get("/security/logins", requireUser, answers(loginEventListSchema, { summary: "Sign-ins and failed attempts of the last 90 days", auth: true }), async (c) => ok(c, { list: await listLogins(c.env.DB, c.get("user").id) }));
