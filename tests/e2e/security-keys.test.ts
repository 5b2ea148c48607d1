/// <reference lib="dom" />
/**
 * API keys, devices, sign-ins and exports (issue #29) in a real browser at phone size, in English
 * and Chinese: a key is made under Security with its scopes and the fund password, its secret is
 * shown once and copied, the bot script places and cancels an order with it, and it is deleted after
 * a confirmation; another device is signed out and its token stops working; a failed sign-in shows
 * in the recent sign-ins; the ledger CSV downloads.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { openPhone, snap } from "./browser.ts";
import { browser, server, useExchange } from "./exchange.ts";
import { apiCall, loginViaApi, registerViaApi, uniqueEmail, waitForRoute } from "./helpers.ts";
import { ROOT } from "./server.ts";

const FUND = "135790";

useExchange();

/** An account with a fund password (creating a key is confirmed with it), signed in on this phone and two other devices. */
async function account(lang: string, existing?: { account: string; password: string }) {
  const who = existing ?? { account: uniqueEmail(`keys-${lang}`), password: "Keys12345" };
  if (!existing) await registerViaApi(server.baseUrl, who.account, who.password);
  const token = await loginViaApi(server.baseUrl, who.account, who.password);
  const center = await apiCall<{ has_fund_password: boolean }>(server.baseUrl, "/api/user/center", { token });
  if (!center.has_fund_password) {
    await apiCall(server.baseUrl, "/api/user/fund_password", { token, body: { fund_password: FUND, re_fund_password: FUND, login_password: who.password } });
  }
  const others = [await loginViaApi(server.baseUrl, who.account, who.password), await loginViaApi(server.baseUrl, who.account, who.password)];
  return { ...who, token, others };
}

async function confirmDialog(page: Page) {
  await page.locator(".dialog .btn-primary").click();
}

const texts = {
  en: { apikeys: "API keys", devices: "Devices", logins: "Recent sign-ins", failed: "Wrong password", export: "Export records" },
  zh: { apikeys: "API 密钥", devices: "登录设备", logins: "最近登录", failed: "密码错误", export: "导出记录" },
} as const;

