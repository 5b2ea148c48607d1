/// <reference lib="dom" />
// Functions passed to page.evaluate() run in the browser, hence the DOM types.
/**
 * Spot trading between two real traders in two phone-sized browsers: a resting sell shows up in
 * the other trader's book without a reload, a crossing buy settles, both screens show the deal
 * and both balances to the last decimal the ledger keeps (fee = floor(amount × 10 bps) from the
 * asset received), the chart draws the bar, the history lists the trade. Also: cancelling an
 * order through its confirm dialog returns the frozen funds; checks made before sending; the
 * chart of a pair that never traded stays empty; a logged-out buyer is sent to log in.
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { BrowserContext, Page } from "playwright-core";
import { newPhoneContext, snap } from "./browser.ts";
import { browser, server, useExchange } from "./exchange.ts";
import { waitForRoute } from "./helpers.ts";
import { formatMoney } from "../../web/src/lib/format.ts";

const tokens: Record<"demo1" | "demo2", string> = { demo1: "", demo2: "" };

interface Balance {
  user_currency: string;
  user_legal: string;
  lock_currency: string;
  lock_legal: string;
}

async function login(account: string): Promise<string> {
  const res = await fetch(`${server.baseUrl}/api/user/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ user_string: account, password: "Demo1234", type: 1 }),
  });
  const json = (await res.json()) as { type: string; message: { token: string } };
  if (json.type !== "ok") throw new Error(`login ${account}: ${JSON.stringify(json)}`);
  return json.message.token;
}

async function balanceOf(token: string): Promise<Balance> {
  const res = await fetch(`${server.baseUrl}/api/transaction/balance?currency_id=1&legal_id=3`, { headers: { Authorization: token } });
  const json = (await res.json()) as { type: string; message: Balance };
  if (json.type !== "ok") throw new Error(`balance: ${JSON.stringify(json)}`);
  return json.message;
}

/** A ledger value of the API as the balances table shows it: the one precision rule of lib/format.ts (unit-tested there). */
const shown = formatMoney;

useExchange();

beforeAll(async () => {
  tokens.demo1 = await login("demo1@exchange.test");
  tokens.demo2 = await login("demo2@exchange.test");
});

interface Opened {
  context: BrowserContext;
  page: Page;
  errors: Error[];
}

/** A phone with a language and, optionally, a login (seeded once, so a reload keeps later changes). */
async function openAs(locale: string, token: string | null, extra: Record<string, string> = {}): Promise<Opened> {
  const context = await newPhoneContext(browser);
  await context.addInitScript(
    ([l, t, more]) => {
      if (sessionStorage.getItem("seeded")) return;
      sessionStorage.setItem("seeded", "1");
      localStorage.setItem("lang", l as string);
      if (t) localStorage.setItem("token", t as string);
      for (const [k, v] of Object.entries(more as Record<string, string>)) localStorage.setItem(k, v);
    },
    [locale, token, extra] as const,
  );
  const page = await context.newPage();
  const errors: Error[] = [];
  page.on("pageerror", (err) => errors.push(err));
  return { context, page, errors };
}

/** Opens /exchange and waits until the book, the balances and the live socket are there. */
async function openExchange(o: Opened) {
  await o.page.goto(`${server.baseUrl}/#/exchange`);
  await o.page.waitForSelector('[data-testid="exchange"]');
  await o.page.waitForSelector('[data-testid="live-status"][data-status="open"]');
  await o.page.waitForFunction(() => document.querySelector('[data-testid="balance-legal-available"]')?.textContent?.trim() !== "--");
  // Marks the document: if it is still there at the end, nothing was reloaded.
  await o.page.evaluate(() => ((window as unknown as { __noReload: boolean }).__noReload = true));
}

const text = async (page: Page, testId: string) => (await page.locator(`[data-testid="${testId}"]`).first().textContent())?.trim();

