/// <reference lib="dom" />
// Functions passed to page.evaluate() run in the browser, hence the DOM types.
/**
 * The walk of issue #26 at phone size, in English and Chinese:
 * - a first-time visitor browses home, the markets, a pair's chart, the spot screen, news and a
 *   savings product without an account; nothing asks them to log in until they act (buy,
 *   subscribe), and logging in brings them back to where they acted;
 * - the C2C buy sheet shows what ordering needs (verification, a receiving account, the payment
 *   window) before the amount; adding the missing account returns to the order with the amount
 *   kept; the order states its payment window;
 * - the merchant's order speaks to the seller, every time on it is labelled UTC+8, and releasing
 *   the coins asks for the fund password, refusing a missing or wrong one in the user's language.
 */
import { describe, expect, it } from "vitest";
import type { Page, Response } from "playwright-core";
import { openPhone, snap } from "./browser.ts";
import { browser, server, useExchange } from "./exchange.ts";
import { apiCall, loginViaApi, registerViaApi, uniqueEmail, uploadPicture, waitForRoute } from "./helpers.ts";

useExchange();

const testId = (page: Page, id: string) => page.locator(`[data-testid="${id}"]`);

/** Collects the API answers that asked for a login (HTTP 401: "999"), to assert a guest met none while looking. */
function loginDemands(page: Page): string[] {
  const seen: string[] = [];
  page.on("response", (r: Response) => {
    if (r.url().includes("/api/") && r.status() === 401) seen.push(new URL(r.url()).pathname);
  });
  return seen;
}

async function fillLogin(page: Page, account: string, password: string) {
  await page.fill('input[name="account"]', account);
  await page.fill('input[name="password"]', password);
  await page.click('[data-testid="login-submit"]');
}

const TEXT = {
  en: { ordersCta: "Log in to see your orders", balancesCta: "Log in to see your balances" },
  zh: { ordersCta: "登录后查看您的委托", balancesCta: "登录后查看您的余额" },
} as const;

