/**
 * The notification feed (web/src/features/notifications/feed.ts) and its toasts (web/src/lib/toast.ts):
 * which items are new and toasted (only those that arrive while the app runs, once each), how
 * many toasts a burst makes, how marking items read changes the unread count and the badge, and
 * which links a tap may follow.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { absorb, appLink, badgeText, emptyFeed, markedRead, toastPlan, type FeedState, type InboxPage, type NotificationItem } from "../../web/src/features/notifications/feed.ts";
import { $toasts, NOTICE_TOAST_MS, showNoticeToast, toast } from "../../web/src/lib/toast.ts";

const item = (id: number, read = false): NotificationItem => ({
  id,
  kind: "deposit_credited",
  title: `Deposit credited #${id}`,
  body: "100 USDT has been credited to your spot account.",
  link: "",
  created_at: "2026-11-24 10:00:00",
  read,
});
/** A first page as the API gives it: newest first. */
const page = (...ids: number[]) => ids.sort((a, b) => b - a).map((id) => item(id));
const ids = (list: NotificationItem[]) => list.map((n) => n.id);

/** Reads pages one after another for `owner`, collecting what each read announces. */
function reads(owner: string, ...pages: NotificationItem[][]): { state: FeedState; announced: number[][] } {
  let state = emptyFeed;
  const announced: number[][] = [];
  for (const p of pages) {
    const r = absorb(state, owner, p);
    state = r.state;
    announced.push(ids(r.fresh));
  }
  return { state, announced };
}

describe("which notifications are new", () => {
  it("toasts nothing that was already in the inbox when the app loaded, even unread ones", () => {
    const { announced } = reads("t1", page(3, 2, 1));
    expect(announced).toEqual([[]]);
  });

  it("toasts an item that arrives after the app loaded, once, however often the page is read again", () => {
    const { announced } = reads("t1", page(2, 1), page(3, 2, 1), page(3, 2, 1), page(3, 2, 1));
    expect(announced).toEqual([[], [3], [], []]);
  });

  it("toasts several arrivals oldest first, and starts counting from an empty inbox", () => {
    const { announced } = reads("t1", [], page(1), page(4, 3, 2, 1));
    expect(announced).toEqual([[], [1], [2, 3, 4]]);
  });

  it("does not toast an arrival the user already read elsewhere", () => {
    const first = absorb(emptyFeed, "t1", page(1));
    const next = absorb(first.state, "t1", [item(3, true), item(2), item(1)]);
    expect(ids(next.fresh)).toEqual([2]);
    expect(next.state.watermark).toBe(3);
  });

  it("starts over after another login: the new account's existing items are not toasted", () => {
    const a = absorb(emptyFeed, "token-a", page(5, 4));
    const b = absorb(a.state, "token-b", page(9, 8, 7));
    expect(ids(b.fresh)).toEqual([]);
    expect(ids(absorb(b.state, "token-b", page(10, 9, 8)).fresh)).toEqual([10]);
  });

  it("a page read again with fewer items (some scrolled off) toasts nothing and forgets nothing", () => {
    const { announced, state } = reads("t1", page(5, 4, 3), page(5, 4));
    expect(announced).toEqual([[], []]);
    expect(state.watermark).toBe(5);
  });
});

describe("toasts for a burst of notifications", () => {
  it("shows up to three toasts, one per item", () => {
    expect(toastPlan([item(1), item(2), item(3)])).toEqual({ shown: [item(1), item(2), item(3)], more: 0 });
  });

  it("beyond three shows the two newest and one toast counting the rest", () => {
    const plan = toastPlan([item(1), item(2), item(3), item(4), item(5)]);
    expect(ids(plan.shown)).toEqual([4, 5]);
    expect(plan.more).toBe(3);
  });
});

describe("unread counts", () => {
  const inbox = (): InboxPage => ({ total: 4, unread: 7, lists: [item(4), item(3, true), item(2), item(1)] });

  it("marking one unread item read lowers the count by one and marks only it", () => {
    const after = markedRead(inbox(), { ids: [2] });
    expect(after.unread).toBe(6);
    expect(after.lists.map((n) => n.read)).toEqual([false, true, true, false]);
  });

  it("marking an item that was already read, or one not on the page, changes nothing", () => {
    expect(markedRead(inbox(), { ids: [3] }).unread).toBe(7);
    expect(markedRead(inbox(), { ids: [99] }).unread).toBe(7);
  });

  it("mark all read clears the count, also for items on pages not loaded", () => {
    const after = markedRead(inbox(), { all: true });
    expect(after.unread).toBe(0);
    expect(after.lists.every((n) => n.read)).toBe(true);
  });

  it("the badge shows nothing at zero, the count up to 99, then 99+", () => {
    expect([0, -1, 1, 42, 99, 100, 5000].map(badgeText)).toEqual(["", "", "1", "42", "99", "99+", "99+"]);
  });
});

describe("links a notification may open", () => {
  it("follows in-app routes, with or without the leading #", () => {
    expect(appLink("/legal/show?id=12")).toBe("/legal/show?id=12");
    expect(appLink("#/trade/lists")).toBe("/trade/lists");
  });

  it("follows nothing for an empty link, another site or a script", () => {
    for (const bad of ["", "  ", "https://evil.test/", "//evil.test/x", "/\\evil.test", "javascript:alert(1)", null, undefined]) expect(appLink(bad)).toBeNull();
  });
});

describe("notification toasts", () => {
  afterEach(() => {
    vi.useRealTimers();
    $toasts.set([]);
  });

  it("stay on screen twice as long as an error toast", () => {
    vi.useFakeTimers();
    toast.error("Network error");
    showNoticeToast({ key: "notification:7", title: "Contract settled: won", body: "BTC/USDT up #7" });
    vi.advanceTimersByTime(3000);
    expect($toasts.get().map((t) => t.text)).toEqual(["Contract settled: won"]);
    vi.advanceTimersByTime(NOTICE_TOAST_MS - 3000);
    expect($toasts.get()).toEqual([]);
    expect(NOTICE_TOAST_MS).toBeGreaterThanOrEqual(6000);
  });

  it("two notifications with the same title both show; the same notification twice shows once", () => {
    vi.useFakeTimers();
    showNoticeToast({ key: "notification:1", title: "Deposit credited", body: "10 USDT" });
    showNoticeToast({ key: "notification:2", title: "Deposit credited", body: "20 USDT" });
    showNoticeToast({ key: "notification:2", title: "Deposit credited", body: "20 USDT" });
    expect($toasts.get().map((t) => t.detail)).toEqual(["10 USDT", "20 USDT"]);
  });
});
