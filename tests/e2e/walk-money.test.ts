/// <reference lib="dom" />
// Functions passed to page.evaluate() run in the browser, hence the DOM types.
/**
 * The money items of the walk (issue #26) at phone size, each in English and in Chinese:
 * - a leverage close shows the realised P/L net of fees (the close dialog and the history), and
 *   that figure is exactly what the lever balance moved by, not the gross P/L;
 * - a C2C chat message reaches the other party on another screen (a toast and the inbox), and the
 *   inbox item opens the order's chat;
 * - a money notification (a spot fill) refreshes the balance on Assets at once: the screen's own
 *   15 s poll is switched off in the page, so only the notification can bring the new figure;
 * - a seconds contract refused with `price_moved` (the confirmed index altered on the way) shows
 *   the server's translated message and keeps the confirmation; confirming again opens it.
 */
import { describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { parseUnits } from "../../schemas/money.ts";
import { openPhone, snap, snapFailure } from "./browser.ts";
import { browser, server, useExchange } from "./exchange.ts";
import { apiCall, waitForRoute } from "./helpers.ts";

useExchange();

const LANGS = ["en", "zh"] as const;
type Lang = (typeof LANGS)[number];
/** Each language its own demo user, so the two runs of an item never share balances or positions. */
const USER: Record<Lang, { account: string; name: string; other: string }> = {
  en: { account: "demo1@exchange.test", name: "Demo One", other: "demo2@exchange.test" },
  zh: { account: "demo2@exchange.test", name: "Demo Two", other: "demo1@exchange.test" },
};

const call = <T>(path: string, opts: { token?: string; body?: unknown } = {}) => apiCall<T>(server.baseUrl, path, opts);
const login = async (account: string, password = "Demo1234") => (await call<{ token: string }>("/api/user/login", { body: { user_string: account, password, type: 1 } })).token;
const testId = (page: Page, id: string) => page.locator(`[data-testid="${id}"]`);
const units = (v: string) => (v.startsWith("-") ? -parseUnits(v.slice(1), 8)! : parseUnits(v.replace(/^\+/, ""), 8)!);
/** A shown amount ("+13.99 USDT", "1,013.99") as units. */
const shownUnits = (text: string | null) => units((text ?? "").replace(/[^0-9.+-]/g, ""));

/** The market maker quotes one bid and one ask (its older quotes cancelled): the index is their mid. */
async function quote(mm: string, bid: string, ask: string) {
  const open = await call<{ lists: { id: number }[] }>("/api/new/transaction/index?currency_id=1", { token: mm });
  if (open.lists.length > 0) await call("/api/transaction_del/batch", { token: mm, body: { ids: open.lists.map((o) => o.id) } });
  await call("/api/transaction/walletIn", { token: mm, body: { currency_id: 1, legal_id: 3, price: bid, num: "0.01", mode: 2 } });
  await call("/api/transaction/walletOut", { token: mm, body: { currency_id: 1, legal_id: 3, price: ask, num: "0.01", mode: 2 } });
}

const leverBalance = async (token: string) => units((await call<{ lever_balance: string }>("/api/lever/deal?currency_id=1", { token })).lever_balance);

describe("a leverage close shows the P/L net of fees", () => {
  const TEXT = { en: { closed: "Position closed" }, zh: { closed: "已平仓" } } as const;
  for (const lang of LANGS) {
    it(`${lang}: the close dialog and the history show the net P/L, which is exactly what the lever balance moved by`, async () => {
      const mm = await login("mm@exchange.test", "MarketMaker1234");
      const token = await login(USER[lang].account);
      await quote(mm, "59990.00", "60010.00");
      await call("/api/wallet/change", { token, body: { number: "1000", from_field: "change", to_field: "lever", currency_id: 3 } });
      const start = await leverBalance(token);
      // 10 lots × 0.01 BTC long at 60,000; the index rises to 60,200: gross +20, fees 3.00 + 3.01, net +13.99.
      const p = await call<{ id: number; status: number }>("/api/lever/submit", { token, body: { currency_id: 1, legal_id: 3, type: 1, share: 10, multiple: 10, index_price: "60000.00" } });
      expect(p.status).toBe(2);
      await quote(mm, "60190.00", "60210.00");

      const { page, errors } = await openPhone(browser, lang, token);
      await page.addInitScript(() => localStorage.setItem("lever_risk_accepted", "1"));
      try {
        await page.goto(`${server.baseUrl}/#/lever`);
        const card = testId(page, `lever-position-${p.id}`);
        await card.locator('[data-testid="lever-close"]').click();
        const dialog = testId(page, "lever-close-confirm");
        await dialog.waitFor();
        await page.waitForFunction(() => document.querySelector('[data-testid="lever-close-index"]')?.textContent === "60,200.00 USDT");
        expect(shownUnits(await testId(page, "lever-close-pnl").textContent())).toBe(units("20"));
        expect(shownUnits(await testId(page, "lever-close-net").textContent())).toBe(units("13.99"));
        await snap(page, `walk-money-lever-close-${lang}`);
        // The close's own notification states the net figure too, not the gross: watched for from the
        // click on (its toast stays a few seconds, and may come before the screen's own "closed").
        const notice = testId(page, "notice-toast").filter({ hasText: "60200.00" });
        const noticeText = notice.waitFor().then(() => notice.innerText());
        await testId(page, "lever-close-go").click();
        await page.getByText(TEXT[lang].closed).first().waitFor();
        // In the inbox (the record), then as the toast (the live push).
        await expect
          .poll(async () => (await call<{ data: { kind: string; body: string }[] }>("/api/notifications", { token })).data.find((n) => n.kind === "lever_closed")?.body ?? "", { timeout: 60_000 })
          .toContain("60200.00");
        const text = await noticeText;
        expect(text).toContain("+13.99 USDT");
        expect(text).not.toContain("20.00 USDT");

        await testId(page, "lever-tab-4").click();
        const closed = page.locator(`[data-testid="lever-list-4"] [data-testid="lever-position-${p.id}"]`);
        await closed.waitFor();
        const net = shownUnits(await closed.locator('[data-testid="lever-net-pnl"]').textContent());
        const gross = shownUnits(await closed.locator('[data-testid="lever-pnl"]').textContent());
        await closed.scrollIntoViewIfNeeded();
        await snap(page, `walk-money-lever-history-${lang}`);
        // The figure shown as the result is what the account really moved by; the gross is not.
        const moved = (await leverBalance(token)) - start;
        expect(net).toBe(moved);
        expect(gross).not.toBe(moved);
        const history = await call<{ message: { data: { id: number; net_profit: string }[] } }>("/api/lever/my_trade?status=4", { token, body: {} });
        expect(units(history.message.data.find((r) => r.id === p.id)!.net_profit)).toBe(moved);
      } catch (err) {
        await snapFailure(page, `walk-money-lever-failed-${lang}`);
        throw err;
      }
      expect(errors).toEqual([]);
    });
  }
});

/** The demo merchant's seeded USDT sell advert (scripts/seed.mjs). */
async function merchantSellAdvert(): Promise<number> {
  const page = await call<{ lists: { id: number; seller_name: string }[] }>("/api/new/legal_deal/index?type=sell&currency_id=3&page=1");
  const ad = page.lists.find((a) => a.seller_name === "Honest OTC");
  if (!ad) throw new Error("no seeded sell advert");
  return ad.id;
}

describe("a C2C chat message is noticed outside the order screen", () => {
  const TEXT = { en: (n: string) => `New message on order #${n}`, zh: (n: string) => `订单 #${n} 有新消息` } as const;
  for (const lang of LANGS) {
    it(`${lang}: the merchant on Assets gets a toast and an inbox item that opens the order's chat`, async () => {
      const buyer = await login(USER[lang].account);
      await call("/api/user/cash_save", { token: buyer, body: { real_name: USER[lang].name, bank_account: "6228480402564890018", bank_name: "", bank_branch: "Main" } });
      const placed = await call<{ data: { id: number } }>("/api/do_legal_deal", { token: buyer, body: { id: await merchantSellAdvert(), value: "100" } });
      const orderId = placed.data.id;
      const { ordernumber } = await call<{ ordernumber: string }>(`/api/legal_deal?id=${orderId}`, { token: buyer });

      const merchant = await login("merchant@exchange.test", "Merchant1234");
      const { page, errors } = await openPhone(browser, lang, merchant);
      try {
        await page.goto(`${server.baseUrl}/#/assets`);
        await testId(page, "notifications-live").waitFor({ state: "attached" });
        await testId(page, "asset-total").waitFor();
        const text = `${lang}: paying now`;
        await call(`/api/c2c/orders/${orderId}/messages`, { token: buyer, body: { text } });

        const toast = testId(page, "notice-toast").filter({ hasText: TEXT[lang](ordernumber) });
        await toast.waitFor();
        expect(await toast.innerText()).toContain(text);
        await testId(page, "notif-badge").waitFor();
        await snap(page, `walk-money-c2c-toast-${lang}`);
        expect(new URL(page.url()).hash).toBe("#/assets");

        await testId(page, "notif-bell").click();
        const item = testId(page, "notif-item").filter({ hasText: TEXT[lang](ordernumber) });
        await item.waitFor();
        expect(await item.getAttribute("data-read")).toBe("0");
        await snap(page, `walk-money-c2c-inbox-${lang}`);
        await item.click();
        await waitForRoute(page, new RegExp(`^#/legal/chat\\?id=${orderId}$`));
        await page.locator('[data-testid="chat-message"][data-sender="counterparty"]').getByText(text).waitFor();
      } catch (err) {
        await snapFailure(page, `walk-money-c2c-failed-${lang}`);
        throw err;
      }
      expect(errors).toEqual([]);
    });
  }
});

describe("a money notification refreshes the balances it names at once", () => {
  for (const lang of LANGS) {
    it(`${lang}: a sell filled while its owner looks at Assets shows the new USDT balance without a reload or the screen's poll`, async () => {
      const mm = await login("mm@exchange.test", "MarketMaker1234");
      const seller = await login(USER[lang].account);
      const taker = await login(USER[lang].other);
      await quote(mm, "59990.00", "60010.00");

      const { page, errors } = await openPhone(browser, lang, seller);
      // Assets asks for the balances every 15 s by itself: that poll never runs in this page, so
      // the new figure can only come from the notification.
      await page.addInitScript(() => {
        const real = window.setInterval.bind(window);
        window.setInterval = ((fn: TimerHandler, ms?: number, ...args: unknown[]) => (ms === 15_000 ? 0 : real(fn, ms, ...args))) as typeof window.setInterval;
      });
      const usdtRow = testId(page, "asset-row-USDT");
      try {
        await page.goto(`${server.baseUrl}/#/assets`);
        await testId(page, "notifications-live").waitFor({ state: "attached" });
        await usdtRow.waitFor();
        const before = (await usdtRow.getAttribute("data-available")) ?? "";

        await call("/api/transaction/walletOut", { token: seller, body: { currency_id: 1, legal_id: 3, mode: 2, price: "60000", num: "0.001", client_oid: `walk-sell-${lang}-${Date.now()}` } });
        await call("/api/transaction/walletIn", { token: taker, body: { currency_id: 1, legal_id: 3, mode: 2, price: "60000", num: "0.001", client_oid: `walk-take-${lang}-${Date.now()}` } });
        // The seller's proceeds reach their balance a moment after the taker's answer (in objects mode the
        // fill's legs leave the pair just after its commit): wait for them, as the screen must.
        const usdtNow = async () =>
          (await call<{ change_wallet: { balance: { currency: number; change_balance: string }[] } }>("/api/wallet/list", { token: seller, body: {} })).change_wallet.balance.find((r) => r.currency === 3)!.change_balance;
        await expect.poll(async () => units(await usdtNow()), { timeout: 60_000 }).toBeGreaterThan(units(before));
        const after = await usdtNow();

        await expect.poll(() => usdtRow.getAttribute("data-available"), { timeout: 120_000 }).toBe(after);
        // The figure the user reads, not only the row's data.
        expect(shownUnits(await usdtRow.locator('[data-testid="coin-available"]').textContent())).toBe(units(after));
        await testId(page, "notice-toast").first().waitFor();
        await snap(page, `walk-money-balance-refreshed-${lang}`);
        expect(new URL(page.url()).hash).toBe("#/assets");
      } catch (err) {
        await snapFailure(page, `walk-money-balance-failed-${lang}`);
        throw err;
      }
      expect(errors).toEqual([]);
    });
  }
});

describe("a seconds contract refused with price_moved", () => {
  for (const lang of LANGS) {
    it(`${lang}: shows the server's message on the confirmation, which stays; confirming again opens the contract`, async () => {
      const mm = await login("mm@exchange.test", "MarketMaker1234");
      const token = await login(USER[lang].account);
      await quote(mm, "59990.00", "60010.00");
      await call("/api/wallet/change", { token, body: { number: "20", from_field: "change", to_field: "micro", currency_id: 3 } });

      const { page, errors } = await openPhone(browser, lang, token);
      // The confirmed index is altered on its way to 70,000: far beyond the 0.1 % tolerance.
      const sent: Record<string, unknown>[] = [];
      await page.route("**/api/microtrade/submit", async (route) => {
        const body = JSON.parse(route.request().postData() ?? "{}") as Record<string, unknown>;
        sent.push(body);
        await route.continue({ postData: JSON.stringify({ ...body, index_price: "70000.00" }) });
      });
      try {
        await page.goto(`${server.baseUrl}/#/trade`);
        await testId(page, "sec-form").waitFor();
        await page.waitForFunction(() => document.querySelector('[data-testid="index-price"]')?.textContent === "60,000.00");
        await testId(page, "sec-amount").fill("10");
        await testId(page, "sec-submit").click();
        await testId(page, "risk-tick").check({ force: true });
        await testId(page, "risk-accept").click();
        await testId(page, "sec-confirm").waitFor();
        await testId(page, "sec-confirm-go").click();
        const moved = testId(page, "sec-confirm-moved");
        await moved.waitFor();

        // The message is the server's own, in the user's language (asked again with the same body).
        expect(sent).toHaveLength(1);
        expect(sent[0]!.index_price).toBe("60000.00");
        const res = await fetch(new URL("/api/microtrade/submit", server.baseUrl), {
          method: "POST",
          headers: { authorization: token, lang, "content-type": "application/json" },
          body: JSON.stringify({ ...sent[0], index_price: "70000.00", client_oid: `walk-moved-${lang}-${Date.now()}` }),
        });
        const refusal = (await res.json()) as { code?: string; message?: string };
        expect(refusal.code).toBe("price_moved");
        expect(await moved.textContent()).toBe(refusal.message);
        expect(refusal.message).toContain("70000.00");
        expect(refusal.message).toContain("60000.00");
        // The confirmation stays; nothing was taken.
        expect(await testId(page, "sec-confirm").isVisible()).toBe(true);
        const micro = await call<{ id: number; user_wallet: { micro_balance: string } | null }[]>("/api/microtrade/payable_currencies", { token });
        expect(units(micro.find((c) => c.id === 3)!.user_wallet!.micro_balance)).toBe(units("20"));
        await snap(page, `walk-money-seconds-moved-${lang}`);

        // Confirmed again with the index as it is, it opens.
        await page.unroute("**/api/microtrade/submit");
        await testId(page, "sec-confirm-go").click();
        await testId(page, "running-order").first().waitFor();
        expect(await testId(page, "sec-confirm").count()).toBe(0);
      } catch (err) {
        await snapFailure(page, `walk-money-seconds-failed-${lang}`);
        throw err;
      }
      expect(errors).toEqual([]);
    });
  }
});
