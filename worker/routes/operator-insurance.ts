/**
 * Operator console for cover plans (/api/admin/insurance/*; role operator only): list every plan
 * with its totals, publish a plan, close one. Each action is audited with its reason in the same
 * batch. Nothing here touches a cover, a claim or anyone's money: operators set terms only.
 */
import { Hono } from "hono";
import { insurancePlanCloseSchema, insurancePlanCreateSchema, insurancePlanSchema, insurancePlansSchema } from "../../schemas/insurance.ts";
import { requireOperator, requireUser } from "../lib/auth.ts";
import type { AppEnv } from "../lib/context.ts";
import { answers, ok } from "../lib/respond.ts";
import { jsonBody } from "../lib/validate.ts";
import { closePlan, createPlan, listPlans } from "../domain/insurance/plans.ts";
import { invalidates, PUBLIC_LISTS } from "../lib/public-cache.ts";

export const operatorInsuranceRoutes = new Hono<AppEnv>()
  .use("/admin/insurance/*", requireUser, requireOperator, invalidates(PUBLIC_LISTS.insurance))
  .get("/admin/insurance/plans", answers(insurancePlansSchema, { summary: "Every cover plan, on sale or closed, with its totals", auth: true }), async (c) => ok(c, await listPlans(c.env.DB, true)))
  .post("/admin/insurance/plans", jsonBody(insurancePlanCreateSchema), answers(insurancePlanSchema, { summary: "Publish a cover plan (audited; its terms never change)", auth: true }), async (c) =>
    ok(c, await createPlan(c.env.DB, c.get("user").id, c.req.valid("json"))),
  )
  .post("/admin/insurance/close", jsonBody(insurancePlanCloseSchema), answers(insurancePlanSchema, { summary: "Close a plan to new sales (audited; its covers run to their end)", auth: true }), async (c) =>
    ok(c, await closePlan(c.env.DB, c.get("user").id, c.req.valid("json"))),
  );
