/**
 * Support tickets in the operator console (/api/admin/support/*; operators only): the queue, a
 * ticket with its whole history, a reply or internal note, a change of state. Every action is
 * audited in its own batch; nobody handles a ticket they opened (worker/domain/support/console.ts).
 */
import { Hono } from "hono";
import { adminReplySchema, adminStatusSchema, adminTicketDetailSchema, adminTicketPageSchema, adminTicketQuerySchema, ticketIdParamSchema } from "../../schemas/support.ts";
import { requireOperator, requireUser } from "../lib/auth.ts";
import type { AppEnv } from "../lib/context.ts";
import { answers, ok } from "../lib/respond.ts";
import { jsonBody, params, query } from "../lib/validate.ts";
import { adminReply, adminSetStatus, adminTicketDetail, adminTickets } from "../domain/support/console.ts";

export const operatorSupportRoutes = new Hono<AppEnv>()
  .use("/admin/support/*", requireUser, requireOperator)
  .get("/admin/support/tickets", query(adminTicketQuerySchema), answers(adminTicketPageSchema, { summary: "The support queue (filter by status, category): waiting tickets first, the longest-waiting at the top", auth: true }), async (c) =>
    ok(c, await adminTickets(c.env.DB, c.get("user").id, c.req.valid("query"))),
  )
  .get("/admin/support/tickets/:id", params(ticketIdParamSchema), answers(adminTicketDetailSchema, { summary: "A ticket with its whole history, internal notes included", auth: true }), async (c) =>
    ok(c, await adminTicketDetail(c.env.DB, c.get("user").id, c.req.valid("param").id)),
  )
  .post("/admin/support/tickets/:id/reply", params(ticketIdParamSchema), jsonBody(adminReplySchema), answers(adminTicketDetailSchema, { summary: "Reply to the user (notified) or write an internal note (internal: true; never shown to the user); audited", auth: true }), async (c) => {
    const { body, internal } = c.req.valid("json");
    return ok(c, await adminReply(c.env, c.get("user").id, c.req.valid("param").id, body, internal));
  })
  .post("/admin/support/tickets/:id/status", params(ticketIdParamSchema), jsonBody(adminStatusSchema), answers(adminTicketDetailSchema, { summary: "Move a ticket to another state (open, pending_customer, resolved, closed); audited", auth: true }), async (c) =>
    ok(c, await adminSetStatus(c.env.DB, c.get("user").id, c.req.valid("param").id, c.req.valid("json").status)),
  );
