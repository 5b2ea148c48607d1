/// <reference lib="dom" />
// Functions passed to page.evaluate() run in the browser, hence the DOM types.
/**
 * The notification centre as a user meets it in a phone-sized browser (issue #16 §1): demo1 logs
 * in with one unread item already in the inbox: the header's bell and the drawer count it, and no
 * toast announces it (it was there before the app loaded). A contract of demo1's settles while
 * demo1 is on the assets screen: a toast with the result appears there, and tapping it opens the
 * contract history and marks it read. The inbox lists the items newest first with their Beijing
 * times, unread ones marked; tapping one opens its link and clears it from the badge; "mark all
 * read" empties the badge; one that lands while the channel is down arrives when it reconnects; a
 * long inbox loads more. In Chinese the same items read in Chinese.
 * An inbox with nothing shows the empty state; a failed load shows the error with a retry.
 *
 * The items are written by tests/e2e/helpers.ts `addNotifications` (a stand-in for the events
 * until their wiring lands on main), which cannot push the user channel's `notification` event:
 * the app sees them when the tab becomes visible again, on a reload, when the test plays the
 * server's push on the user channel, or when the channel reconnects after a drop.
 */
import { describe, expect, it } from "vitest";
import type { BrowserContext, Page, WebSocketRoute } from "playwright-core";
import { newPhoneContext, snap } from "./browser.ts";
import { browser, server, useExchange } from "./exchange.ts";
import { addNotifications, waitForRoute, type TestNotification } from "./helpers.ts";

const DEMO1 = "demo1@exchange.test";

useExchange();

/** 2026-11-24 02:30:00 UTC, shown as 10:30:00 Beijing time; one minute later per step. */
const at = (minute: number) => Date.UTC(2026, 10, 24, 2, 30 + minute, 0);

const deposit = (n: number, minute: number): TestNotification => ({
  kind: "deposit_credited",
  key: `e2e:deposit:${n}`,
  params: { amount: `${n}00`, currency: "USDT" },
  link: "/recharge/log",
  createdAt: at(minute),
});

const settled = (id: number, minute: number): TestNotification => ({
  kind: "seconds_settled",
  key: `e2e:micro:${id}:settle`,
  params: { id: String(id), pair: "BTC/USDT", direction: "@up", outcome: "@won", net: "+8", currency: "USDT", entry: "60500", exit: "60510", entry_tick: "101", exit_tick: "161" },
  link: "/trade/lists",
  createdAt: at(minute),
});

interface Opened {
  context: BrowserContext;
  page: Page;
  errors: Error[];
  /** Sends a message on the user channel (/ws/user) as the server would. */
  push(message: object): void;
  /** Drops the user channel's socket as a network hiccup would (the app reconnects). */
  drop(): Promise<void>;
  /** How many times the app has opened the user channel. */
  opens(): number;
}

/**
 * A phone in `locale`. Its user channel (/ws/user) is played by the test: until the events that
 * write notifications are wired on main, nothing on the server pushes `notification`.
 */
async function openAs(locale: string): Promise<Opened> {
  const context = await newPhoneContext(browser);
  await context.addInitScript((l) => {
    if (sessionStorage.getItem("seeded")) return;
    sessionStorage.setItem("seeded", "1");
    localStorage.setItem("lang", l);
  }, locale);
  const sockets: WebSocketRoute[] = [];
  await context.routeWebSocket((url) => url.pathname === "/ws/user", (ws) => {
    sockets.push(ws);
  });
  const page = await context.newPage();
  const errors: Error[] = [];
  page.on("pageerror", (err) => errors.push(err));
  const current = () => {
    const ws = sockets.at(-1);
    if (!ws) throw new Error("the app has not opened its user channel");
    return ws;
  };
  return {
    context,
    page,
    errors,
    push: (message) => current().send(JSON.stringify(message)),
    drop: () => current().close({ code: 1012, reason: "restart" }),
    opens: () => sockets.length,
  };
}

