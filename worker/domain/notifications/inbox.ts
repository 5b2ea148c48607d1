/**
 * The notification centre's store (issue #16 §1; migrations/0018_notifications.sql).
 *
 * How an event notifies its owner, exactly once:
 *   1. the code that applies the event puts `notificationStatement(...)` (or, for many rows at
 *      once, `notificationsStatement(...)`) into the SAME D1 batch as the event's own statements,
 *      keyed by the event (`event_key`, unique per user): a retry or a re-run inserts nothing, a
 *      batch that fails inserts nothing, so there is never a notification without its event or an
 *      event without its notification;
 *   2. once that batch has committed, `announceNotifications(env, userIds)` tells each user's open
 *      tabs over /ws/user (`{type: "notification"}`), and the app reads its first page again. The
 *      push is best effort: a lost one costs a refresh, never an item (the item is in D1).
 * Reads are always scoped to the session's user: nobody sees another user's items.
 */
import type { Locale } from "../../../schemas/locale.ts";
import type { Notification, NotificationKind, NotificationPage, NotificationRead } from "../../../schemas/notification.ts";
import { notifyUser } from "../../lib/notify.ts";
import { formatShanghai } from "../../lib/time.ts";
import { renderNotification, type NotificationParams } from "./texts.ts";

export interface NewNotification {
  userId: number;
  kind: NotificationKind;
  /** Names the event, unique per user: e.g. `deposit:12:credited`, `micro:345:settle`. */
  key: string;
  params?: NotificationParams;
  /** The app route that shows the event (e.g. `/c2c/show?id=12`), or "". */
  link?: string;
  now?: number;
}

/** One notification, as a statement for the event's own batch (ignored if the event was notified before). */
export function notificationStatement(db: D1Database, n: NewNotification): D1PreparedStatement {
  return db
    .prepare(
      "INSERT INTO notifications (user_id, event_key, kind, params, link, created_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (user_id, event_key) DO NOTHING",
    )
    .bind(n.userId, n.key, n.kind, JSON.stringify(n.params ?? {}), n.link ?? "", n.now ?? Date.now());
}

/**
 * Many notifications as ONE statement (a drain that settles hundreds of contracts in one batch):
 * the rows travel as a JSON array read by json_each, like the ledger's rows.
 */
export function notificationsStatement(db: D1Database, list: NewNotification[], now = Date.now()): D1PreparedStatement[] {
  if (list.length === 0) return [];
  const rows = list.map((n) => [n.userId, n.key, n.kind, JSON.stringify(n.params ?? {}), n.link ?? "", n.now ?? now]);
  return [
    db
      .prepare(
        `INSERT INTO notifications (user_id, event_key, kind, params, link, created_at)
         SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4, value ->> 5 FROM json_each(?) WHERE true
         ON CONFLICT (user_id, event_key) DO NOTHING`,
      )
      .bind(JSON.stringify(rows)),
  ];
}

/** The event that tells a user's open tabs to read their inbox again. */
export const NOTIFICATION_EVENT = { type: "notification" } as const;

/** Tells each user's open tabs that a notification landed (after the batch committed; never throws). */
export async function announceNotifications(env: Pick<Env, "USER">, userIds: number[]): Promise<void> {
  await Promise.all([...new Set(userIds)].map((u) => notifyUser(env, u, NOTIFICATION_EVENT)));
}

interface Row {
  id: number;
  kind: NotificationKind;
  params: string;
  link: string;
  created_at: number;
  read_at: number | null;
}

function view(r: Row, locale: Locale): Notification {
  let params: NotificationParams = {};
  try {
    params = JSON.parse(r.params) as NotificationParams;
  } catch {
    // CHECK (json_valid) keeps this from happening; an item must still be listed.
  }
  const { title, body } = renderNotification(r.kind, params, locale);
  return { id: r.id, kind: r.kind, title, body, link: r.link, created_at: formatShanghai(r.created_at), read: r.read_at !== null };
}

/** One page of the user's inbox, newest first, with the total and the unread count. */
export async function listNotifications(db: D1Database, userId: number, page: number, limit: number, locale: Locale): Promise<NotificationPage> {
  const [counts, rows] = await db.batch([
    db.prepare("SELECT COUNT(*) AS total, COUNT(*) FILTER (WHERE read_at IS NULL) AS unread FROM notifications WHERE user_id = ?").bind(userId),
    db
      .prepare("SELECT id, kind, params, link, created_at, read_at FROM notifications WHERE user_id = ? ORDER BY id DESC LIMIT ? OFFSET ?")
      .bind(userId, limit, (page - 1) * limit),
  ]);
  const c = (counts?.results[0] ?? { total: 0, unread: 0 }) as { total: number; unread: number };
  return { total: c.total, unread: c.unread, data: ((rows?.results ?? []) as Row[]).map((r) => view(r, locale)) };
}

/** Marks some of the user's own notifications (ids of others are ignored) or all of them read; answers the unread count. */
export async function markRead(db: D1Database, userId: number, what: NotificationRead, now = Date.now()): Promise<{ unread: number }> {
  const mark =
    "all" in what
      ? db.prepare("UPDATE notifications SET read_at = ? WHERE user_id = ? AND read_at IS NULL").bind(now, userId)
      : db
          .prepare("UPDATE notifications SET read_at = ? WHERE user_id = ? AND read_at IS NULL AND id IN (SELECT value FROM json_each(?))")
          .bind(now, userId, JSON.stringify(what.ids));
  const [, count] = await db.batch([mark, db.prepare("SELECT COUNT(*) AS unread FROM notifications WHERE user_id = ? AND read_at IS NULL").bind(userId)]);
  return { unread: ((count?.results[0] ?? { unread: 0 }) as { unread: number }).unread };
}
