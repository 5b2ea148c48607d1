/// <reference lib="dom" />
// Functions passed to page.evaluate() run in the browser, hence the DOM types.
/**
 * Every settlement checkable in the app (issue #20 §3), as a user sees it at phone size: demo1's
 * settled seconds contract is tapped in the history and opens its check — the entry and exit
 * index ticks with ids, Beijing times and neighbours, the expiry marked, the tie rule in words and
 * the result recomputed in the browser beside the settled one, saying "Matches" (and "一致" in
 * Chinese); someone else's contract reads as not found. A leveraged long liquidated by the index
 * shows the tick that crossed its liquidation price and the rule in words.
 *
 * The contract is bought through the API on a 10 s duration an operator adds, and settles by the
 * pair's own alarm (the test waits for its record, not for time). demo2 quotes the book.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BrowserContext, Page } from "playwright-core";
import { newPhoneContext, snap } from "./browser.ts";
import { browser, server, useExchange } from "./exchange.ts";
import { waitForRoute } from "./helpers.ts";

const contexts: BrowserContext[] = [];
const tokens = { demo1: "", demo2: "", operator: "" };

type Json = { type?: string; status?: number; message?: unknown; data?: unknown; code?: string };

async function call<T>(path: string, opts: { token?: string; body?: unknown } = {}): Promise<T> {
  const method = opts.body === undefined ? "GET" : "POST";
  const headers: Record<string, string> = { lang: "en" };
  if (opts.token) headers.authorization = opts.token;
  if (method === "POST") headers["content-type"] = "application/json";
  const res = await fetch(new URL(path, server.baseUrl), { method, headers, body: method === "POST" ? JSON.stringify(opts.body) : undefined });
  const json = (await res.json()) as Json;
  if (json.type === "ok") return json.message as T;
  if (json.status === 1) return json.data as T;
  throw new Error(`${path}: ${JSON.stringify(json)}`);
}

const login = async (account: string, password: string) => (await call<{ token: string }>("/api/user/login", { body: { user_string: account, password, type: 1 } })).token;

/** demo2 quotes one bid and one ask (its older quotes cancelled): with no trade the index is their mid. */
async function quote(bid: string, ask: string) {
  const open = await call<{ lists: { id: number }[] }>("/api/new/transaction/index?currency_id=1", { token: tokens.demo2 });
  if (open.lists.length > 0) await call("/api/transaction_del/batch", { token: tokens.demo2, body: { ids: open.lists.map((o) => o.id) } });
  await call("/api/transaction/walletIn", { token: tokens.demo2, body: { currency_id: 1, legal_id: 3, price: bid, num: "0.01", mode: 2 } });
  await call("/api/transaction/walletOut", { token: tokens.demo2, body: { currency_id: 1, legal_id: 3, price: ask, num: "0.01", mode: 2 } });
}

