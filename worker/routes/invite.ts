/**
 * Invitation rebates (issue #18 §3): one's code, team and rebates; the public terms; and the
 * operator console's settings (audited, from the next Beijing day), run report and "settle a past
 * day now" action (audited; idempotent). Rules and SQL live in worker/domain/invite/.
 */
import { Hono } from "hono";
import {
  adminInviteSettingsSchema,
  inviteInfoSchema,
  inviteRebatePageSchema,
  inviteRebateQuerySchema,
  inviteRunPageSchema,
  inviteRunQuerySchema,
  inviteRunRequestSchema,
  inviteRunSchema,
  inviteSettingsEditSchema,
  inviteTeamPageSchema,
  inviteTeamQuerySchema,
  inviteTermsSchema,
} from "../../schemas/invite.ts";
import { requireOperator, requireUser } from "../lib/auth.ts";
import type { AppEnv } from "../lib/context.ts";
import { answers, ok } from "../lib/respond.ts";
import { jsonBody, query } from "../lib/validate.ts";
import { inviteInfo, inviteRebates, inviteRuns, inviteTeam } from "../domain/invite/read.ts";
import { adminSettings, editSettings, terms } from "../domain/invite/settings.ts";
import { runDayNow } from "../domain/invite/console.ts";
import { cachedPublic, invalidates, PUBLIC_LISTS } from "../lib/public-cache.ts";

export const inviteRoutes = new Hono<AppEnv>()
  .get("/invite/info", requireUser, answers(inviteInfoSchema, { summary: "One's invite code and link, rates, agent level and progress, team counts, rebates earned", auth: true }), async (c) =>
    ok(c, await inviteInfo(c.env.DB, c.get("user").id, c.env.APP_ORIGIN || new URL(c.req.url).origin)),
  )
  .get("/invite/team", requireUser, query(inviteTeamQuerySchema), answers(inviteTeamPageSchema, { summary: "One's invitees of levels 1–3 (masked), newest first", auth: true }), async (c) =>
    ok(c, await inviteTeam(c.env.DB, c.get("user").id, c.req.valid("query"))),
  )
  .get("/invite/rebates", requireUser, query(inviteRebateQuerySchema), answers(inviteRebatePageSchema, { summary: "One's rebate lines, newest day first", auth: true }), async (c) =>
    ok(c, await inviteRebates(c.env.DB, c.get("user").id, c.req.valid("query"))),
  )
  .get("/invite/terms", answers(inviteTermsSchema, { summary: "The published rebate terms: rates, agent levels, duration, products that count" }), async (c) => ok(c, await cachedPublic(PUBLIC_LISTS.inviteTerms, () => terms(c.env.DB))));

export const operatorInviteRoutes = new Hono<AppEnv>()
  .use("/admin/invite/*", requireUser, requireOperator, invalidates(PUBLIC_LISTS.inviteTerms))
  .get("/admin/invite/settings", answers(adminInviteSettingsSchema, { summary: "Rebate rates in force and those set for the next day", auth: true }), async (c) => ok(c, await adminSettings(c.env.DB)))
  .post("/admin/invite/settings", jsonBody(inviteSettingsEditSchema), answers(adminInviteSettingsSchema, { summary: "Set the rebate rates from the next Beijing day (audited; total ≤ 0.30)", auth: true }), async (c) =>
    ok(c, await editSettings(c.env.DB, c.get("user").id, c.req.valid("json"))),
  )
  .get("/admin/invite/runs", query(inviteRunQuerySchema), answers(inviteRunPageSchema, { summary: "Rebate settlement runs per day, newest first", auth: true }), async (c) => ok(c, await inviteRuns(c.env.DB, c.req.valid("query"))))
  .post("/admin/invite/run", jsonBody(inviteRunRequestSchema), answers(inviteRunSchema, { summary: "Settle a past Beijing day now (audited; idempotent: a settled day pays nothing more)", auth: true }), async (c) =>
    ok(c, await runDayNow(c.env, c.get("user").id, c.req.valid("json"))),
  );
