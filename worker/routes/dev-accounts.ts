/**
 * The move of D1's balances into the account objects (issue #28; worker/domain/ledger/account-objects.ts).
 * Local only: the routes answer under `npm start` (DEV_OUTBOX and DEV_CLOCK both on); anywhere else
 * they are indistinguishable from an unknown path. scripts/migrate-accounts.mjs drives them.
 */
import { Hono } from "hono";
import type { AppEnv } from "../lib/context.ts";
import { devClockOn } from "../lib/clock.ts";
import { devOutboxEnabled } from "../lib/delivery.ts";
import { ApiError, notFound } from "../lib/errors.ts";
import { answers, ok } from "../lib/respond.ts";
import { jsonBody } from "../lib/validate.ts";
import {
  devAccountsCutOverDoneSchema,
  devAccountsCutOverSchema,
  devAccountsMigratedSchema,
  devAccountsMigrateSchema,
  devAccountsSystemOpenedSchema,
  devAccountsSystemSchema,
  devAccountsVerifiedSchema,
  devAccountsVerifySchema,
} from "../../schemas/dev-accounts.ts";
import { migrateAccountsStep, openSystemAccounts, verifyAccountsStep } from "../domain/ledger/account-objects.ts";
import { maintenanceSetSchema, maintenanceStateSchema } from "../../schemas/maintenance.ts";
import { readMaintenance, recordCutOver, setMaintenance } from "../lib/maintenance.ts";
import { maintenanceOut } from "./operator-maintenance.ts";

export const devAccountRoutes = new Hono<AppEnv>()
  .use("/dev/accounts/*", async (c, next) => {
    if (!devOutboxEnabled(c.env) || !devClockOn(c.env)) throw notFound();
    await next();
  })
  .post("/dev/accounts/migrate", jsonBody(devAccountsMigrateSchema), answers(devAccountsMigratedSchema, { summary: "Local only (npm start): opens the next users' account objects from their D1 balances, after the cursor of the range first..last (default: everyone)" }), async (c) => {
    const { limit, first = 1, last = Number.MAX_SAFE_INTEGER } = c.req.valid("json");
    if (last < first) throw new ApiError("invalid_param", 400, { field: "last" });
    return ok(c, await migrateAccountsStep(c.env, limit, { first, last }));
  })
  .post("/dev/accounts/verify", jsonBody(devAccountsVerifySchema), answers(devAccountsVerifiedSchema, { summary: "Local only (npm start): drains the next users' account objects and compares each one's D1 balances with the object and the read model" }), async (c) => {
    const { after, limit, last } = c.req.valid("json");
    return ok(c, await verifyAccountsStep(c.env, after, limit, last));
  })
  .post("/dev/accounts/system", jsonBody(devAccountsSystemSchema), answers(devAccountsSystemOpenedSchema, { summary: "Local only (npm start): opens the system accounts' shards (treasury, fees, …) from D1's system balances, split over the shards, and compares their sums with D1" }), async (c) =>
    ok(c, await openSystemAccounts(c.env)),
  )
  // The last step, once every total matched: a Worker with ACCOUNTS=objects moves money from now on.
  .post("/dev/accounts/cut-over", jsonBody(devAccountsCutOverSchema), answers(devAccountsCutOverDoneSchema, { summary: "Local only (npm start): records that every D1 balance was opened in the account objects (until then a Worker with ACCOUNTS=objects refuses money routes)" }), async (c) =>
    ok(c, { cut_over: await recordCutOver(c.env.DB, "cut-over") }),
  )
  // The migration script's own switch (operator 0 in the audit log): the window before it copies anything.
  .get("/dev/accounts/maintenance", answers(maintenanceStateSchema, { summary: "Local only (npm start): the maintenance switch" }), async (c) => ok(c, maintenanceOut(await readMaintenance(c.env.DB))))
  .post("/dev/accounts/maintenance", jsonBody(maintenanceSetSchema), answers(maintenanceStateSchema, { summary: "Local only (npm start): turns the maintenance window on or off (audited as operator 0)" }), async (c) => {
    const { on, reason } = c.req.valid("json");
    return ok(c, maintenanceOut(await setMaintenance(c.env, 0, on, reason)));
  });
