/// <reference lib="dom" />
// Functions passed to page.evaluate() run in the browser, hence the DOM types.
/**
 * C2C acceptance (issue #10), in real browsers at phone size: two new users in two browser
 * contexts. The first becomes a merchant (applies with the deposit shown; an operator approves in
 * the console), adds an Alipay receiving method with its payment code and posts a sell advert.
 * The second finds it on /legal/index, orders by total in the dialog (total = number × price),
 * chats with the merchant, pays with a proof picture; the merchant sees the message badge, reads
 * the proof and confirms receipt through the confirmation step. Both fiat accounts then hold
 * exactly what bigint arithmetic says, and the reconciliation finds no difference.
 *
 * With a 20-second payment window and appeals allowed 5 seconds after payment, an unpaid order
 * cancels itself when its countdown ends on the pay page (the coins go back to the advert), and a
 * paid order the seller does not confirm is appealed with a reason and evidence and released to
 * the buyer by an operator who sees the order, the proof and the chat.
 *
 * Identity verification and the starting funds are set up through the API (their screens have
 * their own browser tests in money.test.ts).
 */
import { afterAll, describe, expect, it } from "vitest";
import type { BrowserContext, Page } from "playwright-core";
import { dealMoneyCents, formatCents } from "../../schemas/c2c.ts";
import { formatUnits, parseUnits } from "../../schemas/money.ts";
import { newPhoneContext, snap, snapFailure } from "./browser.ts";
import { browser, server, useExchange, useServer } from "./exchange.ts";
import { apiCall, registerViaApi, uniqueEmail, uploadPicture } from "./helpers.ts";

const contexts: BrowserContext[] = [];

const call = <T>(path: string, opts: { token?: string; body?: unknown } = {}) => apiCall<T>(server.baseUrl, path, opts);

async function login(account: string, password: string): Promise<string> {
  return (await call<{ token: string }>("/api/user/login", { body: { user_string: account, password, type: 1 } })).token;
}

const upload = (token: string) => uploadPicture(server.baseUrl, token);

/** A new account, verified at level 2 by the seeded operator, with `usdt` USDT in its fiat (legal) account. */
async function makeVerifiedUser(prefix: string, realName: string, usdt: string, op: string): Promise<{ account: string; token: string }> {
  const account = uniqueEmail(prefix);
  await registerViaApi(server.baseUrl, account, "C2cTest2024");
  const token = await login(account, "C2cTest2024");
  await call("/api/user/real_name", { token, body: { level: 2, name: realName, type: 3, card_id: "P1234567", front_pic: await upload(token), reverse_pic: await upload(token), hand_pic: await upload(token) } });
  const kyc = await call<{ lists: { id: number; account: string }[] }>("/api/admin/kyc?status=1&limit=100", { token: op });
  const mine = kyc.lists.find((k) => k.account === account);
  await call(`/api/admin/kyc/${mine!.id}/approve`, { token: op, body: { reason: "" } });
  if (usdt !== "0") {
    const addresses = await call<{ list: { network: string; address: string }[] }>("/api/wallet/get_in_address", { token, body: { currency: 3, lang: "en" } });
    const to = addresses.list[0]!;
    await call("/api/wallet/charge_req", { token, body: { currency: 3, type: to.network, acc: to.address, amount: usdt, pic: await upload(token) } });
    const deposits = await call<{ lists: { id: number; account: string }[] }>("/api/admin/deposits?status=0&limit=100", { token: op });
    const dep = deposits.lists.find((d) => d.account === account);
    await call(`/api/admin/deposits/${dep!.id}/approve`, { token: op, body: { reason: "" } });
    await call("/api/wallet/change", { token, body: { number: usdt, from_field: "change", to_field: "legal", currency_id: 3 } });
  }
  return { account, token };
}

/** The USDT row of a user's fiat account: available and frozen as decimal strings. */
async function legalUsdt(token: string): Promise<{ available: string; frozen: string }> {
  const list = await call<{ legal_wallet: { balance: Record<string, unknown>[] } }>("/api/wallet/list", { token, body: {} });
  const row = list.legal_wallet.balance.find((r) => r.currency === 3)!;
  return { available: String(row.legal_balance), frozen: String(row.lock_legal_balance) };
}

const u = (v: string) => parseUnits(v, 8)!;
const FUND_PASSWORD = "246810";
const usdt = (units: bigint) => formatUnits(units, 8);

