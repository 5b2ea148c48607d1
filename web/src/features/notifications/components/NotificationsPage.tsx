/**
 * The inbox (/notifications, issue #16 §1): the user's notifications, newest first, in pages.
 * Unread items carry a dot and a bold title; each shows its title, body and Beijing time (as the
 * API gives it). Tapping an item marks it read and opens its link, if it has one; "Mark all read"
 * clears the badge. Notification toasts up when the inbox opens are dismissed (the list has them).
 */
import { formatDateTime } from "../../../lib/format.ts";
import { useEffect, useState } from "react";
import { useQueryClient } from "@tanstack/react-query";
import { m } from "../../../i18n/index.ts";
import { EmptyState, ErrorState, SkeletonList } from "../../../components/States.tsx";
import { LoadMoreFoot } from "../../../components/LoadMoreFoot.tsx";
import { Icon } from "../../../components/Icon.tsx";
import { dismissNotificationToasts, markRead, openNotification, useInbox, useUnreadCount } from "../api.ts";
import { appLink, badgeText } from "../feed.ts";
import s from "./notifications.module.css";

export default function NotificationsPage() {
  const list = useInbox();
  const unread = useUnreadCount();
  const qc = useQueryClient();
  const [busy, setBusy] = useState(false);
  // What the toasts say is listed here: they would only cover the list's first items.
  useEffect(dismissNotificationToasts, []);

  const markAll = async () => {
    setBusy(true);
    try {
      await markRead(qc, { all: true });
    } catch {
      // toasted by the API client; the list shows what the server has
    } finally {
      setBusy(false);
    }
  };

  if (list.loading) return <SkeletonList rows={6} />;
  if (list.error) return <ErrorState message={list.error.message} onRetry={list.reload} />;
  if (list.items.length === 0) return <EmptyState text={m.notif_empty()} />;

  return (
    <div className={s.inbox}>
      <div className={s.bar}>
        <span className="muted" data-testid="notif-unread-count">
          {unread > 0 ? m.notif_unread_count({ count: badgeText(unread) }) : m.notif_all_read()}
        </span>
        <button type="button" className="text-btn" onClick={() => void markAll()} disabled={busy || unread === 0} data-testid="notif-mark-all">
          {m.notif_mark_all()}
        </button>
      </div>
      <ul className={s.list} data-testid="notif-list">
        {list.items.map((n) => (
          <li key={n.id}>
            <button type="button" className={`${s.item} ${n.read ? "" : s.unread}`} onClick={() => openNotification(qc, n)} data-testid="notif-item" data-read={n.read ? "1" : "0"}>
              <span className={s.dot} aria-label={n.read ? undefined : m.notif_unread()} role={n.read ? undefined : "img"} />
              <span className={s.text}>
                <span className={s.title}>{n.title}</span>
                <span className={s.body}>{n.body}</span>
                <span className={`${s.time} num`}>{formatDateTime(n.created_at)}</span>
              </span>
              {appLink(n.link) && <Icon name="chevron" size={16} className={s.chevron} />}
            </button>
          </li>
        ))}
      </ul>
      <LoadMoreFoot count={list.items.length} hasMore={list.hasMore} loadingMore={list.loadingMore} moreError={list.moreError} loadMore={list.loadMore} />
    </div>
  );
}
