/**
 * The maintenance switch in the operator console (worker/lib/maintenance.ts): the read-only window
 * of a migration. Operators only; turning it on or off writes an audit row in the same batch.
 */
import { Hono } from "hono";
import { maintenanceSetSchema, maintenanceStateSchema } from "../../schemas/maintenance.ts";
import { requireOperator, requireUser } from "../lib/auth.ts";
import type { AppEnv } from "../lib/context.ts";
import { MAINTENANCE_CACHE_MS, MAINTENANCE_SETTLE_MS, readMaintenance, setMaintenance, type MaintenanceState } from "../lib/maintenance.ts";
import { answers, ok } from "../lib/respond.ts";
import { jsonBody } from "../lib/validate.ts";

export const maintenanceOut = (s: MaintenanceState) => ({ ...s, refresh_ms: MAINTENANCE_CACHE_MS, settle_ms: MAINTENANCE_SETTLE_MS });

export const operatorMaintenanceRoutes = new Hono<AppEnv>()
  .use("/admin/maintenance", requireUser, requireOperator)
  .get("/admin/maintenance", answers(maintenanceStateSchema, { summary: "The maintenance switch: while on, every money route answers `maintenance` and the money crons skip", auth: true }), async (c) =>
    ok(c, maintenanceOut(await readMaintenance(c.env.DB))),
  )
  .post("/admin/maintenance", jsonBody(maintenanceSetSchema), answers(maintenanceStateSchema, { summary: "Turn the maintenance window on or off (audited; a reason required; in force everywhere within refresh_ms)", auth: true }), async (c) => {
    const { on, reason } = c.req.valid("json");
    return ok(c, maintenanceOut(await setMaintenance(c.env, c.get("user").id, on, reason)));
  });