/** A phone far from Beijing: every C2C time must still read in Beijing time (the spec's zone). */
async function openPhone(token: string, lang = "en", timezoneId = "America/New_York"): Promise<{ page: Page; errors: Error[] }> {
  const context = await newPhoneContext(browser, { timezoneId });
  contexts.push(context);
  await context.addInitScript(
    ([t, l]) => {
      if (sessionStorage.getItem("seeded")) return;
      sessionStorage.setItem("seeded", "1");
      localStorage.setItem("lang", l as string);
      localStorage.setItem("token", t as string);
    },
    [token, lang] as const,
  );
  const page = await context.newPage();
  const errors: Error[] = [];
  page.on("pageerror", (err) => errors.push(err));
  return { page, errors };
}

async function go(page: Page, route: string, ready: string) {
  const url = `${server.baseUrl}/#${route}`;
  if (page.url() === url) await page.reload();
  else await page.goto(url);
  try {
    await page.waitForSelector(ready);
  } catch (err) {
    await snapFailure(page, `c2c-failed-${route.replace(/\W+/g, "-")}`);
    throw err;
  }
}

/** A picture drawn in the page (what a file picker would hand over). */
async function makeImage(page: Page, label: string): Promise<Buffer> {
  const dataUrl = await page.evaluate((text) => {
    const c = document.createElement("canvas");
    c.width = 360;
    c.height = 240;
    const ctx = c.getContext("2d")!;
    ctx.fillStyle = "#1677ff";
    ctx.fillRect(0, 0, 360, 240);
    ctx.fillStyle = "#fff";
    ctx.font = "28px sans-serif";
    ctx.fillText(text, 20, 130);
    return c.toDataURL("image/jpeg", 0.9);
  }, label);
  return Buffer.from(dataUrl.split(",")[1] ?? "", "base64");
}

useExchange();

afterAll(async () => {
  for (const c of contexts) await c.close().catch(() => undefined);
});

