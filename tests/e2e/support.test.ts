/// <reference lib="dom" />
// Functions passed to page.evaluate() run in the browser, hence the DOM types.
/**
 * Support tickets in a real browser at phone size (issue #16 §2 acceptance): demo1 opens a
 * complaint about one of their spot orders with a photo from the customer-service page, the
 * operator answers it in the console, demo1 is notified, reads the reply and answers; the
 * operator's internal note never reaches demo1. Screens in English and Chinese.
 */
import { afterAll, describe, expect, it } from "vitest";
import type { BrowserContext, Page } from "playwright-core";
import { newPhoneContext, snap } from "./browser.ts";
import { browser, server, useExchange } from "./exchange.ts";
import { waitForRoute } from "./helpers.ts";

const contexts: BrowserContext[] = [];

type Json = { type?: string; message?: unknown };

async function call<T>(path: string, opts: { token?: string; body?: unknown } = {}): Promise<T> {
  const method = opts.body === undefined ? "GET" : "POST";
  const headers: Record<string, string> = { lang: "en" };
  if (opts.token) headers.authorization = opts.token;
  if (method === "POST") headers["content-type"] = "application/json";
  const res = await fetch(new URL(path, server.baseUrl), { method, headers, body: method === "POST" ? JSON.stringify(opts.body) : undefined });
  const json = (await res.json()) as Json;
  if (json.type === "ok") return json.message as T;
  throw new Error(`${path}: ${JSON.stringify(json)}`);
}

const login = async (account: string, password: string) => (await call<{ token: string }>("/api/user/login", { body: { user_string: account, password, type: 1 } })).token;