/** The balances table as shown (USDT 2 decimals, BTC up to 8 with trailing zeros trimmed to 2). */
async function expectBalances(page: Page, b: { coin: string; coinFrozen: string; legal: string; legalFrozen: string }) {
  const want = {
    "balance-coin-available": b.coin,
    "balance-coin-frozen": b.coinFrozen,
    "balance-legal-available": b.legal,
    "balance-legal-frozen": b.legalFrozen,
  };
  await page
    .waitForFunction(
      (w) => Object.entries(w).every(([id, v]) => document.querySelector(`[data-testid="${id}"]`)?.textContent?.trim() === v),
      want,
      { timeout: 120_000 },
    )
    .catch(() => undefined);
  for (const [id, v] of Object.entries(want)) expect(await text(page, id), id).toBe(v);
}

describe("spot trading between two traders", () => {
  it("shows a resting sell live in the other book, settles the crossing buy and both balances to the last decimal", async () => {
    const seller = await openAs("en", tokens.demo1);
    const buyer = await openAs("en", tokens.demo2);
    await Promise.all([openExchange(seller), openExchange(buyer)]);
    await expectBalances(seller.page, { coin: "1.00", coinFrozen: "0.00", legal: "10,000.00", legalFrozen: "0.00" });
    await expectBalances(buyer.page, { coin: "1.00", coinFrozen: "0.00", legal: "10,000.00", legalFrozen: "0.00" });
    await snap(buyer.page, "spot-exchange-before-en");

    // demo1: limit sell 0.01 BTC at 70000, above any other order.
    const s = seller.page;
    await s.click('[data-testid="order-side-sell"]');
    await s.fill('[data-testid="order-price"]', "70000");
    await s.fill('[data-testid="order-qty"]', "0.01");
    expect(await text(s, "order-total")).toBe("700.00 USDT");
    await s.click('[data-testid="order-submit"]');
    await s.getByText("Order placed").waitFor();
    await s.locator('[data-testid="open-order"]').first().waitFor();
    expect(await s.locator('[data-testid="open-order"]').count()).toBe(1);
    await expectBalances(s, { coin: "0.99", coinFrozen: "0.01", legal: "10,000.00", legalFrozen: "0.00" });

    // demo2 sees it in the book without reloading, taps it: the price is filled in.
    const b = buyer.page;
    const ask = b.locator('[data-testid="book-ask"][data-price="70000.00"]');
    await ask.waitFor({ timeout: 120_000 });
    expect((await ask.textContent())?.replace(/\s+/g, " ")).toContain("70,000.00");
    expect((await ask.textContent())?.replace(/\s+/g, " ")).toContain("0.010000");
    await snap(b, "spot-exchange-live-ask-en");
    await ask.click();
    await expect.poll(() => b.inputValue('[data-testid="order-price"]')).toBe("70000.00");
    await b.fill('[data-testid="order-qty"]', "0.01");
    await b.click('[data-testid="order-submit"]');
    await b.getByText("Filled 0.01 BTC", { exact: true }).waitFor();

    // Both screens: the ask is gone from the book and the deal is in market trades, live.
    for (const p of [s, b]) {
      await p.locator('[data-testid="book-ask"][data-price="70000.00"]').waitFor({ state: "detached", timeout: 120_000 });
      await p.click('[data-testid="tab-trades"]');
      const deal = p.locator('[data-testid="deal-row"]').first();
      await deal.waitFor();
      const row = (await deal.textContent())?.replace(/\s+/g, " ") ?? "";
      expect(row).toContain("70,000.00");
      expect(row).toContain("0.010000");
      expect(row).toContain("Buy");
      expect(await text(p, "header-last")).toBe("70,000.00");
    }
    // The seller's open order left the list on its own (the fill event), nothing was reloaded.
    await s.click('[data-testid="tab-orders"]');
    await s.getByText("No open orders").waitFor({ timeout: 120_000 });

    // Exact balances. Seller (maker): +700 USDT − floor(700 × 10 / 10000) = 0.7 fee; −0.01 BTC.
    // Buyer (taker): −700 USDT; +0.01 BTC − floor(0.01 × 10 / 10000) = 0.00001 fee.
    await expectBalances(s, { coin: "0.99", coinFrozen: "0.00", legal: "10,699.30", legalFrozen: "0.00" });
    await expectBalances(b, { coin: "1.00999", coinFrozen: "0.00", legal: "9,300.00", legalFrozen: "0.00" });
    expect(await balanceOf(tokens.demo1)).toMatchObject({ user_currency: "0.99000000", user_legal: "10699.30000000", lock_currency: "0.00000000", lock_legal: "0.00000000" });
    expect(await balanceOf(tokens.demo2)).toMatchObject({ user_currency: "1.00999000", user_legal: "9300.00000000", lock_currency: "0.00000000", lock_legal: "0.00000000" });
    // The form's available line and fee rate (one precision rule: USDT 2, a coin up to 8 trimmed to 2;
    // the seeded pair charges 0.1 %, taken from the coin on a buy and from USDT on a sell).
    expect(await text(b, "order-available")).toBe("9,300.00 USDT");
    expect(await text(b, "order-fee-rate")).toBe("0.1% in BTC");
    await s.click('[data-testid="order-side-sell"]');
    expect(await text(s, "order-available")).toBe("0.99 BTC");
    expect(await text(s, "order-fee-rate")).toBe("0.1% in USDT");
    for (const p of [s, b]) expect(await p.evaluate(() => (window as unknown as { __noReload?: boolean }).__noReload)).toBe(true);
    await s.click('[data-testid="tab-trades"]');
    await snap(s, "spot-exchange-after-seller-en");
    await snap(b, "spot-exchange-after-buyer-en");

    // The chart draws the bar of that trade; the deal is in its recent deals.
    await b.click('[data-testid="kline-link"]');
    await waitForRoute(b, /^#\/kline\?from=exchange$/);
    await b.waitForSelector('[data-testid="kline-chart"][data-status="ready"]');
    expect(Number(await b.getAttribute('[data-testid="kline-chart"]', "data-bars"))).toBeGreaterThanOrEqual(1);
    expect(await text(b, "kline-last")).toBe("70,000.00");
    expect((await b.locator('[data-testid="kline-deal"]').first().textContent())?.replace(/\s+/g, " ")).toContain("70,000.00");
    expect(await b.locator('[data-testid="page-title"]').textContent()).toBe("BTC/USDT");
    await snap(b, "spot-kline-en");

    // The history lists the trade: buy (green), quantity, price, traded amount.
    await b.goto(`${server.baseUrl}/#/exchange/lists`);
    const record = b.locator('[data-testid="record-row"]').first();
    await record.waitFor();
    expect(await record.locator('[data-testid="side-tag"][data-side="buy"]').textContent()).toBe("Buy");
    expect(await record.locator('[data-testid="record-qty"]').textContent()).toBe("0.01");
    expect(await record.locator('[data-testid="record-price"]').textContent()).toBe("70,000.00");
    expect(await record.locator('[data-testid="record-amount"]').textContent()).toBe("700.00");
    // The fee the buyer really paid, in the coin it was taken from (0.01 × 10 bps), not "--".
    expect(await record.locator('[data-testid="record-fee"]').textContent()).toBe("0.00001 BTC");
    expect((await record.textContent()) ?? "").toContain("BTC/USDT");
    await snap(b, "spot-lists-en");

    // The same screens in Chinese.
    const zh = await openAs("zh", tokens.demo1);
    await openExchange(zh);
    await zh.page.click('[data-testid="tab-trades"]');
    await zh.page.locator('[data-testid="deal-row"]').first().waitFor();
    await snap(zh.page, "spot-exchange-zh");
    await zh.page.goto(`${server.baseUrl}/#/kline`);
    await zh.page.waitForSelector('[data-testid="kline-chart"][data-status="ready"]');
    await snap(zh.page, "spot-kline-zh");
    await zh.page.goto(`${server.baseUrl}/#/exchange/lists`);
    await zh.page.locator('[data-testid="record-row"]').first().waitFor();
    expect(await zh.page.locator('[data-testid="record-row"] [data-testid="side-tag"]').first().textContent()).toBe("卖出");
    await snap(zh.page, "spot-lists-zh");

    for (const o of [seller, buyer, zh]) {
      expect(o.errors).toEqual([]);
      await o.context.close();
    }
  });

  it("cancels an open order through the confirm dialog and returns the frozen funds", async () => {
    const before = await balanceOf(tokens.demo1);
    const o = await openAs("en", tokens.demo1);
    await openExchange(o);
    const p = o.page;
    // A buy far below the market rests on the book: 0.01 BTC at 1000 holds 10 USDT.
    await p.click('[data-testid="order-side-buy"]');
    await p.fill('[data-testid="order-price"]', "1000");
    await p.fill('[data-testid="order-qty"]', "0.01");
    await p.click('[data-testid="order-submit"]');
    await p.getByText("Order placed").waitFor();
    // Other tests' orders may rest too: this one is the buy at 1,000.00.
    const order = p.locator('[data-testid="open-order"]').filter({ hasText: "1,000.00" }).filter({ has: p.locator('[data-testid="side-tag"][data-side="buy"]') });
    await order.first().waitFor();
    expect(await order.count()).toBe(1);
    const held = (units: string, delta: bigint) => {
      const [i = "0", f = ""] = units.split(".");
      const v = BigInt(i + f.padEnd(8, "0")) + delta;
      const s = v.toString().padStart(9, "0");
      return `${s.slice(0, -8)}.${s.slice(-8)}`;
    };
    const tenUsdt = 10n * 10n ** 8n;
    await expectBalances(p, {
      coin: shown(before.user_currency, "BTC"),
      coinFrozen: shown(before.lock_currency, "BTC"),
      legal: shown(held(before.user_legal, -tenUsdt), "USDT"),
      legalFrozen: shown(held(before.lock_legal, tenUsdt), "USDT"),
    });

    await order.first().locator('[data-testid="cancel-order"]').click();
    const dialog = p.locator('[role="alertdialog"]');
    await dialog.getByText("Cancel order", { exact: true }).first().waitFor();
    expect((await dialog.textContent()) ?? "").toContain("0.01 BTC at 1,000.00");
    await snap(p, "spot-cancel-dialog-en");
    await dialog.getByRole("button", { name: "Cancel order" }).click();
    await p.getByText("Order cancelled").waitFor();
    await order.first().waitFor({ state: "detached" });
    await expectBalances(p, { coin: shown(before.user_currency, "BTC"), coinFrozen: shown(before.lock_currency, "BTC"), legal: shown(before.user_legal, "USDT"), legalFrozen: shown(before.lock_legal, "USDT") });
    expect(await balanceOf(tokens.demo1)).toMatchObject(before);
    expect(o.errors).toEqual([]);
    await o.context.close();
  });

  it("checks an order before sending it: quantity above 0 (buy and sell wording) and the minimum order value", async () => {
    const o = await openAs("en", tokens.demo2);
    await openExchange(o);
    const p = o.page;
    let posted = 0;
    p.on("request", (r) => {
      if (/walletIn|walletOut/.test(r.url())) posted += 1;
    });
    await p.click('[data-testid="order-side-buy"]');
    await p.fill('[data-testid="order-price"]', "1000");
    await p.click('[data-testid="order-submit"]');
    expect(await text(p, "order-error")).toBe("The buy quantity must be greater than 0");
    await p.click('[data-testid="order-side-sell"]');
    // Cleared first, as a person would: switching side lets the price follow the best ask, and if
    // that has not reached the field yet it still shows the buy step's "1000", so filling the same
    // text would fire no input event at all and the form would never learn the price was typed.
    await p.fill('[data-testid="order-price"]', "");
    await p.fill('[data-testid="order-price"]', "1000");
    await p.click('[data-testid="order-submit"]');
    expect(await text(p, "order-error")).toBe("The sell quantity must be greater than 0");
    await p.fill('[data-testid="order-qty"]', "0.001");
    await p.click('[data-testid="order-submit"]');
    expect(await text(p, "order-error")).toBe("The order value must be at least 5.00 USDT");
    await p.fill('[data-testid="order-price"]', "");
    await p.click('[data-testid="order-submit"]');
    expect(await text(p, "order-error")).toBe("The price must be greater than 0");
    // The slider: 50 % of the coin, to 5 decimals (the pair allows 6, the form shows at most 5).
    const bal = await balanceOf(tokens.demo2);
    await p.click('[data-testid="order-slider-50"]');
    const half = (BigInt(bal.user_currency.replace(".", "")) * 50n) / 100n / 1000n; // 8 → 5 decimals
    const halfText = `${half / 100000n}.${(half % 100000n).toString().padStart(5, "0")}`;
    await expect.poll(() => p.inputValue('[data-testid="order-qty"]')).toBe(halfText);
    // Market mode: read-only price with the best-price text.
    await p.click('[data-testid="order-mode-market"]');
    expect(await p.locator('[data-testid="order-price-market"]').getAttribute("readonly")).not.toBeNull();
    await p.locator('[data-testid="order-best-price"]').waitFor();
    await snap(p, "spot-form-market-en");
    expect(posted).toBe(0);
    expect(o.errors).toEqual([]);
    await o.context.close();
  });
});

describe("chart page", () => {
  it("keeps the chart of a pair that never traded empty, with a note", async () => {
    const o = await openAs("en", null, { currentCurrencyID: "2", currentCurrency: "ETH", legal_name: "USDT" });
    await o.page.goto(`${server.baseUrl}/#/kline`);
    await o.page.waitForSelector('[data-testid="kline-empty"]');
    expect(await o.page.getAttribute('[data-testid="kline-chart"]', "data-bars")).toBe("0");
    expect(await text(o.page, "kline-last")).toBe("--");
    expect(await o.page.locator('[data-testid="page-title"]').textContent()).toBe("ETH/USDT");
    await o.page.click('[data-testid="interval-1day"]');
    await o.page.waitForSelector('[data-testid="kline-empty"]');
    await snap(o.page, "spot-kline-empty-en");
    // Logged out: the buy button leads to login and back.
    await o.page.click('[data-testid="kline-buy"]');
    await waitForRoute(o.page, /^#\/login\?redirect=%2Fkline$/);
    expect(o.errors).toEqual([]);
    await o.context.close();
  });

  it("opens the order dialog from the chart for a logged-in user", async () => {
    const o = await openAs("jp", tokens.demo2);
    await o.page.goto(`${server.baseUrl}/#/kline`);
    await o.page.waitForSelector('[data-testid="kline-chart"]');
    await o.page.click('[data-testid="kline-sell"]');
    const sheet = o.page.locator('[data-testid="order-sheet"]');
    await sheet.waitFor();
    await o.page.waitForFunction(() => document.querySelector('[data-testid="sheet-available"]')?.textContent?.includes("BTC"));
    expect(await sheet.locator('[data-testid="sheet-side-sell"]').getAttribute("aria-selected")).toBe("true");
    await snap(o.page, "spot-kline-sheet-jp");
    await o.page.click('[data-testid="order-sheet-close"]');
    await sheet.waitFor({ state: "detached" });
    expect(o.errors).toEqual([]);
    await o.context.close();
  });
});