describe("C2C between two people", () => {
  it("a merchant approved by an operator sells USDT to a buyer who chats, pays with a proof, and is released exactly that amount", async () => {
    const op = await login("operator@exchange.test", "Operator1234");
    const seller = await makeVerifiedUser("merchant", "Zhang Wei", "3000", op);
    // Releasing escrow asks for it (issue #26).
    await call("/api/user/fund_password", { token: seller.token, body: { fund_password: FUND_PASSWORD, re_fund_password: FUND_PASSWORD, login_password: "C2cTest2024" } });
    const buyer = await makeVerifiedUser("buyer", "Li Na", "0", op);
    // The buyer's own receiving account (997 otherwise).
    await call("/api/user/cash_save", { token: buyer.token, body: { real_name: "Li Na", bank_account: "6228480402564890018", bank_name: "", bank_branch: "Main" } });
    const config = await call<{ merchant_deposit: string }>("/api/c2c/config");
    const deposit = u(config.merchant_deposit);

    // ── 1. The seller applies in the merchant centre: the deposit is shown, then frozen ──
    const m = await openPhone(seller.token);
    await go(m.page, "/legal/merchant", '[data-testid="merchant-apply"]');
    await m.page.locator('[data-testid="merchant-deposit-rule"]').getByText("1,000 USDT").waitFor();
    const shopName = `Shop ${Date.now().toString(36)}`;
    await m.page.fill('[data-testid="merchant-name"]', shopName);
    await snap(m.page, "c2c-merchant-apply");
    await m.page.click('[data-testid="merchant-apply-submit"]');
    await m.page.waitForSelector('[data-testid="merchant-pending"]');
    expect(await legalUsdt(seller.token)).toEqual({ available: usdt(u("3000") - deposit), frozen: usdt(deposit) });

    // ── 2. The operator approves it in the console ──
    const o = await openPhone(op);
    await go(o.page, "/admin/c2c-merchants", '[data-testid="admin-c2c-merchants"]');
    const application = o.page.locator(`[data-testid="admin-c2c-merchant"][data-user="${seller.account}"]`);
    await application.waitFor();
    await snap(o.page, "c2c-admin-merchants");
    await application.locator('[data-testid="c2c-merchant-approve"]').click();
    await o.page.fill('[data-testid="decision-reason"]', "Identity and deposit checked");
    await o.page.click('[data-testid="decision-confirm"]');
    await application.waitFor({ state: "detached" });

    // ── 3. The merchant adds Alipay with a payment code, then posts a sell advert ──
    await go(m.page, "/legal/payment", '[data-testid="pm-add"]');
    await m.page.click('[data-testid="pm-add"]');
    await m.page.click('[data-testid="pm-save"]');
    await m.page.getByText("Upload the payment code").waitFor();
    await m.page.fill('[data-testid="pm-account"]', "zhangwei@alipay.test");
    await m.page.setInputFiles('[data-testid="pm-qr-input"]', { name: "qr.jpg", mimeType: "image/jpeg", buffer: await makeImage(m.page, "ALIPAY QR") });
    await m.page.waitForSelector('[data-testid="pm-qr-done"]');
    await m.page.click('[data-testid="pm-save"]');
    await m.page.waitForSelector('[data-testid="pm-item"][data-kind="alipay"]');
    // A typo in the account is corrected in place; the payment code is kept.
    await m.page.click('[data-testid="pm-edit"]');
    await m.page.fill('[data-testid="pm-account"]', "zhang.wei@alipay.test");
    await m.page.click('[data-testid="pm-save"]');
    await m.page.locator('[data-testid="pm-item"][data-kind="alipay"]').getByText("zhang.wei@alipay.test").waitFor();
    await m.page.locator('[data-testid="pm-item"][data-kind="alipay"] img').waitFor();
    await snap(m.page, "c2c-payment-settings");

    await go(m.page, "/legal/merchant", '[data-testid="merchant-approved"]');
    await m.page.click('[data-testid="advert-new"]');
    await m.page.waitForSelector('[data-testid="advert-form"]');
    await m.page.fill('[data-testid="advert-price"]', "7.15");
    await m.page.fill('[data-testid="advert-amount"]', "1000");
    await m.page.fill('[data-testid="advert-min"]', "100");
    await m.page.fill('[data-testid="advert-max"]', "9000");
    await m.page.click('[data-testid="advert-submit"]');
    // The maximum may not exceed the advert's value (1000 × 7.15 = 7,150.00), and a method is needed.
    await m.page.getByText("The maximum is above the advert's value (¥7,150.00)").waitFor();
    await m.page.getByText("Choose at least one receiving method").waitFor();
    await m.page.fill('[data-testid="advert-max"]', "7150");
    await m.page.click('[data-testid="advert-kind-alipay"]');
    await snap(m.page, "c2c-advert-form");
    await m.page.click('[data-testid="advert-submit"]');
    await m.page.waitForSelector('[data-testid="my-advert"][data-status="1"]');
    expect(await legalUsdt(seller.token)).toEqual({ available: usdt(u("2000") - deposit), frozen: usdt(deposit + u("1000")) });

    // ── 4. The buyer finds the advert and orders by total: 100.10 CNY at 7.15 buys exactly 14 USDT ──
    const b = await openPhone(buyer.token);
    await go(b.page, "/legal/index", '[data-testid="c2c-advert"]');
    const advert = b.page.locator('[data-testid="c2c-advert"]').filter({ hasText: shopName });
    await advert.waitFor();
    expect(await advert.locator('[data-testid="advert-price"]').textContent()).toBe("¥7.15");
    expect(await advert.locator('[data-testid="advert-limits"]').textContent()).toBe("¥100.00 – ¥7,150.00");
    await snap(b.page, "c2c-market");
    await advert.locator('[data-testid="advert-take"]').click();
    const dialog = b.page.locator('[data-testid="c2c-order-dialog"]');
    await dialog.waitFor();
    await dialog.locator('[data-testid="dialog-input"]').fill("10");
    await dialog.locator('[data-testid="c2c-order-submit"]').click();
    await dialog.getByText("Below this advert's minimum of ¥100.00").waitFor();
    await dialog.locator('[data-testid="dialog-by-total"]').click();
    await dialog.locator('[data-testid="dialog-input"]').fill("100.10");
    expect(await dialog.locator('[data-testid="dialog-number"]').textContent()).toBe("14 USDT");
    expect(await dialog.locator('[data-testid="dialog-total"]').textContent()).toBe("¥100.10");
    await snap(b.page, "c2c-order-dialog");
    await dialog.locator('[data-testid="c2c-order-submit"]').click();
    await b.page.waitForSelector('[data-testid="c2c-pay"]');
    const orderId = Number(await b.page.locator('[data-testid="c2c-pay"]').getAttribute("data-id"));
    const qty = u("14");
    const cents = dealMoneyCents(parseUnits("14", 6)!, 6, 715n);
    expect(await b.page.locator('[data-testid="pay-total"]').textContent()).toBe(`¥${formatCents(cents)}`);
    expect(await b.page.locator('[data-testid="pay-countdown"]').textContent()).toMatch(/^1[45]:\d\d$/);
    await b.page.locator('[data-testid="pay-method"][data-kind="alipay"] [data-testid="pay-method-account"]').getByText("zhang.wei@alipay.test").waitFor();
    await b.page.locator('[data-testid="pay-method"] img').first().waitFor(); // the payment code, fetched with the session
    await snap(b.page, "c2c-pay");
    // The seller's verified name is shown: the money goes to an account in that name.
    expect(await b.page.locator('[data-testid="pay-real-name"]').textContent()).toBe("Zhang Wei");
    await b.page.click('[data-testid="pay-confirm"]');
    await b.page.getByText("Upload the payment proof first").first().waitFor();
    await b.page.setInputFiles('[data-testid="pay-proof-input"]', { name: "receipt.jpg", mimeType: "image/jpeg", buffer: await makeImage(b.page, "PAID 100.10 CNY") });
    await b.page.waitForSelector('[data-testid="pay-proof-done"]');

    // ── 5. They chat: the merchant sees the new-message badge on the order ──
    await b.page.click('[data-testid="order-chat"]');
    await b.page.waitForSelector('[data-testid="c2c-chat"]');
    await b.page.fill('[data-testid="chat-input"]', "Paying by Alipay now");
    await b.page.click('[data-testid="chat-send"]');
    await b.page.locator('[data-testid="chat-message"][data-sender="me"]').getByText("Paying by Alipay now").waitFor();

    await go(m.page, "/legal/merchant?tab=orders", `[data-testid="c2c-order"][data-id="${orderId}"]`);
    await m.page.locator(`[data-testid="c2c-order"][data-id="${orderId}"] [data-testid="order-unread"]`).waitFor();
    await snap(m.page, "c2c-merchant-orders");
    await go(m.page, `/legal/chat?id=${orderId}`, '[data-testid="chat-message"][data-sender="counterparty"]');
    await m.page.fill('[data-testid="chat-input"]', "Received your message, waiting for the money");
    await m.page.click('[data-testid="chat-send"]');
    await m.page.locator('[data-testid="chat-message"][data-sender="me"]').waitFor();
    await b.page.locator('[data-testid="chat-message"][data-sender="counterparty"]').getByText("waiting for the money").waitFor();
    await snap(b.page, "c2c-chat");

    // ── 6. Back from the chat, the proof chosen before is still there; "I have paid" asks first ──
    await b.page.goBack();
    await b.page.waitForSelector('[data-testid="pay-proof"][data-state="done"] img');
    await snap(b.page, "c2c-pay-proof-kept");
    await b.page.click('[data-testid="pay-confirm"]');
    const ask = b.page.getByRole("alertdialog");
    await ask.getByText("Have you paid?").waitFor();
    expect(await ask.locator(".dialog-body").textContent()).toContain("sent ¥100.10 to Zhang Wei from an account in your own verified name");
    await snap(b.page, "c2c-pay-confirm");
    await ask.getByRole("button", { name: "Not yet" }).click();
    await ask.waitFor({ state: "detached" });
    expect(await call<{ is_sure: number }>(`/api/legal_deal?id=${orderId}`, { token: buyer.token })).toMatchObject({ is_sure: 0 });
    await b.page.click('[data-testid="pay-confirm"]');
    await ask.getByRole("button", { name: "Yes, I have paid" }).click();
    await b.page.waitForSelector('[data-testid="c2c-show"][data-state="3"]');
    await snap(b.page, "c2c-show-paid");

    // ── 7. The merchant reads the proof and confirms receipt through the confirmation step ──
    await go(m.page, `/legal/show?id=${orderId}`, '[data-testid="c2c-show"][data-state="3"]');
    await m.page.locator('[data-testid="show-proof"] img').waitFor();
    expect(await m.page.locator('[data-testid="show-counterparty"]').textContent()).toMatch(/^L\*+$/);
    // The seller checks the payment came from the buyer's verified name.
    expect(await m.page.locator('[data-testid="show-real-name"]').textContent()).toBe("Li Na");
    await m.page.locator('[data-testid="show-check-payer"]').waitFor();
    // Times in Beijing time on a phone in New York, like the API's own format_create_time, labelled UTC+8 (the one time rule).
    const seen = await call<{ format_create_time: string }>(`/api/legal_deal?id=${orderId}`, { token: seller.token });
    expect(await m.page.locator('[data-testid="show-created"]').textContent()).toBe(`${seen.format_create_time} UTC+8`);
    // The seller is spoken to as the seller, and the payment window is stated.
    expect(await m.page.locator('[data-testid="show-note"]').textContent()).toBe("The buyer says they paid. Check your account, then release.");
    expect(await m.page.locator('[data-testid="show-window"]').textContent()).toBe("15 min");
    await snap(m.page, "c2c-show-merchant-paid");
    await m.page.click('[data-testid="show-confirm-received"]');
    const confirm = m.page.locator('[data-testid="confirm-received-dialog"]');
    await confirm.waitFor();
    expect(await confirm.locator('[data-testid="confirm-received-go"]').isDisabled()).toBe(true);
    await confirm.locator('[data-testid="confirm-received-check"]').check({ force: true });
    // Releasing needs the fund password: a wrong one is refused in words and moves nothing.
    await confirm.locator('[data-testid="confirm-received-go"]').click();
    await confirm.locator('[data-testid="release-error"]').getByText("Enter your fund password to release the coins").waitFor();
    await confirm.locator('[data-testid="release-password"]').fill("000000");
    await confirm.locator('[data-testid="confirm-received-go"]').click();
    await confirm.locator('[data-testid="release-error"]').getByText("The fund password is wrong").waitFor();
    expect(await call<{ is_sure: number }>(`/api/legal_deal?id=${orderId}`, { token: buyer.token })).toMatchObject({ is_sure: 3 });
    await confirm.locator('[data-testid="release-password"]').fill(FUND_PASSWORD);
    await snap(m.page, "c2c-confirm-received");
    await confirm.locator('[data-testid="confirm-received-go"]').click();
    await m.page.waitForSelector('[data-testid="c2c-show"][data-state="1"]');
    await b.page.waitForSelector('[data-testid="c2c-show"][data-state="1"]'); // the buyer's screen follows by itself
    await snap(b.page, "c2c-show-finished");
    // A finished order no longer shows the other's real name.
    expect(await m.page.locator('[data-testid="show-real-name"]').count()).toBe(0);
    expect(await b.page.locator('[data-testid="show-real-name"]').count()).toBe(0);

    // ── 8. Balances moved exactly ──
    expect(await legalUsdt(buyer.token)).toEqual({ available: usdt(qty), frozen: usdt(0n) });
    expect(await legalUsdt(seller.token)).toEqual({ available: usdt(u("2000") - deposit), frozen: usdt(deposit + u("1000") - qty) });
    await go(b.page, "/legal/order", `[data-testid="c2c-order"][data-id="${orderId}"][data-state="1"]`);
    expect(await b.page.locator(`[data-testid="c2c-order"][data-id="${orderId}"] [data-testid="order-total"]`).textContent()).toBe("¥100.10");
    const reconcile = await call<{ ok: boolean }>("/api/admin/reconcile", { token: op });
    expect(reconcile.ok).toBe(true);

    expect(m.errors).toEqual([]);
    expect(b.errors).toEqual([]);
    expect(o.errors).toEqual([]);
  });
  it("demo1 buys from the demo merchant: the dialog keeps the amount past a minute and follows a new price; the merchant is told, sees demo1's verified name, and demo1 is told of the release", async () => {
    const merchantToken = await login("merchant@exchange.test", "Merchant1234");
    const buyerToken = await login("demo1@exchange.test", "Demo1234");
    await call("/api/user/cash_save", { token: buyerToken, body: { real_name: "Demo One", bank_account: "6228480402564890018", bank_name: "", bank_branch: "Main" } });
    const ad = await call<{ id: number }>("/api/c2c/adverts", { token: merchantToken, body: { type: "sell", price: "7.00", total_number: "100", min_money: "100", max_money: "700", pay_kinds: ["alipay"] } });

    // The merchant watches their orders in Chinese on another phone.
    const m = await openPhone(merchantToken, "zh");
    await go(m.page, "/legal/merchant?tab=orders", '[data-testid="c2c-nav-merchant"]');

    // ── demo1 types an amount; a minute and a half later the dialog is still open with it ──
    const b = await openPhone(buyerToken);
    await b.page.clock.install();
    await go(b.page, "/legal/index", `[data-testid="c2c-advert"][data-id="${ad.id}"]`);
    await b.page.locator(`[data-testid="c2c-advert"][data-id="${ad.id}"] [data-testid="advert-take"]`).click();
    const dialog = b.page.locator('[data-testid="c2c-order-dialog"]');
    await dialog.locator('[data-testid="dialog-input"]').fill("20");
    expect(await dialog.locator('[data-testid="dialog-total"]').textContent()).toBe("¥140.00");
    // What ordering needs (the verification and a receiving account) has loaded before the clock is
    // moved: on a loaded machine those answers could come after it, and the button stayed disabled.
    await dialog.locator('[data-testid="c2c-order-submit"]:not([disabled])').waitFor();
    await b.page.clock.fastForward(90_000);
    await dialog.waitFor();
    expect(await dialog.locator('[data-testid="dialog-input"]').inputValue()).toBe("20");

    // ── The merchant reprices the advert: the open dialog shows it in place and keeps the amount ──
    await call(`/api/c2c/adverts/${ad.id}/off`, { token: merchantToken, body: {} });
    await call(`/api/c2c/adverts/${ad.id}/edit`, { token: merchantToken, body: { price: "7.10", min_money: "100", max_money: "710", pay_kinds: ["alipay"] } });
    await call(`/api/c2c/adverts/${ad.id}/on`, { token: merchantToken, body: {} });
    await b.page.clock.fastForward(16_000); // the market list's refresh
    await dialog.locator('[data-testid="dialog-repriced"]').waitFor();
    expect(await dialog.locator('[data-testid="dialog-price"]').textContent()).toBe("¥7.10");
    expect(await dialog.locator('[data-testid="dialog-input"]').inputValue()).toBe("20");
    expect(await dialog.locator('[data-testid="dialog-total"]').textContent()).toBe("¥142.00");
    await snap(b.page, "c2c-dialog-repriced");
    await dialog.locator('[data-testid="c2c-order-submit"]').click();
    await b.page.waitForSelector('[data-testid="c2c-pay"]');
    const orderId = Number(await b.page.locator('[data-testid="c2c-pay"]').getAttribute("data-id"));
    expect(await b.page.locator('[data-testid="pay-total"]').textContent()).toBe("¥142.00");

    // ── The merchant's list shows the order by itself, with demo1's verified name; so does an inbox item ──
    const row = m.page.locator(`[data-testid="c2c-order"][data-id="${orderId}"]`);
    await row.waitFor();
    expect(await row.locator('[data-testid="order-counterparty"]').textContent()).toBe("Demo One");
    const inbox = await call<{ data: { kind: string; link: string; title: string }[] }>("/api/notifications", { token: merchantToken });
    expect(inbox.data[0]).toMatchObject({ kind: "c2c_new_order", link: `/legal/show?id=${orderId}` });
    await snap(m.page, "c2c-merchant-orders-zh");
    await go(m.page, `/legal/show?id=${orderId}`, '[data-testid="c2c-show"][data-state="0"]');
    expect(await m.page.locator('[data-testid="show-real-name"]').textContent()).toBe("Demo One");
    await snap(m.page, "c2c-show-merchant-zh");

    // ── demo1 pays, the merchant releases: demo1 is told ──
    await call("/api/user_legal_pay", { token: buyerToken, body: { id: orderId, pay_orders_img: await upload(buyerToken) } });
    await m.page.waitForSelector('[data-testid="c2c-show"][data-state="3"]');
    await call("/api/legal_deal_user_sure", { token: merchantToken, body: { id: orderId, password: "135790" } });
    await b.page.waitForSelector('[data-testid="c2c-show"][data-state="1"]');
    const told = await call<{ data: { kind: string; link: string }[] }>("/api/notifications", { token: buyerToken });
    expect(told.data.filter((n) => n.link === `/legal/show?id=${orderId}`).map((n) => n.kind)).toEqual(["c2c_released"]);
    expect(m.errors).toEqual([]);
    expect(b.errors).toEqual([]);
  });
});

