/**
 * Mining plans (issue #20 §1): the public plans and payout history, buying shares (verified users;
 * spec: "Verified user: required for ... mining purchase") and one's own holdings and payouts.
 * Parses, authorises and calls worker/domain/mining/. Switched off (PRODUCT_MINING), buying answers
 * feature_off; the plans, the payout history and one's own holdings stay readable, and the cron
 * keeps paying holdings already bought.
 */
import { Hono } from "hono";
import { createMiddleware } from "hono/factory";
import { miningBuySchema, miningHoldingSchema, miningMySchema, miningPayoutsQuerySchema, miningPayoutsSchema, miningPlansSchema } from "../../schemas/mining.ts";
import { refuseOperatorMoney, requireUser, requireVerified } from "../lib/auth.ts";
import type { AppEnv } from "../lib/context.ts";
import { ApiError } from "../lib/errors.ts";
import { productsOf } from "../lib/products.ts";
import { answers, ok } from "../lib/respond.ts";
import { jsonBody, query } from "../lib/validate.ts";
import { listPlans, planPayouts } from "../domain/mining/plans.ts";
import { buyShares, myMining } from "../domain/mining/holdings.ts";
import { cachedPublic, invalidates, PUBLIC_LISTS } from "../lib/public-cache.ts";

const miningOn = createMiddleware<AppEnv>(async (c, next) => {
  if (!productsOf(c.env).mining) throw new ApiError("feature_off", 403);
  await next();
});

export const miningRoutes = new Hono<AppEnv>()
  .use("/mining/buy", miningOn)
  .use("/mining/*", invalidates(PUBLIC_LISTS.mining))
  .get("/mining/plans", answers(miningPlansSchema, { summary: "Mining plans on sale: pool, worker, hashrate, shares left, price, term, stated fees, and the last 30 days' paid payouts per share" }), async (c) =>
    ok(c, await cachedPublic(PUBLIC_LISTS.mining, () => listPlans(c.env.DB, false))),
  )
  .get("/mining/payouts", query(miningPayoutsQuerySchema), answers(miningPayoutsSchema, { summary: "A plan's recorded pool payouts per hour, newest first, with evidence and status (pending ones are not counted until paid)" }), async (c) =>
    ok(c, await planPayouts(c.env.DB, c.req.valid("query"))),
  )
  .post("/mining/buy", requireUser, refuseOperatorMoney, requireVerified, jsonBody(miningBuySchema), answers(miningHoldingSchema, { summary: "Buy shares of a plan: the price from the spot account to the exchange; they count for hours from now for the plan's term", auth: true }), async (c) =>
    ok(c, await buyShares(c.env, c.get("user").id, c.req.valid("json"))),
  )
  .get("/mining/my", requireUser, answers(miningMySchema, { summary: "One's mining holdings (in progress or completed) and the hours paid to one", auth: true }), async (c) =>
    ok(c, await myMining(c.env.DB, c.get("user").id)),
  );
