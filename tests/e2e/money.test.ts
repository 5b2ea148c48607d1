/// <reference lib="dom" />
// Functions passed to page.evaluate() run in the browser, hence the DOM types.
/**
 * Money in and out, in a real browser at phone size, the way a customer and the operators use it:
 * a new user registers, verifies their identity (level 1 + level 2 photos) and an operator
 * approves it in the console; the user deposits USDT with a proof picture and the operator
 * credits it; the user moves USDT to the seconds account, converts USDT → BTC → USDT at the last
 * traded price (against a treasury that two different operators funded), adds a bank card and a
 * fund password, and withdraws USDT over TRC20 with the fee shown before submitting; the operator
 * approves it and records the chain's success. Every number on /assets then equals the ledger
 * result computed here with bigints, and the reconciliation finds no difference.
 */
import { afterAll, describe, expect, it } from "vitest";
import type { BrowserContext, Page } from "playwright-core";
import { Secret, TOTP } from "otpauth";
import { formatUnits } from "../../schemas/money.ts";
import { formatMoney, groupThousands } from "../../web/src/lib/format.ts";
import { newPhoneContext, snap, snapFailure } from "./browser.ts";
import { browser, server, useExchange } from "./exchange.ts";
import { captchaAnswer, proveContactInBanner, registerViaApi, uniqueEmail, waitForRoute } from "./helpers.ts";

const contexts: BrowserContext[] = [];

type Json = { type?: string; status?: number; message?: unknown; data?: unknown; code?: string };

async function call<T>(path: string, opts: { token?: string; body?: unknown; method?: "GET" | "POST" } = {}): Promise<T> {
  const method = opts.method ?? (opts.body === undefined ? "GET" : "POST");
  const headers: Record<string, string> = { lang: "en" };
  if (opts.token) headers.authorization = opts.token;
  if (method === "POST") headers["content-type"] = "application/json";
  const res = await fetch(new URL(path, server.baseUrl), { method, headers, body: method === "POST" ? JSON.stringify(opts.body ?? {}) : undefined });
  const json = (await res.json()) as Json;
  if (json.type === "ok") return json.message as T;
  if (json.status === 1) return json.data as T;
  throw new Error(`${path}: ${JSON.stringify(json)}`);
}

async function login(account: string, password: string): Promise<string> {
  return (await call<{ token: string }>("/api/user/login", { body: { user_string: account, password, type: 1 } })).token;
}

/** A phone page; with a token the session is seeded once (reloads keep whatever the app stored since). */
async function openPhone(token: string | null, lang = "en"): Promise<{ context: BrowserContext; page: Page; errors: Error[] }> {
  const context = await newPhoneContext(browser);
  contexts.push(context);
  await context.addInitScript(
    ([t, l]) => {
      if (sessionStorage.getItem("seeded")) return;
      sessionStorage.setItem("seeded", "1");
      localStorage.setItem("lang", l as string);
      if (t) localStorage.setItem("token", t as string);
    },
    [token, lang] as const,
  );
  const page = await context.newPage();
  const errors: Error[] = [];
  page.on("pageerror", (err) => errors.push(err));
  return { context, page, errors };
}

async function go(page: Page, route: string, ready: string) {
  const url = `${server.baseUrl}/#${route}`;
  // Same hash: a goto would not re-mount the screen, so reload to fetch fresh data.
  if (page.url() === url) await page.reload();
  else await page.goto(url);
  try {
    await page.waitForSelector(ready);
  } catch (err) {
    await snapFailure(page, `money-failed-${route.replace(/\W+/g, "-")}`);
    throw err;
  }
}

/** Switches the app's language the way the language page does (stored, applied without reload). */
async function setLang(page: Page, lang: string) {
  await page.evaluate((l) => localStorage.setItem("lang", l), lang);
  await page.reload();
}

/** A real picture drawn in the page's canvas (JPEG or PNG), as the bytes a file picker would hand over. */
async function makeImage(page: Page, width: number, height: number, type: "image/jpeg" | "image/png"): Promise<Buffer> {
  const dataUrl = await page.evaluate(
    ([w, h, t]) => {
      const c = document.createElement("canvas");
      c.width = w as number;
      c.height = h as number;
      const ctx = c.getContext("2d")!;
      const g = ctx.createLinearGradient(0, 0, w as number, h as number);
      g.addColorStop(0, "#26a17b");
      g.addColorStop(1, "#f0b90b");
      ctx.fillStyle = g;
      ctx.fillRect(0, 0, w as number, h as number);
      ctx.fillStyle = "#111";
      ctx.font = `${Math.round((h as number) / 6)}px sans-serif`;
      ctx.fillText("TEST", 10, (h as number) / 2);
      return c.toDataURL(t as string, 0.9);
    },
    [width, height, type] as const,
  );
  return Buffer.from(dataUrl.split(",")[1] ?? "", "base64");
}

/** A real 1×1 GIF: refused (only JPG and PNG). */
const GIF = Buffer.from("R0lGODlhAQABAIAAAAAAAP///ywAAAAAAQABAAACAkQBADs=", "base64");