describe("C2C's clock and appeals", () => {
  // Short windows, and the dev clock (worker/lib/clock.ts): the test moves the server's clock and the
  // buyer's phone's (Playwright's) on together instead of waiting for the windows to pass.
  useServer({ C2C_PAY_WINDOW_SECONDS: "20", C2C_APPEAL_AFTER_SECONDS: "5", DEV_CLOCK: "on" });

  it("an unpaid order cancels itself when the window ends, and an appealed one is released by an operator", async () => {
    const op = await login("operator@exchange.test", "Operator1234");
    const buyer = await makeVerifiedUser("appeal", "Chen Jie", "0", op);
    await call("/api/user/cash_save", { token: buyer.token, body: { real_name: "Chen Jie", bank_account: "6228480402564890018", bank_name: "", bank_branch: "Main" } });
    const market = await call<{ lists: { id: number; surplus_number: string; seller_name: string }[] }>("/api/new/legal_deal/index?type=sell");
    const advert = market.lists[0]!;
    const surplus = async () => (await call<{ lists: { id: number; surplus_number: string }[] }>("/api/new/legal_deal/index?type=sell")).lists.find((a) => a.id === advert.id)!.surplus_number;
    const before = await surplus();

    // ── 1. Left unpaid: the pay page counts down from 20 s and the order cancels itself ──
    const b = await openPhone(buyer.token);
    await b.page.clock.install();
    /** Time passes for the server and the buyer's phone alike (the phone's clock runs on by itself too). */
    const pass = async (seconds: number) => {
      await call("/api/dev/clock", { body: { advance_s: seconds } });
      await b.page.clock.fastForward(seconds * 1000);
    };
    await go(b.page, "/legal/index", `[data-testid="c2c-advert"][data-id="${advert.id}"]`);
    await b.page.locator(`[data-testid="c2c-advert"][data-id="${advert.id}"] [data-testid="advert-take"]`).click();
    await b.page.fill('[data-testid="dialog-input"]', "20");
    await b.page.click('[data-testid="c2c-order-submit"]');
    await b.page.waitForSelector('[data-testid="c2c-pay"]');
    expect(await b.page.locator('[data-testid="pay-countdown"]').textContent()).toMatch(/^00:[012]\d$/);
    expect(await surplus()).toBe(usdt(u(before) - u("20")));
    await pass(20);
    await b.page.waitForSelector('[data-testid="c2c-show"][data-state="2"]', { timeout: 120_000 });
    await b.page.locator('[data-testid="show-note"]').getByText("the payment time ran out").waitFor();
    await snap(b.page, "c2c-expired");
    expect(await surplus()).toBe(before);

    // ── 2. Paid but not confirmed: after 5 s the buyer appeals with a reason and evidence ──
    const placed = await call<{ data: { id: number } }>("/api/do_legal_deal", { token: buyer.token, body: { id: advert.id, value: "15" } });
    const orderId = placed.data.id;
    await call(`/api/c2c/orders/${orderId}/messages`, { token: buyer.token, body: { text: "I paid, please release" } });
    await call("/api/user_legal_pay", { token: buyer.token, body: { id: orderId, pay_orders_img: await upload(buyer.token) } });
    await go(b.page, `/legal/show?id=${orderId}`, '[data-testid="c2c-show"][data-state="3"]');
    await pass(5);
    await b.page.click('[data-testid="show-appeal-link"]'); // appears by itself once the 5 s have passed
    await b.page.waitForSelector('[data-testid="c2c-appeal"]');
    await b.page.click('[data-testid="appeal-submit"]');
    await b.page.getByText("Say what went wrong").waitFor();
    await b.page.fill('[data-testid="appeal-reason"]', "I paid 108.00 CNY by bank transfer, the seller does not answer");
    await b.page.setInputFiles('[data-testid="appeal-evidence-0-input"]', { name: "bank.jpg", mimeType: "image/jpeg", buffer: await makeImage(b.page, "BANK 108.00") });
    await b.page.waitForSelector('[data-testid="appeal-evidence-0-done"]');
    await snap(b.page, "c2c-appeal");
    await b.page.click('[data-testid="appeal-submit"]');
    await b.page.waitForSelector('[data-testid="show-appeal"]');
    expect(await b.page.locator('[data-testid="order-state"]').textContent()).toBe("Under appeal");
    // The status line tells the appeal, not "the seller will release".
    expect(await b.page.locator('[data-testid="show-note"]').textContent()).toMatch(/^Under appeal: an operator is reviewing the order/);

    // ── 3. The operator reads the order, the proof and the chat, and releases to the buyer ──
    const o = await openPhone(op);
    await go(o.page, "/admin/c2c-appeals", '[data-testid="admin-c2c-appeals"]');
    const item = o.page.locator(`[data-testid="admin-c2c-appeal"][data-order="${orderId}"]`);
    await item.waitFor();
    await item.locator('[data-testid="c2c-appeal-open"]').click();
    await item.locator('[data-testid="c2c-appeal-proof"] img').waitFor();
    await item.locator('[data-testid="c2c-appeal-chat"]').getByText("I paid, please release").waitFor();
    await snap(o.page, "c2c-admin-appeal");
    // At 390 px the section nav scrolls sideways: the active C2C section is scrolled into view,
    // and the order number has a row of its own that wraps instead of widening the card.
    const active = await o.page.locator('[data-testid="admin-nav-c2c-appeals"]').boundingBox();
    expect(active!.x).toBeGreaterThanOrEqual(0);
    expect(active!.x + active!.width).toBeLessThanOrEqual(390);
    const placedOrder = await call<{ ordernumber: string }>(`/api/legal_deal?id=${orderId}`, { token: buyer.token });
    expect(await item.locator('[data-testid="c2c-appeal-order-no"]').textContent()).toBe(placedOrder.ordernumber);
    expect(await item.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
    // The operator writes to both parties in the order's chat; the buyer reads it as the operator's.
    await item.locator('[data-testid="c2c-appeal-message-send"]').click();
    await item.getByText("Write a message").waitFor();
    await item.locator('[data-testid="c2c-appeal-message-text"]').fill("Please both upload your bank statements");
    await item.locator('[data-testid="c2c-appeal-message-send"]').click();
    await item.locator('[data-testid="c2c-appeal-chat"]').getByText("Please both upload your bank statements").waitFor();
    expect(await item.locator('[data-testid="c2c-appeal-message-text"]').inputValue()).toBe("");
    await snap(o.page, "c2c-admin-appeal-message");
    const chat = await call<{ lists: { sender: string; text: string }[] }>(`/api/c2c/orders/${orderId}/messages`, { token: buyer.token });
    expect(chat.lists).toContainEqual(expect.objectContaining({ sender: "operator", text: "Please both upload your bank statements" }));
    const zh = await openPhone(op, "zh");
    await go(zh.page, "/admin/c2c-appeals", `[data-testid="admin-c2c-appeal"][data-order="${orderId}"]`);
    const zhItem = zh.page.locator(`[data-testid="admin-c2c-appeal"][data-order="${orderId}"]`);
    await zhItem.locator('[data-testid="c2c-appeal-open"]').click();
    await zhItem.locator('[data-testid="c2c-appeal-message"]').waitFor();
    await zhItem.locator('[data-testid="c2c-appeal-message"]').scrollIntoViewIfNeeded();
    await snap(zh.page, "c2c-admin-appeal-zh");
    expect(zh.errors).toEqual([]);
    await item.locator('[data-testid="c2c-appeal-release"]').click();
    await o.page.fill('[data-testid="decision-reason"]', "Bank transfer confirmed by the statement");
    await o.page.click('[data-testid="decision-confirm"]');
    await o.page.locator('[data-testid="decision-dialog"]').waitFor({ state: "detached" });

    await b.page.waitForSelector('[data-testid="c2c-show"][data-state="1"]');
    await b.page.locator('[data-testid="show-appeal"]').getByText("Bank transfer confirmed by the statement").waitFor();
    expect(await legalUsdt(buyer.token)).toEqual({ available: usdt(u("15")), frozen: usdt(0n) });
    expect(await surplus()).toBe(usdt(u(before) - u("15")));
    expect((await call<{ ok: boolean }>("/api/admin/reconcile", { token: op })).ok).toBe(true);
    expect(b.errors).toEqual([]);
    expect(o.errors).toEqual([]);
  });

  it("tells a user whose bank card is in another name that it cannot be used for C2C", async () => {
    const op = await login("operator@exchange.test", "Operator1234");
    const user = await makeVerifiedUser("card", "Zhou Min", "0", op);
    await call("/api/user/cash_save", { token: user.token, body: { real_name: "Zhou Ming", bank_account: "6228480402564890018", bank_name: "", bank_branch: "Main" } });
    for (const lang of ["en", "zh"]) {
      const p = await openPhone(user.token, lang);
      await go(p.page, "/legal/payment", '[data-testid="pm-bank-mismatch-note"]');
      await p.page.locator('[data-testid="pm-bank-mismatch"]').waitFor();
      if (lang === "en") await p.page.getByText("The card holder is not your verified name").waitFor();
      await snap(p.page, `c2c-payment-bank-mismatch-${lang}`);
      expect(p.errors).toEqual([]);
    }
    await call("/api/user/cash_save", { token: user.token, body: { real_name: "Zhou Min", bank_account: "6228480402564890018", bank_name: "", bank_branch: "Main" } });
    const p = await openPhone(user.token);
    await go(p.page, "/legal/payment", '[data-testid="pm-bank"] .num');
    expect(await p.page.locator('[data-testid="pm-bank-mismatch-note"]').count()).toBe(0);
  });

  it("a merchant edits an advert that is off the shelf: new price and limits, the same coins", async () => {
    const token = await login("merchant@exchange.test", "Merchant1234");
    const ad = await call<{ id: number }>("/api/c2c/adverts", { token, body: { type: "buy", price: "7.00", total_number: "100", min_money: "100", max_money: "700", pay_kinds: ["alipay"] } });
    await call(`/api/c2c/adverts/${ad.id}/off`, { token, body: {} });
    for (const lang of ["zh", "en"]) {
      const p = await openPhone(token, lang);
      await go(p.page, "/legal/merchant", `[data-testid="my-advert"][data-id="${ad.id}"]`);
      await p.page.locator(`[data-testid="my-advert"][data-id="${ad.id}"] [data-testid="advert-edit"]`).click();
      await p.page.waitForSelector('[data-testid="advert-edit-note"]');
      expect(await p.page.locator('[data-testid="advert-amount"]').isDisabled()).toBe(true);
      await snap(p.page, `c2c-advert-edit-${lang}`);
      if (lang === "zh") continue;
      await p.page.fill('[data-testid="advert-price"]', "6.95");
      await p.page.fill('[data-testid="advert-min"]', "200");
      await p.page.fill('[data-testid="advert-max"]', "600");
      await p.page.click('[data-testid="advert-submit"]');
      await p.page.waitForSelector(`[data-testid="my-advert"][data-id="${ad.id}"]`);
      expect(p.errors).toEqual([]);
    }
    const mine = await call<{ lists: { id: number; price: string; min_money: string; max_money: string; surplus_number: string; status: number }[] }>("/api/c2c/adverts/mine", { token });
    expect(mine.lists.find((a) => a.id === ad.id)).toMatchObject({ price: "6.95", min_money: "200.00", max_money: "600.00", surplus_number: "100.00000000", status: 2 });
    await call(`/api/c2c/adverts/${ad.id}/withdraw`, { token, body: {} });
  });
});
