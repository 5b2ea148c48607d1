/**
 * The notification feed's rules, kept pure for the unit tests (tests/web/notifications-feed.test.ts):
 * which items of a freshly read first page are NEW (and toasted), how many toasts that makes, how
 * marking items read changes the unread count, and which links the app may follow.
 *
 * "New" means: arrived while this tab runs. The first page read after a login (or after the app
 * loaded) is the baseline: nothing in it is toasted, however unread. From then on an item is new
 * when its id is above the highest id seen so far (ids grow in the order D1 commits the events,
 * migrations/0018_notifications.sql), so a refetch, a language switch or a reconnect that reads
 * the same items again toasts nothing twice. Another login (another token) starts a new baseline.
 */
import type { Notification } from "../../../../schemas/notification.ts";

export type NotificationItem = Notification;

export interface FeedState {
  /** Whose feed this is (the session token); another owner starts a new baseline. */
  owner: string;
  /** The highest id seen for this owner; null until the baseline page has been read. */
  watermark: number | null;
}

export const emptyFeed: FeedState = { owner: "", watermark: null };

function highest(items: readonly NotificationItem[], floor: number): number {
  return items.reduce((max, n) => (n.id > max ? n.id : max), floor);
}

/**
 * Takes in a first page read for `owner` (newest first): answers the new state and the items to
 * announce, oldest first. The baseline page (first read for this owner) announces nothing; an
 * item already read (on another device) is not announced either.
 */
export function absorb(state: FeedState, owner: string, items: readonly NotificationItem[]): { state: FeedState; fresh: NotificationItem[] } {
  if (state.owner !== owner || state.watermark === null) {
    return { state: { owner, watermark: highest(items, 0) }, fresh: [] };
  }
  const mark = state.watermark;
  const fresh = items.filter((n) => n.id > mark && !n.read).sort((a, b) => a.id - b.id);
  return { state: { owner, watermark: highest(items, mark) }, fresh };
}

/** At most this many notification toasts at once (the toaster shows three). */
export const MAX_TOASTS = 3;

/**
 * Which fresh items get a toast of their own: all of them up to MAX_TOASTS; beyond that the
 * newest MAX_TOASTS - 1 and one summary toast saying how many more arrived (`more`).
 */
export function toastPlan(fresh: readonly NotificationItem[]): { shown: NotificationItem[]; more: number } {
  if (fresh.length <= MAX_TOASTS) return { shown: [...fresh], more: 0 };
  const keep = MAX_TOASTS - 1;
  return { shown: fresh.slice(fresh.length - keep), more: fresh.length - keep };
}

/** What one page of the inbox holds, as the screens keep it. */
export interface InboxPage {
  total: number;
  unread: number;
  lists: NotificationItem[];
}

/**
 * A page after marking some items (or all) read, before the server answers: those items read,
 * the unread count lowered by the items that were unread and are in the page. `unread` from the
 * server's answer replaces the count once it arrives (items on later pages count there too).
 */
export function markedRead<P extends InboxPage>(page: P, what: { ids: readonly number[] } | { all: true }): P {
  const hit = (n: NotificationItem) => "all" in what || what.ids.includes(n.id);
  let cleared = 0;
  const lists = page.lists.map((n) => {
    if (n.read || !hit(n)) return n;
    cleared += 1;
    return { ...n, read: true };
  });
  const unread = "all" in what ? 0 : Math.max(0, page.unread - cleared);
  return { ...page, lists, unread };
}

/** The badge text: nothing at 0, the count up to 99, then "99+". */
export function badgeText(unread: number): string {
  if (!Number.isFinite(unread) || unread <= 0) return "";
  return unread > 99 ? "99+" : String(Math.floor(unread));
}

/**
 * The in-app route a notification's link names ("/legal/show?id=12", also given as
 * "#/legal/show?id=12"), or null when there is none or it is not an in-app path (another site,
 * "//host", "javascript:"): the app only ever navigates inside itself.
 */
export function appLink(link: string | null | undefined): string | null {
  let path = (link ?? "").trim();
  if (path.startsWith("#")) path = path.slice(1);
  if (!path.startsWith("/") || path.startsWith("//") || path.startsWith("/\\")) return null;
  return path;
}

/** Kinds that say nothing about the user's money (the rest all moved or held some). */
const NOT_MONEY = new Set<string>(["kyc_approved", "kyc_rejected", "login_new_device", "support_reply", "insurance_queued", "insurance_ended", "insurance_expired", "security_passkey_added", "security_passkey_removed", "security_anti_phishing", "security_whitelist_on", "security_whitelist_off", "security_locked", "security_address_added", "security_address_removed", "price_alert_above", "price_alert_below", "price_alert_move", "apikey_created"]);

/** Whether a notification is about money that moved or was held (its toast links to the statement). */
export const movesMoney = (kind: string): boolean => !NOT_MONEY.has(kind);
