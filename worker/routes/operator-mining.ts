/**
 * Operator console for mining plans (/api/admin/mining/*; role operator only): list and close
 * plans, record what a pool paid for one hour (with evidence), and approve or reject another
 * operator's record. Every action is audited with its reason in the same batch; the recorder can
 * never decide their own record.
 */
import { Hono } from "hono";
import {
  miningAdminPayoutSchema,
  miningAdminPayoutsQuerySchema,
  miningAdminPayoutsSchema,
  miningPayoutDecideSchema,
  miningPayoutRecordSchema,
  miningPlanCloseSchema,
  miningPlanCreateSchema,
  miningPlanSchema,
  miningPlansSchema,
} from "../../schemas/mining.ts";
import { requireOperator, requireUser } from "../lib/auth.ts";
import type { AppEnv } from "../lib/context.ts";
import { answers, ok } from "../lib/respond.ts";
import { jsonBody, query } from "../lib/validate.ts";
import { closePlan, createPlan, listPlans } from "../domain/mining/plans.ts";
import { adminPayouts, decidePayout, recordPayout } from "../domain/mining/payouts.ts";
import { invalidates, PUBLIC_LISTS } from "../lib/public-cache.ts";

export const operatorMiningRoutes = new Hono<AppEnv>()
  .use("/admin/mining/*", requireUser, requireOperator, invalidates(PUBLIC_LISTS.mining))
  .get("/admin/mining/plans", answers(miningPlansSchema, { summary: "Every mining plan, open or closed", auth: true }), async (c) => ok(c, await listPlans(c.env.DB, true)))
  .post("/admin/mining/plans", jsonBody(miningPlanCreateSchema), answers(miningPlanSchema, { summary: "List a mining plan (audited; its terms never change)", auth: true }), async (c) =>
    ok(c, await createPlan(c.env.DB, c.get("user").id, c.req.valid("json"))),
  )
  .post("/admin/mining/close", jsonBody(miningPlanCloseSchema), answers(miningPlanSchema, { summary: "Close a plan to new purchases (audited; holdings run to their end)", auth: true }), async (c) =>
    ok(c, await closePlan(c.env.DB, c.get("user").id, c.req.valid("json"))),
  )
  .get("/admin/mining/payouts", query(miningAdminPayoutsQuerySchema), answers(miningAdminPayoutsSchema, { summary: "Recorded pool payouts with who recorded and decided them", auth: true }), async (c) =>
    ok(c, await adminPayouts(c.env.DB, c.req.valid("query").status)),
  )
  .post("/admin/mining/payouts", jsonBody(miningPayoutRecordSchema), answers(miningAdminPayoutSchema, { summary: "Record what the pool paid for one plan and one ended hour, with evidence (audited; a second operator must approve)", auth: true }), async (c) =>
    ok(c, await recordPayout(c.env.DB, c.get("user").id, c.req.valid("json"))),
  )
  .post("/admin/mining/payouts/approve", jsonBody(miningPayoutDecideSchema), answers(miningAdminPayoutSchema, { summary: "Approve another operator's payout record: the amount is held by the exchange and paid by the hourly cron (audited)", auth: true }), async (c) =>
    ok(c, await decidePayout(c.env, c.get("user").id, c.req.valid("json"), true)),
  )
  .post("/admin/mining/payouts/reject", jsonBody(miningPayoutDecideSchema), answers(miningAdminPayoutSchema, { summary: "Reject another operator's payout record (audited; nothing is paid)", auth: true }), async (c) =>
    ok(c, await decidePayout(c.env, c.get("user").id, c.req.valid("json"), false)),
  );
