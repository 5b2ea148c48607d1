/// <reference lib="dom" />
// Functions passed to page.evaluate() run in the browser, hence the DOM types.
/**
 * Inviting a friend in a real browser at phone size (issue #18 §3), in English and in Chinese:
 * demo1 opens the invite page and sees a code, a link and a QR of the link; the link, opened in a
 * fresh browser, registers a new user with the code filled in and held; demo1's team then shows
 * the new user (masked, not verified); the public terms show the rates, the 12 months and what is
 * refused.
 */
import { describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { openPhone, snap } from "./browser.ts";
import { browser, server, useExchange } from "./exchange.ts";
import { captchaAnswer, loginViaApi, uniqueEmail, waitForRoute } from "./helpers.ts";

useExchange();

const text = (page: Page, testId: string) => page.locator(`[data-testid="${testId}"]`).first().innerText();

/** Registers through the register screen the link opened (captcha answered from the dev outbox). */
async function registerFromLink(page: Page, link: string, account: string, note: string): Promise<void> {
  const captcha = page.waitForResponse((r) => r.url().includes("/api/login/smscode"));
  await page.goto(link);
  const codeId = ((await (await captcha).json()) as { message: { code_id: string } }).message.code_id;
  await page.waitForSelector('[data-testid="captcha-image"] img');
  await page.locator('[data-testid="register-invite-note"]').getByText(note).waitFor();
  await page.fill('input[name="account"]', account);
  await page.fill('input[name="password"]', "Friend2026x");
  await page.fill('input[name="re_password"]', "Friend2026x");
  await page.fill('input[name="captcha"]', await captchaAnswer(server.baseUrl, codeId));
  await page.check('[data-testid="agree"]', { force: true });
}

async function inviteJourney(lang: "en" | "zh", words: { code: string; note: string; notVerified: string; months: string; headcount: string }) {
  const token = await loginViaApi(server.baseUrl, "demo1@exchange.test", "Demo1234");
  const { page, errors } = await openPhone(browser, lang, token);

  // The invite page: a code, the link carrying it, and a QR drawn from the link.
  await page.goto(`${server.baseUrl}/#/invite`);
  await page.locator('[data-testid="invite-card"]').getByText(words.code).waitFor();
  const code = (await text(page, "invite-code")).trim();
  expect(code).toMatch(/^[A-Za-z0-9]{4,}$/);
  const link = (await text(page, "invite-link")).trim();
  expect(link).toBe(`${server.baseUrl}/#/register?code=${code}`);
  const qr = page.locator('[data-testid="invite-card"] [data-testid="qr-image"]');
  await page.waitForFunction(() => {
    const img = document.querySelector<HTMLImageElement>('[data-testid="invite-card"] [data-testid="qr-image"]');
    return !!img && img.complete && img.naturalWidth > 0;
  });
  expect(await qr.getAttribute("src")).toMatch(/^data:image\/png/);
  expect(await text(page, "invite-rate-1")).toContain("20%");
  const before = Number(await text(page, "invite-invitees"));
  await snap(page, `invite-page-${lang}`);

  // The link in a fresh browser: the register screen holds the code, read-only, and says why.
  const friend = await openPhone(browser, lang);
  const account = uniqueEmail(lang === "en" ? "friend" : "zf");
  await registerFromLink(friend.page, link, account, words.note);
  const field = friend.page.locator('[data-testid="register-invite"]');
  expect(await field.inputValue()).toBe(code);
  expect(await field.getAttribute("readonly")).not.toBeNull();
  await snap(friend.page, `invite-register-${lang}`);
  await friend.page.click('[data-testid="register-submit"]');
  await waitForRoute(friend.page, /^#\/$/);
  await friend.page.waitForSelector('[data-testid="home"]');
  expect(friend.errors).toEqual([]);

  // demo1's team: the new user, masked, joined today, not verified yet (so earning nothing).
  const masked = `${account.slice(0, 2)}***@example.test`;
  await page.goto(`${server.baseUrl}/#/invite/team`);
  const row = page.locator('[data-testid="team-member"]').filter({ hasText: masked }).first();
  await row.waitFor();
  expect(await row.innerText()).not.toContain(account);
  expect(await row.locator('[data-testid="team-status"]').innerText()).toBe(words.notVerified);
  await snap(page, `invite-team-${lang}`);

  // Back on the invite page the count has grown by one.
  await page.goto(`${server.baseUrl}/#/invite`);
  await page.waitForFunction((n) => Number(document.querySelector('[data-testid="invite-invitees"]')?.textContent) === n, before + 1);

  // The public terms, logged out: rates, 12 months, and that headcount pays nothing.
  const visitor = await openPhone(browser, lang);
  await visitor.page.goto(`${server.baseUrl}/#/invite/terms`);
  await visitor.page.locator('[data-testid="terms-rates"]').waitFor();
  expect(await text(visitor.page, "invite-rate-1")).toContain("20%");
  expect(await text(visitor.page, "invite-rate-2")).toContain("5%");
  expect(await text(visitor.page, "invite-rate-3")).toContain("2%");
  expect(await text(visitor.page, "terms-months")).toContain(words.months);
  expect(await text(visitor.page, "terms-refused")).toContain(words.headcount);
  await snap(visitor.page, `invite-terms-${lang}`);
  expect(visitor.errors).toEqual([]);
  expect(errors).toEqual([]);
}

describe("inviting a friend", () => {
  it("in English: demo1's code, link and QR; the link registers a friend with the code held; the team shows them; the terms show the rates", async () => {
    await inviteJourney("en", {
      code: "My invite code",
      note: "From your invitation link",
      notVerified: "Not verified",
      months: "12 months",
      headcount: "nothing is ever paid for registering, inviting or recruiting people",
    });
  });

  it("in Chinese: the same journey reads in Chinese", async () => {
    await inviteJourney("zh", {
      code: "我的邀请码",
      note: "来自邀请链接",
      notVerified: "未实名",
      months: "12 个月",
      headcount: "拉人头",
    });
  });
});
