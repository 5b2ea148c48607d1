/**
 * Operator console for seconds contracts (/api/admin/seconds/*; role operator only): list and edit
 * the duration options and the payable currencies. Every edit is audited in the same batch. An edit
 * reaches only contracts accepted afterwards; there is no endpoint that touches a contract, a tick
 * or an outcome.
 */
import { Hono } from "hono";
import { formatUnitsTrim } from "../../schemas/money.ts";
import { adminPayableCurrencyListSchema, adminSecondsOptionListSchema, payableCurrencyEditSchema, secondsOptionEditSchema } from "../../schemas/seconds-admin.ts";
import { bpsToPercent } from "../../durable/engine/seconds.ts";
import { requireOperator, requireUser } from "../lib/auth.ts";
import type { AppEnv } from "../lib/context.ts";
import { answers, ok } from "../lib/respond.ts";
import { jsonBody } from "../lib/validate.ts";
import { listOptions, listPayable, optionOut, pushingSecondsTerms, saveOption, savePayable } from "../domain/seconds/config.ts";
import { invalidates, PUBLIC_LISTS } from "../lib/public-cache.ts";

async function options(db: D1Database) {
  return (await listOptions(db, false)).map((o) => ({ ...optionOut(o), updated_at: o.updatedAt }));
}

async function currencies(db: D1Database) {
  return (await listPayable(db, false)).map((p) => ({
    id: p.currencyId,
    name: p.name,
    micro_numbers: p.microNumbers,
    min_number: formatUnitsTrim(p.min, p.scale),
    max_number: formatUnitsTrim(p.max, p.scale),
    fee_percent: bpsToPercent(p.feeBps),
    pair_exposure: formatUnitsTrim(p.pairExposure, p.scale),
    user_exposure: formatUnitsTrim(p.userExposure, p.scale),
    status: p.status,
    updated_at: p.updatedAt,
  }));
}

export const operatorSecondsRoutes = new Hono<AppEnv>()
  .use("/admin/seconds/*", requireUser, requireOperator, invalidates(PUBLIC_LISTS.seconds))
  .get("/admin/seconds/options", answers(adminSecondsOptionListSchema, { summary: "Every duration option, offered or withdrawn", auth: true }), async (c) => ok(c, await options(c.env.DB)))
  .post("/admin/seconds/options", jsonBody(secondsOptionEditSchema), answers(adminSecondsOptionListSchema, { summary: "Add or edit a duration option (audited; applies to new contracts only)", auth: true }), async (c) => {
    await pushingSecondsTerms(c.env, () => saveOption(c.env.DB, c.get("user").id, c.req.valid("json")));
    return ok(c, await options(c.env.DB));
  })
  .get("/admin/seconds/currencies", answers(adminPayableCurrencyListSchema, { summary: "Payable currencies with their limits", auth: true }), async (c) => ok(c, await currencies(c.env.DB)))
  .post("/admin/seconds/currencies", jsonBody(payableCurrencyEditSchema), answers(adminPayableCurrencyListSchema, { summary: "Add or edit a payable currency (audited; applies to new contracts only)", auth: true }), async (c) => {
    await pushingSecondsTerms(c.env, () => savePayable(c.env.DB, c.get("user").id, c.req.valid("json")));
    return ok(c, await currencies(c.env.DB));
  });