describe("browsing without an account", () => {
  for (const lang of ["en", "zh"] as const) {
    it(`lets a ${lang} guest open home, markets, a chart, spot, news and a savings product, and asks for a login only on acting`, async () => {
      const account = uniqueEmail(`guest-${lang}`);
      await registerViaApi(server.baseUrl, account, "Guest2024x");
      const { page, errors } = await openPhone(browser, lang);
      const demands = loginDemands(page);

      // Home is the first screen, not a login form.
      await page.goto(`${server.baseUrl}/#/`);
      await testId(page, "home").waitFor();
      expect(new URL(page.url()).hash).toBe("#/");
      await snap(page, `walk-guest-home-${lang}`);

      await page.click('[data-testid="tabbar"] a[href="#/quotations"]');
      await testId(page, "quotations").waitFor();

      // A pair's chart, book and trades.
      await page.goto(`${server.baseUrl}/#/kline`);
      await testId(page, "kline").waitFor();
      await testId(page, "kline-chart").waitFor();
      await snap(page, `walk-guest-kline-${lang}`);

      // News.
      await page.goto(`${server.baseUrl}/#/news/list`);
      await testId(page, "article-list").waitFor();

      // The spot screen: the market and the form are there; one's own orders and balances say "Log in to see …".
      await page.goto(`${server.baseUrl}/#/exchange`);
      await testId(page, "exchange").waitFor();
      await testId(page, "orders-login").getByText(TEXT[lang].ordersCta).waitFor();
      await testId(page, "balances-login").getByText(TEXT[lang].balancesCta).waitFor();
      await snap(page, `walk-guest-spot-${lang}`);

      // A savings product's terms.
      await page.goto(`${server.baseUrl}/#/earn/product?id=1`);
      await testId(page, "earn-product-page").waitFor();
      await snap(page, `walk-guest-earn-${lang}`);

      // Looking never asked for a login.
      expect(demands).toEqual([]);
      expect(new URL(page.url()).hash).toBe("#/earn/product?id=1");

      // Acting does, and comes back: subscribing to the product…
      await testId(page, "earn-subscribe").click();
      await waitForRoute(page, /^#\/login\?redirect=%2Fearn%2Fproduct%3Fid%3D1$/);
      await fillLogin(page, account, "Guest2024x");
      await waitForRoute(page, /^#\/earn\/product\?id=1$/);
      await testId(page, "earn-product-page").waitFor();
      // …and, logged in now, the spot screen shows one's own parts instead of the prompts.
      await page.goto(`${server.baseUrl}/#/exchange`);
      await testId(page, "balance-legal-available").waitFor();
      expect(await testId(page, "balances-login").count()).toBe(0);
      expect(errors).toEqual([]);
    });
  }

  it("sends a guest who taps buy on the spot screen to log in, and back to the spot screen", async () => {
    const account = uniqueEmail("guest-buy");
    await registerViaApi(server.baseUrl, account, "Guest2024x");
    const { page, errors } = await openPhone(browser, "en");
    await page.goto(`${server.baseUrl}/#/exchange`);
    await testId(page, "exchange").waitFor();
    await testId(page, "order-submit").click();
    await waitForRoute(page, /^#\/login\?redirect=%2Fexchange$/);
    await fillLogin(page, account, "Guest2024x");
    await waitForRoute(page, /^#\/exchange$/);
    await testId(page, "balance-legal-available").waitFor();
    expect(errors).toEqual([]);
  });
});

/** The demo merchant's seeded USDT sell advert (scripts/seed.mjs): ¥7.20, ¥100–¥50,000 per order. */
async function merchantSellAdvert(): Promise<number> {
  const page = await apiCall<{ lists: { id: number; seller_name: string }[] }>(server.baseUrl, "/api/new/legal_deal/index?type=sell&currency_id=3&page=1");
  const ad = page.lists.find((a) => a.seller_name === "Honest OTC");
  if (!ad) throw new Error("no seeded sell advert");
  return ad.id;
}

const C2C = {
  en: {
    verified: "Identity verified (level 1)",
    needAccount: "A receiving account in your name is needed",
    window: "After ordering you have 15 min to pay, or the order is cancelled.",
    paidSeller: "The buyer says they paid. Check your account, then release.",
    noPassword: "Enter your fund password to release the coins",
    wrongPassword: "The fund password is wrong",
  },
  zh: {
    verified: "已完成身份认证（1 级）",
    needAccount: "需要一个您本人名下的收款账户",
    window: "下单后需在 15 分钟内付款，否则订单自动取消。",
    paidSeller: "买家表示已付款。请先核实您的账户到账，再放行。",
    noPassword: "请输入资金密码以放行币",
    wrongPassword: "资金密码错误",
  },
} as const;

describe("C2C: requirements first, the amount kept, the seller's release", () => {
  // Two verified demo users without a receiving account (each language its own, so each starts without one).
  const buyers = { en: { account: "demo1@exchange.test", name: "Demo One" }, zh: { account: "demo2@exchange.test", name: "Demo Two" } } as const;

  for (const lang of ["en", "zh"] as const) {
    it(`${lang}: shows what buying needs before the amount, returns from adding an account with the amount kept, and the merchant releases only with the fund password`, async () => {
      const t = C2C[lang];
      const advertId = await merchantSellAdvert();
      const token = await loginViaApi(server.baseUrl, buyers[lang].account, "Demo1234");
      const { page, errors } = await openPhone(browser, lang, token);

      await page.goto(`${server.baseUrl}/#/legal/index`);
      await page.locator(`[data-testid="c2c-advert"][data-id="${advertId}"] [data-testid="advert-take"]`).click();
      const dialog = testId(page, "c2c-order-dialog");
      await dialog.waitFor();
      // The requirements come first, each met or with its way to meet it, and the payment window is stated.
      await testId(page, "req-verified").getByText(t.verified).waitFor();
      await testId(page, "req-account").getByText(t.needAccount).waitFor();
      expect(await testId(page, "req-account").getAttribute("data-ok")).toBe("false");
      expect(await testId(page, "req-window").textContent()).toBe(t.window);
      const reqsTop = (await testId(page, "c2c-reqs").boundingBox())!.y;
      const inputTop = (await testId(page, "dialog-input").boundingBox())!.y;
      expect(reqsTop).toBeLessThan(inputTop);
      expect(await testId(page, "c2c-order-submit").isDisabled()).toBe(true);
      await testId(page, "dialog-input").fill("100");
      await snap(page, `walk-c2c-requirements-${lang}`);

      // Adding the account leaves for the payment settings, which say the way back…
      await testId(page, "req-account-link").click();
      await waitForRoute(page, /^#\/legal\/payment\?back=/);
      await testId(page, "pm-back-note").waitFor();
      await snap(page, `walk-c2c-payment-back-${lang}`);
      await testId(page, "pm-bank").click();
      await waitForRoute(page, /^#\/bank\?back=/);
      await testId(page, "bank-form").waitFor();
      await page.fill('[data-testid="bank-real-name"]', buyers[lang].name);
      await page.fill('[data-testid="bank-card"]', "6228480402564890018");
      await page.fill('[data-testid="bank-branch"]', "Main");
      // The bank's name is looked up from the number once the card field loses focus; a save before
      // the answer is refused for want of it (what failed here under load), so wait as a person would.
      await page.waitForFunction(() => (document.querySelector('[data-testid="bank-name"]') as HTMLInputElement | null)?.value !== "");
      await testId(page, "bank-submit").click();
      // …and saving it brings the order back, with the amount typed before.
      await waitForRoute(page, new RegExp(`^#/legal/index\\?.*advert=${advertId}&amount=100$`));
      await dialog.waitFor();
      expect(await testId(page, "dialog-input").inputValue()).toBe("100");
      await page.waitForFunction(() => document.querySelector('[data-testid="req-account"]')?.getAttribute("data-ok") === "true");
      await snap(page, `walk-c2c-back-with-amount-${lang}`);
      await testId(page, "c2c-order-submit").click();

      // The pay page states the window and its end, labelled.
      await page.waitForSelector('[data-testid="c2c-pay"]');
      const orderId = Number(await testId(page, "c2c-pay").getAttribute("data-id"));
      expect(await testId(page, "pay-window").textContent()).toMatch(/15.*UTC\+8/);
      await apiCall(server.baseUrl, "/api/user_legal_pay", { token, body: { id: orderId, pay_orders_img: await uploadPicture(server.baseUrl, token) } });

      // The merchant's screen speaks to the seller; its times are labelled; the release asks the fund password.
      const merchantToken = await loginViaApi(server.baseUrl, "merchant@exchange.test", "Merchant1234");
      const m = await openPhone(browser, lang, merchantToken);
      await m.page.goto(`${server.baseUrl}/#/legal/show?id=${orderId}`);
      await m.page.waitForSelector('[data-testid="c2c-show"][data-state="3"]');
      expect(await testId(m.page, "show-note").textContent()).toBe(t.paidSeller);
      expect(await testId(m.page, "show-created").textContent()).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC\+8$/);
      expect(await testId(m.page, "show-paid-at").textContent()).toMatch(/ UTC\+8$/);
      await testId(m.page, "show-confirm-received").click();
      const confirm = testId(m.page, "confirm-received-dialog");
      await confirm.waitFor();
      await confirm.locator('[data-testid="confirm-received-check"]').check({ force: true });
      await confirm.locator('[data-testid="confirm-received-go"]').click();
      await confirm.locator('[data-testid="release-error"]').getByText(t.noPassword).waitFor();
      await confirm.locator('[data-testid="release-password"]').fill("000000");
      await confirm.locator('[data-testid="confirm-received-go"]').click();
      await confirm.locator('[data-testid="release-error"]').getByText(t.wrongPassword).waitFor();
      await snap(m.page, `walk-c2c-release-password-${lang}`);
      expect(await apiCall<{ is_sure: number }>(server.baseUrl, `/api/legal_deal?id=${orderId}`, { token })).toMatchObject({ is_sure: 3 });
      await confirm.locator('[data-testid="release-password"]').fill("135790");
      await confirm.locator('[data-testid="confirm-received-go"]').click();
      // Once under a loaded CI run the released state never showed (120 s); if it happens again, say what the
      // dialog and the order said instead of only that the wait ran out.
      await m.page.waitForSelector('[data-testid="c2c-show"][data-state="1"]').catch(async (err: unknown) => {
        const said = await confirm.locator('[data-testid="release-error"]').textContent({ timeout: 1_000 }).catch(() => null);
        const order = await apiCall(server.baseUrl, `/api/legal_deal?id=${orderId}`, { token }).catch((e: unknown) => String(e));
        throw new Error(`the release did not show: dialog ${JSON.stringify(said)}, order ${JSON.stringify(order)}, page errors ${JSON.stringify(m.errors)}; ${String(err)}`);
      });
      expect(errors).toEqual([]);
      expect(m.errors).toEqual([]);
    });
  }
});
