/**
 * The move of D1's balances into the account objects (issue #28; worker/domain/ledger/account-cutover.ts).
 * Local only: the routes answer under `npm start` (DEV_OUTBOX and DEV_CLOCK both on); anywhere else
 * they are indistinguishable from an unknown path. scripts/migrate-accounts.mjs drives them without
 * an operator token; a deployed exchange has the same steps under /api/admin/accounts
 * (worker/routes/operator-accounts.ts). Here they are audited as operator 0 and keep the local
 * tools' shortcuts: no window is required (npm start's own cut-over and the bench tools open a
 * state without one; the script turns it on itself) and the cut-over's record waits for no verification.
 */
import { Hono } from "hono";
import type { AppEnv } from "../lib/context.ts";
import { devClockOn } from "../lib/clock.ts";
import { devOutboxEnabled } from "../lib/delivery.ts";
import { notFound } from "../lib/errors.ts";
import { answers, ok } from "../lib/respond.ts";
import { jsonBody } from "../lib/validate.ts";
import { devAccountsCutOverSchema, devAccountsMigrateSchema, devAccountsSystemSchema, devAccountsVerifySchema } from "../../schemas/dev-accounts.ts";
import { maintenanceSetSchema, maintenanceStateSchema } from "../../schemas/maintenance.ts";
import { readMaintenance, setMaintenance } from "../lib/maintenance.ts";
import { maintenanceOut } from "./operator-maintenance.ts";
import { accountMigrationRoutes } from "./account-migration.ts";

export const devAccountRoutes = new Hono<AppEnv>()
  .use("/dev/accounts/*", async (c, next) => {
    if (!devOutboxEnabled(c.env) || !devClockOn(c.env)) throw notFound();
    await next();
  })
  .route(
    "/",
    accountMigrationRoutes("/dev/accounts", {
      schemas: { migrate: devAccountsMigrateSchema, verify: devAccountsVerifySchema, system: devAccountsSystemSchema, cutOver: devAccountsCutOverSchema },
      actor: () => ({ operatorId: 0, reason: "npm run migrate-accounts (local)", checked: false }),
      doc: (summary) => ({ summary: `Local only (npm start): ${summary}` }),
    }),
  )
  // The migration script's own switch (operator 0 in the audit log): the window before it copies anything.
  .get("/dev/accounts/maintenance", answers(maintenanceStateSchema, { summary: "Local only (npm start): the maintenance switch" }), async (c) => ok(c, maintenanceOut(await readMaintenance(c.env.DB))))
  .post("/dev/accounts/maintenance", jsonBody(maintenanceSetSchema), answers(maintenanceStateSchema, { summary: "Local only (npm start): turns the maintenance window on or off (audited as operator 0)" }), async (c) => {
    const { on, reason } = c.req.valid("json");
    return ok(c, maintenanceOut(await setMaintenance(c.env, 0, on, reason)));
  });
