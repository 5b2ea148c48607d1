/// <reference lib="dom" />
// Functions passed to page.evaluate() run in the browser, hence the DOM types.
/**
 * Proof of liabilities in a real browser at phone size (issue #20 §2, issue #26): the operator
 * takes a snapshot from the console, whose dialog says what it does, and sees it published with
 * its totals fitting the phone's width (English and Chinese); a destructive console dialog is
 * worded by its effect; a visitor sees the published totals, when the next snapshot is and how to
 * check it without logging in; demo1 opens the screen from the personal centre and sees, verified
 * in the browser, that their balances are included, that the leaves are bound to their account
 * with their nonce (English and Chinese), and downloads proof.json, which the verifier accepts
 * for demo1 and refuses for demo2; a proof altered on its way shows clearly that it does not verify.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { verifyProof } from "../../schemas/liabilities.ts";
import { openPhone, snap } from "./browser.ts";
import { browser, server, useExchange } from "./exchange.ts";
import { loginViaApi, waitForRoute } from "./helpers.ts";

useExchange();

const byId = (page: Page, testId: string) => page.locator(`[data-testid="${testId}"]`).first();

/** How far the page and each of the runs' totals reach past their box (0: nothing to scroll sideways). */
const overflow = (page: Page) =>
  page.evaluate(() => {
    const over = (e: Element) => e.scrollWidth - e.clientWidth;
    return Math.max(over(document.documentElement), ...[...document.querySelectorAll('[data-testid="liab-run-row"]')].map(over));
  });

