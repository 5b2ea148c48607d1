/// <reference lib="dom" />
// Functions passed to page.evaluate() run in the browser, hence the DOM types.
/**
 * Leveraged contracts as a customer uses them (issue #11 acceptance), in a real browser at phone
 * size: demo1 moves USDT to the lever account, accepts the risk disclosure once, opens a 10× long
 * on BTC/USDT with a stop-loss, seeing margin and fee before confirming; the market maker's book
 * moves the index under the stop-loss and the position closes there by itself; the lever balance
 * then differs from the start by exactly the P/L and the fees the API reports.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext } from "playwright-core";
import { parseUnits } from "../../schemas/money.ts";
import { launchBrowser, newPhoneContext, snap } from "./browser.ts";
import { startServer, type TestServer } from "./server.ts";

let server: TestServer;
let browser: Browser;
const contexts: BrowserContext[] = [];

type Json = { type?: string; status?: number; message?: unknown; data?: unknown; code?: string };

async function call<T>(path: string, opts: { token?: string; body?: unknown; method?: "GET" | "POST" } = {}): Promise<T> {
  const method = opts.method ?? (opts.body === undefined ? "GET" : "POST");
  const headers: Record<string, string> = { lang: "en" };
  if (opts.token) headers.authorization = opts.token;
  if (method === "POST") headers["content-type"] = "application/json";
  const res = await fetch(new URL(path, server.baseUrl), { method, headers, body: method === "POST" ? JSON.stringify(opts.body ?? {}) : undefined });
  const json = (await res.json()) as Json;
  if (json.type === "ok") return json.message as T;
  if (json.status === 1) return json.data as T;
  throw new Error(`${path}: ${JSON.stringify(json)}`);
}

const login = async (account: string, password: string) => (await call<{ token: string }>("/api/user/login", { body: { user_string: account, password, type: 1 } })).token;

/** The market maker quotes one bid and one ask around `mid` (its older quotes cancelled): the index is `mid`. */
async function quote(mm: string, bid: string, ask: string) {
  const open = await call<{ lists: { id: number }[] }>("/api/new/transaction/index?currency_id=1", { token: mm });
  if (open.lists.length > 0) await call("/api/transaction_del/batch", { token: mm, body: { ids: open.lists.map((o) => o.id) } });
  await call("/api/transaction/walletIn", { token: mm, body: { currency_id: 1, legal_id: 3, price: bid, num: "0.01", mode: 2 } });
  await call("/api/transaction/walletOut", { token: mm, body: { currency_id: 1, legal_id: 3, price: ask, num: "0.01", mode: 2 } });
}

const leverBalance = async (token: string) => {
  const d = await call<{ lever_balance: string; lock_lever_balance: string }>("/api/lever/deal?currency_id=1", { token });
  return [parseUnits(d.lever_balance, 8)!, parseUnits(d.lock_lever_balance, 8)!] as const;
};

beforeAll(async () => {
  server = await startServer();
  browser = await launchBrowser();
});

afterAll(async () => {
  for (const c of contexts) await c.close().catch(() => undefined);
  await browser?.close();
  await server?.dispose();
});

