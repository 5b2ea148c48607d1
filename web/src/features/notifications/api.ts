/**
 * The notification centre's server state (issue #16 §1; GET /api/notifications, POST
 * /api/notifications/read). Two queries under one root:
 * - the HEAD: the first page with the unread count, read while logged in by the header's bell and
 *   the drawer (the badge). Each time it is read, new items (feed.ts `absorb`: arrived while this
 *   tab runs) are toasted on whatever screen is open; tapping a toast marks the item read and
 *   opens its link. It is read again when the user channel says `notification`, after the
 *   channel reconnects (components/NotificationLive.tsx) and when the tab becomes visible again;
 * - the LIST: the inbox screen's pages (newest first, load more).
 * Marking items read shows at once in both and takes the server's unread count when it answers.
 */
import { useQuery, type InfiniteData, type QueryClient } from "@tanstack/react-query";
import type { NotificationRead } from "../../../../schemas/notification.ts";
import { m } from "../../i18n/index.ts";
import { call, client } from "../../lib/api.ts";
import { navigateTo } from "../../lib/nav.ts";
import { pagesById, usePagedQuery } from "../../lib/query.ts";
import { $session, useSession } from "../../lib/session.ts";
import { dismissToastsByKey, showNoticeToast, STATEMENT_ROUTE } from "../../lib/toast.ts";
import { absorb, appLink, emptyFeed, markedRead, movesMoney, toastPlan, type FeedState, type InboxPage, type NotificationItem } from "./feed.ts";

/** Everything the notification centre shows; a `notification` event invalidates it all. */
export const NOTIFICATIONS = ["notifications"] as const;
const HEAD = [...NOTIFICATIONS, "head"] as const;
const LIST = [...NOTIFICATIONS, "list"] as const;
export const PAGE_SIZE = 20;

export async function fetchInboxPage(page: number, signal?: AbortSignal): Promise<InboxPage> {
  const p = await call((o) => client.api.notifications.$get({ query: { page: String(page), limit: String(PAGE_SIZE) } }, o), { notify: false, signal });
  return { total: p.total, unread: p.unread, lists: p.data };
}

export const postRead = (what: NotificationRead) => call((o) => client.api.notifications.read.$post({ json: what }, o));

/** What this tab has seen of the user's inbox (feed.ts): the baseline and the highest id. */
let feed: FeedState = emptyFeed;

/** Marks items read: at once in the badge and the inbox, then as the server counts them. */
export async function markRead(qc: QueryClient, what: NotificationRead): Promise<void> {
  qc.setQueryData<InboxPage>(HEAD, (p) => (p ? markedRead(p, what) : p));
  qc.setQueryData<InfiniteData<InboxPage, number>>(LIST, (d) => (d ? { ...d, pages: d.pages.map((p) => markedRead(p, what)) } : d));
  try {
    const { unread } = await postRead(what);
    qc.setQueryData<InboxPage>(HEAD, (p) => (p ? { ...p, unread } : p));
  } catch (err) {
    // The server kept them unread (the failure was toasted): show what it has.
    void qc.invalidateQueries({ queryKey: NOTIFICATIONS });
    throw err;
  }
}

/** Opening an item (in the inbox or from its toast): it is read, and its link, if any, is followed. */
export function openNotification(qc: QueryClient, n: NotificationItem): void {
  // Opened from the inbox while its toast is still up: the toast would cover the screen it opens.
  dismissToastsByKey((k) => k === toastKey(n.id));
  if (!n.read) void markRead(qc, { ids: [n.id] }).catch(() => undefined);
  const to = appLink(n.link);
  if (to) navigateTo(to);
}

/** The toast of one notification, and of the "n more" summary; every notification toast's key starts with the prefix. */
const TOAST_PREFIX = "notification:";
const toastKey = (id: number) => `${TOAST_PREFIX}${id}`;

function announce(qc: QueryClient, fresh: NotificationItem[]) {
  const { shown, more } = toastPlan(fresh);
  if (more > 0) showNoticeToast({ key: `${TOAST_PREFIX}more`, title: m.notif_more_new({ count: String(more) }), onTap: () => navigateTo("/notifications") });
  for (const n of shown) {
    // A money item's toast also opens the statement, where the movement stays once the toast is gone.
    const action = movesMoney(n.kind) ? { label: m.statement_view(), onTap: () => openNotification(qc, { ...n, link: STATEMENT_ROUTE }) } : undefined;
    showNoticeToast({ key: toastKey(n.id), title: n.title, body: n.body, onTap: () => openNotification(qc, n), action });
  }
}

/** The inbox is open: it lists what the notification toasts say, so they step aside instead of covering it. */
export const dismissNotificationToasts = () => dismissToastsByKey((k) => k.startsWith(TOAST_PREFIX));

/** The first page and the unread count, while logged in; toasts what is new since the last read. */
function useHead() {
  const loggedIn = useSession().token !== "";
  return useQuery({
    queryKey: HEAD,
    enabled: loggedIn,
    refetchOnWindowFocus: "always",
    queryFn: async ({ signal, client: qc }) => {
      const owner = $session.get().token;
      const page = await fetchInboxPage(1, signal);
      // Another login while this was on its way: the session change refetches for the new one.
      if ($session.get().token !== owner) return page;
      const { state, fresh } = absorb(feed, owner, page.lists);
      feed = state;
      announce(qc, fresh);
      return page;
    },
  });
}

/** How many of the user's notifications are unread (0 when logged out or not loaded yet). */
export function useUnreadCount(): number {
  const head = useHead();
  return head.data?.unread ?? 0;
}

/** The inbox, newest first, in pages; read again when the tab becomes visible. */
export const useInbox = () =>
  usePagedQuery({
    queryKey: LIST,
    fetchPage: (page, signal) => fetchInboxPage(page, signal),
    view: pagesById<NotificationItem>,
    refresh: { refetchOnWindowFocus: "always", refetchInterval: false, refetchIntervalInBackground: false },
  });
