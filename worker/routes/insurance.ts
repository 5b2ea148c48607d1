/**
 * Contract-asset cover, the spec's insurance (issue #19 §4): the public plans with their running
 * totals, buying, one's covers and claims. Parses, authorises and calls worker/domain/insurance/.
 * Switched off (PRODUCT_INSURANCE), the plans and buying answer feature_off; what a user already
 * bought stays theirs: listing and claiming keep working, so no paid premium loses its cover.
 * Every cover is looked up within the caller's own: another user's id reads as "not found".
 */
import { Hono } from "hono";
import { createMiddleware } from "hono/factory";
import { insuranceBuySchema, insuranceClaimResultSchema, insuranceClaimSchema, insuranceCoverSchema, insuranceMyQuerySchema, insuranceMySchema, insurancePlansSchema } from "../../schemas/insurance.ts";
import { refuseOperatorMoney, requireUser, requireVerified } from "../lib/auth.ts";
import type { AppEnv } from "../lib/context.ts";
import { ApiError } from "../lib/errors.ts";
import { productsOf } from "../lib/products.ts";
import { answers, ok } from "../lib/respond.ts";
import { jsonBody, query } from "../lib/validate.ts";
import { listPlans } from "../domain/insurance/plans.ts";
import { buyCover, claimCover, myCovers } from "../domain/insurance/covers.ts";
import { cachedPublic, invalidates, PUBLIC_LISTS } from "../lib/public-cache.ts";

const insuranceOn = createMiddleware<AppEnv>(async (c, next) => {
  if (!productsOf(c.env).insurance) throw new ApiError("feature_off", 403);
  await next();
});

export const insuranceRoutes = new Hono<AppEnv>()
  .use("/insurance/plans", insuranceOn)
  .use("/insurance/buy", insuranceOn)
  .use("/insurance/*", invalidates(PUBLIC_LISTS.insurance))
  .get("/insurance/plans", answers(insurancePlansSchema, { summary: "Cover plans on sale (terms, premium and cover per amount) and the running totals of premiums collected and claims paid" }), async (c) =>
    ok(c, await cachedPublic(PUBLIC_LISTS.insurance, () => listPlans(c.env.DB, false))),
  )
  .post("/insurance/buy", requireUser, refuseOperatorMoney, requireVerified, jsonBody(insuranceBuySchema), answers(insuranceCoverSchema, { summary: "Buy a cover: premium from the spot account, the full cover reserved by the exchange, in force from 00:00 UTC tomorrow", auth: true }), async (c) =>
    ok(c, await buyCover(c.env, c.get("user").id, c.req.valid("json"))),
  )
  .get("/insurance/my", requireUser, query(insuranceMyQuerySchema), answers(insuranceMySchema, { summary: "One's covers, newest first, with status and the seconds account's value by the rule", auth: true }), async (c) =>
    ok(c, await myCovers(c.env, c.get("user").id, c.req.valid("query"))),
  )
  .post("/insurance/claim", requireUser, refuseOperatorMoney, jsonBody(insuranceClaimSchema), answers(insuranceClaimResultSchema, { summary: "Claim a cover whose account value is at or below 50 %: paid now, or queued and paid the next UTC day after two payouts today", auth: true }), async (c) =>
    ok(c, await claimCover(c.env, c.get("user").id, c.req.valid("json").id)),
  );