describe("leveraged contracts", () => {
  it("opens a 10× long with a stop-loss from the screen, and the index closes it there, balances exact", async () => {
    const mm = await login("mm@exchange.test", "MarketMaker1234");
    const token = await login("demo1@exchange.test", "Demo1234");
    await quote(mm, "59990.00", "60010.00");
    await call("/api/wallet/change", { token, body: { number: "1000", from_field: "change", to_field: "lever", currency_id: 3 } });
    const [start] = await leverBalance(token);

    const context = await newPhoneContext(browser);
    contexts.push(context);
    await context.addInitScript(
      ([t]) => {
        if (sessionStorage.getItem("seeded")) return;
        sessionStorage.setItem("seeded", "1");
        localStorage.setItem("lang", "en");
        localStorage.setItem("token", t as string);
      },
      [token] as const,
    );
    const page = await context.newPage();
    const errors: Error[] = [];
    page.on("pageerror", (err) => errors.push(err));
    try {
      await page.goto(`${server.baseUrl}/#/lever`);
      await page.locator('[data-testid="lever-risk-accept"]').click();
      await page.waitForSelector('[data-testid="lever-form"]');
      await page.waitForFunction(() => document.querySelector('[data-testid="lever-index"]')?.textContent?.includes("60,000") || document.querySelector('[data-testid="lever-index"]')?.textContent?.includes("60000"));
      await page.fill('[data-testid="lever-lots"]', "10");
      await page.selectOption('[data-testid="lever-multiple"]', "10");
      await page.fill('[data-testid="lever-sl"]', "59500");
      // 10 lots × 0.01 BTC × 60000 = 6000 USDT of value: margin 600, fee 0.05 % = 3.
      await page.waitForFunction(() => document.querySelector('[data-testid="lever-preview"]')?.textContent?.includes("600.00000000"));
      expect(await page.locator('[data-testid="lever-preview"]').textContent()).toContain("3.00000000");
      // The gain cap is told before opening: the value at open, and the price that closes the long.
      expect(await page.locator('[data-testid="lever-cap-note"]').textContent()).toContain("6,000.00");
      expect(await page.locator('[data-testid="lever-cap-note"]').textContent()).toContain("120,000.00");
      await page.locator('[data-testid="lever-submit"]').click();
      expect(await page.locator('[role="alertdialog"]').textContent()).toContain("120,000.00");
      await page.locator('[role="alertdialog"] .btn-primary').click();
      const card = page.locator('[data-testid^="lever-position-"]').first();
      await card.waitFor();
      expect(await card.locator('[data-testid="lever-force"]').textContent()).not.toBe("--");
      expect(await card.locator('[data-testid="lever-cap-price"]').textContent()).toBe("120,000.00");
      expect(await card.locator('[data-testid="lever-gain-cap"]').textContent()).toContain("6,000.00");

      // A reload keeps the disclosure accepted.
      await page.reload();
      await page.waitForSelector('[data-testid="lever-form"]');

      // The market maker moves the book: the index (the mid, nothing traded) falls under the stop-loss.
      await quote(mm, "59380.00", "59400.00");
      await page.locator('[data-testid="lever-tab-4"]').click();
      await page.waitForFunction(() => document.querySelector('[data-testid="lever-list-4"]')?.textContent?.includes("Stop-loss"), undefined, { timeout: 60_000 });
    } catch (err) {
      await snap(page, "lever-failed");
      throw err;
    }
    const history = await call<{ message: { data: { profit: string; trade_fee: string; close_fee: string; close_reason: string; close_price: string }[] } }>(
      "/api/lever/my_trade?status=4",
      { token, body: {} },
    );
    const p = history.message.data[0]!;
    expect(p.close_reason).toBe("loss");
    expect(p.close_price).toBe("59390.00");
    const [end, frozen] = await leverBalance(token);
    expect(frozen).toBe(0n);
    const signed = (v: string) => (v.startsWith("-") ? -parseUnits(v.slice(1), 8)! : parseUnits(v, 8)!);
    expect(end - start).toBe(signed(p.profit) - signed(p.trade_fee) - signed(p.close_fee));
    // (59390 − 60000) × 0.1 BTC = −61 USDT.
    expect(p.profit).toBe("-61.00000000");
    expect(errors).toEqual([]);
  });
  it("with leveraged contracts switched off, hides the open form but lets an owner see and close a position", async () => {
    const mm = await login("mm@exchange.test", "MarketMaker1234");
    const token = await login("demo1@exchange.test", "Demo1234");
    await quote(mm, "59990.00", "60010.00");
    const p = await call<{ id: number; status: number }>("/api/lever/submit", { token, body: { currency_id: 1, legal_id: 3, type: 1, share: 1, multiple: 10 } });
    expect(p.status).toBe(2);

    const context = await newPhoneContext(browser);
    contexts.push(context);
    await context.addInitScript(
      ([t]) => {
        localStorage.setItem("lang", "en");
        localStorage.setItem("token", t as string);
      },
      [token] as const,
    );
    // The deployment's switches as GET /api/cfg/kefu publishes them with PRODUCT_LEVER=off (the
    // server's half — close allowed, open refused — is the API tests' business).
    await context.route("**/api/cfg/kefu", async (route) => {
      const res = await route.fetch();
      const json = (await res.json()) as { message: { products: { lever: boolean } } };
      json.message.products.lever = false;
      await route.fulfill({ response: res, json });
    });
    const page = await context.newPage();
    const errors: Error[] = [];
    page.on("pageerror", (err) => errors.push(err));
    try {
      await page.goto(`${server.baseUrl}/#/lever`);
      await page.waitForSelector('[data-testid="lever-off"]');
      expect(await page.locator('[data-testid="lever-form"]').count()).toBe(0);
      const card = page.locator(`[data-testid="lever-position-${p.id}"]`);
      await card.waitFor();
      await card.locator('[data-testid="lever-close"]').click();
      await page.locator('[data-testid="lever-tab-4"]').click();
      await page.locator(`[data-testid="lever-list-4"] [data-testid="lever-position-${p.id}"]`).waitFor();
    } catch (err) {
      await snap(page, "lever-off-failed");
      throw err;
    }
    const [, frozen] = await leverBalance(token);
    expect(frozen).toBe(0n);
    expect(errors).toEqual([]);
  });
});
