/// <reference lib="dom" />
// Functions passed to page.evaluate() run in the browser, hence the DOM types.
/**
 * Trader tools (issue #30) at phone size, in English and Chinese: a new user finds a coin on the
 * markets screen by its name, stars it, and the favourites tab then comes first with it; a guest
 * sees no stars. The user sets a price alert on BTC; when two other traders trade at its level the
 * alert arrives on screen (a toast, then the inbox) and the alert list shows it fired. The chart
 * page shows the order book beside the candles, groups it by a coarser price step, and draws the
 * depth chart when its tab is opened.
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { openPhone, snap } from "./browser.ts";
import { browser, server, useExchange } from "./exchange.ts";
import { apiCall, loginViaApi, registerViaApi, uniqueEmail } from "./helpers.ts";

let demo1 = "";
let demo2 = "";

useExchange();

beforeAll(async () => {
  demo1 = await loginViaApi(server.baseUrl, "demo1@exchange.test", "Demo1234");
  demo2 = await loginViaApi(server.baseUrl, "demo2@exchange.test", "Demo1234");
}, 600_000);

const words = {
  en: { favourites: "Favourites", toast: "Price alert: BTC/USDT at or above", fired: "Fired at", bids: "Bids" },
  zh: { favourites: "自选", toast: "价格提醒：BTC/USDT 达到或高于", fired: "已在", bids: "买盘" },
} as const;

const order = (token: string, side: "buy" | "sell", price: string, num = "0.001") =>
  apiCall(server.baseUrl, side === "buy" ? "/api/transaction/walletIn" : "/api/transaction/walletOut", { token, body: { currency_id: 1, legal_id: 3, mode: 2, price, num } });

/** BTC's last traded price in whole USDT (50,000 before any trade). */
async function lastBtc(): Promise<number> {
  const day = await apiCall<{ close: string | null }>(server.baseUrl, "/api/currency/day_market?currency_id=1&legal_id=3");
  return day.close === null ? 50_000 : Math.ceil(Number(day.close));
}

const rowsShown = (page: Page) => page.locator('[data-testid="quote-row"]').evaluateAll((rows) => rows.map((r) => r.getAttribute("data-coin")));

