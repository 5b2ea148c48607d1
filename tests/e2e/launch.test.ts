/// <reference lib="dom" />
/**
 * A launch subscription in a real browser at phone size (issue #19 §2), in English and in Chinese:
 * demo1 opens the launches from the drawer, sees the demo sale (HNST) with its countdown, opens it,
 * reads the price, supply, cap, vesting and terms, commits 100 USDT through the sheet and its
 * confirmation (which says where the money comes from and that there is no early exit), and finds
 * the commitment under "My subscriptions", escrowed in the spot account; demo2 does the same in Chinese.
 */
import { describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { openPhone, snap } from "./browser.ts";
import { browser, server, useExchange } from "./exchange.ts";
import { loginViaApi, waitForRoute } from "./helpers.ts";

useExchange();

const byTestId = (page: Page, id: string) => page.locator(`[data-testid="${id}"]`).first();

/** One's subscriptions as the API reports them: "amount currency status", comma-separated. */
async function mySubscriptions(token: string): Promise<string> {
  const res = await fetch(new URL("/api/launch/my", server.baseUrl), { headers: { authorization: token, lang: "en" } });
  const json = (await res.json()) as { message: { amount: string; currency: string; status: string }[] };
  return json.message.map((s) => `${s.amount} ${s.currency} ${s.status}`).join(",");
}

async function commitFlow(lang: "en" | "zh", account: string, amount: string, shots: string) {
  const token = await loginViaApi(server.baseUrl, account, "Demo1234");
  const { page, errors } = await openPhone(browser, lang, token);
  await page.goto(new URL("/#/launch", server.baseUrl).toString());
  const card = byTestId(page, "launch-card");
  await card.waitFor();
  expect(await card.innerText()).toContain("HNST");
  expect(await byTestId(page, "launch-clock").getAttribute("data-state")).toBe("open");
  await snap(page, `${shots}-list`);

  await card.locator("a").click();
  await waitForRoute(page, /#\/launch\/project\?id=1/);
  await byTestId(page, "launch-terms").waitFor();
  expect(await byTestId(page, "launch-price-USDT").innerText()).toContain("0.1 USDT / HNST");
  expect(await byTestId(page, "launch-supply").innerText()).toContain("1,000,000 HNST");
  expect(await byTestId(page, "launch-cap").innerText()).toContain("50,000 HNST");
  await snap(page, `${shots}-project`);

  await byTestId(page, "launch-commit-open").click();
  await byTestId(page, "launch-sheet").waitFor();
  await byTestId(page, "launch-amount").fill("6000");
  await byTestId(page, "launch-sheet-next").click();
  // Above the cap (50,000 HNST × 0.1 = 5,000 USDT): refused before anything is sent.
  await byTestId(page, "launch-error").waitFor();
  await byTestId(page, "launch-amount").fill(amount);
  await snap(page, `${shots}-sheet`);
  await byTestId(page, "launch-sheet-next").click();
  const confirm = byTestId(page, "launch-confirm");
  await confirm.waitFor();
  await snap(page, `${shots}-confirm`);
  await byTestId(page, "launch-confirm-ok").click();
  await confirm.waitFor({ state: "detached" });
  await byTestId(page, "launch-mine").waitFor();
  expect(await byTestId(page, "launch-mine").innerText()).toContain(`${amount} USDT`);

  await page.goto(new URL("/#/launch/my", server.baseUrl).toString());
  const sub = byTestId(page, "launch-sub");
  await sub.waitFor();
  expect(await byTestId(page, "launch-sub-amount").innerText()).toContain(`${amount} USDT`);
  await snap(page, `${shots}-my`);
  expect(errors).toEqual([]);
  return { page, token };
}

describe("launch subscriptions in the browser", () => {
  it("lets demo1 read a sale's terms and commit 100 USDT, held in the spot account", async () => {
    const { page, token } = await commitFlow("en", "demo1@exchange.test", "100", "launch-en");
    expect(await byTestId(page, "launch-sub-status").innerText()).toBe("Committed");
    expect(await mySubscriptions(token)).toBe("100 USDT committed");
  });

  it("lets demo2 do the same in Chinese", async () => {
    const { page } = await commitFlow("zh", "demo2@exchange.test", "250", "launch-zh");
    expect(await byTestId(page, "launch-sub-status").innerText()).toBe("认购中");
    expect(await page.locator("body").innerText()).toContain("冻结在您的币币账户中");
  });
});
