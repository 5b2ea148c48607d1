/**
 * Support tickets, the user's side (issue #16 §2; schemas/support.ts): open, list, read, reply,
 * close, and the user's recent orders to pick the one a ticket is about. Rules and SQL in
 * worker/domain/support/.
 */
import { Hono } from "hono";
import {
  supportOrderListSchema,
  supportOrdersQuerySchema,
  supportTicketDetailSchema,
  supportTicketPageSchema,
  ticketCreateSchema,
  ticketIdParamSchema,
  ticketListQuerySchema,
  ticketMessageSchema,
} from "../../schemas/support.ts";
import { requireUser } from "../lib/auth.ts";
import type { AppEnv } from "../lib/context.ts";
import { answers, ok } from "../lib/respond.ts";
import { jsonBody, params, query } from "../lib/validate.ts";
import { recentOrders } from "../domain/support/related.ts";
import { ownOrdersDrained } from "../domain/spot/own-orders.ts";
import { addUserMessage, closeTicket, createTicket, listTickets, ticketDetail } from "../domain/support/tickets.ts";

export const supportRoutes = new Hono<AppEnv>()
  .use("/support/*", requireUser)
  .post("/support/tickets", jsonBody(ticketCreateSchema), answers(supportTicketDetailSchema, { summary: "Open a ticket: complaint, feedback, question, or about one of one's own orders (up to 4 own pictures; rate-limited)", auth: true }), async (c) =>
    ok(c, await createTicket(c.env.DB, c.get("user").id, c.req.valid("json"))),
  )
  .get("/support/tickets", query(ticketListQuerySchema), answers(supportTicketPageSchema, { summary: "One's tickets, newest activity first", auth: true }), async (c) => {
    const { page, limit } = c.req.valid("query");
    return ok(c, await listTickets(c.env.DB, c.get("user").id, page, limit));
  })
  .get("/support/tickets/:id", params(ticketIdParamSchema), answers(supportTicketDetailSchema, { summary: "One of one's tickets with its conversation and state changes", auth: true }), async (c) =>
    ok(c, await ticketDetail(c.env.DB, c.get("user").id, c.req.valid("param").id)),
  )
  .post("/support/tickets/:id/messages", params(ticketIdParamSchema), jsonBody(ticketMessageSchema), answers(supportTicketDetailSchema, { summary: "Reply on one's ticket (reopens a resolved ticket or one waiting on the user)", auth: true }), async (c) =>
    ok(c, await addUserMessage(c.env.DB, c.get("user").id, c.req.valid("param").id, c.req.valid("json"))),
  )
  .post("/support/tickets/:id/close", params(ticketIdParamSchema), answers(supportTicketDetailSchema, { summary: "Close one's ticket", auth: true }), async (c) =>
    ok(c, await closeTicket(c.env.DB, c.get("user").id, c.req.valid("param").id)),
  )
  .get("/support/orders", query(supportOrdersQuerySchema), answers(supportOrderListSchema, { summary: "One's 20 most recent orders of a kind, to choose the one a ticket is about", auth: true }), async (c) => {
    const kind = c.req.valid("query").kind;
    // Objects mode: one's just-placed spot orders reach D1 by their pairs' drains; run them first.
    if (kind === "spot") await ownOrdersDrained(c.env, c.get("user").id);
    return ok(c, await recentOrders(c.env.DB, c.get("user").id, kind));
  });
