/// <reference lib="dom" />
// Functions passed to page.evaluate() run in the browser, hence the DOM types.
/**
 * Leveraged contracts as a customer uses them (issue #11 acceptance, #16 §3), in a real browser at
 * phone size: demo1 finds "Leverage" on the home screen, accepts the risk disclosure once, opens a
 * 10× long on BTC/USDT with a stop-loss, seeing margin, fees, the overnight fee, the maintenance
 * rate and the liquidation price with units before confirming; the market maker's book moves the
 * index under the stop-loss and the position closes there by itself; the lever balance then
 * differs from the start by exactly the P/L and the fees the API reports. An open confirmed at an
 * index that moved is refused and shown again; every close is confirmed with the position, the
 * index and the expected P/L; "Transfer USDT in" targets the lever account.
 */
import { afterAll, describe, expect, it } from "vitest";
import type { BrowserContext, Page } from "playwright-core";
import { parseUnits } from "../../schemas/money.ts";
import { newPhoneContext, snap } from "./browser.ts";
import { browser, server, useExchange } from "./exchange.ts";

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

/** A phone page logged in as `token` in `lang`, with the lever risk disclosure accepted or not. */
async function openAs(token: string, lang: "en" | "zh", accepted = false): Promise<{ page: Page; errors: Error[] }> {
  const context = await newPhoneContext(browser);
  contexts.push(context);
  await context.addInitScript(
    ([t, l, a]) => {
      if (sessionStorage.getItem("seeded")) return;
      sessionStorage.setItem("seeded", "1");
      localStorage.setItem("lang", l as string);
      localStorage.setItem("token", t as string);
      if (a) localStorage.setItem("lever_risk_accepted", "1");
    },
    [token, lang, accepted] as const,
  );
  const page = await context.newPage();
  const errors: Error[] = [];
  page.on("pageerror", (err) => errors.push(err));
  return { page, errors };
}

const textOf = async (page: Page, testId: string) => (await page.locator(`[data-testid="${testId}"]`).first().textContent())?.trim();

useExchange();

