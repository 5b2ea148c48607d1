/**
 * Screens that hid facts (issue #16 §3), tried at 390×844 as a user and an operator would:
 * whole prices and volumes with their unit on Markets and Home; the network of a coin other than
 * USDT on the withdrawal form and in the records; the operator's withdrawal dialogs with the
 * destination and a required transaction id; an audit log whose long transaction id does not
 * widen the page; and an overview that counts C2C appeals and merchant applications.
 */
import { describe, expect, it } from "vitest";
import type { BrowserContext, Page } from "playwright-core";
import { newPhoneContext, snap, VIEWPORT } from "./browser.ts";
import { browser, server, useExchange } from "./exchange.ts";
import { waitForRoute } from "./helpers.ts";

async function call<T>(path: string, opts: { token?: string; body?: unknown } = {}): Promise<T> {
  const headers: Record<string, string> = { "content-type": "application/json", lang: "en" };
  if (opts.token) headers.authorization = opts.token;
  const res = await fetch(`${server.baseUrl}${path}`, { method: opts.body === undefined ? "GET" : "POST", headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
  const json = (await res.json()) as { type: string; message: T };
  if (json.type !== "ok") throw new Error(`${path}: ${JSON.stringify(json)}`);
  return json.message;
}

/** The "new" envelope ({status, data}) of the paged lists. */
async function callNew<T>(path: string, token: string): Promise<T> {
  const res = await fetch(`${server.baseUrl}${path}`, { headers: { authorization: token, lang: "en" } });
  const json = (await res.json()) as { status: number; data: T };
  if (json.status !== 1) throw new Error(`${path}: ${JSON.stringify(json)}`);
  return json.data;
}

const login = async (account: string, password: string) => (await call<{ token: string }>("/api/user/login", { body: { user_string: account, password, type: 1 } })).token;

useExchange();

async function openAs(locale: string, token: string | null): Promise<{ context: BrowserContext; page: Page; errors: Error[] }> {
  const context = await newPhoneContext(browser);
  await context.addInitScript(
    ([l, t]) => {
      if (sessionStorage.getItem("seeded")) return;
      sessionStorage.setItem("seeded", "1");
      localStorage.setItem("lang", l as string);
      if (t) localStorage.setItem("token", t as string);
    },
    [locale, token] as const,
  );
  const page = await context.newPage();
  const errors: Error[] = [];
  page.on("pageerror", (err) => errors.push(err));
  return { context, page, errors };
}

/** True when the element shows all of its text (nothing cut or ellipsised). */
const whole = (page: Page, selector: string) =>
  page.locator(selector).first().evaluate((el) => el.scrollWidth <= el.clientWidth && el.getBoundingClientRect().right <= window.innerWidth);

const pageWidth = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth);

describe("markets", () => {
  it("shows whole prices and 24 h volumes with their unit on Markets and Home, in English and Chinese", async () => {
    // A seven-figure price with its decimals and a nine-figure volume: the widest a row has to hold.
    const quotes = await call<{ id: number; name: string; quotation: Record<string, unknown>[] }[]>("/api/currency/quotation_new");
    const wide = quotes.map((g) => ({
      ...g,
      quotation: g.quotation.map((q, i) => (i === 0 ? { ...q, now_price: "1234567.12", change: "-12.34", quote_volume: "123456789.50" } : { ...q, now_price: "64520.12", change: "1.25", quote_volume: "5220.00" })),
    }));
    // Home reads its rows from its own call: a real trade at a seven-figure price (0.001 BTC).
    const seller = await login("demo1@exchange.test", "Demo1234");
    const buyer = await login("demo2@exchange.test", "Demo1234");
    await call("/api/transaction/walletOut", { token: seller, body: { currency_id: 1, legal_id: 3, price: "1234567.12", num: "0.001", mode: 2 } });
    await call("/api/transaction/walletIn", { token: buyer, body: { currency_id: 1, legal_id: 3, price: "1234567.12", num: "0.001", mode: 2 } });
    for (const locale of ["en", "zh"]) {
      const { context, page, errors } = await openAs(locale, seller);
      await page.route("**/api/currency/quotation_new*", (route) => route.fulfill({ contentType: "application/json", body: JSON.stringify({ type: "ok", message: wide }) }));
      await page.goto(`${server.baseUrl}/#/quotations`);
      await page.waitForSelector('[data-testid="quote-price"]');
      expect((await page.locator('[data-testid="quote-price"]').first().textContent())?.trim()).toBe("1,234,567.12");
      expect(await whole(page, '[data-testid="quote-price"]')).toBe(true);
      expect((await page.locator('[data-testid="quote-volume"]').first().textContent())?.trim()).toMatch(/ 123\.45M USDT$/);
      expect(await whole(page, '[data-testid="quote-volume"]')).toBe(true);
      expect((await page.locator('[data-testid="quote-volume"]').nth(1).textContent())?.trim()).toMatch(/ 5\.22K USDT$/);
      expect(await pageWidth(page)).toBe(VIEWPORT.width);
      await snap(page, `facts-quotations-${locale}`);

      await page.unroute("**/api/currency/quotation_new*");
      await page.goto(`${server.baseUrl}/#/`);
      const btc = page.locator('[data-testid="market-row"]').first();
      await btc.scrollIntoViewIfNeeded();
      await page.waitForFunction(() => document.querySelector('[data-testid="market-price"]')?.textContent?.trim() === "1,234,567.12");
      expect(await whole(page, '[data-testid="market-price"]')).toBe(true);
      expect((await page.locator('[data-testid="market-volume"]').first().textContent())?.trim()).toMatch(/ 1\.23K USDT$/);
      expect(await whole(page, '[data-testid="market-volume"]')).toBe(true);
      expect(await pageWidth(page)).toBe(VIEWPORT.width);
      await snap(page, `facts-home-markets-${locale}`);
      expect(errors).toEqual([]);
      await context.close();
    }
  });
});

describe("withdrawals of a coin and the operator's console", () => {
  it("shows BTC's network to the user and the destination to the operator, asks for the transaction id, and keeps the audit log within the screen", async () => {
    const user = await login("demo2@exchange.test", "Demo1234");
    const op = await login("operator@exchange.test", "Operator1234");
    await call("/api/user/fund_password", { token: user, body: { fund_password: "135790", re_fund_password: "135790", login_password: "Demo1234" } });

    // The form names the chain a BTC withdrawal goes out on.
    const u = await openAs("en", user);
    await u.page.goto(`${server.baseUrl}/#/withdrawal`);
    await u.page.waitForSelector('[data-testid="withdraw-summary"]');
    await u.page.selectOption('[data-testid="withdraw-coin"]', "1");
    await u.page.waitForSelector('[data-testid="withdraw-network"]');
    expect((await u.page.locator('[data-testid="withdraw-network"]').textContent())?.replace(/\s+/g, " ")).toContain("Bitcoin");
    await snap(u.page, "facts-withdraw-btc-en");

    const address = "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq";
    const sent = await call<{ id: number }>("/api/wallet/out", { token: user, body: { currency: 1, address, number: "0.01", password: "135790" } });
    await u.page.goto(`${server.baseUrl}/#/withdrawal/log`);
    const record = u.page.locator('[data-testid="withdrawal-record"]').first();
    await record.waitFor();
    expect((await record.textContent()) ?? "").toContain("BTC (Bitcoin)");
    await snap(u.page, "facts-withdraw-record-en");
    expect(u.errors).toEqual([]);
    await u.context.close();

    // The operator sees where the coins go before approving.
    const o = await openAs("en", op);
    await o.page.goto(`${server.baseUrl}/#/admin/withdrawals`);
    const row = o.page.locator(`[data-testid="admin-withdrawal"][data-id="${sent.id}"]`);
    await row.waitFor();
    await row.locator('[data-testid="withdrawal-approve"]').click();
    const dialog = o.page.locator('[data-testid="decision-dialog"]');
    await dialog.waitFor();
    expect(await dialog.locator('[data-testid="decision-address"]').textContent()).toBe(address);
    expect(await dialog.locator('[data-testid="decision-network"]').textContent()).toBe("Bitcoin");
    expect(await dialog.locator('[data-testid="decision-amount"]').textContent()).toBe("0.01 BTC");
    expect(await dialog.locator('[data-testid="decision-fee"]').textContent()).toBe("0.0005 BTC");
    await snap(o.page, "facts-op-approve-en");
    await dialog.locator('[data-testid="decision-confirm"]').click();
    await dialog.waitFor({ state: "detached" });

    // "Chain success" needs the transaction id: an empty one is refused in the dialog.
    await o.page.click('[data-testid="filter-1"]');
    const approved = o.page.locator(`[data-testid="admin-withdrawal"][data-id="${sent.id}"]`);
    await approved.locator('[data-testid="withdrawal-chain-success"]').click();
    await dialog.waitFor();
    await dialog.locator('[data-testid="decision-confirm"]').click();
    await dialog.getByText("Enter the chain transaction id of this withdrawal").waitFor();
    const txid = "f".repeat(64) + "0123456789abcdef".repeat(4);
    await dialog.locator('[data-testid="decision-txid"]').fill(txid);
    await snap(o.page, "facts-op-chain-success-en");
    await dialog.locator('[data-testid="decision-confirm"]').click();
    await dialog.waitFor({ state: "detached" });
    const log = await callNew<{ lists: { id: number; status: number; txid: string }[] }>("/api/new/users/withdrawalLog?page=1", user);
    expect(log.lists.find((w) => w.id === sent.id)).toMatchObject({ status: 2, txid });

    // The audit log shows that 128-character id within the 390 px screen.
    await o.page.goto(`${server.baseUrl}/#/admin/audit`);
    await o.page.waitForSelector('[data-testid="audit-row"]');
    await o.page.getByText(txid.slice(0, 20), { exact: false }).first().waitFor();
    expect(await pageWidth(o.page)).toBe(VIEWPORT.width);
    await snap(o.page, "facts-op-audit-en");
    expect(o.errors).toEqual([]);
    await o.context.close();
  });

  it("counts open C2C appeals and merchant applications on the console overview, linking to their queues", async () => {
    const applicant = await login("demo1@exchange.test", "Demo1234");
    await call("/api/wallet/change", { token: applicant, body: { number: "1000", from_field: "change", to_field: "legal", currency_id: 3 } });
    await call("/api/c2c/merchant/apply", { token: applicant, body: { name: "Facts Test Shop" } });
    const op = await login("operator@exchange.test", "Operator1234");
    const merchants = await call<{ total: number }>("/api/admin/c2c/merchants?status=0&limit=1", { token: op });
    const appeals = await call<{ total: number }>("/api/admin/c2c/appeals?status=0&limit=1", { token: op });
    expect(merchants.total).toBeGreaterThanOrEqual(1);

    for (const locale of ["en", "zh"]) {
      const o = await openAs(locale, op);
      await o.page.goto(`${server.baseUrl}/#/admin`);
      const tile = (id: string) => o.page.locator(`[data-testid="${id}"] [data-testid="tile-count"]`);
      await o.page.waitForFunction(() => /^\d+$/.test(document.querySelector('[data-testid="tile-c2c-merchants"] [data-testid="tile-count"]')?.textContent ?? ""));
      expect(await tile("tile-c2c-merchants").textContent()).toBe(String(merchants.total));
      expect(await tile("tile-c2c-appeals").textContent()).toBe(String(appeals.total));
      expect(await pageWidth(o.page)).toBe(VIEWPORT.width);
      await snap(o.page, `facts-op-overview-${locale}`);
      if (locale === "en") {
        await o.page.click('[data-testid="tile-c2c-merchants"]');
        await waitForRoute(o.page, /^#\/admin\/c2c-merchants$/);
        await o.page.goto(`${server.baseUrl}/#/admin`);
        await o.page.click('[data-testid="tile-c2c-appeals"]');
        await waitForRoute(o.page, /^#\/admin\/c2c-appeals$/);
      }
      expect(o.errors).toEqual([]);
      await o.context.close();
    }
  });
});
