/// <reference lib="dom" />
// Functions passed to page.evaluate() run in the browser, hence the DOM types.
/**
 * Proof of liabilities in a real browser at phone size (issue #20 §2): the operator takes a
 * snapshot from the console and sees it published; a visitor sees the published totals without
 * logging in; demo1 opens the screen from the personal centre and sees, verified in the browser,
 * that their balances are included (English and Chinese), and downloads proof.json, which the
 * offline verifier accepts; a proof altered on its way shows clearly that it does not verify.
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { verifyProof } from "../../schemas/liabilities.ts";
import { launchBrowser, openPhone, snap } from "./browser.ts";
import { loginViaApi, waitForRoute } from "./helpers.ts";
import { startServer, type TestServer } from "./server.ts";

let server: TestServer;
let browser: Browser;

beforeAll(async () => {
  server = await startServer();
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await server?.dispose();
});

const byId = (page: Page, testId: string) => page.locator(`[data-testid="${testId}"]`).first();

describe("proof of liabilities", () => {
  it("an operator takes a snapshot from the console and sees it published", async () => {
    const { page, errors } = await openPhone(browser, "en", await loginViaApi(server.baseUrl, "operator@exchange.test", "Operator1234"));
    await page.goto(`${server.baseUrl}/#/admin/liabilities`);
    await byId(page, "admin-liabilities").waitFor();
    await byId(page, "liab-run-open").click();
    await page.fill('[data-testid="decision-reason"]', "first attestation");
    await byId(page, "decision-confirm").click();
    await byId(page, "liab-run-row").waitFor();
    await page.locator('[data-testid="liab-run-status"]').getByText("Published").waitFor();
    await snap(page, "liabilities-console-en");
    expect(errors).toEqual([]);
  });

  it("a visitor sees the published root and totals without logging in", async () => {
    const { page } = await openPhone(browser, "en");
    await page.goto(`${server.baseUrl}/#/transparency/liabilities`);
    await byId(page, "liab-totals").waitFor();
    expect(await byId(page, "liab-root").innerText()).toMatch(/^[0-9a-f]{64}$/);
    expect(await byId(page, "liab-totals").innerText()).toContain("USDT");
    await byId(page, "liab-login").waitFor();
  });

  for (const [lang, verified] of [
    ["en", "Your balances are included in the published totals"],
    ["zh", "您的余额已计入公布的合计"],
  ] as const) {
    it(`demo1 opens it from the personal centre and sees their balances verified in the browser (${lang})`, async () => {
      const { page, errors } = await openPhone(browser, lang, await loginViaApi(server.baseUrl, "demo1@exchange.test", "Demo1234"));
      await page.goto(`${server.baseUrl}/#/personal`);
      await byId(page, "menu-liabilities").click();
      await waitForRoute(page, /#\/transparency\/liabilities/);
      await byId(page, "liab-verified").getByText(verified).waitFor();
      expect(await byId(page, "liab-mine").innerText()).toMatch(/USDT/);
      await snap(page, `liabilities-verified-${lang}`);
      if (lang === "en") {
        const download = page.waitForEvent("download");
        await byId(page, "liab-download").click();
        const file = await (await download).path();
        const proof = JSON.parse(readFileSync(file, "utf8"));
        const published = await (await fetch(new URL("/api/transparency/liabilities", server.baseUrl))).json();
        expect((await verifyProof(proof, published.message)).ok).toBe(true);
      }
      expect(errors).toEqual([]);
    });
  }

  it("shows clearly that a proof altered on its way does not verify", async () => {
    const { page } = await openPhone(browser, "en", await loginViaApi(server.baseUrl, "demo1@exchange.test", "Demo1234"));
    await page.route("**/api/transparency/liabilities/proof", async (route) => {
      const res = await route.fetch();
      const body = await res.json();
      const i = body.message.leaf.balances.findIndex((b: string) => b !== "0");
      body.message.leaf.balances[i] = "9" + body.message.leaf.balances[i];
      await route.fulfill({ response: res, json: body });
    });
    await page.goto(`${server.baseUrl}/#/transparency/liabilities`);
    await byId(page, "liab-failed").getByText("This proof does not verify").waitFor();
    expect(await byId(page, "liab-failed").innerText()).toContain("the recomputed root differs");
    expect(await page.locator('[data-testid="liab-verified"]').count()).toBe(0);
    await snap(page, "liabilities-failed-en");
  });
});