afterAll(async () => {
  for (const c of contexts) await c.close().catch(() => undefined);
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
      // Leverage has its own name and an entry on the home screen (it was "Contract", in the drawer only).
      await page.goto(`${server.baseUrl}/#/`);
      expect(await textOf(page, "home-shortcut-lever")).toBe("Leverage");
      await page.locator('[data-testid="home-shortcut-lever"]').click();
      await page.locator('[data-testid="lever-risk-accept"]').click();
      await page.waitForSelector('[data-testid="lever-form"]');
      await page.waitForFunction(() => document.querySelector('[data-testid="lever-index"]')?.textContent?.includes("60,000") || document.querySelector('[data-testid="lever-index"]')?.textContent?.includes("60000"));
      // The seconds contract is one tap away under its own name, and back.
      expect(await textOf(page, "product-seconds")).toBe("Seconds");
      expect(await page.locator('[data-testid="product-lever"]').getAttribute("class")).toMatch(/^on_/);

      // "Transfer USDT in" opens the transfer from the spot account into the lever account.
      await page.locator('[data-testid="lever-transfer-in"]').click();
      await page.waitForSelector('[data-testid="transfer-page"]');
      expect(await page.locator('[data-testid="transfer-from"]').inputValue()).toBe("change");
      expect(await page.locator('[data-testid="transfer-to"]').inputValue()).toBe("lever");
      await page.goBack();
      await page.waitForSelector('[data-testid="lever-form"]');

      await page.fill('[data-testid="lever-lots"]', "10");
      await page.selectOption('[data-testid="lever-multiple"]', "10");
      await page.fill('[data-testid="lever-sl"]', "59500");
      // 10 lots × 0.01 BTC × 60000 = 6000 USDT of value: margin 600, fee 0.05 % = 3, overnight 0.02 % = 1.2 a day;
      // liquidation when the loss leaves 20 % of the margin: 480 USDT = 4800 on 0.1 BTC → 55,200.
      await page.waitForFunction(() => document.querySelector('[data-testid="lever-preview"]')?.textContent?.includes("600.00 USDT"));
      expect(await page.locator('[data-testid="lever-preview"]').textContent()).toContain("3.00 USDT");
      expect(await textOf(page, "lever-preview-overnight")).toBe("1.20 USDT");
      expect(await textOf(page, "lever-preview-liquidation")).toBe("55,200.00 USDT");
      // The gain cap is told before opening: the value at open, and the price that closes the long.
      expect(await page.locator('[data-testid="lever-cap-note"]').textContent()).toContain("6,000.00");
      expect(await page.locator('[data-testid="lever-cap-note"]').textContent()).toContain("120,000.00");
      await snap(page, "lever-form-en");
      await page.locator('[data-testid="lever-submit"]').click();
      // The confirm dialog is a table of what is charged and risked, with units, TP/SL included.
      const confirm = page.locator('[data-testid="lever-confirm"]');
      await confirm.waitFor();
      expect(await textOf(page, "lever-confirm-lots")).toBe("10 × 0.01 BTC");
      expect(await textOf(page, "lever-confirm-price")).toBe("60,000.00 USDT");
      expect(await textOf(page, "lever-confirm-margin")).toBe("600.00 USDT");
      expect(await textOf(page, "lever-confirm-fee")).toBe("3.00 USDT");
      expect(await textOf(page, "lever-confirm-cost")).toBe("603.00 USDT");
      expect(await textOf(page, "lever-confirm-overnight")).toBe("1.20 USDT");
      expect(await textOf(page, "lever-confirm-maintenance")).toBe("20%");
      expect(await textOf(page, "lever-confirm-liquidation")).toBe("55,200.00 USDT");
      expect(await textOf(page, "lever-confirm-tp")).toBe("Not set");
      expect(await textOf(page, "lever-confirm-sl")).toBe("59,500.00 USDT");
      expect(await confirm.textContent()).toContain("120,000.00");
      expect(await textOf(page, "lever-confirm-price-note")).toContain("more than 0.1%");
      await snap(page, "lever-confirm-en");
      await page.locator('[data-testid="lever-confirm-go"]').click();
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
  it("refuses an open confirmed at an index that moved, shows the new figures and opens on the second confirm; every close asks first", async () => {
    const mm = await login("mm@exchange.test", "MarketMaker1234");
    const token = await login("demo2@exchange.test", "Demo1234");
    await quote(mm, "59990.00", "60010.00");
    await call("/api/wallet/change", { token, body: { number: "2000", from_field: "change", to_field: "lever", currency_id: 3 } });
    const { page, errors } = await openAs(token, "en", true);
    try {
      // The screen's index is stale (60,200 while the server's is 60,000, 0.33 % away): the open is refused.
      const deal = /\/api\/lever\/deal\?/;
      await page.route(deal, async (route) => {
        const res = await route.fetch();
        const json = (await res.json()) as { message: { index_price: string } };
        json.message.index_price = "60200.00";
        await route.fulfill({ response: res, json });
      });
      await page.goto(`${server.baseUrl}/#/lever`);
      await page.waitForFunction(() => document.querySelector('[data-testid="lever-index"]')?.textContent === "60,200.00");
      await page.locator('[data-testid="lever-submit"]').click();
      expect(await textOf(page, "lever-confirm-price")).toBe("60,200.00 USDT");
      await page.unroute(deal);
      await page.locator('[data-testid="lever-confirm-go"]').click();
      await page.locator('[data-testid="lever-confirm-error"]').waitFor();
      expect(await textOf(page, "lever-confirm-error")).toBe(
        "The index moved from 60200.00 to 60000.00 (more than 0.1%) before your order arrived; nothing was opened. Check the new figures and confirm again",
      );
      // The dialog stays with the server's index, and nothing was opened.
      await page.waitForFunction(() => document.querySelector('[data-testid="lever-confirm-price"]')?.textContent === "60,000.00 USDT");
      expect((await call<{ message: { total: number } }>("/api/lever/my_trade?status=2", { token, body: {} })).message.total).toBe(0);
      await snap(page, "lever-price-moved-en");
      await page.locator('[data-testid="lever-confirm-go"]').click();
      const card = page.locator('[data-testid^="lever-position-"]').first();
      await card.waitFor();
      expect(await page.locator('[data-testid="lever-confirm"]').count()).toBe(0);

      // The TP/SL editor says what its buttons do, and closing the position is not among them.
      await card.locator('[data-testid="lever-stops"]').click();
      const editor = card.locator('[data-testid="lever-stops-form"]');
      expect(await editor.locator("button").allTextContents()).toEqual(["Cancel", "Save TP/SL"]);
      expect(await card.locator('[data-testid="lever-close"]').count()).toBe(0);
      await editor.locator('[data-testid="lever-stops-tp"]').fill("61000");
      await editor.locator('[data-testid="lever-stops-save"]').click();
      await page.getByText("Saved").first().waitFor();
      await snap(page, "lever-position-en");
      expect((await call<{ message: { data: { stop_profit: string; status: number }[] } }>("/api/lever/my_trade?status=2", { token, body: {} })).message.data[0]).toMatchObject({ stop_profit: "61000.00", status: 2 });

      // "Close position" asks first, showing the position, the index and the expected P/L; "Keep open" keeps it.
      await card.locator('[data-testid="lever-close"]').click();
      const dialog = page.locator('[data-testid="lever-close-confirm"]');
      await dialog.waitFor();
      const shown = (await dialog.textContent()) ?? "";
      for (const part of ["Close this position?", "Long 10×", "BTC/USDT", "1 × 0.01 BTC", "60,000.00 USDT", "Expected P/L", "Back to your lever balance"]) expect(shown).toContain(part);
      expect(await textOf(page, "lever-close-index")).toBe("60,000.00 USDT");
      expect(await textOf(page, "lever-close-pnl")).toBe("0.00 USDT");
      // margin 60 − close fee 0.3 at P/L 0
      expect(await textOf(page, "lever-close-payout")).toBe("59.70 USDT");
      await snap(page, "lever-close-en");
      await page.locator('[data-testid="lever-close-keep"]').click();
      expect(await page.locator('[data-testid="lever-close-confirm"]').count()).toBe(0);
      expect((await call<{ message: { total: number } }>("/api/lever/my_trade?status=2", { token, body: {} })).message.total).toBe(1);

      // A second position, then "Close all positions": one dialog listing both, with totals.
      await call("/api/lever/submit", { token, body: { currency_id: 1, legal_id: 3, type: 2, share: 2, multiple: 5, index_price: "60000.00" } });
      await page.locator('[data-testid^="lever-position-"]').nth(1).waitFor();
      await page.locator('[data-testid="lever-close-all"]').click();
      await page.waitForFunction(() => document.querySelectorAll('[data-testid="lever-close-position"]').length === 2);
      expect(await textOf(page, "lever-close-confirm")).toContain("Close all 2 positions?");
      expect(await textOf(page, "lever-close-total-pnl")).toBe("0.00 USDT");
      await snap(page, "lever-close-all-en");
      await page.locator('[data-testid="lever-close-go"]').click();
      await page.getByText("2 positions closed").waitFor();
      expect((await call<{ message: { total: number } }>("/api/lever/my_trade?status=2", { token, body: {} })).message.total).toBe(0);

      // The same screens in Chinese: each product its own name; the dialogs' tables.
      const zh = await openAs(token, "zh", true);
      await call("/api/lever/submit", { token, body: { currency_id: 1, legal_id: 3, type: 1, share: 1, multiple: 10, index_price: "60000.00" } });
      await zh.page.goto(`${server.baseUrl}/#/lever`);
      await zh.page.waitForSelector('[data-testid="lever-form"]');
      expect(await textOf(zh.page, "product-seconds")).toBe("秒合约");
      expect(await textOf(zh.page, "product-lever")).toBe("杠杆合约");
      await zh.page.fill('[data-testid="lever-tp"]', "62000");
      await zh.page.locator('[data-testid="lever-submit"]').click();
      await zh.page.locator('[data-testid="lever-confirm"]').waitFor();
      expect(await textOf(zh.page, "lever-confirm-tp")).toBe("62,000.00 USDT");
      await snap(zh.page, "lever-confirm-zh");
      await zh.page.locator('[data-testid="lever-confirm-cancel"]').click();
      await zh.page.locator('[data-testid="lever-close"]').first().click();
      await zh.page.locator('[data-testid="lever-close-confirm"]').waitFor();
      expect(await textOf(zh.page, "lever-close-confirm")).toContain("确认平仓？");
      await snap(zh.page, "lever-close-zh");
      await zh.page.locator('[data-testid="lever-close-go"]').click();
      await zh.page.getByText("已平仓").first().waitFor();
      await zh.page.goto(`${server.baseUrl}/#/`);
      expect(await textOf(zh.page, "home-shortcut-lever")).toBe("杠杆合约");
      expect(await textOf(zh.page, "home-shortcut-trade")).toBe("秒合约");
      await snap(zh.page, "home-shortcuts-zh");
      expect(zh.errors).toEqual([]);
    } catch (err) {
      await snap(page, "lever-confirms-failed");
      throw err;
    }
    expect(errors).toEqual([]);
  });

  it("with leveraged contracts switched off, hides the open form but lets an owner see and close a position", async () => {
    const mm = await login("mm@exchange.test", "MarketMaker1234");
    const token = await login("demo1@exchange.test", "Demo1234");
    await quote(mm, "59990.00", "60010.00");
    const p = await call<{ id: number; status: number }>("/api/lever/submit", { token, body: { currency_id: 1, legal_id: 3, type: 1, share: 1, multiple: 10, index_price: "60000.00" } });
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
      await page.locator('[data-testid="lever-close-go"]').click();
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
