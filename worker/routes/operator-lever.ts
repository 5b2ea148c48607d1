/**
 * Operator console for leveraged contracts (/api/admin/lever/*; role operator only): list and edit
 * each pair's contract settings. Every edit is audited in the same batch and reaches only positions
 * submitted afterwards; there is no endpoint that touches a position, a price or an outcome.
 */
import { Hono } from "hono";
import { formatUnitsTrim } from "../../schemas/money.ts";
import { adminLeverPairListSchema, leverPairEditSchema } from "../../schemas/lever.ts";
import { requireOperator, requireUser } from "../lib/auth.ts";
import type { AppEnv } from "../lib/context.ts";
import { answers, ok } from "../lib/respond.ts";
import { jsonBody } from "../lib/validate.ts";
import { allLeverSettings, saveLeverSettings, settingsOut } from "../domain/lever/config.ts";

async function pairs(db: D1Database) {
  return (await allLeverSettings(db)).map(({ pair, settings }) => ({
    ...settingsOut(pair, settings),
    pair_exposure: formatUnitsTrim(settings.pairExposure, pair.quoteScale),
    updated_at: settings.updatedAt,
  }));
}

export const operatorLeverRoutes = new Hono<AppEnv>()
  .use("/admin/lever/*", requireUser, requireOperator)
  .get("/admin/lever/pairs", answers(adminLeverPairListSchema, { summary: "Every pair's leveraged-contract settings", auth: true }), async (c) => ok(c, await pairs(c.env.DB)))
  .post("/admin/lever/pairs", jsonBody(leverPairEditSchema), answers(adminLeverPairListSchema, { summary: "Add or edit a pair's contract settings (audited; applies to new positions only)", auth: true }), async (c) => {
    await saveLeverSettings(c.env, c.get("user").id, c.req.valid("json"));
    return ok(c, await pairs(c.env.DB));
  });
