/// <reference lib="dom" />
// Functions passed to page.evaluate() run in the browser, hence the DOM types.
/**
 * Passkeys in a real browser (issue #29), with Chromium's virtual authenticator (CDP WebAuthn): a
 * user adds a passkey on the security screen, confirms a withdrawal with it instead of an
 * authenticator code, then signs out and signs in with it alone. WebAuthn needs a secure origin
 * and a host name (not an IP address), so the app is opened at http://localhost.
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { openPhone, snap } from "./browser.ts";
import { browser, server, useExchange } from "./exchange.ts";
import { apiCall, loginViaApi, waitForRoute } from "./helpers.ts";

let base: string;

useExchange();

beforeAll(async () => {
  base = server.baseUrl.replace("127.0.0.1", "localhost");
});

/** A platform authenticator with user verification, which answers without a prompt. */
async function addVirtualAuthenticator(page: Page): Promise<void> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("WebAuthn.enable");
  await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: { protocol: "ctap2", transport: "internal", hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
  });
}

describe("passkeys", () => {
  it("adds a passkey, confirms a withdrawal with it, and signs in with it alone", async () => {
    const account = "demo1@exchange.test";
    const token = await loginViaApi(base, account, "Demo1234");
    await apiCall(base, "/api/user/fund_password", { token, body: { fund_password: "246810", re_fund_password: "246810", login_password: "Demo1234" } });

    const { page, errors } = await openPhone(browser, "en", token);
    await addVirtualAuthenticator(page);

    // Add a passkey: named first; the account has no second factor yet, so none is asked.
    await page.goto(`${base}/#/security/passkeys`);
    await page.waitForSelector('[data-testid="passkey-add-form"]');
    await page.click('[data-testid="passkey-add"]');
    await page.getByText("Name the passkey (1-40 characters)").waitFor();
    await page.fill('[data-testid="passkey-name"]', "Test phone");
    await page.click('[data-testid="passkey-add"]');
    await page.locator('[data-testid="passkey-row"]', { hasText: "Test phone" }).waitFor();
    expect(await page.locator('[data-testid="passkey-row"]').count()).toBe(1);
    await expect.poll(async () => (await apiCall<{ name: string }[]>(base, "/api/security/passkeys", { token })).map((p) => p.name)).toEqual(["Test phone"]);
    await snap(page, "passkeys-en");

    // A withdrawal asks for the passkey instead of an authenticator code, and goes through with it.
    await page.goto(`${base}/#/withdrawal`);
    await page.waitForSelector('[data-testid="withdraw-summary"]');
    await page.waitForSelector('[data-testid="withdraw-passkey-note"]');
    expect(await page.locator('[data-testid="withdraw-totp"]').count()).toBe(0);
    await page.fill('[data-testid="withdraw-address"]', "TQn9Y2khEsLJW1ChVWFMSMeRDow5KcbLSE");
    await page.fill('[data-testid="withdraw-amount"]', "25");
    await page.fill('[data-testid="withdraw-password"]', "246810");
    await page.click('[data-testid="withdraw-submit"]');
    await page.waitForSelector('[data-testid="withdraw-confirm"]');
    await page.click('[data-testid="withdraw-confirm-button"]');
    await waitForRoute(page, /^#\/withdrawal\/log$/);
    const log = await apiCall<{ lists: { number: string; address: string; status: number }[] }>(base, "/api/new/users/withdrawalLog?page=1", { token });
    expect(log.lists[0]).toMatchObject({ address: "TQn9Y2khEsLJW1ChVWFMSMeRDow5KcbLSE", status: 0 });
    expect(Number(log.lists[0]!.number)).toBe(25);
    // The passkey was used (its last use is recorded).
    const [used] = await apiCall<{ last_used_at: string | null }[]>(base, "/api/security/passkeys", { token });
    expect(used!.last_used_at).not.toBeNull();

    // Without a passkey answer the same withdrawal is refused: the passkey is the second factor now.
    const bare = await fetch(new URL("/api/wallet/out", base), {
      method: "POST",
      headers: { "content-type": "application/json", authorization: token, lang: "en" },
      body: JSON.stringify({ currency: 3, address: "TQn9Y2khEsLJW1ChVWFMSMeRDow5KcbLSE", number: "25", type: 1, password: "246810" }),
    });
    expect(((await bare.json()) as { code: string }).code).toBe("passkey_required");

    // Sign out, then sign in with the passkey alone.
    await page.evaluate(() => localStorage.removeItem("token"));
    await page.goto(`${base}/#/login`);
    await page.reload();
    await page.waitForSelector('[data-testid="login-passkey"]');
    await snap(page, "passkeys-login-en");
    await page.click('[data-testid="login-passkey"]');
    await waitForRoute(page, /^#\/$/);
    const newToken = await page.evaluate(() => localStorage.getItem("token"));
    expect(newToken).toBeTruthy();
    expect(newToken).not.toBe(token);
    const me = await apiCall<{ account: string }>(base, "/api/user/info", { token: newToken! });
    expect(me.account).toBe(account);
    expect(errors).toEqual([]);
  });
});

describe("the guard screens at phone size", () => {
  it("shows the security centre, passkeys, anti-phishing code and whitelist screens in English and Chinese", async () => {
    const token = await loginViaApi(base, "demo2@exchange.test", "Demo1234");
    for (const lang of ["en", "zh"]) {
      const { page, errors } = await openPhone(browser, lang, token);
      await page.goto(`${base}/#/security`);
      await page.waitForSelector('[data-testid="sec-whitelist"] .badge');
      await snap(page, `guard-security-${lang}`);
      await page.goto(`${base}/#/security/passkeys`);
      await page.waitForSelector('[data-testid="passkey-add-form"]');
      await snap(page, `guard-passkeys-${lang}`);
      await page.goto(`${base}/#/security/anti-phishing`);
      await page.waitForSelector('[data-testid="needs-factor"]');
      await snap(page, `guard-anti-phishing-${lang}`);
      await page.goto(`${base}/#/security/whitelist`);
      await page.waitForSelector('[data-testid="whitelist-state"]');
      await snap(page, `guard-whitelist-${lang}`);
      expect(await page.locator('[data-testid="whitelist-state"]').innerText()).toBe(lang === "en" ? "Whitelist is off" : "白名单未开启");
      expect(errors).toEqual([]);
    }
  });
});
