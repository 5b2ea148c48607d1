/// <reference lib="dom" />
// Functions passed to page.evaluate() and addInitScript() run in the browser, hence the DOM types.
/**
 * Issue #16's acceptance, with real events only (nothing written into D1 by the test, nothing
 * played on the user channel), in Chromium at 390×844, once in English and once in Chinese, each
 * run with its own fresh orders:
 *
 * 1. demo1's 30-second contract settles while demo1's phone sits on the assets screen: a toast with
 *    the result arrives there, the header's bell counts it, and the inbox holds a "contract
 *    settled" item with the result and the entry and exit ticks the public tick log has.
 * 2. demo1 buys from the demo merchant's sell advert; the merchant, on another phone, gets a toast
 *    and an inbox item, and on the order's screen sees demo1's verified real name. demo1 marks paid
 *    (through the confirmation dialog); the merchant is told, confirms receipt and releases;
 *    demo1 is told.
 * 3. demo1 opens a complaint about that order from the customer-service page; the operator replies
 *    in the console; demo1, still on the ticket screen, gets a toast and sees the reply there, and
 *    answers; the operator sees the answer.
 *
 * Every item reaches its owner once, and demo2's inbox never holds any of them.
 *
 * No market maker runs here: demo2 rests a bid and an ask on BTC/USDT, so the pair has a two-sided
 * book and an index (the mid, 60,500) that stays put; an "up" contract therefore ends on a tie and
 * loses (up wins only above the entry), which makes its result known in advance.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BrowserContext, Page } from "playwright-core";
import { newPhoneContext, SCREENSHOTS, snap } from "./browser.ts";
import { browser, server, useExchange } from "./exchange.ts";
import { waitForRoute } from "./helpers.ts";

const contexts: BrowserContext[] = [];

type Lang = "en" | "zh";
type Json = { type?: string; status?: number; message?: unknown; data?: unknown };

async function call<T>(path: string, opts: { token?: string; body?: unknown } = {}): Promise<T> {
  const method = opts.body === undefined ? "GET" : "POST";
  const headers: Record<string, string> = { lang: "en" };
  if (opts.token) headers.authorization = opts.token;
  if (method === "POST") headers["content-type"] = "application/json";
  const res = await fetch(new URL(path, server.baseUrl), { method, headers, body: method === "POST" ? JSON.stringify(opts.body) : undefined });
  const json = (await res.json()) as Json;
  if (json.type === "ok") return json.message as T;
  if (json.status === 1) return json.data as T;
  throw new Error(`${path}: ${JSON.stringify(json)}`);
}

const login = async (account: string, password: string) => (await call<{ token: string }>("/api/user/login", { body: { user_string: account, password, type: 1 } })).token;

interface Inbox {
  total: number;
  unread: number;
  data: { id: number; kind: string; title: string; body: string; link: string; read: boolean }[];
}
const inbox = (token: string) => call<Inbox>("/api/notifications?limit=50", { token });

/** What one phone has shown: every notification toast that appeared on it, title and body. */
interface Phone {
  page: Page;
  errors: Error[];
  /** Notification toasts seen so far (each once), in the order they appeared. */
  toasts(): Promise<{ title: string; body: string }[]>;
}

/**
 * A phone in `lang`, logged in with `token`. A MutationObserver records every notification toast
 * as it appears (a toast stays 6 s: a loaded machine may look later than that), and the user
 * channel's socket reports when it is open, so a test waits for the app to listen before it makes
 * an event happen.
 */
