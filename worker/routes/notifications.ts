/**
 * The notification centre (issue #16 §1): the caller's own inbox, newest first, rendered in the
 * request's language, and marking items read. Items are written by the events themselves
 * (worker/domain/notifications/inbox.ts); nothing here can create one.
 */
import { Hono } from "hono";
import { notificationPageSchema, notificationQuerySchema, notificationReadResultSchema, notificationReadSchema } from "../../schemas/notification.ts";
import { requireUser } from "../lib/auth.ts";
import type { AppEnv } from "../lib/context.ts";
import { answers, ok } from "../lib/respond.ts";
import { jsonBody, query } from "../lib/validate.ts";
import { listNotifications, markRead } from "../domain/notifications/inbox.ts";

export const notificationRoutes = new Hono<AppEnv>()
  .get("/notifications", requireUser, query(notificationQuerySchema), answers(notificationPageSchema, { summary: "One's notifications, newest first, in the request's language, with the unread count", auth: true }), async (c) => {
    const q = c.req.valid("query");
    return ok(c, await listNotifications(c.env.DB, c.get("user").id, q.page, q.limit, c.get("locale")));
  })
  .post("/notifications/read", requireUser, jsonBody(notificationReadSchema), answers(notificationReadResultSchema, { summary: "Mark one's notifications read: {ids: [...]} or {all: true}; answers the unread count", auth: true }), async (c) =>
    ok(c, await markRead(c.env.DB, c.get("user").id, c.req.valid("json"))),
  );
