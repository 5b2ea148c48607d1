/** The header's bell (shown while logged in): opens the inbox, with the unread count as a badge. */
import { Link } from "react-router";
import { m } from "../../../i18n/index.ts";
import { Icon } from "../../../components/Icon.tsx";
import { useUnreadCount } from "../api.ts";
import { badgeText } from "../feed.ts";
import s from "./notifications.module.css";

export function NotificationBell() {
  const unread = useUnreadCount();
  const badge = badgeText(unread);
  const label = badge ? `${m.title_notifications()}, ${m.notif_unread_count({ count: badge })}` : m.title_notifications();
  return (
    <Link to="/notifications" className={`icon-btn ${s.bell}`} aria-label={label} data-testid="notif-bell">
      <Icon name="bell" />
      {badge && (
        <span className={`${s.bellBadge} num`} data-testid="notif-badge" aria-hidden="true">
          {badge}
        </span>
      )}
    </Link>
  );
}

/** The unread count beside the drawer's "Notifications" entry (nothing at 0). */
export function UnreadCount() {
  const badge = badgeText(useUnreadCount());
  if (!badge) return null;
  return (
    <span className={`${s.countBadge} num`} data-testid="drawer-notif-count">
      {badge}
    </span>
  );
}