async function logIn(page: Page, account: string, password = "Demo1234") {
  await page.goto(`${server.baseUrl}/#/login`);
  await page.fill('input[name="account"]', account);
  await page.fill('input[name="password"]', password);
  await page.click('[data-testid="login-submit"]');
  await waitForRoute(page, /^#\/$/);
}

const testId = (page: Page, id: string) => page.locator(`[data-testid="${id}"]`);

/** What the header's bell badge says once it says `text` ("" = no badge). */
async function badgeBecomes(page: Page, text: string) {
  await testId(page, "notif-bell").waitFor();
  if (text === "") await testId(page, "notif-badge").waitFor({ state: "detached" });
  else await page.waitForFunction((t) => document.querySelector('[data-testid="notif-badge"]')?.textContent === t, text);
}

/** The tab comes back to the front (another app was in front): the app reads the inbox again. */
async function tabBecomesVisible(page: Page) {
  await page.evaluate(() => document.dispatchEvent(new Event("visibilitychange", { bubbles: true })));
}

const noticeToasts = (page: Page) => testId(page, "notice-toast");

async function itemStates(page: Page): Promise<{ title: string; read: boolean; time: string }[]> {
  return testId(page, "notif-item").evaluateAll((els) =>
    els.map((el) => ({
      title: el.querySelector("span > span")?.textContent ?? "",
      read: el.getAttribute("data-read") === "1",
      time: el.querySelector(".num")?.textContent ?? "",
    })),
  );
}

describe("notification centre", () => {
  it("counts unread items in the header and drawer, toasts a contract settling on the assets screen, and keeps the inbox", async () => {
    addNotifications(server.persistDir, DEMO1, [deposit(1, 0)]);
    const o = await openAs("en");
    const { context, page, errors } = o;
    await logIn(page, DEMO1);

    // Already there when the app loaded: counted, never toasted.
    await page.goto(`${server.baseUrl}/#/assets`);
    await waitForRoute(page, /^#\/assets/);
    await badgeBecomes(page, "1");
    expect(await noticeToasts(page).count()).toBe(0);

    // A contract settles while demo1 is on the assets screen.
    addNotifications(server.persistDir, DEMO1, [settled(7, 1)]);
    await tabBecomesVisible(page);
    const toast = noticeToasts(page).filter({ hasText: "Contract settled: Won" });
    await toast.waitFor();
    expect(await toast.textContent()).toContain("BTC/USDT Up #7: entry 60500 (tick #101), exit 60510 (tick #161). Net +8 USDT.");
    await snap(page, "notifications-toast-en");
    await badgeBecomes(page, "2");
    // Another one, pushed on the user channel once the first toast is gone: toasted; the
    // contract already told is not told again.
    await toast.waitFor({ state: "detached" });
    await testId(page, "notifications-live").waitFor({ state: "attached" });
    addNotifications(server.persistDir, DEMO1, [settled(8, 2)]);
    o.push({ type: "notification" });
    await badgeBecomes(page, "3");
    await noticeToasts(page).filter({ hasText: "#8" }).waitFor();
    expect(await noticeToasts(page).count()).toBe(1);
    // Tapped: opens the contract history, and the item is read.
    await noticeToasts(page).filter({ hasText: "#8" }).click();
    await waitForRoute(page, /^#\/trade\/lists/);
    await badgeBecomes(page, "2");

    // The drawer (from a tab screen) counts the unread ones too and opens the inbox.
    await page.goto(`${server.baseUrl}/#/assets`);
    await testId(page, "menu-button").click();
    const entry = testId(page, "drawer-menu").locator('a[href="#/notifications"]');
    await entry.waitFor();
    await page.waitForFunction(() => document.querySelector('[data-testid="drawer-notif-count"]')?.textContent === "2");
    await snap(page, "notifications-drawer-en");
    await entry.click();
    await waitForRoute(page, /^#\/notifications$/);

    // Newest first, Beijing times as the API gives them, labelled UTC+8 (the one time rule), unread marked.
    await testId(page, "notif-list").waitFor();
    expect(await testId(page, "page-title").textContent()).toBe("Notifications");
    expect(await itemStates(page)).toEqual([
      { title: "Contract settled: Won", read: true, time: "2026-11-24 10:32:00 UTC+8" },
      { title: "Contract settled: Won", read: false, time: "2026-11-24 10:31:00 UTC+8" },
      { title: "Deposit credited", read: false, time: "2026-11-24 10:30:00 UTC+8" },
    ]);
    expect(await testId(page, "notif-unread-count").textContent()).toBe("2 unread");
    await snap(page, "notifications-inbox-en");

    // Tapping the deposit opens the deposit records and clears it from the badge.
    await testId(page, "notif-item").nth(2).click();
    await waitForRoute(page, /^#\/recharge\/log/);
    await badgeBecomes(page, "1");
    await page.goBack();
    await waitForRoute(page, /^#\/notifications$/);
    await testId(page, "notif-list").waitFor();
    expect((await itemStates(page)).map((i) => i.read)).toEqual([true, false, true]);

    // Mark all read: no badge, every item read, the button has nothing left to do. The screen
    // shows it at once; the server marks whatever the inbox holds when the request arrives, so the
    // next item is written only once the server has answered (on a loaded machine the request can
    // arrive after it, and would mark it read too).
    // (The response to "mark all" itself: tapping the deposit above sent its own read request, whose
    // answer can still be on its way on a loaded machine.)
    const markedAll = page.waitForResponse(
      (r) => new URL(r.url()).pathname === "/api/notifications/read" && r.request().method() === "POST" && (r.request().postDataJSON() as { all?: boolean } | null)?.all === true,
    );
    await testId(page, "notif-mark-all").click();
    expect(await (await markedAll).json()).toMatchObject({ type: "ok", message: { unread: 0 } });
    await badgeBecomes(page, "");
    await page.waitForFunction(() => [...document.querySelectorAll('[data-testid="notif-item"]')].every((el) => el.getAttribute("data-read") === "1"));
    expect(await testId(page, "notif-unread-count").textContent()).toBe("All read");
    expect(await testId(page, "notif-mark-all").isDisabled()).toBe(true);

    // One lands while the user channel is down: read and toasted once it is back.
    const opened = o.opens();
    addNotifications(server.persistDir, DEMO1, [deposit(2, 3)]);
    await o.drop();
    await noticeToasts(page).filter({ hasText: "Deposit credited" }).waitFor();
    expect(o.opens()).toBeGreaterThan(opened);
    await badgeBecomes(page, "1");
    await page.waitForFunction(() => document.querySelector('[data-testid="notif-item"]')?.getAttribute("data-read") === "0");
    expect(errors).toEqual([]);
    await context.close();
  });

  it("reads the same inbox in Chinese, toasts in Chinese, and loads a long inbox page by page", async () => {
    // 25 more deposits: 29 items in all, 26 unread.
    addNotifications(server.persistDir, DEMO1, Array.from({ length: 25 }, (_, i) => deposit(10 + i, 10 + i)));
    const { context, page, errors } = await openAs("zh");
    await logIn(page, DEMO1);
    await badgeBecomes(page, "26");
    expect(await noticeToasts(page).count()).toBe(0);

    await page.goto(`${server.baseUrl}/#/notifications`);
    await testId(page, "notif-list").waitFor();
    expect(await testId(page, "page-title").textContent()).toBe("消息通知");
    expect(await testId(page, "notif-item").count()).toBe(20);
    expect((await itemStates(page))[0]).toEqual({ title: "充值已到账", read: false, time: "2026-11-24 11:04:00 UTC+8" });
    expect(await testId(page, "notif-unread-count").textContent()).toBe("26 条未读");
    await page.getByText("登录成功").waitFor({ state: "detached" });
    await snap(page, "notifications-inbox-zh");
    // Scrolling to the foot of the list loads the next page.
    await page.getByRole("button", { name: "加载更多" }).scrollIntoViewIfNeeded();
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="notif-item"]').length === 29);
    expect((await itemStates(page))[28]).toEqual({ title: "充值已到账", read: true, time: "2026-11-24 10:30:00 UTC+8" });

    // A new one while the inbox is open: toasted in Chinese, listed on top.
    addNotifications(server.persistDir, DEMO1, [settled(9, 40)]);
    await tabBecomesVisible(page);
    await noticeToasts(page).filter({ hasText: "合约已结算" }).waitFor();
    await snap(page, "notifications-toast-zh");
    await page.waitForFunction(() => document.querySelector('[data-testid="notif-item"]')?.getAttribute("data-read") === "0" && document.querySelector('[data-testid="notif-item"] .num')?.textContent === "2026-11-24 11:10:00 UTC+8");
    await badgeBecomes(page, "27");

    await page.goto(`${server.baseUrl}/#/assets`);
    await testId(page, "menu-button").click();
    await page.waitForFunction(() => document.querySelector('[data-testid="drawer-notif-count"]')?.textContent === "27");
    await snap(page, "notifications-drawer-zh");
    expect(errors).toEqual([]);
    await context.close();
  });

  it("shows the empty state to a user with no notifications, and the error with a retry when the inbox cannot load", async () => {
    const { context, page, errors } = await openAs("en");
    await logIn(page, "demo2@exchange.test");
    await badgeBecomes(page, "");

    await page.route("**/api/notifications?*", (route) => route.abort());
    await page.goto(`${server.baseUrl}/#/notifications`);
    const retry = page.getByRole("button", { name: "Retry" });
    await retry.waitFor();
    await page.unroute("**/api/notifications?*");
    await retry.click();
    await page.getByText("No notifications yet.", { exact: false }).waitFor();
    expect(await testId(page, "notif-mark-all").count()).toBe(0);
    await snap(page, "notifications-empty-en");
    expect(errors).toEqual([]);
    await context.close();
  });
});