describe("security: API keys, devices, sign-ins and exports", () => {
  for (const lang of ["en", "zh"] as const) {
    it(`makes a key with its secret shown once, signs out another device, shows a failed sign-in and downloads the ledger (${lang})`, async () => {
      // English uses the verified demo trader, so the bot script can trade with the key it gets.
      const user = await account(lang, lang === "en" ? { account: "demo1@exchange.test", password: "Demo1234" } : undefined);
      const { page, errors } = await openPhone(browser, lang, user.token);
      await page.goto(`${server.baseUrl}/#/security`);
      await page.locator('[data-testid="sec-export"]').waitFor();
      await snap(page, `security-menu-${lang}`);
      await page.click('[data-testid="sec-apikeys"]');
      await waitForRoute(page, /^#\/security\/api-keys$/);
      await page.locator('[data-testid="apikeys-page"]').waitFor();
      await expect.poll(() => page.title()).toContain(texts[lang].apikeys);

      // Make a key: name, both scopes, the fund password.
      await page.click('[data-testid="apikey-add"]');
      await page.locator('[data-testid="apikey-label"]').fill("grid bot");
      await page.locator('[data-testid="apikey-scope-trade"]').check();
      await page.locator('[data-testid="apikey-fund"]').fill(FUND);
      await snap(page, `security-apikey-form-${lang}`);
      await page.click('[data-testid="apikey-submit"]');
      const secretBox = page.locator('[data-testid="apikey-new-secret"]');
      await secretBox.waitFor();
      const secret = (await secretBox.innerText()).trim();
      const key = (await page.locator('[data-testid="apikey-new-key"]').innerText()).trim();
      expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
      await page.click('[data-testid="apikey-copy-secret"]');
      await snap(page, `security-apikey-secret-${lang}`);
      await page.click('[data-testid="apikey-done"]');
      // Shown once: the list has the key, never the secret.
      await expect.poll(() => page.locator('[data-testid="apikey-row"]').count()).toBe(1);
      expect(await page.locator('[data-testid="apikey-key"]').innerText()).toBe(key);
      expect(await page.content()).not.toContain(secret);
      await snap(page, `security-apikeys-${lang}`);

      if (lang === "en") {
        // The example bot places and cancels a spot order with the key.
        const bot = spawnSync(process.execPath, [join(ROOT, "scripts/bot.mjs"), "--url", server.baseUrl, "--key", key, "--secret", secret, "--price", "100", "--num", "0.1"], { encoding: "utf8", timeout: 120_000 });
        expect(bot.status, bot.stderr).toBe(0);
        expect(bot.stdout).toMatch(/placed order \d+/);
        expect(bot.stdout).toMatch(/cancelled order \d+/);
      }

      // Delete it after the confirmation.
      await page.click('[data-testid="apikey-delete"]');
      await confirmDialog(page);
      await expect.poll(() => page.locator('[data-testid="apikey-row"]').count()).toBe(0);

      // Devices: this one is marked; the other one is signed out and its token stops working.
      await page.goto(`${server.baseUrl}/#/security/devices`);
      await page.locator('[data-testid="device-row"]').first().waitFor();
      await expect.poll(() => page.title()).toContain(texts[lang].devices);
      expect(await page.locator('[data-testid="device-row"][data-current="yes"]').count()).toBe(1);
      const before = await page.locator('[data-testid="device-row"]').count();
      expect(before).toBeGreaterThanOrEqual(2);
      await snap(page, `security-devices-${lang}`);
      await page.locator('[data-testid="device-row"][data-current="no"] [data-testid="device-signout"]').first().click();
      await confirmDialog(page);
      await expect.poll(() => page.locator('[data-testid="device-row"]').count()).toBe(before - 1);
      await page.click('[data-testid="devices-signout-all"]');
      await confirmDialog(page);
      await expect.poll(() => page.locator('[data-testid="device-row"]').count()).toBe(1);
      for (const other of user.others) {
        const gone = await fetch(new URL("/api/user/info", server.baseUrl), { headers: { authorization: other } });
        expect(((await gone.json()) as { type: string }).type).toBe("999");
      }

      // A failed sign-in shows in the recent sign-ins.
      const failed = await fetch(new URL("/api/user/login", server.baseUrl), {
        method: "POST",
        headers: { "content-type": "application/json", "user-agent": "Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0" },
        body: JSON.stringify({ user_string: user.account, password: "not-the-password-1", type: 1 }),
      });
      expect(((await failed.json()) as { code: string }).code).toBe("login_failed");
      await page.goto(`${server.baseUrl}/#/security/logins`);
      await page.locator('[data-testid="login-row"]').first().waitFor();
      await expect.poll(() => page.title()).toContain(texts[lang].logins);
      const first = page.locator('[data-testid="login-row"]').first();
      expect(await first.getAttribute("data-ok")).toBe("no");
      expect(await first.innerText()).toContain(texts[lang].failed);
      await snap(page, `security-logins-${lang}`);

      // Exports: the ledger downloads as a CSV with its header row.
      await page.goto(`${server.baseUrl}/#/security/export`);
      await page.locator('[data-testid="export-ledger"]').waitFor();
      await expect.poll(() => page.title()).toContain(texts[lang].export);
      await snap(page, `security-export-${lang}`);
      const [download] = await Promise.all([page.waitForEvent("download"), page.click('[data-testid="export-ledger"]')]);
      expect(download.suggestedFilename()).toBe("ledger.csv");
      const csv = readFileSync((await download.path())!, "utf8");
      expect(csv.split("\r\n")[0]).toBe("time_utc,account,currency,amount,frozen_amount,balance_after,frozen_after,kind,reference_id");
      expect(errors).toEqual([]);
    });
  }
});
