/**
 * Savings (issue #19 §1): /api/earn/*. Parses, authorises and calls worker/domain/earn/. With
 * PRODUCT_EARN off, the product list and subscribing answer feature_off; what a user already has
 * stays reachable (their positions and redeeming them), so no money is trapped by the switch.
 * Subscribing needs a verified, non-operator account. Every position id is looked up within the
 * caller's own positions: another user's id reads as not found.
 */
import { Hono } from "hono";
import { createMiddleware } from "hono/factory";
import { earnPositionListSchema, earnPositionSchema, earnProductListSchema, earnRedeemSchema, earnSubscribeSchema } from "../../schemas/earn.ts";
import { refuseOperatorMoney, requireUser, requireVerified, sessionUser } from "../lib/auth.ts";
import type { AppEnv } from "../lib/context.ts";
import { ApiError } from "../lib/errors.ts";
import { productsOf } from "../lib/products.ts";
import { answers, ok } from "../lib/respond.ts";
import { jsonBody } from "../lib/validate.ts";
import { listProducts } from "../domain/earn/catalogue.ts";
import { listPositions, redeem, subscribe } from "../domain/earn/positions.ts";
import { cachedPublic, invalidates, PUBLIC_LISTS } from "../lib/public-cache.ts";

const earnOn = createMiddleware<AppEnv>(async (c, next) => {
  if (!productsOf(c.env).earn) throw new ApiError("feature_off", 403);
  await next();
});

export const earnRoutes = new Hono<AppEnv>()
  .use("/earn/products", earnOn)
  .use("/earn/subscribe", earnOn)
  .use("/earn/*", invalidates(PUBLIC_LISTS.earn))
  .get("/earn/products", answers(earnProductListSchema, { summary: "Open savings products: terms, APR, limits, the interest budget and what remains of it (with one's open principal when logged in)" }), async (c) => {
    const user = await sessionUser(c.env.DB, c.req.raw);
    // One's open principal makes the list personal: cached only for visitors without a session.
    return ok(c, user ? await listProducts(c.env.DB, user.id) : await cachedPublic(PUBLIC_LISTS.earn, () => listProducts(c.env.DB, null)));
  })
  .post("/earn/subscribe", requireUser, refuseOperatorMoney, requireVerified, jsonBody(earnSubscribeSchema), answers(earnPositionSchema, { summary: "Subscribe: the principal is frozen in one's spot account and the position's interest reserved from the budget at once", auth: true }), async (c) =>
    ok(c, await subscribe(c.env, c.get("user").id, c.req.valid("json"))),
  )
  .get("/earn/positions", requireUser, answers(earnPositionListSchema, { summary: "One's savings positions, open first, with interest accrued and paid", auth: true }), async (c) =>
    ok(c, await listPositions(c.env.DB, c.get("user").id)),
  )
  .post("/earn/redeem", requireUser, jsonBody(earnRedeemSchema), answers(earnPositionSchema, { summary: "Redeem one's open position: flexible at once; fixed before maturity forfeits the interest accrued", auth: true }), async (c) =>
    ok(c, await redeem(c.env, c.get("user").id, c.req.valid("json").position_id)),
  );