async function journey(lang: "en" | "zh") {
  const w = words[lang];
  const account = uniqueEmail(`tools-${lang}`);
  await registerViaApi(server.baseUrl, account, "Tools2026x");
  const token = await loginViaApi(server.baseUrl, account, "Tools2026x");

  // A guest sees no stars and no favourites tab.
  const guest = await openPhone(browser, lang);
  await guest.page.goto(`${server.baseUrl}/#/quotations`);
  await guest.page.locator('[data-testid="quote-row"]').first().waitFor();
  expect(await guest.page.locator('[data-testid="quote-star"]').count()).toBe(0);
  expect(await guest.page.locator('[data-testid="tab-favourites"]').count()).toBe(0);

  // Search by the coin's name, star it: the favourites tab comes first, with it.
  const { page, errors } = await openPhone(browser, lang, token);
  await page.goto(`${server.baseUrl}/#/quotations`);
  await page.locator('[data-testid="quote-row"]').first().waitFor();
  expect(await page.locator('[data-testid="tab-favourites"]').count()).toBe(0);
  await page.fill('[data-testid="quote-search"]', "ethereum");
  await expect.poll(() => rowsShown(page), { timeout: 60_000 }).toEqual(["ETH"]);
  // The star's answer is lost on the way back (the server did store it): the screen reads the
  // favourites again and shows the tab all the same, as it must after a timeout on a slow line.
  let lost = 0;
  await page.route("**/api/market/favourites", async (route) => {
    if (route.request().method() !== "POST" || lost > 0) return route.fallback();
    lost += 1;
    await route.fetch();
    await route.abort("connectionreset");
  });
  await page.locator('[data-testid="quote-star"]').first().click();
  await page.locator('[data-testid="tab-favourites"]').waitFor();
  expect(lost).toBe(1);
  await page.unroute("**/api/market/favourites");
  await page.reload();
  const tabs = page.locator('[role="tablist"] [role="tab"]');
  await tabs.first().waitFor();
  expect(await tabs.first().innerText()).toBe(w.favourites);
  expect(await tabs.first().getAttribute("aria-selected")).toBe("true");
  await expect.poll(() => rowsShown(page), { timeout: 60_000 }).toEqual(["ETH"]);
  await page.fill('[data-testid="quote-search"]', "doge");
  await expect.poll(() => rowsShown(page), { timeout: 60_000 }).toEqual([]);
  await page.fill('[data-testid="quote-search"]', "");
  // The full list, sorted by 24 h volume.
  await page.locator('[data-testid="tab-group"]').click();
  await page.click('[data-testid="sort-volume"]');
  expect(await page.locator('[data-testid="sort-volume"]').getAttribute("aria-pressed")).toBe("true");
  await snap(page, `market-tools-quotations-${lang}`);

  // A price alert on BTC above the last price, set on the alerts screen.
  const level = (await lastBtc()) + 10;
  await page.goto(`${server.baseUrl}/#/alerts`);
  await page.locator('[data-testid="alert-pair"]').waitFor();
  await page.selectOption('[data-testid="alert-pair"]', "1");
  await page.click('[data-testid="alert-kind-above"]');
  await page.fill('[data-testid="alert-price"]', String(level));
  await page.click('[data-testid="alert-create"]');
  await page.locator('[data-testid="alert-item"][data-status="active"]').waitFor();
  await snap(page, `market-tools-alert-set-${lang}`);

  // Two other traders trade at the level: the alert arrives on screen once, and the list shows it fired.
  await order(demo1, "sell", String(level));
  await order(demo2, "buy", String(level));
  await page.getByText(w.toast).first().waitFor({ timeout: 120_000 });
  await snap(page, `market-tools-alert-fired-${lang}`);
  await page.reload();
  await page.locator('[data-testid="alert-item"][data-status="fired"]').getByText(w.fired).waitFor();

  // The chart page: the book beside the candles, grouped; the depth chart on its tab.
  await order(demo2, "buy", String(level - 7), "0.002");
  await order(demo2, "buy", String(level - 3), "0.001");
  await order(demo1, "sell", String(level + 12), "0.003");
  await page.goto(`${server.baseUrl}/#/quotations`);
  await page.locator('[data-testid="tab-group"]').click();
  await page.locator('[data-testid="quote-row"][data-coin="BTC"]').click();
  await page.locator('[data-testid="kline-book"]').getByText(w.bids).waitFor();
  await expect.poll(() => page.locator('[data-testid="book-bid-price"]').allInnerTexts(), { timeout: 60_000 }).toContain(`${(level - 3).toLocaleString("en-US")}.00`);
  // Grouped by 10: both bids fall into one bucket, rounded down.
  await page.locator('[data-testid="book-step"]').filter({ hasText: /^10$/ }).click();
  const bucket = Math.floor((level - 3) / 10) * 10;
  await expect.poll(() => page.locator('[data-testid="book-bid-price"]').allInnerTexts(), { timeout: 60_000 }).toContain(bucket.toLocaleString("en-US"));
  await page.locator('[data-testid="kline-book"]').scrollIntoViewIfNeeded();
  await snap(page, `market-tools-book-${lang}`);
  await page.click('[data-testid="panel-depth"]');
  await page.locator('[data-testid="kline-depth"] svg').waitFor();
  await page.locator('[data-testid="kline-depth"]').scrollIntoViewIfNeeded();
  await snap(page, `market-tools-depth-${lang}`);
  expect(errors).toEqual([]);
}

describe("trader tools on the phone", () => {
  it("in English: find a coin by name and star it, receive a price alert, read the grouped book and the depth chart", async () => {
    await journey("en");
  });
  it("in Chinese: the same in Chinese", async () => {
    await journey("zh");
  });
});
