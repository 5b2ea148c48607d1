/**
 * The notification centre (issue #16 §1): the caller's own inbox, newest first, rendered in the
 * request's language, and marking items read. Items are written by the events themselves
 * (worker/domain/notifications/inbox.ts); nothing here can create one.
 */
import { Hono } from "hono";
import { createMiddleware } from "hono/factory";
import { notificationPageSchema, notificationQuerySchema, notificationReadResultSchema, notificationReadSchema } from "../../schemas/notification.ts";
import { requireUser } from "../lib/auth.ts";
import type { AppEnv } from "../lib/context.ts";
import { answers, ok } from "../lib/respond.ts";
import { jsonBody, query } from "../lib/validate.ts";
import { rateLimit } from "../lib/ratelimit.ts";
import { listNotifications, markRead } from "../domain/notifications/inbox.ts";

/**
 * Reads of one's inbox (the list and marking read, together) per user and minute: the app reads
 * it when a notification arrives, on focus and when the user opens it; far fewer than this.
 * Counted before the input is checked, so a flood of malformed reads is held back too.
 */
export const NOTIFICATION_READS_PER_MINUTE = 120;
const MINUTE = 60_000;

const readLimit = createMiddleware<AppEnv>(async (c, next) => {
  await rateLimit(c.env.DB, `notif-read:${c.get("user").id}`, NOTIFICATION_READS_PER_MINUTE, MINUTE);
  await next();
});

export const notificationRoutes = new Hono<AppEnv>()
  .get("/notifications", requireUser, readLimit, query(notificationQuerySchema), answers(notificationPageSchema, { summary: "One's notifications, newest first, in the request's language, with the unread count", auth: true }), async (c) => {
    const q = c.req.valid("query");
    return ok(c, await listNotifications(c.env.DB, c.get("user").id, q.page, q.limit, c.get("locale")));
  })
  .post("/notifications/read", requireUser, readLimit, jsonBody(notificationReadSchema), answers(notificationReadResultSchema, { summary: "Mark one's notifications read: {ids: [...]} or {all: true}; answers the unread count", auth: true }), async (c) =>
    ok(c, await markRead(c.env.DB, c.get("user").id, c.req.valid("json"))),
  );