/** Asks for a record until `done` says it reached its final state (state, not time; bounded only against a hang). */
async function until<T>(read: () => Promise<T>, done: (v: T) => boolean, what: string): Promise<T> {
  const end = Date.now() + 150_000;
  for (;;) {
    const v = await read();
    if (done(v)) return v;
    if (Date.now() > end) throw new Error(`${what}: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function openAs(token: string, lang: "en" | "zh"): Promise<{ page: Page; errors: Error[] }> {
  const context = await newPhoneContext(browser);
  contexts.push(context);
  await context.addInitScript(
    ([t, l]) => {
      if (sessionStorage.getItem("seeded")) return;
      sessionStorage.setItem("seeded", "1");
      localStorage.setItem("lang", l as string);
      localStorage.setItem("token", t as string);
      // The leverage screen's one-time risk disclosure (tested in lever.test.ts) is already accepted.
      localStorage.setItem("lever_risk_accepted", "1");
    },
    [token, lang] as const,
  );
  const page = await context.newPage();
  const errors: Error[] = [];
  page.on("pageerror", (err) => errors.push(err));
  return { page, errors };
}

const text = async (page: Page, selector: string) => ((await page.locator(selector).first().textContent()) ?? "").replace(/\s+/g, " ").trim();
/** A table row's cells, joined by single spaces. */
const cells = async (page: Page, selector: string) => (await page.locator(selector).first().locator("td").allTextContents()).map((t) => t.trim()).join(" ");

/** "60,500.00" as the app's price display of an API price ("60500.00"). */
const shown = (price: string) => price.replace(/\B(?=(\d{3})+(?!\d))/, ",");

interface Contract {
  id: number;
  status: number;
  open_price: string;
  end_price: string | null;
  fact_profits: string | null;
  open_tick_id: number;
  end_tick_id: number | null;
}

useExchange();

beforeAll(async () => {
  tokens.demo1 = await login("demo1@exchange.test", "Demo1234");
  tokens.demo2 = await login("demo2@exchange.test", "Demo1234");
  tokens.operator = await login("operator@exchange.test", "Operator1234");
  await quote("60000", "61000");
});

afterAll(async () => {
  for (const c of contexts) await c.close();
});

describe("checking a settlement in the app", () => {
  it("opens a settled seconds contract's check from its history row: both ticks with neighbours, the rules, and the browser's recomputation matching", async () => {
    await call("/api/admin/seconds/options", { token: tokens.operator, body: { seconds: 10, profit_ratio: "85", status: 1, reason: "e2e: a short duration to check a settlement" } });
    await call("/api/wallet/change", { token: tokens.demo1, body: { number: "100", from_field: "change", to_field: "micro", currency_id: 3 } });
    const bought = await call<Contract>("/api/microtrade/submit", { token: tokens.demo1, body: { match_id: 1, currency_id: 3, type: 1, seconds: 10, number: "10" } });
    expect(bought.open_price).toBe("60500.00");
    // The index rises to 60,600 (bid 60,200, ask 61,000) while it runs.
    await quote("60200", "61000");
    const c = await until(() => call<Contract>(`/api/microtrade/order?id=${bought.id}`, { token: tokens.demo1 }), (o) => o.status === 3, "settlement");

    const { page, errors } = await openAs(tokens.demo1, "en");
    await page.goto(`${server.baseUrl}/#/trade/lists`);
    const row = page.locator(`[data-testid="history-row"][data-id="${c.id}"]`);
    await row.waitFor();
    await snap(page, "settle-verify-history-en");
    await row.locator('[data-testid="history-open"]').click();
    await waitForRoute(page, new RegExp(`^#/trade/verify\\?id=${c.id}$`));
    await page.waitForSelector('[data-testid="verify-verdict"]');

    // The browser's own verdict, and the two results side by side.
    expect(await page.locator('[data-testid="verify-verdict"]').getAttribute("data-matches")).toBe("true");
    expect(await text(page, '[data-testid="verify-verdict"]')).toBe("✓ Matches: the ticks give the settled result");
    // By the one amount rule: exact, at least two decimals ("-10.00", "+8.30").
    const trimmed = c.fact_profits!.replace(/(\.\d\d\d*?)0+$/, "$1");
    const settled = c.fact_profits!.startsWith("-") ? trimmed : `+${trimmed}`;
    expect(await text(page, '[data-testid="verify-recomputed"]')).toBe(`${settled} USDT`);
    expect(await text(page, '[data-testid="verify-open"]')).toBe(shown(c.open_price));
    expect(await text(page, '[data-testid="verify-close"]')).toBe(shown(c.end_price!));
    // Entry and exit ticks: id, a Beijing time by the app's rule (no milliseconds), price; neighbours around them.
    const entry = page.locator('[data-testid="verify-entry"] [data-testid="tick-chosen"]');
    const exit = page.locator('[data-testid="verify-exit"] [data-testid="tick-chosen"]');
    expect(await entry.getAttribute("data-id")).toBe(String(c.open_tick_id));
    expect(await exit.getAttribute("data-id")).toBe(String(c.end_tick_id));
    expect(await cells(page, '[data-testid="verify-entry"] [data-testid="tick-chosen"]')).toMatch(new RegExp(`^#${c.open_tick_id} \\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2} UTC\\+8 ${shown(c.open_price)}$`));
    expect(await cells(page, '[data-testid="verify-exit"] [data-testid="tick-chosen"]')).toMatch(new RegExp(`^#${c.end_tick_id} \\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2} UTC\\+8 ${shown(c.end_price!)}$`));
    expect(await page.locator('[data-testid="verify-entry"] [data-testid="tick-row"]').count()).toBeGreaterThan(0);
    expect(await page.locator('[data-testid="verify-exit"] [data-testid="tick-row"]').count()).toBeGreaterThan(0);
    // The expiry is marked right after the exit tick: it is the last one at or before it.
    expect(await page.locator('[data-testid="verify-exit"] [data-testid="tick-chosen"] + [data-testid="tick-mark"]').count()).toBe(1);
    expect(await text(page, '[data-testid="verify-tie-rule"]')).toContain("down wins if it is equal or below");
    await snap(page, "settle-verify-seconds-en");
    await page.locator('[data-testid="verify-recompute"]').scrollIntoViewIfNeeded();
    await snap(page, "settle-verify-seconds-en-result");
    expect(errors).toEqual([]);

    // In Chinese.
    const zh = await openAs(tokens.demo1, "zh");
    await zh.page.goto(`${server.baseUrl}/#/trade/verify?id=${c.id}`);
    await zh.page.waitForSelector('[data-testid="verify-verdict"][data-matches="true"]');
    expect(await text(zh.page, '[data-testid="verify-verdict"]')).toBe("✓ 一致：指数记录得出的结果与结算相同");
    await snap(zh.page, "settle-verify-seconds-zh");
    expect(zh.errors).toEqual([]);

    // Someone else's contract reads as not found.
    const other = await openAs(tokens.demo2, "en");
    await other.page.goto(`${server.baseUrl}/#/trade/verify?id=${c.id}`);
    await other.page.getByText("Data not found").waitFor();
    expect(await other.page.locator('[data-testid="sec-verify"]').count()).toBe(0);
    await snap(other.page, "settle-verify-not-found-en");
  });

  it("shows the index tick that liquidated a leveraged long and the liquidation price it crossed", async () => {
    await quote("60000", "61000");
    await call("/api/wallet/change", { token: tokens.demo1, body: { number: "1000", from_field: "change", to_field: "lever", currency_id: 3 } });
    const p = await call<{ id: number; force_price: string }>("/api/lever/submit", { token: tokens.demo1, body: { currency_id: 1, legal_id: 3, type: 1, share: 1, multiple: 10, index_price: "60500.00" } });
    // The index gaps to 50,001, far below the liquidation price; the pair's sweep closes it.
    await quote("50000", "50002");
    const d = await until(() => call<{ status: number; close_reason: string; trigger_price: string; close_price: string; close_tick_id: number }>(`/api/lever/position?id=${p.id}`, { token: tokens.demo1 }), (x) => x.status === 4, "liquidation");
    expect(d).toMatchObject({ close_reason: "liquidation", trigger_price: p.force_price });

    // The closed position's card in the history links to its check.
    const { page, errors } = await openAs(tokens.demo1, "en");
    await page.goto(`${server.baseUrl}/#/lever`);
    await page.click('[data-testid="lever-tab-4"]');
    const card = page.locator(`[data-testid="lever-position-${p.id}"]`);
    await card.waitFor();
    await card.scrollIntoViewIfNeeded();
    await snap(page, "settle-verify-lever-history-en");
    await card.locator('[data-testid="lever-verify-link"]').click();
    await waitForRoute(page, new RegExp(`^#/lever/verify\\?id=${p.id}$`));
    await page.waitForSelector('[data-testid="verify-verdict"]');
    expect(await page.locator('[data-testid="verify-verdict"]').getAttribute("data-matches")).toBe("true");
    expect(await text(page, '[data-testid="verify-rule"]')).toBe(`Liquidated because the index ${shown(d.close_price)} fell to or below your liquidation price ${shown(d.trigger_price)}.`);
    expect(await page.locator('[data-testid="verify-close"] [data-testid="tick-chosen"]').getAttribute("data-id")).toBe(String(d.close_tick_id));
    await snap(page, "settle-verify-lever-en");
    expect(errors).toEqual([]);

    const zh = await openAs(tokens.demo1, "zh");
    await zh.page.goto(`${server.baseUrl}/#/lever/verify?id=${p.id}`);
    await zh.page.waitForSelector('[data-testid="verify-verdict"][data-matches="true"]');
    expect(await text(zh.page, '[data-testid="verify-rule"]')).toBe(`强制平仓：指数 ${shown(d.close_price)} 跌至或低于您的强平价 ${shown(d.trigger_price)}。`);
    await snap(zh.page, "settle-verify-lever-zh");
    expect(zh.errors).toEqual([]);
  });
});
