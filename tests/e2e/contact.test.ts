/// <reference lib="dom" />
// Functions passed to page.evaluate() run in the browser, hence the DOM types.
/**
 * Issue #29's acceptance for the proven e-mail, at phone size in English and Chinese: a new account
 * that has not entered its e-mailed code cannot deposit (the screen says why, the server refuses);
 * "Enter the code" leads to the banner every screen shows, the code from the dev outbox is entered
 * there, and the deposit then goes through.
 */
import { describe, expect, it } from "vitest";
import { openPhone, snap } from "./browser.ts";
import { browser, server, useExchange } from "./exchange.ts";
import { latestCode, loginViaApi, registerViaApi, TINY_PNG, uniqueEmail, waitForRoute } from "./helpers.ts";

useExchange();

const words = {
  en: { title: "Confirm your e-mail address", gate: "Deposits open once your e-mail or phone is confirmed", wrong: "The code is wrong: 4 more tries", done: "Address confirmed" },
  zh: { title: "请确认您的邮箱", gate: "用我们发送的验证码确认邮箱或手机后，即可充值", wrong: "验证码错误，还可尝试 4 次", done: "已确认" },
} as const;

/** A deposit claim as the deposit form sends it, straight to the server. */
async function claimDeposit(token: string, lang: string) {
  const res = await fetch(new URL("/api/wallet/charge_req", server.baseUrl), {
    method: "POST",
    headers: { "content-type": "application/json", authorization: token, lang },
    body: JSON.stringify({ currency: 3, type: "TRC20", acc: "DEMO-usdt-trc20-address-not-real-do-not-send", amount: "100", pic: "1" }),
  });
  return (await res.json()) as { type: string; code?: string; message: string };
}

async function journey(lang: "en" | "zh") {
  const w = words[lang];
  const account = uniqueEmail(`contact-${lang}`);
  await registerViaApi(server.baseUrl, account, "Contact2026x", { prove: false });
  const token = await loginViaApi(server.baseUrl, account, "Contact2026x");
  const { page, errors } = await openPhone(browser, lang, token);

  // Not proven: the deposit screen explains, the banner asks for the code, the server refuses.
  await page.goto(`${server.baseUrl}/#/recharge`);
  const banner = page.locator('[data-testid="contact-banner"]');
  await banner.getByText(w.title).waitFor();
  await banner.getByText(account).waitFor();
  await page.locator('[data-testid="contact-gate"]').getByText(w.gate).waitFor();
  expect(await page.locator('[data-testid="deposit-amount"]').count()).toBe(0);
  await snap(page, `contact-gate-${lang}`);
  const refused = await claimDeposit(token, lang);
  expect(refused.code).toBe("contact_unverified");

  // "Enter the code" puts the cursor in the banner's field; a wrong code says how many tries are left.
  await page.click('[data-testid="contact-gate-action"]');
  await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute("data-testid"))).toBe("contact-code");
  const code = await latestCode(server.baseUrl, account);
  await page.fill('[data-testid="contact-code"]', code === "000000" ? "111111" : "000000");
  await page.click('[data-testid="contact-confirm"]');
  await page.locator('[data-testid="contact-error"]').getByText(w.wrong).waitFor();
  await snap(page, `contact-banner-wrong-${lang}`);

  // The code from the dev outbox: the banner goes and the deposit form opens.
  await page.fill('[data-testid="contact-code"]', code);
  await page.click('[data-testid="contact-confirm"]');
  await page.getByText(w.done).first().waitFor();
  await banner.waitFor({ state: "detached" });
  await page.waitForSelector('[data-testid="deposit-address-card"]');
  await page.fill('[data-testid="deposit-amount"]', "100");
  await page.setInputFiles('[data-testid="deposit-proof-input"]', { name: "proof.png", mimeType: "image/png", buffer: TINY_PNG });
  await page.waitForSelector('[data-testid="deposit-proof-done"]');
  await snap(page, `contact-deposit-open-${lang}`);
  await page.click('[data-testid="deposit-submit"]');
  await waitForRoute(page, /^#\/recharge\/log$/);
  await page.waitForSelector('[data-testid="deposit-record"][data-status="0"]');
  expect(errors).toEqual([]);
}

describe("a new account's proven e-mail", () => {
  it("in English: deposit refused until the e-mailed code is entered in the banner, then the deposit goes through", async () => {
    await journey("en");
  });

  it("in Chinese: the same", async () => {
    await journey("zh");
  });
});
