/// <reference lib="dom" />
/**
 * Conditional spot orders on the phone (issue #30), in English and Chinese: demo1 places a
 * stop-limit, an OCO and a trailing stop from the spot screen, each stating its rule in words
 * first; trades by two other accounts move the price through each trigger; every one leaves the
 * open conditional list and its limit order appears among the open orders.
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { openPhone, snap } from "./browser.ts";
import { browser, server, useExchange } from "./exchange.ts";
import { apiCall } from "./helpers.ts";

let demo1 = "";
let mm = "";
let demo2 = "";

const call = <T>(path: string, opts: { token?: string; body?: unknown } = {}) => apiCall<T>(server.baseUrl, path, opts);

const login = async (account: string, password: string) => (await call<{ token: string }>("/api/user/login", { body: { user_string: account, password, type: 1 } })).token;

/** mm sells and demo2 buys 0.01 BTC at `price`: a trade at that price. */
async function trade(price: number) {
  await call("/api/transaction/walletOut", { token: mm, body: { currency_id: 1, legal_id: 3, mode: 2, price: String(price), num: "0.01" } });
  await call("/api/transaction/walletIn", { token: demo2, body: { currency_id: 1, legal_id: 3, mode: 2, price: String(price), num: "0.01" } });
}

useExchange();

beforeAll(async () => {
  demo1 = await login("demo1@exchange.test", "Demo1234");
  demo2 = await login("demo2@exchange.test", "Demo1234");
  mm = await login("mm@exchange.test", "MarketMaker1234");
}, 180_000);

const words = {
  en: { stop: "When the last price falls to", oco: "One filling cancels the other", trail: "the highest price is tracked" },
  zh: { stop: "当最新价跌到", oco: "一方成交即撤销另一方", trail: "跟踪最高价" },
} as const;

async function place(page: Page, type: string, fields: Record<string, string>, rule: string) {
  await page.click(`[data-testid="cond-type-${type}"]`);
  await page.click('[data-testid="cond-side-sell"]');
  for (const [k, v] of Object.entries(fields)) await page.fill(`[data-testid="cond-${k}"]`, v);
  await page.locator('[data-testid="cond-rule"]').getByText(rule).waitFor();
  const before = await page.locator('[data-testid="cond-open-item"]').count();
  await page.click('[data-testid="cond-submit"]');
  await expect.poll(() => page.locator('[data-testid="cond-open-item"]').count(), { timeout: 60_000 }).toBe(before + 1);
}

async function journey(lang: "en" | "zh", base: number) {
  const w = words[lang];
  await trade(base);
  const { page, errors } = await openPhone(browser, lang, demo1);
  await page.goto(`${server.baseUrl}/#/exchange`);
  await page.waitForSelector('[data-testid="conditional-panel"]');
  // demo1's open orders so far (the other language's triggered orders among them), as the list will show them.
  const ordersBefore = (await call<{ lists: unknown[] }>("/api/new/transaction/index?currency_id=1", { token: demo1 })).lists.length;

  await place(page, "stop_limit", { stop: String(base - 100), price: String(base - 100), num: "0.001" }, w.stop);
  await place(page, "oco", { price: String(base + 500), stop: String(base - 200), limit: String(base - 200), num: "0.001" }, w.oco);
  await place(page, "trailing", { callback: "1", price: String(base - 700), num: "0.001" }, w.trail);
  await snap(page, `conditional-placed-${lang}`);
  // The OCO's limit leg is an open order already.
  await expect.poll(() => page.locator('[data-testid="open-order"]').count(), { timeout: 60_000 }).toBe(ordersBefore + 1);

  // Down through each trigger: the stop at base−100, the OCO's stop at base−200 (its leg cancelled), the trailing stop 1% under the high.
  await trade(base - 100);
  await trade(base - 200);
  await trade(base - 600);
  await expect.poll(() => page.locator('[data-testid="cond-open-item"]').count(), { timeout: 60_000 }).toBe(0);
  await page.reload();
  await page.waitForSelector('[data-testid="conditional-panel"]');
  // Three limit sells placed by the triggers; the OCO leg is gone.
  await expect.poll(() => page.locator('[data-testid="open-order"]').count(), { timeout: 60_000 }).toBe(ordersBefore + 3);
  await snap(page, `conditional-triggered-${lang}`);
  expect(errors).toEqual([]);
}

describe("conditional orders on the phone", () => {
  it("in English: a stop-limit, an OCO and a trailing stop, each placed with its rule in words and each triggered", async () => {
    await journey("en", 50000);
  });
  it("in Chinese: the same in Chinese", async () => {
    await journey("zh", 49000);
  });
});
