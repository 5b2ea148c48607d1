/// <reference lib="dom" />
/**
 * Mining plans in a real browser at phone size (issue #20 §1), in English and in Chinese: demo1
 * opens the Earn tile's mining entry, sees the demo plan (pool, worker, hashrate, shares left),
 * opens it, reads the 30-day payouts, the break-even calculator (which says plainly that past
 * payouts do not predict future ones) and the terms, buys 3 shares through the sheet that states
 * the cost and where the money goes, and finds them in "My mining", paid from the spot account;
 * demo2 does the same in Chinese. The operator's console page lists the plan and its payouts.
 */
import { describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { openPhone, snap } from "./browser.ts";
import { browser, server, useExchange } from "./exchange.ts";
import { loginViaApi, waitForRoute } from "./helpers.ts";

useExchange();

const byTestId = (page: Page, id: string) => page.locator(`[data-testid="${id}"]`).first();

/** The spot USDT available, as the API reports it. */
async function usdt(token: string): Promise<string> {
  const res = await fetch(new URL("/api/wallet/list", server.baseUrl), { method: "POST", headers: { authorization: token, lang: "en", "content-type": "application/json" }, body: "{}" });
  const json = (await res.json()) as { message: { change_wallet: { balance: { currency_name: string; change_balance: string }[] } } };
  return json.message.change_wallet.balance.find((b) => b.currency_name === "USDT")!.change_balance;
}

async function buyFlow(lang: "en" | "zh", account: string, shots: string) {
  const token = await loginViaApi(server.baseUrl, account, "Demo1234");
  const { page, errors } = await openPhone(browser, lang, token);
  await page.goto(new URL("/#/", server.baseUrl).toString());
  await byTestId(page, "earn-entry-mining").scrollIntoViewIfNeeded();
  await snap(page, `${shots}-home`);
  await byTestId(page, "earn-entry-mining").click();
  await waitForRoute(page, /#\/mining$/);
  const card = byTestId(page, "mining-plan");
  await card.waitFor();
  expect(await card.innerText()).toContain("100 TH/s");
  expect(await byTestId(page, "mining-plan-left").innerText()).toMatch(/1,?000/);
  await snap(page, `${shots}-list`);

  await card.locator("a").click();
  await waitForRoute(page, /#\/mining\/plan\?id=/);
  await byTestId(page, "mining-calc").waitFor();
  expect(await byTestId(page, "mining-pool").innerText()).toBe("ViaBTC");
  expect(await byTestId(page, "mining-worker").innerText()).toBe("honestexchange.s19xp-01");
  expect(await byTestId(page, "mining-price").innerText()).toContain("50 USDT");
  await byTestId(page, "mining-history").waitFor();
  await snap(page, `${shots}-plan`);

  // The calculator: 3 shares cost 150 USDT; with an assumed payout it shows a break-even.
  await byTestId(page, "mining-calc-shares").fill("3");
  expect(await byTestId(page, "mining-calc-cost").innerText()).toContain("150");
  await byTestId(page, "mining-calc-pps").fill("0.00001");
  await byTestId(page, "mining-calc-coin").fill("50000");
  // 3 × 0.00001 × 0.98 = 0.0000294 BTC a day ≈ 1.47 USDT: 150 / 1.47 → 103 days, after the 30-day term.
  expect(await byTestId(page, "mining-calc-be-days").innerText()).toContain("103");
  await byTestId(page, "mining-calc").scrollIntoViewIfNeeded();
  await snap(page, `${shots}-calc`);

  const before = await usdt(token);
  await byTestId(page, "mining-buy-open").click();
  const confirm = byTestId(page, "mining-confirm");
  await confirm.waitFor();
  expect(await byTestId(page, "mining-confirm-shares").inputValue()).toBe("3");
  expect(await byTestId(page, "mining-confirm-cost").innerText()).toContain("150 USDT");
  await snap(page, `${shots}-confirm`);
  await byTestId(page, "mining-confirm-go").click();
  await waitForRoute(page, /#\/mining\/my$/);
  await byTestId(page, "mining-holding").waitFor();
  expect(await byTestId(page, "mining-holding-shares").innerText()).toBe("3");
  await snap(page, `${shots}-my`);
  expect(Number(before) - Number(await usdt(token))).toBe(150);
  expect(errors).toEqual([]);
  return page;
}

describe("mining plans in the browser", () => {
  it("lets demo1 read the plan, try the calculator and buy 3 shares, shown in My mining", async () => {
    const page = await buyFlow("en", "demo1@exchange.test", "mining-en");
    expect(await page.locator("body").innerText()).toContain("In progress");
  });

  it("lets demo2 do the same in Chinese", async () => {
    const page = await buyFlow("zh", "demo2@exchange.test", "mining-zh");
    expect(await page.locator("body").innerText()).toContain("进行中");
  });

  it("shows the plan and its payouts on the operator's console page", async () => {
    const token = await loginViaApi(server.baseUrl, "operator@exchange.test", "Operator1234");
    const { page, errors } = await openPhone(browser, "en", token);
    await page.goto(new URL("/#/admin/mining", server.baseUrl).toString());
    await byTestId(page, "mining-plan-row").waitFor();
    expect(await byTestId(page, "mining-plan-row").innerText()).toContain("ViaBTC");
    await snap(page, "mining-console-en-page");
    await byTestId(page, "mining-payout-add").click();
    await byTestId(page, "mining-payout-dialog").waitFor();
    await snap(page, "mining-console-en");
    expect(errors).toEqual([]);
  });
});