describe("proof of liabilities", () => {
  it("an operator takes a snapshot from the console and sees it published", async () => {
    const { page, errors } = await openPhone(browser, "en", await loginViaApi(server.baseUrl, "operator@exchange.test", "Operator1234"));
    await page.goto(`${server.baseUrl}/#/admin/liabilities`);
    await byId(page, "admin-liabilities").waitFor();
    await byId(page, "liab-run-open").click();
    expect(await byId(page, "decision-confirm").innerText()).toBe("Take a snapshot now");
    expect(await byId(page, "decision-back").innerText()).toBe("Back");
    await page.fill('[data-testid="decision-reason"]', "first attestation");
    await byId(page, "decision-confirm").click();
    await byId(page, "liab-run-row").waitFor();
    await page.locator('[data-testid="liab-run-status"]').getByText("Published").waitFor();
    // Each currency's total once, said to agree with the ledger and the tree; nothing scrolls sideways.
    await byId(page, "liab-run-totals").getByText("Balances, ledger and tree root agree").first().waitFor();
    expect(await page.locator('[data-testid="liab-run-currency"][data-agree="false"]').count()).toBe(0);
    expect(await byId(page, "liab-run-row").innerText()).toContain("Done");
    expect(await overflow(page)).toBeLessThanOrEqual(0);
    await snap(page, "liabilities-console-en");
    expect(errors).toEqual([]);
  });

  it("the console's runs fit a phone in Chinese too, and the audit log says in words what the operator did", async () => {
    const { page, errors } = await openPhone(browser, "zh", await loginViaApi(server.baseUrl, "operator@exchange.test", "Operator1234"));
    await page.goto(`${server.baseUrl}/#/admin/liabilities`);
    await page.locator('[data-testid="liab-run-status"]').getByText("已发布").first().waitFor();
    await byId(page, "liab-run-totals").getByText("余额、账本与树根一致").first().waitFor();
    expect(await overflow(page)).toBeLessThanOrEqual(0);
    await snap(page, "liabilities-console-zh");
    await page.goto(`${server.baseUrl}/#/admin/audit`);
    const row = page.locator('[data-testid="audit-row"][data-action="liabilities.snapshot"]').first();
    await row.locator('[data-testid="audit-action"]').getByText("生成负债快照").waitFor();
    expect(await row.locator('[data-testid="audit-target"]').innerText()).toMatch(/^负债快照 #\d+$/);
    await snap(page, "audit-words-zh");
    expect(errors).toEqual([]);
  });

  for (const [lang, button, back] of [
    ["en", /^Cancel sale and refund \d+ commitment\(s\)$/, "Back"],
    ["zh", /^取消项目并退还 \d+ 笔认购$/, "返回"],
  ] as const) {
    it(`a destructive console dialog says what it does: cancelling a sale refunds its commitments (${lang})`, async () => {
      const { page, errors } = await openPhone(browser, lang, await loginViaApi(server.baseUrl, "operator@exchange.test", "Operator1234"));
      await page.goto(`${server.baseUrl}/#/admin/launch`);
      await byId(page, "launch-cancel").click();
      await byId(page, "launch-reason").waitFor();
      expect(await byId(page, "launch-reason-ok").innerText()).toMatch(button);
      expect(await byId(page, "launch-reason-back").innerText()).toBe(back);
      // The whole button is inside the dialog (a long effect wraps instead of running off it).
      const [dialog, ok] = await Promise.all([byId(page, "launch-reason").boundingBox(), byId(page, "launch-reason-ok").boundingBox()]);
      expect(ok!.x + ok!.width).toBeLessThanOrEqual(dialog!.x + dialog!.width);
      await page.waitForFunction(() => document.getAnimations().every((a) => a.playState !== "running"));
      await snap(page, `console-dialog-cancel-sale-${lang}`);
      // Going back changes nothing: the sale is still open.
      await byId(page, "launch-reason-back").click();
      expect(await page.locator('[data-testid="launch-reason"]').count()).toBe(0);
      await byId(page, "launch-cancel").waitFor();
      expect(errors).toEqual([]);
    });
  }

  it("a visitor sees the published root and totals without logging in", async () => {
    const { page } = await openPhone(browser, "en");
    await page.goto(`${server.baseUrl}/#/transparency/liabilities`);
    await byId(page, "liab-totals").waitFor();
    expect(await byId(page, "liab-root").innerText()).toMatch(/^[0-9a-f]{64}$/);
    expect(await byId(page, "liab-totals").innerText()).toContain("USDT");
    await byId(page, "liab-login").waitFor();
    // When the next snapshot is (00:00 UTC, shown by the one time rule as 08:00 UTC+8), and how to check it.
    const next = new Date(Math.floor(Date.now() / 86_400_000 + 1) * 86_400_000).toISOString().slice(0, 10);
    expect(await byId(page, "liab-next").innerText()).toContain(`${next} 08:00 UTC+8`);
    expect(await page.locator('[data-testid="liab-how"] li').count()).toBe(4);
  });

  it("the personal centre's menu stays where it is while the screen's figures load", async () => {
    // On a slow network a tap aimed at a menu entry must not land elsewhere because something
    // above it grew when its answer arrived: the earn rows come with the product switches, the
    // profile and the totals with their own answers. The answers are held and let through in turn.
    const { page, errors } = await openPhone(browser, "en", await loginViaApi(server.baseUrl, "demo1@exchange.test", "Demo1234"));
    const gate = () => {
      let open!: () => void;
      return { opened: new Promise<void>((r) => (open = r)), open: () => open() };
    };
    const switches = gate();
    const rest = gate();
    await page.route("**/api/**", async (route) => {
      await (new URL(route.request().url()).pathname === "/api/cfg/kefu" ? switches.opened : rest.opened);
      await route.continue();
    });
    await page.goto(`${server.baseUrl}/#/personal`);
    await byId(page, "personal-page").waitFor();
    // Nothing below the earn rows is drawn before the switches say whether there are any.
    expect(await page.locator('[data-testid="menu-liabilities"]').count()).toBe(0);
    switches.open();
    const entry = byId(page, "menu-liabilities");
    await entry.waitFor();
    await byId(page, "earn-rows").waitFor();
    const before = await entry.boundingBox();
    rest.open();
    await byId(page, "personal-total").waitFor();
    await byId(page, "greeting").waitFor();
    await page.waitForFunction(() => !document.querySelector('[data-testid="personal-page"] .skeleton'));
    expect(await entry.boundingBox()).toEqual(before);
    expect(errors).toEqual([]);
  });

  for (const [lang, verified, next] of [
    ["en", "Your balances are included in the published totals", "The next snapshot:"],
    ["zh", "您的余额已计入公布的合计", "下次快照："],
  ] as const) {
    it(`demo1 opens it from the personal centre and sees their balances verified in the browser (${lang})`, async () => {
      const { page, errors } = await openPhone(browser, lang, await loginViaApi(server.baseUrl, "demo1@exchange.test", "Demo1234"));
      await page.goto(`${server.baseUrl}/#/personal`);
      await byId(page, "menu-liabilities").click();
      await waitForRoute(page, /#\/transparency\/liabilities/);
      await byId(page, "liab-verified").getByText(verified).waitFor();
      expect(await byId(page, "liab-mine").innerText()).toMatch(/USDT/);
      // The leaves are bound to demo1's account, with the nonce only demo1 is shown.
      expect(await byId(page, "liab-bound-to").innerText()).toBe("demo1@exchange.test");
      expect(await byId(page, "liab-nonce").innerText()).toMatch(/^[0-9a-f]{64}$/);
      expect(await byId(page, "liab-command").innerText()).toContain("--account demo1@exchange.test");
      expect(await byId(page, "liab-next").innerText()).toContain(next);
      await snap(page, `liabilities-verified-${lang}`);
      await byId(page, "liab-binding").scrollIntoViewIfNeeded();
      await snap(page, `liabilities-binding-${lang}`);
      await byId(page, "liab-next-card").scrollIntoViewIfNeeded();
      await snap(page, `liabilities-next-${lang}`);
      if (lang === "en") {
        const download = page.waitForEvent("download");
        await byId(page, "liab-download").click();
        const file = await (await download).path();
        const proof = JSON.parse(readFileSync(file, "utf8"));
        const published = await (await fetch(new URL("/api/transparency/liabilities", server.baseUrl))).json();
        expect((await verifyProof(proof, "demo1@exchange.test", published.message)).ok).toBe(true);
        const asDemo2 = await verifyProof(proof, "demo2@exchange.test", published.message);
        expect(asDemo2.ok).toBe(false);
        expect(asDemo2.checks.at(-1)!.check).toBe("binding");
      }
      expect(errors).toEqual([]);
    });
  }

  it("shows clearly that a proof altered on its way does not verify", async () => {
    const { page } = await openPhone(browser, "en", await loginViaApi(server.baseUrl, "demo1@exchange.test", "Demo1234"));
    await page.route("**/api/transparency/liabilities/proof", async (route) => {
      const res = await route.fetch();
      const body = await res.json();
      const leaf = body.message.leaves[0];
      const i = leaf.balances.findIndex((b: string) => b !== "0");
      leaf.balances[i] = "9" + leaf.balances[i];
      await route.fulfill({ response: res, json: body });
    });
    await page.goto(`${server.baseUrl}/#/transparency/liabilities`);
    await byId(page, "liab-failed").getByText("This proof does not verify").waitFor();
    expect(await byId(page, "liab-failed").innerText()).toContain("the recomputed root differs");
    expect(await page.locator('[data-testid="liab-verified"]').count()).toBe(0);
    await snap(page, "liabilities-failed-en");
  });
});