async function openPhone(token: string, lang: Lang): Promise<Phone> {
  const context = await newPhoneContext(browser);
  contexts.push(context);
  await context.addInitScript(
    ([t, l]) => {
      if (!sessionStorage.getItem("seeded")) {
        sessionStorage.setItem("seeded", "1");
        localStorage.setItem("lang", l as string);
        localStorage.setItem("token", t as string);
      }
      const w = window as unknown as { __toasts: { title: string; body: string }[]; __userChannelOpen: number };
      w.__toasts = [];
      w.__userChannelOpen = 0;
      const seen = new WeakSet<Element>();
      new MutationObserver(() => {
        for (const el of document.querySelectorAll('[data-testid="notice-toast"]')) {
          if (seen.has(el)) continue;
          seen.add(el);
          w.__toasts.push({ title: el.querySelector(".toast-title")?.textContent ?? "", body: el.querySelector(".toast-detail")?.textContent ?? "" });
        }
      }).observe(document, { childList: true, subtree: true });
      const Native = window.WebSocket;
      window.WebSocket = class extends Native {
        constructor(url: string | URL, protocols?: string | string[]) {
          super(url, protocols);
          if (String(url).endsWith("/ws/user")) this.addEventListener("open", () => (w.__userChannelOpen += 1));
        }
      };
    },
    [token, lang] as const,
  );
  const page = await context.newPage();
  const errors: Error[] = [];
  page.on("pageerror", (err) => errors.push(err));
  return {
    page,
    errors,
    toasts: () => page.evaluate(() => (window as unknown as { __toasts: { title: string; body: string }[] }).__toasts),
  };
}

/** Opens a screen and waits until it shows `ready` and the app listens on the user channel. */
async function go(phone: Phone, route: string, ready: string) {
  await phone.page.goto(`${server.baseUrl}/#${route}`);
  await phone.page.waitForSelector(ready);
  await phone.page.locator('[data-testid="notifications-live"]').waitFor({ state: "attached" });
  await phone.page.waitForFunction(() => (window as unknown as { __userChannelOpen: number }).__userChannelOpen > 0);
}

const testId = (page: Page, id: string) => page.locator(`[data-testid="${id}"]`);

/** The header bell's badge once it reads `text` ("" = no badge). */
async function badge(page: Page, text: string) {
  await testId(page, "notif-bell").waitFor();
  if (text === "") await testId(page, "notif-badge").waitFor({ state: "detached" });
  else await page.waitForFunction((t) => document.querySelector('[data-testid="notif-badge"]')?.textContent === t, text);
}

/** Waits for a notification toast titled `title` on the phone; answers what it said. */
async function toastTitled(phone: Phone, title: string): Promise<{ title: string; body: string }> {
  await expect.poll(async () => (await phone.toasts()).map((t) => t.title), { timeout: 120_000 }).toContain(title);
  return (await phone.toasts()).find((t) => t.title === title)!;
}

/** Screenshot while the toast titled `title` is still up, once it has slid in (skipped if a loaded machine was too slow to catch it). */
async function snapToast(phone: Phone, title: string, name: string) {
  if (!SCREENSHOTS) return;
  const toast = testId(phone.page, "notice-toast").filter({ hasText: title });
  const settled = await toast
    .evaluate((el) => Promise.all(el.getAnimations().map((a) => a.finished)).then(() => true), undefined, { timeout: 1_000 })
    .catch(() => false);
  if (settled) await snap(phone.page, name);
}

