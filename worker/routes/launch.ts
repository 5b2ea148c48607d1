/**
 * Launch subscriptions (issue #19 §2): the published projects, one's commitments and claims. Rules
 * and SQL live in worker/domain/launch/. Switched off (PRODUCT_LAUNCH), the list and new
 * commitments answer feature_off; one's subscriptions and claims keep working, so no money that is
 * already committed or allocated is trapped by the switch.
 */
import { Hono } from "hono";
import { createMiddleware } from "hono/factory";
import { launchClaimSchema, launchCommitSchema, launchProjectListSchema, launchSubscriptionListSchema, launchSubscriptionSchema } from "../../schemas/launch.ts";
import { refuseOperatorMoney, requireUser, requireVerified, sessionUser } from "../lib/auth.ts";
import type { AppEnv } from "../lib/context.ts";
import { ApiError } from "../lib/errors.ts";
import { productsOf } from "../lib/products.ts";
import { answers, ok } from "../lib/respond.ts";
import { jsonBody } from "../lib/validate.ts";
import { claim, commit } from "../domain/launch/commit.ts";
import { listProjects, mySubscriptions } from "../domain/launch/store.ts";
import { cachedPublic, invalidates, PUBLIC_LISTS } from "../lib/public-cache.ts";

const launchOn = createMiddleware<AppEnv>(async (c, next) => {
  if (!productsOf(c.env).launch) throw new ApiError("feature_off", 403);
  await next();
});

export const launchRoutes = new Hono<AppEnv>()
  .use("/launch/projects", launchOn)
  .use("/launch/commit", launchOn)
  .use("/launch/*", invalidates(PUBLIC_LISTS.launch))
  .get("/launch/projects", answers(launchProjectListSchema, { summary: "Published launch projects with prices, window, supply, cap, vesting and totals committed; one's own commitment with a session" }), async (c) => {
    const user = await sessionUser(c.env.DB, c.req.raw);
    // One's own commitment makes the list personal: cached only for visitors without a session.
    return ok(c, user ? await listProjects(c.env.DB, user.id) : await cachedPublic(PUBLIC_LISTS.launch, () => listProjects(c.env.DB, null)));
  })
  .post("/launch/commit", requireUser, refuseOperatorMoney, requireVerified, jsonBody(launchCommitSchema), answers(launchSubscriptionSchema, { summary: "Commit funds to an open project: frozen in one's spot account until the window ends (per-user cap; one currency per project)", auth: true }), async (c) =>
    ok(c, await commit(c.env, c.get("user").id, c.req.valid("json"))),
  )
  .get("/launch/my", requireUser, answers(launchSubscriptionListSchema, { summary: "One's launch subscriptions: committed, allocated, refunded, locked, claimable and claimed", auth: true }), async (c) =>
    ok(c, await mySubscriptions(c.env.DB, c.get("user").id, Date.now())),
  )
  .post("/launch/claim", requireUser, jsonBody(launchClaimSchema), answers(launchSubscriptionSchema, { summary: "Move one's vested, unclaimed tokens to the available balance", auth: true }), async (c) =>
    ok(c, await claim(c.env, c.get("user").id, c.req.valid("json").id)),
  );
