/// <reference lib="dom" />
// Functions passed to page.evaluate() run in the browser, hence the DOM types.
/**
 * Savings in a real browser at phone size (issue #19 §1), in English and in Chinese: demo1 finds
 * the seeded 30-day product with the source of its interest stated, reads the terms (early exit
 * forfeits the interest), subscribes 100 USDT through the confirmation sheet that names the source
 * of the principal and of the interest, sees the position with its interest and the budget's
 * remainder fall, then redeems it early and is told what is forfeited. The operator publishes a
 * flexible product from the console and closes it. demo2 reads the same screens in Chinese.
 */
import { describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { openPhone, SCREENSHOTS, snap } from "./browser.ts";
import { browser, server, useExchange } from "./exchange.ts";
import { loginViaApi, waitForRoute } from "./helpers.ts";

useExchange();

const api = async (path: string, token: string) => {
  const res = await fetch(new URL(`/api${path}`, server.baseUrl), { headers: { authorization: token, lang: "en" } });
  return ((await res.json()) as { message: any }).message;
};

/** The held-funds screen lists one savings hold, reading `text` (its purpose, then its product's term and the position). */
async function expectSavingsHold(page: Page, text: string, shot: string) {
  await page.goto(`${server.baseUrl}/#/holds`);
  const item = page.locator('[data-testid="hold-item"][data-purpose="savings"]');
  await item.first().waitFor();
  expect(await item.count()).toBe(1);
  expect(await item.locator("a").textContent()).toBe(text);
  // The subscription's toasts cover the list until they go (only the picture waits for that).
  if (SCREENSHOTS) await page.waitForFunction(() => document.querySelectorAll(".toast").length === 0);
  await snap(page, shot);
}

describe("savings, as a new user would try it", () => {
  it("demo1 reads the terms, subscribes 100 USDT to the 30-day product, sees the position, and redeems it early", async () => {
    const token = await loginViaApi(server.baseUrl, "demo1@exchange.test", "Demo1234");
    const { page, errors } = await openPhone(browser, "en", token);
    await page.goto(`${server.baseUrl}/#/earn`);

    const card = page.getByTestId("earn-product").first();
    await card.getByTestId("earn-term").filter({ hasText: "30 days" }).waitFor();
    expect(await card.getByTestId("earn-apr").textContent()).toBe("5.00%");
    expect(await card.getByTestId("earn-source").textContent()).toBe("Paid from the exchange's reserved marketing budget of 5,000.00 USDT; 5,000.00 USDT remain.");
    await snap(page, "earn-list-en");

    await card.click();
    await waitForRoute(page, /#\/earn\/product\?id=1$/);
    await page.getByTestId("earn-rule-early").waitFor();
    expect(await page.getByTestId("earn-rule-early").textContent()).toContain("forfeits all the interest accrued");
    await page.getByTestId("earn-amount").fill("100");
    // 100 × 5 % / 365 = 0.01369863 a day; 30 days 0.4109589.
    expect(await page.getByTestId("earn-daily").textContent()).toBe("0.01369863 USDT");
    expect(await page.getByTestId("earn-total").textContent()).toBe("0.4109589 USDT");
    await snap(page, "earn-product-en");

    await page.getByTestId("earn-subscribe").click();
    const sheet = page.getByTestId("earn-confirm");
    await sheet.waitFor();
    expect(await sheet.textContent()).toContain("Your spot account (frozen, still yours)");
    expect(await sheet.textContent()).toContain("The exchange's reserved marketing budget (5,000.00 USDT remain)");
    expect(await sheet.getByTestId("earn-confirm-exit").textContent()).toContain("forfeits all the interest accrued");
    await snap(page, "earn-confirm-en");
    await page.getByTestId("earn-confirm-button").click();

    await waitForRoute(page, /#\/earn\/positions$/);
    const pos = page.getByTestId("earn-position").first();
    await pos.getByTestId("earn-position-amount").waitFor();
    expect(await pos.getByTestId("earn-position-amount").textContent()).toBe("100.00 USDT");
    expect(await pos.getByTestId("earn-position-status").textContent()).toBe("Earning");
    expect(await pos.getByTestId("earn-position-days").textContent()).toBe("0 / 30");
    await snap(page, "earn-positions-en");

    // The principal is still demo1's, frozen in the spot account; the budget's remainder fell by the reserve.
    const [product] = (await api("/earn/products", token)) as { remaining: string; my_open: string }[];
    expect(product).toMatchObject({ remaining: "4999.5890411", my_open: "100" });
    // Held funds name the position by its product, as they name an order by its pair.
    const [mine] = (await api("/earn/positions", token)) as { id: number }[];
    await expectSavingsHold(page, `Savings30 days #${mine!.id}`, "earn-holds-en");
    await page.goto(`${server.baseUrl}/#/earn/positions`);

    await pos.getByTestId("earn-redeem").click();
    const confirm = page.getByTestId("earn-redeem-confirm");
    await confirm.waitFor();
    expect(await confirm.getByTestId("earn-redeem-text").textContent()).toContain("is forfeited");
    await snap(page, "earn-redeem-en");
    await page.getByTestId("earn-redeem-button").click();
    await pos.getByTestId("earn-position-status").filter({ hasText: "Redeemed" }).waitFor();
    expect(await pos.getByTestId("earn-redeem").count()).toBe(0);
    expect(errors).toEqual([]);
  });

  it("reads the same terms in Chinese", async () => {
    const token = await loginViaApi(server.baseUrl, "demo2@exchange.test", "Demo1234");
    const { page, errors } = await openPhone(browser, "zh", token);
    await page.goto(`${server.baseUrl}/#/earn`);
    const card = page.getByTestId("earn-product").first();
    await card.getByTestId("earn-source").waitFor();
    expect(await card.getByTestId("earn-source").textContent()).toMatch(/^利息来自平台预留的 5,000\.00 USDT 营销预算；尚余 [\d,.]+ USDT。$/);
    await snap(page, "earn-list-zh");
    await card.click();
    await page.getByTestId("earn-rule-early").waitFor();
    expect(await page.getByTestId("earn-rule-early").textContent()).toBe("到期前赎回会立即退还本金，但已累计的利息全部作废。");
    await page.getByTestId("earn-amount").fill("5");
    await page.getByTestId("earn-subscribe").click();
    expect(await page.getByTestId("earn-amount-error").textContent()).toBe("金额低于最小值 10.00 USDT");
    await page.getByTestId("earn-amount").fill("200");
    await page.getByTestId("earn-subscribe").click();
    await page.getByTestId("earn-confirm").waitFor();
    expect(await page.getByTestId("earn-confirm").textContent()).toContain("您的币币账户（冻结，仍属于您）");
    await snap(page, "earn-confirm-zh");
    await page.getByTestId("earn-confirm-button").click();
    await waitForRoute(page, /#\/earn\/positions$/);
    await page.getByTestId("earn-position").first().getByTestId("earn-position-status").filter({ hasText: "计息中" }).waitFor();
    await snap(page, "earn-positions-zh");
    const [mine] = (await api("/earn/positions", token)) as { id: number }[];
    await expectSavingsHold(page, `理财30 天 #${mine!.id}`, "earn-holds-zh");
    expect(errors).toEqual([]);
  });

  it("the operator publishes a flexible product with a reason and closes it from the console", async () => {
    const token = await loginViaApi(server.baseUrl, "operator@exchange.test", "Operator1234");
    const { page, errors } = await openPhone(browser, "en", token);
    await page.goto(`${server.baseUrl}/#/admin/earn`);
    await page.getByTestId("earn-new").waitFor();
    await page.getByTestId("earn-new-term").selectOption("0");
    await page.getByTestId("earn-new-apr").fill("3.5");
    await page.getByTestId("earn-new-min").fill("1");
    await page.getByTestId("earn-new-max").fill("500");
    await page.getByTestId("earn-new-budget").fill("200");
    await page.getByTestId("earn-new-reason").fill("weekend flexible offer");
    await page.getByTestId("earn-new-submit").click();
    await page.getByTestId("earn-new-confirm").click();
    const row = page.getByTestId("earn-admin-row").filter({ hasText: "Flexible" });
    await row.first().waitFor();
    expect(await row.count()).toBe(1);
    expect(await row.getByTestId("earn-admin-remaining").textContent()).toBe("200 USDT");
    await snap(page, "earn-console-en");

    await row.getByTestId("earn-close").click();
    await page.getByTestId("earn-close-reason").fill("offer ended");
    await page.getByTestId("earn-close-confirm").click();
    await row.locator(".badge", { hasText: "Closed" }).waitFor();
    expect(await row.getByTestId("earn-admin-remaining").textContent()).toBe("0 USDT");
    expect(errors).toEqual([]);
  });
});