async function openPhone(token: string, lang = "en"): Promise<{ page: Page; errors: Error[] }> {
  const context = await newPhoneContext(browser);
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

/** A real PNG drawn in the page, as a file picker would hand it over. */
async function png(page: Page): Promise<Buffer> {
  const dataUrl = await page.evaluate(() => {
    const c = document.createElement("canvas");
    c.width = 240;
    c.height = 160;
    const ctx = c.getContext("2d")!;
    ctx.fillStyle = "#26a17b";
    ctx.fillRect(0, 0, 240, 160);
    ctx.fillStyle = "#fff";
    ctx.font = "28px sans-serif";
    ctx.fillText("ORDER", 40, 90);
    return c.toDataURL("image/png");
  });
  return Buffer.from(dataUrl.split(",")[1] ?? "", "base64");
}

useExchange();

afterAll(async () => {
  for (const c of contexts) await c.close().catch(() => undefined);
});

describe("support tickets", () => {
  it("demo1 complains about an order, the operator answers in the console, demo1 reads the reply and answers", async () => {
    const demo1 = await login("demo1@exchange.test", "Demo1234");
    const operator = await login("operator@exchange.test", "Operator1234");
    // An open spot order of demo1's to complain about (a limit buy far below the market).
    await call("/api/transaction/walletIn", { token: demo1, body: { currency_id: 1, legal_id: 3, price: "1000", num: "0.01", mode: 2 } });
    const [order] = await call<{ id: number }[]>("/api/support/orders?kind=spot", { token: demo1 });
    expect(order).toBeDefined();

    // ── demo1 opens the complaint from the customer-service page ──
    const user = await openPhone(demo1);
    const page = user.page;
    await page.goto(`${server.baseUrl}/#/customer`);
    await page.waitForSelector('[data-testid="support-tickets"]');
    await snap(page, "support-en-customer-empty");
    await page.click('[data-testid="support-open"]');
    await page.waitForSelector('[data-testid="support-form"]');
    await page.click('[data-testid="support-cat-complaint"]');
    await page.selectOption('[data-testid="support-kind"]', "spot");
    await page.click(`[data-testid="support-order-option"][data-id="${order!.id}"]`);
    expect(await page.inputValue('[data-testid="support-order-id"]')).toBe(String(order!.id));
    // nothing typed yet: the form says so and sends nothing
    await page.click('[data-testid="support-submit"]');
    await page.getByText("Please enter a subject").waitFor();
    await page.fill('[data-testid="support-subject"]', "My buy order is not filled");
    await page.fill('[data-testid="support-body"]', "I placed a limit buy an hour ago and it is still open.");
    await page.setInputFiles('[data-testid="support-photo-0-input"]', { name: "order.png", mimeType: "image/png", buffer: await png(page) });
    await page.waitForSelector('[data-testid="support-photo-0-done"]');
    await snap(page, "support-en-form");
    await page.click('[data-testid="support-submit"]');
    await waitForRoute(page, /^#\/support\/ticket\?id=\d+$/);
    const id = Number(new URL(page.url().replace("#/", "")).searchParams.get("id"));
    await page.waitForSelector('[data-testid="support-msg-user"] img');
    expect(await page.locator('[data-testid="support-ticket-status"]').textContent()).toBe("New");
    expect(await page.locator('[data-testid="support-ticket"]').textContent()).toContain(`Spot order #${order!.id}`);
    await snap(page, "support-en-ticket-new");

    // ── the operator answers in the console: an internal note, then a public reply ──
    const op = await openPhone(operator);
    const console_ = op.page;
    await console_.goto(`${server.baseUrl}/#/admin/support`);
    const card = console_.locator(`[data-testid="admin-support-ticket"][data-id="${id}"]`);
    await card.waitFor();
    expect(await card.textContent()).toContain("Waiting");
    await card.locator('[data-testid="support-ticket-open"]').click();
    await card.locator('[data-testid="support-history"]').waitFor();
    await card.locator('[data-testid="support-history"] img').first().waitFor();
    await card.locator('[data-testid="support-admin-internal"]').check();
    await card.locator('[data-testid="support-admin-reply-body"]').fill("Order is far below market, just explain limit orders");
    await card.locator('[data-testid="support-admin-send"]').click();
    await card.locator('[data-kind="note"]').waitFor();
    await card.locator('[data-testid="support-admin-internal"]').uncheck();
    await card.locator('[data-testid="support-admin-reply-body"]').fill("A limit buy fills only when someone sells at your price or lower. Yours is below the market.");
    await card.locator('[data-testid="support-admin-send"]').click();
    await card.locator('[data-kind="message"]', { hasText: "fills only when" }).waitFor();
    await snap(console_, "support-en-console");
    expect(op.errors).toEqual([]);

    // ── demo1 is notified, reads the reply (never the note) and answers ──
    const inbox = await call<{ data: { kind: string; link: string }[] }>("/api/notifications", { token: demo1 });
    expect(inbox.data.filter((n) => n.kind === "support_reply")).toEqual([expect.objectContaining({ link: `/support/ticket?id=${id}` })]);
    await page.reload();
    await page.locator('[data-testid="support-msg-agent"]', { hasText: "fills only when" }).waitFor();
    expect(await page.locator('[data-testid="support-conversation"]').textContent()).not.toContain("explain limit orders");
    expect(await page.locator('[data-testid="support-ticket-status"]').textContent()).toBe("In progress");
    await page.fill('[data-testid="support-reply-body"]', "Thank you, I will cancel it.");
    await page.click('[data-testid="support-reply-send"]');
    await page.locator('[data-testid="support-msg-user"]', { hasText: "I will cancel it" }).waitFor();
    await snap(page, "support-en-ticket-replied");

    // the operator sees demo1's answer, waiting again
    await console_.reload();
    await card.locator('[data-testid="support-ticket-open"]').click();
    await card.locator('[data-kind="message"]', { hasText: "I will cancel it" }).waitFor();

    // ── the list on the customer-service page, and the screens in Chinese ──
    await page.goto(`${server.baseUrl}/#/customer`);
    await page.locator(`[data-testid="support-ticket-row"][data-id="${id}"]`).waitFor();
    await snap(page, "support-en-customer");
    await page.evaluate(() => localStorage.setItem("lang", "zh"));
    await page.reload();
    await page.locator(`[data-testid="support-ticket-row"][data-id="${id}"]`, { hasText: "处理中" }).waitFor();
    await snap(page, "support-zh-customer");
    await page.goto(`${server.baseUrl}/#/support/ticket?id=${id}`);
    await page.getByText("客服", { exact: false }).first().waitFor();
    await page.locator('[data-testid="support-msg-agent"]').waitFor();
    await snap(page, "support-zh-ticket");
    await page.goto(`${server.baseUrl}/#/support/new`);
    await page.waitForSelector('[data-testid="support-form"]');
    await snap(page, "support-zh-form");
    await console_.evaluate(() => localStorage.setItem("lang", "zh"));
    await console_.reload();
    await console_.locator(`[data-testid="admin-support-ticket"][data-id="${id}"]`).waitFor();
    await snap(console_, "support-zh-console");
    expect(user.errors).toEqual([]);
  });
});