/** A picture drawn in the page, as a file picker would hand it over. */
async function picture(page: Page, label: string): Promise<Buffer> {
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

/** What the user reads, per language (the server's notification texts and the app's own words). */
const WORDS = {
  en: {
    settledLost: "Contract settled: Lost",
    settledBody: (id: number, entry: string, entryTick: number, exit: string, exitTick: number, net: string) =>
      `BTC/USDT Up #${id}: entry ${entry} (tick #${entryTick}), exit ${exit} (tick #${exitTick}). Net ${net} USDT.`,
    newOrder: "New C2C order",
    newOrderBody: (id: string, amount: string, total: string) => `Order #${id} on your advert: ${amount} USDT for ${total} CNY.`,
    paid: "Buyer marked as paid",
    paidBody: (id: string, amount: string, total: string) => `Order #${id}: the buyer says ${total} CNY was paid. Check your receiving account, then release ${amount} USDT.`,
    released: "Coins released",
    releasedBody: (id: string, amount: string) => `Order #${id}: ${amount} USDT was released to your account.`,
    supportReply: "Support replied",
    supportReplyBody: (id: number, subject: string) => `There is a reply on your ticket #${id}: ${subject}`,
    subject: "The seller took long to release my coins",
    body: "I paid at once but the coins came only after a while. Is that normal?",
    reply: "The seller releases after checking the money arrived; yours was released within the window.",
    answer: "Thank you, that explains it.",
    inProgress: "In progress",
  },
  zh: {
    settledLost: "合约已结算：亏损",
    settledBody: (id: number, entry: string, entryTick: number, exit: string, exitTick: number, net: string) =>
      `BTC/USDT 看涨 #${id}：开仓 ${entry}（行情 #${entryTick}），平仓 ${exit}（行情 #${exitTick}）。净盈亏 ${net} USDT。`,
    newOrder: "新的 C2C 订单",
    newOrderBody: (id: string, amount: string, total: string) => `您的广告有新订单 #${id}：${amount} USDT，共 ${total} CNY。`,
    paid: "买家已标记付款",
    paidBody: (id: string, amount: string, total: string) => `订单 #${id}：买家称已支付 ${total} CNY。请核对收款账户后放行 ${amount} USDT。`,
    released: "币已放行",
    releasedBody: (id: string, amount: string) => `订单 #${id}：${amount} USDT 已放行到您的账户。`,
    supportReply: "客服已回复",
    supportReplyBody: (id: number, subject: string) => `您的工单 #${id} 有新回复：${subject}`,
    subject: "卖家放币太慢",
    body: "我马上就付款了，但过了很久才收到币。这正常吗？",
    reply: "卖家确认收款后才会放币，您的订单已在时限内放行。",
    answer: "谢谢，明白了。",
    inProgress: "处理中",
  },
} as const;

const tokens = { demo1: "", demo2: "", merchant: "", operator: "" };
/** The demo merchant's seeded USDT sell advert (scripts/seed.mjs): ¥7.20, ¥100–¥50,000 per order. */
const SELL_ADVERT = 1;
/** The items of this test's kinds; demo2 must never hold one. */
const KINDS = ["seconds_settled", "c2c_new_order", "c2c_paid", "c2c_released", "support_reply"];

// The dev clock (worker/lib/clock.ts) moves each contract's 30 s on instead of waiting for them.
useExchange({ DEV_CLOCK: "on" });

beforeAll(async () => {
  tokens.demo1 = await login("demo1@exchange.test", "Demo1234");
  tokens.demo2 = await login("demo2@exchange.test", "Demo1234");
  tokens.merchant = await login("merchant@exchange.test", "Merchant1234");
  tokens.operator = await login("operator@exchange.test", "Operator1234");
  // A two-sided BTC/USDT book from demo2: bid 60,000, ask 61,000 → index 60,500, no trade.
  await call("/api/transaction/walletIn", { token: tokens.demo2, body: { currency_id: 1, legal_id: 3, price: "60000", num: "0.01", mode: 2, client_oid: "trust-bid" } });
  await call("/api/transaction/walletOut", { token: tokens.demo2, body: { currency_id: 1, legal_id: 3, price: "61000", num: "0.01", mode: 2, client_oid: "trust-ask" } });
  // demo1's seconds account gets 50 USDT from spot; demo1 saves a receiving account in the verified
  // name (a C2C taker needs one).
  await call("/api/wallet/change", { token: tokens.demo1, body: { number: "50", from_field: "change", to_field: "micro", currency_id: 3 } });
  await call("/api/user/cash_save", { token: tokens.demo1, body: { real_name: "Demo One", bank_account: "6228480402564890018", bank_name: "", bank_branch: "Main" } });
});

afterAll(async () => {
  for (const c of contexts) await c.close().catch(() => undefined);
});

describe("issue #16 acceptance: nothing happens to a user's money without them knowing", () => {
  it.each(["en", "zh"] as const)(
    "(%s) a contract settles on the assets screen, a C2C order notifies merchant and buyer with the verified name, a complaint is answered",
    async (lang) => {
      const w = WORDS[lang];
      const shot = (n: string) => `trust-${lang}-${n}`;
      // Whatever an earlier run left unread is read: this run's badges count this run's events.
      for (const t of [tokens.demo1, tokens.merchant]) await call("/api/notifications/read", { token: t, body: { all: true } });

      // ── 1. A 30-second contract settles while demo1 is on the assets screen ──
      const demo1 = await openPhone(tokens.demo1, lang);
      const p = demo1.page;
      await go(demo1, "/assets", '[data-testid="notif-bell"]');
      await badge(p, "");
      const options = await call<{ seconds: number }[]>("/api/microtrade/seconds");
      const shortest = Math.min(...options.map((o) => o.seconds));
      const opened = await call<{ id: number }>("/api/microtrade/submit", {
        token: tokens.demo1,
        body: { match_id: 1, currency_id: 3, type: 1, seconds: shortest, number: "10", client_oid: `trust-${lang}` },
      });
      await snap(p, shot("1-assets-running"));
      // Its time passes: the clock moves on, and the pair object settles the contract at once.
      await call("/api/dev/clock", { body: { advance_s: shortest } });
      const settledToast = await toastTitled(demo1, w.settledLost);
      await snapToast(demo1, w.settledLost, shot("1-assets-settled-toast"));
      // The contract as the API has it: a tie at the index, so "up" lost the stake and the fee.
      const history = await call<{ lists: { id: number; open_price: string; end_price: string; open_tick_id: number; end_tick_id: number; fact_profits: string; status: number }[] }>(
        "/api/new/microtrade/lists?page=1",
        { token: tokens.demo1 },
      );
      const contract = history.lists.find((c) => c.id === opened.id)!;
      expect(contract).toMatchObject({ open_price: contract.end_price });
      expect(contract).toMatchObject({ status: 3, open_price: "60500.00", fact_profits: "-10.00000000" });
      // The toast: the result net of the fee as the seconds screens show it, and the two public ticks.
      expect(settledToast.body).toBe(w.settledBody(opened.id, "60500.00", contract.open_tick_id, "60500.00", contract.end_tick_id, "-10.20"));
      await badge(p, "1");
      // The inbox from the bell: the item with the result, the entry and the exit tick.
      await testId(p, "notif-bell").click();
      await waitForRoute(p, /^#\/notifications$/);
      const item = testId(p, "notif-item").first();
      await item.waitFor();
      expect(await testId(p, "notice-toast").count()).toBe(0);
      expect(await item.getAttribute("data-read")).toBe("0");
      expect(await item.textContent()).toContain(w.settledLost);
      expect(await item.textContent()).toContain(settledToast.body);
      await snap(p, shot("1-inbox"));
      // Tapped: the contract's settlement check (its entry and exit ticks), and the badge is clear.
      await item.click();
      await waitForRoute(p, new RegExp(`^#/trade/verify\\?id=${opened.id}$`));
      await testId(p, "verify-verdict").waitFor();
      expect(await testId(p, "verify-verdict").getAttribute("data-matches")).toBe("true");
      await badge(p, "");

      // ── 2. demo1 buys 20 USDT from the merchant's advert; the merchant is on another phone ──
      const merchant = await openPhone(tokens.merchant, lang);
      const mp = merchant.page;
      await go(merchant, "/legal/merchant?tab=orders", '[data-testid="c2c-nav-merchant"]');
      await badge(mp, "");
      await go(demo1, "/legal/index", `[data-testid="c2c-advert"][data-id="${SELL_ADVERT}"]`);
      await p.locator(`[data-testid="c2c-advert"][data-id="${SELL_ADVERT}"] [data-testid="advert-take"]`).click();
      const dialog = testId(p, "c2c-order-dialog");
      await dialog.locator('[data-testid="dialog-input"]').fill("20");
      expect(await dialog.locator('[data-testid="dialog-total"]').textContent()).toBe("¥144.00");
      await snap(p, shot("2-buy-dialog"));
      await dialog.locator('[data-testid="c2c-order-submit"]').click();
      await p.waitForSelector('[data-testid="c2c-pay"]');
      const orderId = Number(await testId(p, "c2c-pay").getAttribute("data-id"));
      // The order's number as both parties' screens show it ("C…").
      const orderNo = (await call<{ ordernumber: string }>(`/api/legal_deal?id=${orderId}`, { token: tokens.demo1 })).ordernumber;

      // The merchant: a toast, the badge, the inbox item; its link opens the order with demo1's verified name.
      const newOrder = await toastTitled(merchant, w.newOrder);
      await snapToast(merchant, w.newOrder, shot("2-merchant-new-order-toast"));
      expect(newOrder.body).toBe(w.newOrderBody(orderNo, "20.00", "144.00"));
      await badge(mp, "1");
      await testId(mp, "notif-bell").click();
      await waitForRoute(mp, /^#\/notifications$/);
      const orderItem = testId(mp, "notif-item").first();
      await orderItem.waitFor();
      expect(await orderItem.textContent()).toContain(newOrder.body);
      // The inbox lists what the toast said: the toast steps aside instead of covering the list.
      expect(await testId(mp, "notice-toast").count()).toBe(0);
      await snap(mp, shot("2-merchant-inbox"));
      await orderItem.click();
      await waitForRoute(mp, new RegExp(`^#/legal/show\\?id=${orderId}$`));
      await mp.waitForSelector('[data-testid="c2c-show"][data-state="0"]');
      expect(await testId(mp, "show-real-name").textContent()).toBe("Demo One");
      await badge(mp, "");
      expect(await testId(mp, "notice-toast").count()).toBe(0);
      await snap(mp, shot("2-merchant-order"));

      // demo1 pays with a proof and says so through the confirmation dialog.
      await p.setInputFiles('[data-testid="pay-proof-input"]', { name: "receipt.jpg", mimeType: "image/jpeg", buffer: await picture(p, "PAID 144.00 CNY") });
      await p.waitForSelector('[data-testid="pay-proof-done"]');
      await snap(p, shot("2-pay"));
      await testId(p, "pay-confirm").click();
      const ask = p.getByRole("alertdialog");
      await ask.waitFor();
      expect(await ask.locator(".dialog-body").textContent()).toContain("¥144.00");
      await snap(p, shot("2-pay-confirm"));
      await ask.locator(".btn-primary").click();
      await p.waitForSelector('[data-testid="c2c-show"][data-state="3"]');

      // The merchant, on the order's screen: told, and the order shows paid by itself.
      const paid = await toastTitled(merchant, w.paid);
      expect(paid.body).toBe(w.paidBody(orderNo, "20.00", "144.00"));
      await mp.waitForSelector('[data-testid="c2c-show"][data-state="3"]');
      await snapToast(merchant, w.paid, shot("2-merchant-paid-toast"));
      expect(await testId(mp, "show-real-name").textContent()).toBe("Demo One");
      await testId(mp, "show-confirm-received").click();
      const confirm = testId(mp, "confirm-received-dialog");
      await confirm.waitFor();
      await confirm.locator('[data-testid="confirm-received-check"]').check({ force: true });
      // Releasing needs the merchant's fund password (issue #26; the seed's demo merchant has 135790).
      await confirm.locator('[data-testid="release-password"]').fill("135790");
      await snap(mp, shot("2-merchant-confirm"));
      await confirm.locator('[data-testid="confirm-received-go"]').click();
      await mp.waitForSelector('[data-testid="c2c-show"][data-state="1"]');

      // demo1 is told, on the order's screen, which shows the order finished by itself.
      const released = await toastTitled(demo1, w.released);
      expect(released.body).toBe(w.releasedBody(orderNo, "20.00"));
      await p.waitForSelector('[data-testid="c2c-show"][data-state="1"]');
      await snapToast(demo1, w.released, shot("2-buyer-released-toast"));
      await badge(p, "1");

      // ── 3. demo1 complains about the order from the customer-service page ──
      await go(demo1, "/customer", '[data-testid="support-tickets"]');
      await testId(p, "support-open").click();
      await p.waitForSelector('[data-testid="support-form"]');
      await testId(p, "support-cat-order").click();
      await p.selectOption('[data-testid="support-kind"]', "c2c");
      await p.click(`[data-testid="support-order-option"][data-id="${orderId}"]`);
      await testId(p, "support-subject").fill(w.subject);
      await testId(p, "support-body").fill(w.body);
      await snap(p, shot("3-ticket-form"));
      await testId(p, "support-submit").click();
      await waitForRoute(p, /^#\/support\/ticket\?id=\d+$/);
      const ticketId = Number(new URL(p.url().replace("#/", "")).searchParams.get("id"));
      await testId(p, "support-ticket-status").waitFor();
      await snap(p, shot("3-ticket-new"));

      // The operator replies in the console's support section.
      const operator = await openPhone(tokens.operator, lang);
      const op = operator.page;
      await op.goto(`${server.baseUrl}/#/admin/support`);
      const card = op.locator(`[data-testid="admin-support-ticket"][data-id="${ticketId}"]`);
      await card.waitFor();
      await card.locator('[data-testid="support-ticket-open"]').click();
      await card.locator('[data-testid="support-history"]').waitFor();
      expect(await card.textContent()).toContain(w.subject);
      await card.locator('[data-testid="support-admin-reply-body"]').fill(w.reply);
      await card.locator('[data-testid="support-admin-send"]').click();
      await card.locator('[data-kind="message"]', { hasText: w.reply }).waitFor();
      await snap(op, shot("3-console-reply"));

      // demo1, still on the ticket screen: a toast, and the reply appears there.
      const replied = await toastTitled(demo1, w.supportReply);
      expect(replied.body).toBe(w.supportReplyBody(ticketId, w.subject));
      await p.locator('[data-testid="support-msg-agent"]', { hasText: w.reply }).waitFor();
      expect(await testId(p, "support-ticket-status").textContent()).toBe(w.inProgress);
      await snapToast(demo1, w.supportReply, shot("3-ticket-reply-toast"));
      await testId(p, "support-reply-body").fill(w.answer);
      await testId(p, "support-reply-send").click();
      await p.locator('[data-testid="support-msg-user"]', { hasText: w.answer }).waitFor();
      await snap(p, shot("3-ticket-answered"));

      // The operator sees the answer.
      await op.reload();
      await card.locator('[data-testid="support-ticket-open"]').click();
      const answer = card.locator('[data-kind="message"]', { hasText: w.answer });
      await answer.waitFor();
      await answer.scrollIntoViewIfNeeded();
      await snap(op, shot("3-console-answer"));

      // ── Each item reached its owner once, and no one else ──
      const mine = await inbox(tokens.demo1);
      const seller = await inbox(tokens.merchant);
      const other = await inbox(tokens.demo2);
      expect(mine.data.filter((n) => n.kind === "seconds_settled" && n.body.includes(`#${opened.id}:`))).toHaveLength(1);
      expect(mine.data.filter((n) => n.link === `/legal/show?id=${orderId}`).map((n) => n.kind)).toEqual(["c2c_released"]);
      expect(mine.data.filter((n) => n.link === `/support/ticket?id=${ticketId}`).map((n) => n.kind)).toEqual(["support_reply"]);
      expect(seller.data.filter((n) => n.link === `/legal/show?id=${orderId}`).map((n) => n.kind)).toEqual(["c2c_paid", "c2c_new_order"]);
      expect(seller.data.filter((n) => n.kind === "seconds_settled" || n.kind === "support_reply")).toEqual([]);
      expect(other.data.filter((n) => KINDS.includes(n.kind))).toEqual([]);
      // Each phone saw each of its toasts once.
      expect((await demo1.toasts()).map((t) => t.title)).toEqual([w.settledLost, w.released, w.supportReply]);
      expect((await merchant.toasts()).map((t) => t.title)).toEqual([w.newOrder, w.paid]);
      for (const x of [demo1, merchant, operator]) expect(x.errors).toEqual([]);
    },
    360_000,
  );
});