/** A 19-digit card number with a valid Luhn check digit. */
function luhnCard(prefix: string): string {
  let body = prefix.padEnd(18, "7");
  let sum = 0;
  for (let i = 0; i < body.length; i++) {
    let d = Number(body[body.length - 1 - i]);
    if (i % 2 === 0) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  body += String((10 - (sum % 10)) % 10);
  return body;
}

async function decide(page: Page, item: ReturnType<Page["locator"]>, button: string, fill?: { reason?: string; txid?: string }) {
  await item.locator(`[data-testid="${button}"]`).click();
  const dialog = page.locator('[data-testid="decision-dialog"]');
  await dialog.waitFor();
  if (fill?.txid) await dialog.locator('[data-testid="decision-txid"]').fill(fill.txid);
  if (fill?.reason) await dialog.locator('[data-testid="decision-reason"]').fill(fill.reason);
  await dialog.locator('[data-testid="decision-confirm"]').click();
  await dialog.waitFor({ state: "detached" });
}

const text = async (page: Page, selector: string) => ((await page.locator(selector).first().textContent()) ?? "").trim();

useExchange();

afterAll(async () => {
  for (const c of contexts) await c.close().catch(() => undefined);
});

describe("money in and out", () => {
  it("takes a new user from registration to a withdrawal, and the books match to the last unit", async () => {
    // ── Units (8 decimals, as USDT and BTC are stored) and the expected ledger, in bigints ──
    const U = 10n ** 8n;
    const price = { num: 6_000_000n, dec: 2 }; // 60000.00 USDT per BTC, the last trade below
    const deposit = 1000n * U;
    const toMicro = 100n * U;
    const conv1 = 300n * U;
    const fee1 = (conv1 * 200_000n) / 100_000_000n; // 0.2 % tier
    const btc = ((conv1 - fee1) * 10n ** BigInt(price.dec + 8)) / (price.num * 10n ** 8n);
    const value2 = (btc * price.num * 10n ** 8n) / 10n ** BigInt(8 + price.dec);
    const fee2 = (value2 * 200_000n) / 100_000_000n;
    const received2 = value2 - fee2;
    const withdraw = 500n * U;
    const trcFee = 1n * U;
    const spotUsdt = deposit - toMicro - conv1 + received2 - (withdraw + trcFee);
    const fmt = (u: bigint, d = 8) => formatUnits(u, 8, d);

    const account = uniqueEmail("money");
    const password = "Money2024x";
    const op1 = await login("operator@exchange.test", "Operator1234");
    // The seeded second operator: adjustments need two.
    const op2 = await login("operator2@exchange.test", "Operator1234");

    // ── 1. Registration in the browser ──
    const user = await openPhone(null);
    const page = user.page;
    const captchaResponse = page.waitForResponse((r) => r.url().includes("/api/login/smscode"));
    await page.goto(`${server.baseUrl}/#/register`);
    const captcha = (await (await captchaResponse).json()) as { message: { code_id: string } };
    await page.fill('input[name="account"]', account);
    await page.fill('input[name="password"]', password);
    await page.fill('input[name="re_password"]', password);
    await page.check('[data-testid="agree"]', { force: true });
    await page.fill('input[name="captcha"]', await captchaAnswer(server.baseUrl, captcha.message.code_id));
    await page.click('[data-testid="register-submit"]');
    await waitForRoute(page, /^#\/$/);
    await proveContactInBanner(page, server.baseUrl, account);

    // ── 2. Identity verification: level 1 + level 2 photos, then locked under review ──
    await go(page, "/verifyed", '[data-testid="kyc-form"]');
    await snap(page, "money-verify-empty");
    await page.click('[data-testid="kyc-target-2"]');
    await page.fill('[data-testid="kyc-name"]', "Test 9 User");
    await page.fill('[data-testid="kyc-card-id"]', "身份证123");
    await page.click('[data-testid="kyc-submit"]');
    await page.getByText("The real name must not contain digits").waitFor();
    await page.getByText("The document number is not valid").waitFor();
    expect(await page.getByText("Please add this photo").count()).toBe(3);
    await page.fill('[data-testid="kyc-name"]', "Test User");
    await page.fill('[data-testid="kyc-card-id"]', "AB1234567");

    // A GIF is refused before anything is sent.
    await page.setInputFiles('[data-testid="kyc-front-input"]', { name: "front.gif", mimeType: "image/gif", buffer: GIF });
    await page.locator('[data-testid="kyc-front"]').getByText("Only JPG or PNG pictures are accepted").waitFor();
    await page.setInputFiles('[data-testid="kyc-front-input"]', { name: "front.png", mimeType: "image/png", buffer: await makeImage(page, 320, 200, "image/png") });
    await page.waitForSelector('[data-testid="kyc-front-done"]');
    await page.setInputFiles('[data-testid="kyc-back-input"]', { name: "back.jpg", mimeType: "image/jpeg", buffer: await makeImage(page, 320, 200, "image/jpeg") });
    await page.waitForSelector('[data-testid="kyc-back-done"]');
    // A big camera photo is shrunk to fit 1080×1080 before it is uploaded.
    const bigUpload = page.waitForResponse((r) => r.url().endsWith("/api/new/upload"));
    await page.setInputFiles('[data-testid="kyc-hand-input"]', { name: "hand.jpg", mimeType: "image/jpeg", buffer: await makeImage(page, 2400, 1800, "image/jpeg") });
    const uploaded = (await (await bigUpload).json()) as { data: { width: number; height: number; type: string } };
    expect(uploaded.data).toMatchObject({ width: 1080, height: 810, type: "jpg" });
    await page.waitForSelector('[data-testid="kyc-hand-done"]');
    await snap(page, "money-verify-filled");
    await page.click('[data-testid="kyc-submit"]');
    await page.waitForSelector('[data-testid="kyc-locked"]');
    expect(await page.locator('[data-testid="kyc-level-2"]').getAttribute("data-state")).toBe("pending");
    await snap(page, "money-verify-under-review");

    // ── 3. The operator approves it in the console (second browser context) ──
    const op = await openPhone(op1);
    const opPage = op.page;
    await go(opPage, "/admin", '[data-testid="admin-overview"]');
    await opPage.waitForFunction(() => document.querySelector('[data-testid="tile-kyc"] [data-testid="tile-count"]')?.textContent?.match(/^\d+$/));
    await snap(opPage, "money-admin-overview");
    await go(opPage, "/admin/kyc", '[data-testid="admin-kyc"]');
    const kycItem = opPage.locator(`[data-testid="admin-kyc-item"][data-user="${account}"]`);
    await kycItem.waitFor();
    await expect.poll(() => kycItem.locator('[data-testid="kyc-pic"] img').count()).toBe(3);
    await snap(opPage, "money-admin-kyc");
    // A rejection needs a reason: the dialog says so and nothing is sent.
    await kycItem.locator('[data-testid="kyc-reject"]').click();
    await opPage.locator('[data-testid="decision-confirm"]').click();
    await opPage.getByText("Please give a reason").waitFor();
    await snap(opPage, "money-admin-reason-required");
    await opPage.locator('[data-testid="decision-dialog"] .btn-ghost').click();
    await decide(opPage, kycItem, "kyc-approve");
    await kycItem.waitFor({ state: "detached" });

    await go(page, "/verifyed", '[data-testid="kyc-level-2"][data-state="ok"]');
    expect(await page.locator('[data-testid="kyc-level-1"]').getAttribute("data-state")).toBe("ok");
    await page.locator('[data-testid="kyc-identity"]').getByText("Test User").waitFor();
    await snap(page, "money-verify-approved");

    // ── 4. Deposit 1000 USDT with a proof picture; the operator credits it ──
    await go(page, "/recharge", '[data-testid="deposit-address-card"]');
    expect(await text(page, '[data-testid="deposit-address"]')).toContain("trc20");
    await page.waitForSelector('[data-testid="qr-image"]');
    await page.click('[data-testid="deposit-submit"]');
    await page.getByText("Please upload the proof of transfer").waitFor();
    await page.fill('[data-testid="deposit-amount"]', "1000");
    await page.setInputFiles('[data-testid="deposit-proof-input"]', { name: "proof.jpg", mimeType: "image/jpeg", buffer: await makeImage(page, 600, 400, "image/jpeg") });
    await page.waitForSelector('[data-testid="deposit-proof-done"]');
    await page.fill('[data-testid="deposit-hash"]', "a1b2c3d4e5");
    await snap(page, "money-deposit");
    await page.click('[data-testid="deposit-submit"]');
    await waitForRoute(page, /^#\/recharge\/log$/);
    await page.waitForSelector('[data-testid="deposit-record"][data-status="0"]');
    await page.waitForSelector('[data-testid="deposit-record"] [data-testid="deposit-proof"] img');
    await snap(page, "money-deposit-records");

    await go(opPage, "/admin/deposits", '[data-testid="admin-deposits"]');
    const depositItem = opPage.locator(`[data-testid="admin-deposit"][data-user="${account}"]`);
    await depositItem.waitFor();
    await depositItem.locator('[data-testid="admin-deposit-pic"] img').waitFor();
    expect(await depositItem.locator('[data-testid="admin-deposit-amount"]').textContent()).toBe("1,000 USDT");
    await snap(opPage, "money-admin-deposits");
    await decide(opPage, depositItem, "deposit-approve");
    await depositItem.waitFor({ state: "detached" });

    await go(page, "/recharge/log", '[data-testid="deposit-record"][data-status="1"]');

    // ── 5. Transfer 100 USDT from the spot account to the seconds account ──
    await go(page, "/transfer", '[data-testid="transfer-page"]');
    await page.selectOption('[data-testid="transfer-to"]', "change");
    await page.waitForSelector('[data-testid="same-account"]');
    expect(await page.locator('[data-testid="transfer-submit"]').isDisabled()).toBe(true);
    await page.selectOption('[data-testid="transfer-to"]', "micro");
    expect(await text(page, '[data-testid="transfer-available"]')).toBe("Available: 1,000.00 USDT");
    await page.fill('[data-testid="transfer-amount"]', "100");
    await snap(page, "money-transfer");
    await page.click('[data-testid="transfer-submit"]');
    await page.waitForFunction(() => document.querySelector('[data-testid="transfer-available"]')?.textContent === "Available: 900.00 USDT");

    // ── 6. A real BTC price (demo1 sells to demo2) and a treasury funded by two operators ──
    const demo1 = await login("demo1@exchange.test", "Demo1234");
    const demo2 = await login("demo2@exchange.test", "Demo1234");
    await call("/api/transaction/walletOut", { token: demo1, body: { currency_id: 1, legal_id: 3, price: "60000", num: "0.01", mode: 2 } });
    await call("/api/transaction/walletIn", { token: demo2, body: { currency_id: 1, legal_id: 3, price: "60000", num: "0.01", mode: 2 } });
    await expect
      .poll(async () => (await call<{ prices: { currency_id: number; price: string | null }[] }>("/api/user/shandui_set", { token: demo1 })).prices.find((p) => p.currency_id === 1)?.price, { timeout: 120_000 })
      .toBe("60000.00");

    await go(opPage, "/admin/adjustments", '[data-testid="adjustment-form"]');
    await opPage.check('[data-testid="adj-treasury"]', { force: true });
    for (const [currency, amount] of [["1", "1"], ["3", "10000"]] as const) {
      await opPage.selectOption('[data-testid="adj-currency"]', currency);
      await opPage.fill('[data-testid="adj-amount"]', amount);
      await opPage.fill('[data-testid="adj-reason"]', "Fund the treasury for flash exchange");
      await opPage.click('[data-testid="adj-submit"]');
      await opPage.getByText(/Adjustment #\d+ requested/).first().waitFor();
      await opPage.waitForFunction(() => (document.querySelector('[data-testid="adj-amount"]') as HTMLInputElement | null)?.value === "");
    }
    const mine = opPage.locator('[data-testid="adjustment-row"]');
    await expect.poll(() => mine.count()).toBe(2);
    // The operator who asked cannot approve their own request.
    expect(await mine.first().locator('[data-testid="adjustment-approve"]').isDisabled()).toBe(true);
    await snap(opPage, "money-admin-adjustments");
    const second = await openPhone(op2);
    await go(second.page, "/admin/adjustments", '[data-testid="adjustment-row"]');
    for (let i = 0; i < 2; i++) {
      await decide(second.page, second.page.locator('[data-testid="adjustment-row"]').first(), "adjustment-approve");
      await expect.poll(() => second.page.locator('[data-testid="adjustment-row"]').count()).toBe(1 - i);
    }

    // ── 7. Flash exchange: 300 USDT → BTC, then all that BTC → USDT ──
    await go(page, "/excharge", '[data-testid="convert-coin"]');
    await page.click('[data-testid="convert-swap"]');
    await page.fill('[data-testid="convert-amount"]', "300");
    // Amounts by the one precision rule (lib/format.ts formatMoney, unit-tested): a coin up to 8 decimals, USDT 2.
    expect(await text(page, '[data-testid="convert-receive"]')).toBe(`≈ ${formatMoney(formatUnits(btc, 8, 5), "BTC")}`);
    expect(await text(page, '[data-testid="convert-rate"]')).toBe("1 USDT = 0.00001666 BTC");
    expect(await text(page, '[data-testid="convert-fee"]')).toBe(`${formatMoney(fmt(fee1), "USDT")} USDT (0.2%)`);
    await snap(page, "money-convert-usdt-btc");
    await page.click('[data-testid="convert-submit"]');
    // The server's quote, held for 10 s with a countdown: confirming executes exactly it.
    await page.waitForSelector('[data-testid="quote-countdown"]');
    expect(await text(page, '[data-testid="quote-received"]')).toBe(`${formatMoney(fmt(btc), "BTC")} BTC`);
    await page.click('[data-testid="convert-confirm-button"]');
    expect(await (await page.waitForSelector('[data-testid="result-received"]')).textContent()).toBe(`${formatMoney(fmt(btc), "BTC")} BTC`);

    await page.click('[data-testid="convert-swap"]');
    await page.waitForFunction(() => document.querySelector('[data-testid="convert-available"]')?.textContent === "Available: 0.00499 BTC");
    await page.click('[data-testid="convert-all"]');
    await expect.poll(() => page.inputValue('[data-testid="convert-amount"]')).toBe("0.00499");
    expect(await text(page, '[data-testid="convert-rate"]')).toBe("1 BTC = 60,000 USDT"); // one formatter: grouped, no trailing zeros
    expect(await text(page, '[data-testid="convert-receive"]')).toBe(`≈ ${formatMoney(formatUnits(received2, 8, 5), "USDT")}`);
    await snap(page, "money-convert-btc-usdt");
    await page.click('[data-testid="convert-submit"]');
    await page.click('[data-testid="convert-confirm-button"]');
    await page.waitForFunction(
      (want) => document.querySelector('[data-testid="result-received"]')?.textContent === want,
      `${formatMoney(fmt(received2), "USDT")} USDT`,
    );
    await go(page, "/excharge/log", '[data-testid="conversion-record"]');
    expect(await page.locator('[data-testid="conversion-record"]').count()).toBe(2);
    await snap(page, "money-convert-records");

    // ── 8. Bank card (Luhn-checked, bank name filled in on blur) and fund password ──
    await go(page, "/bank", '[data-testid="bank-form"]');
    await expect.poll(() => page.inputValue('[data-testid="bank-real-name"]')).toBe("Test User");
    const card = luhnCard("622202");
    await page.fill('[data-testid="bank-card"]', `${card.slice(0, -1)}${(Number(card.slice(-1)) + 1) % 10}`);
    await page.locator('[data-testid="bank-card"]').blur();
    await page.getByText("Please enter a correct card number").waitFor();
    await page.fill('[data-testid="bank-card"]', card);
    await page.locator('[data-testid="bank-card"]').blur();
    await page.waitForFunction(() => (document.querySelector('[data-testid="bank-name"]') as HTMLInputElement | null)?.value === "Industrial and Commercial Bank of China");
    await page.fill('[data-testid="bank-branch"]', "Shanghai Pudong");
    await snap(page, "money-bank-form");
    await page.click('[data-testid="bank-submit"]');
    await page.waitForSelector('[data-testid="bank-current"]');
    expect(await text(page, '[data-testid="bank-card-number"]')).toBe(`**** **** **** ${card.slice(-4)}`);
    await snap(page, "money-bank-saved");

    await go(page, "/security", '[data-testid="sec-fund"]');
    await snap(page, "money-security");
    await page.click('[data-testid="sec-fund"]');
    await page.waitForSelector('[data-testid="fund-new"]');
    await page.fill('[data-testid="fund-proof"]', password);
    await page.fill('[data-testid="fund-new"]', "24681");
    await page.fill('[data-testid="fund-again"]', "24681");
    await page.click('[data-testid="fund-submit"]');
    await page.getByText("The fund password must be exactly 6 digits").waitFor();
    await page.fill('[data-testid="fund-new"]', "246810");
    await page.fill('[data-testid="fund-again"]', "246810");
    await snap(page, "money-fund-password");
    await page.click('[data-testid="fund-submit"]');
    await page.waitForSelector('[data-testid="security-page"]');
    await page.locator('[data-testid="sec-fund"]').getByText("Set", { exact: true }).waitFor();

    // ── 9. Withdraw 500 USDT over TRC20: fee, amount received and total frozen before submitting ──
    await go(page, "/withdrawal", '[data-testid="withdraw-summary"]');
    // The cheaper network is pre-selected: TRC20 (1 USDT) before ERC20 (5 USDT).
    await page.waitForSelector('[data-testid="network-TRC20"][aria-checked="true"]');
    await page.click('[data-testid="network-TRC20"]');
    await page.fill('[data-testid="withdraw-address"]', "TQn9Y2khEsLJW1ChVWFMSMeRDow5KcbLSE extra");
    await page.fill('[data-testid="withdraw-amount"]', "500");
    expect(await text(page, '[data-testid="withdraw-fee"]')).toBe("1.00 USDT");
    expect(await text(page, '[data-testid="withdraw-received"]')).toBe("500.00 USDT");
    expect(await text(page, '[data-testid="withdraw-total"]')).toBe("501.00 USDT");
    expect(await text(page, '[data-testid="withdraw-limits"]')).toBe("10.00 – 1,000,000.00 USDT");
    await page.fill('[data-testid="withdraw-password"]', "246810");
    await page.click('[data-testid="withdraw-submit"]');
    await page.getByText("The address must not contain spaces").waitFor();
    await page.fill('[data-testid="withdraw-address"]', "TQn9Y2khEsLJW1ChVWFMSMeRDow5KcbLSE");
    await page.click('[data-testid="fee-table-toggle"]');
    await page.waitForSelector('[data-testid="fee-table"]');
    await snap(page, "money-withdraw-form");
    await page.click('[data-testid="withdraw-submit"]');
    await page.waitForSelector('[data-testid="withdraw-confirm"]');
    expect(await text(page, '[data-testid="confirm-total"]')).toBe("501.00 USDT");
    await snap(page, "money-withdraw-confirm");
    await page.click('[data-testid="withdraw-confirm-button"]');
    await waitForRoute(page, /^#\/withdrawal\/log$/);
    await page.waitForSelector('[data-testid="withdrawal-record"][data-status="0"]');

    await go(page, "/assets", '[data-testid="asset-row-USDT"]');
    // The screen may first show the balance it had before the request; it follows the ledger once read.
    await expect.poll(() => page.locator('[data-testid="asset-row-USDT"]').getAttribute("data-frozen")).toBe(fmt(withdraw + trcFee));

    // ── 10. The operator approves the withdrawal and records the chain's success ──
    await go(opPage, "/admin/withdrawals", '[data-testid="admin-withdrawals"]');
    const wd = opPage.locator(`[data-testid="admin-withdrawal"][data-user="${account}"]`);
    await wd.waitFor();
    await snap(opPage, "money-admin-withdrawals");
    await decide(opPage, wd, "withdrawal-approve");
    await wd.waitFor({ state: "detached" });
    await opPage.click('[data-testid="filter-1"]');
    await wd.waitFor();
    await decide(opPage, wd, "withdrawal-chain-success", { txid: "9f1c2b3a4d5e6f708192a3b4c5d6e7f8" });
    await wd.waitFor({ state: "detached" });

    await go(page, "/withdrawal/log", '[data-testid="withdrawal-record"][data-status="2"]');
    await page.locator('[data-testid="withdrawal-record"]').getByText("9f1c2b3a4d5e6f708192a3b4c5d6e7f8").waitFor();
    await snap(page, "money-withdraw-records");

    // ── 11. Every number on /assets is the ledger result ──
    await go(page, "/assets", '[data-testid="asset-row-USDT"]');
    const total = spotUsdt + toMicro; // BTC is back to zero
    await page.waitForFunction((want) => document.querySelector('[data-testid="asset-total"]')?.getAttribute("data-value") === want, fmt(total, 2));
    expect(await text(page, '[data-testid="asset-total"]')).toBe(`${groupThousands(fmt(total, 2))}USDT`);
    const usdtRow = page.locator('[data-testid="asset-row-USDT"]');
    expect(await usdtRow.getAttribute("data-available")).toBe(fmt(spotUsdt));
    expect(await usdtRow.getAttribute("data-frozen")).toBe(fmt(0n));
    expect(await usdtRow.locator('[data-testid="coin-available"]').textContent()).toBe(fmt(spotUsdt, 2));
    expect(await usdtRow.locator('[data-testid="coin-frozen"]').textContent()).toBe("0.00");
    expect(await usdtRow.locator('[data-testid="coin-value"]').textContent()).toBe(fmt(spotUsdt, 2));
    const btcRow = page.locator('[data-testid="asset-row-BTC"]');
    expect(await btcRow.getAttribute("data-available")).toBe(fmt(0n));
    expect(await btcRow.locator('[data-testid="coin-available"]').textContent()).toBe("0.00");
    expect(await btcRow.locator('[data-testid="coin-value"]').textContent()).toBe("0.00");
    expect(await text(page, '[data-testid="account-total"]')).toBe(`${fmt(spotUsdt, 2)} USDT`);
    await usdtRow.locator('[data-testid="coin-row-main"]').click();
    expect(await text(page, '[data-testid="coin-detail"] dd')).toBe(fmt(spotUsdt).replace(/0+$/, ""));
    await snap(page, "money-assets-final");
    await page.click('[data-testid="asset-tab-micro"]');
    await expect.poll(() => page.locator('[data-testid="asset-row-USDT"]').getAttribute("data-available")).toBe(fmt(toMicro));
    expect(await text(page, '[data-testid="asset-row-USDT"] [data-testid="coin-available"]')).toBe("100.00");
    expect(await text(page, '[data-testid="account-total"]')).toBe("100.00 USDT");
    await page.click('[data-testid="asset-tab-legal"]');
    expect(await text(page, '[data-testid="account-total"]')).toBe("0.00 USDT");
    // The eye hides every figure.
    await page.click('[data-testid="hide-totals"]');
    expect(await text(page, '[data-testid="asset-total"]')).toBe("****USDT");
    await page.click('[data-testid="hide-totals"]');

    await go(page, "/personal", '[data-testid="personal-total"]');
    await page.locator('[data-testid="greeting"]').getByText("Test User").waitFor();
    expect(await text(page, '[data-testid="personal-total"]')).toBe(`${groupThousands(fmt(total, 2))}USDT`);
    await snap(page, "money-personal");

    // ── 12. Reconciliation: no difference, in the console and through the API ──
    await go(opPage, "/admin/reconcile", '[data-testid="reconcile-run"]');
    await opPage.click('[data-testid="reconcile-run"]');
    expect(await (await opPage.waitForSelector('[data-testid="reconcile-result"]')).getAttribute("data-ok")).toBe("1");
    await snap(opPage, "money-admin-reconcile");
    const rec = await call<{ ok: boolean; differences: unknown[] }>("/api/admin/reconcile", { token: op1 });
    expect(rec).toMatchObject({ ok: true, differences: [] });

    // The user's balances and ledger as the operator sees them.
    await go(opPage, "/admin/users", '[data-testid="user-search"]');
    await opPage.fill('[data-testid="user-search"]', account);
    await opPage.click('[data-testid="user-search-go"]');
    await opPage.locator('[data-testid="user-row"]').getByText(account).click();
    await opPage.waitForSelector('[data-testid="user-balances"]');
    await opPage.locator('[data-testid="user-balances"]').getByText(groupThousands(fmt(spotUsdt).replace(/0+$/, ""))).waitFor();
    // The ledger is its own request (a skeleton until it answers): wait for its rows, not the balances'.
    await expect.poll(() => opPage.locator('[data-testid="user-ledger"] li').count()).toBeGreaterThan(5);
    await snap(opPage, "money-admin-user");

    // Every decision above is in the audit log, with its operator.
    await go(opPage, "/admin/audit", '[data-testid="audit-row"]');
    const actions = await opPage.locator('[data-testid="audit-row"]').evaluateAll((rows) => rows.map((r) => r.getAttribute("data-action")));
    for (const a of ["kyc.approve", "deposit.approve", "withdrawal.approve", "withdrawal.chain_success", "adjustment.request", "adjustment.approve", "reconcile.run"]) {
      expect(actions).toContain(a);
    }
    await snap(opPage, "money-admin-audit");

    // ── 13. The same screens in Chinese (and a few in Japanese) ──
    await setLang(page, "zh");
    for (const [route, ready, name] of [
      ["/assets", '[data-testid="asset-row-USDT"]', "assets"],
      ["/personal", '[data-testid="personal-total"]', "personal"],
      ["/recharge", '[data-testid="deposit-address-card"]', "deposit"],
      ["/recharge/log", '[data-testid="deposit-record"]', "deposit-records"],
      ["/withdrawal", '[data-testid="withdraw-summary"]', "withdraw"],
      ["/withdrawal/log", '[data-testid="withdrawal-record"]', "withdraw-records"],
      ["/transfer", '[data-testid="transfer-page"]', "transfer"],
      ["/excharge", '[data-testid="convert-summary"]', "convert"],
      ["/verifyed", '[data-testid="kyc-level-3"]', "verify"],
      ["/bank", '[data-testid="bank-current"]', "bank"],
      ["/security", '[data-testid="sec-fund"]', "security"],
      ["/password", '[data-testid="pwd-submit"]', "password"],
    ] as const) {
      await go(page, route, ready);
      expect(await page.locator('[data-testid="page-title"]').textContent()).not.toBe("");
      await snap(page, `money-zh-${name}`);
    }
    expect(await text(page, '[data-testid="page-title"]')).toBe("修改密码");
    await setLang(page, "jp");
    await go(page, "/withdrawal", '[data-testid="withdraw-summary"]');
    await snap(page, "money-jp-withdraw");
    await go(page, "/assets", '[data-testid="asset-row-USDT"]');
    await snap(page, "money-jp-assets");
    await setLang(opPage, "zh");
    await go(opPage, "/admin/deposits", '[data-testid="admin-deposits"]');
    await opPage.click('[data-testid="filter-all"]');
    await opPage.waitForSelector('[data-testid="admin-deposit"]');
    await snap(opPage, "money-zh-admin-deposits");

    expect(user.errors).toEqual([]);
    expect(op.errors).toEqual([]);
    expect(second.errors).toEqual([]);
  }, 300_000);

  it("shows an ordinary user 'no permission' at /admin and no console link; the operator gets both", async () => {
    const demo2 = await login("demo2@exchange.test", "Demo1234");
    const { page } = await openPhone(demo2);
    await go(page, "/admin", '[data-testid="no-permission"]');
    await snap(page, "money-admin-no-permission");
    await go(page, "/assets", '[data-testid="assets-page"]');
    await page.click('[data-testid="menu-button"]');
    await page.waitForSelector('[data-testid="drawer-user"]');
    expect(await page.locator('[data-testid="drawer-menu"] a[href="#/admin"]').count()).toBe(0);
    expect(await page.locator('[data-testid="drawer-menu"] a[href="#/security"]').count()).toBe(1);

    const op = await openPhone(await login("operator@exchange.test", "Operator1234"));
    await go(op.page, "/assets", '[data-testid="assets-page"]');
    await op.page.click('[data-testid="menu-button"]');
    await op.page.locator('[data-testid="drawer-menu"] a[href="#/admin"]').waitFor();
  });

  it("turns the authenticator on with a code from the app, and the address book fills the withdrawal form", async () => {
    const account = uniqueEmail("sec");
    await registerViaApi(server.baseUrl, account, "Secure2024x");
    const { page, errors } = await openPhone(await login(account, "Secure2024x"));

    await go(page, "/security/authenticator", '[data-testid="totp-start"]');
    await page.click('[data-testid="totp-start"]');
    await page.waitForSelector('[data-testid="totp-qr"]');
    const secret = await text(page, '[data-testid="totp-secret"]');
    await page.fill('[data-testid="totp-code"]', "000000");
    await page.fill('[data-testid="totp-code"]', new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30 }).generate());
    await snap(page, "money-totp-enrol");
    await page.click('[data-testid="totp-confirm"]');
    await page.locator('[data-testid="totp-state"]').getByText("The authenticator is on").waitFor();
    await snap(page, "money-totp-on");

    await go(page, "/security/addresses", '[data-testid="address-add"]');
    await page.click('[data-testid="address-add"]');
    await page.click('[data-testid="address-network-TRC20"]');
    await page.fill('[data-testid="address-input"]', "TQn9Y2khEsLJW1ChVWFMSMeRDow5KcbLSE");
    await page.fill('[data-testid="address-label"]', "my wallet");
    await page.click('[data-testid="address-save"]');
    await page.getByText("Labels and memos may contain only letters and digits").waitFor();
    await page.fill('[data-testid="address-label"]', "Ledger1");
    await page.click('[data-testid="address-save"]');
    await page.waitForSelector('[data-testid="address-row"]');
    await snap(page, "money-addresses");

    // The withdrawal form asks for the authenticator code and picks the saved address.
    await go(page, "/withdrawal", '[data-testid="withdraw-totp"]');
    await page.click('[data-testid="open-address-book"]');
    await page.locator('[data-testid="saved-address"]').getByText("Ledger1").click();
    await expect.poll(() => page.inputValue('[data-testid="withdraw-address"]')).toBe("TQn9Y2khEsLJW1ChVWFMSMeRDow5KcbLSE");
    expect(await page.locator('[data-testid="network-TRC20"]').getAttribute("aria-checked")).toBe("true");
    await snap(page, "money-withdraw-totp");

    await go(page, "/security/addresses", '[data-testid="address-row"]');
    await page.click('[data-testid="address-delete"]');
    await page.locator(".dialog").getByRole("button", { name: "Delete" }).click();
    await page.getByText("No saved addresses").waitFor();
    expect(errors).toEqual([]);
  });

  it("shows a rejected identity submission with the operator's reason and opens the form again", async () => {
    const account = uniqueEmail("kycrej");
    await registerViaApi(server.baseUrl, account, "Reject2024x");
    const token = await login(account, "Reject2024x");
    await call("/api/user/real_name", { token, body: { level: 1, name: "Blurry Photo", type: 3, card_id: "P1234567" } });
    const op = await login("operator@exchange.test", "Operator1234");
    const queue = await call<{ lists: { id: number; account: string }[] }>(`/api/admin/kyc?status=1&limit=100`, { token: op });
    const mine = queue.lists.find((k) => k.account === account);
    expect(mine).toBeDefined();
    await call(`/api/admin/kyc/${mine!.id}/reject`, { token: op, body: { reason: "The document number does not match the photo" } });

    const { page, errors } = await openPhone(token, "hk");
    await go(page, "/verifyed", '[data-testid="kyc-rejected"]');
    expect(await text(page, '[data-testid="kyc-rejected"]')).toContain("The document number does not match the photo");
    expect(await page.locator('[data-testid="kyc-level-1"]').getAttribute("data-state")).toBe("bad");
    await page.waitForSelector('[data-testid="kyc-form"]');
    await snap(page, "money-hk-verify-rejected");
    expect(errors).toEqual([]);
  });

  it("changing the password ends the session and asks to log in again", async () => {
    const account = uniqueEmail("pwd");
    await registerViaApi(server.baseUrl, account, "Before2024x");
    const token = await login(account, "Before2024x");
    const { page } = await openPhone(token);
    await go(page, "/password", '[data-testid="pwd-submit"]');
    await page.fill('[data-testid="pwd-oldpwd"]', "Before2024x");
    await page.fill('[data-testid="pwd-newpwd"]', "onlyletters");
    await page.fill('[data-testid="pwd-repwd"]', "onlyletters");
    await page.click('[data-testid="pwd-submit"]');
    await page.getByText("The password must be 8-64 characters and contain letters and digits").waitFor();
    // One of the most common leaked passwords: the server refuses it and says why.
    await page.fill('[data-testid="pwd-newpwd"]', "Password123");
    await page.fill('[data-testid="pwd-repwd"]', "Password123");
    await page.click('[data-testid="pwd-submit"]');
    await page.getByText("This password is one of the most common leaked passwords; choose another").waitFor();
    await page.fill('[data-testid="pwd-newpwd"]', "After2024x");
    await page.fill('[data-testid="pwd-repwd"]', "After2024x");
    await snap(page, "money-password");
    await page.click('[data-testid="pwd-submit"]');
    await waitForRoute(page, /^#\/login\?redirect=%2F$/);
    await page.getByText("Password changed. Please log in again.").waitFor();
    // The session ends as the password screen closes (just after the route changes).
    await page.waitForFunction(() => localStorage.getItem("token") === null);
    // The old session is dead on the server too.
    await expect(call("/api/user/info", { token })).rejects.toThrow(/999/);
    // Logging in again with the new password lands on home, not back on the password screen.
    await page.fill('input[name="account"]', account);
    await page.fill('input[name="password"]', "After2024x");
    await page.click('[data-testid="login-submit"]');
    await waitForRoute(page, /^#\/$/);
    await page.waitForSelector('[data-testid="home"]');
  });
});
