/**
 * Price alerts (issue #30; schemas/alert.ts): create, list and delete one's own alerts. The rules
 * and the SQL are in worker/domain/alerts/; the pair's object fires them (durable/pair/desks/alerts.ts).
 */
import { Hono } from "hono";
import { alertCreateSchema, alertDeletedSchema, alertIdParamSchema, alertListSchema, alertSchema } from "../../schemas/alert.ts";
import { requireUser } from "../lib/auth.ts";
import type { AppEnv } from "../lib/context.ts";
import { answers, ok } from "../lib/respond.ts";
import { jsonBody, params } from "../lib/validate.ts";
import { createAlert, deleteAlert, listAlerts } from "../domain/alerts/alerts.ts";

export const alertRoutes = new Hono<AppEnv>()
  .post("/alerts", requireUser, jsonBody(alertCreateSchema), answers(alertSchema, { summary: "A price alert on a pair: above/below a price, or a move of percent over 1h/24h; fires once as a notification; at most 50 active", auth: true }), async (c) =>
    ok(c, await createAlert(c.env, c.get("user").id, c.req.valid("json"))),
  )
  .get("/alerts", requireUser, answers(alertListSchema, { summary: "One's price alerts, newest first (active and recently fired)", auth: true }), async (c) => ok(c, await listAlerts(c.env.DB, c.get("user").id)))
  .post("/alerts/:id/delete", requireUser, params(alertIdParamSchema), answers(alertDeletedSchema, { summary: "Delete one of one's price alerts", auth: true }), async (c) => {
    await deleteAlert(c.env, c.get("user").id, c.req.valid("param").id);
    return ok(c, "deleted");
  });
