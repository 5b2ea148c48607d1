/// <reference lib="dom" />
// Functions passed to page.evaluate() run in the browser, hence the DOM types.
/**
 * Every screen built so far renders in each of the six languages (header title from that
 * language's messages, no error state, no uncaught page error), plus the home behaviours a
 * trader notices: five markets until "view more", a tap opens the chart for that pair, only
 * real prices ("--" before the first trade), and a dead session is sent back to login.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { BrowserContext, Page } from "playwright-core";
import { newPhoneContext, snap } from "./browser.ts";
import { browser, server, useExchange } from "./exchange.ts";
import { waitForRoute } from "./helpers.ts";
import { ROOT } from "./server.ts";

const LOCALES = ["en", "zh", "hk", "kr", "jp", "es"] as const;
type Locale = (typeof LOCALES)[number];
type Messages = Record<string, string>;

const messages = Object.fromEntries(
  LOCALES.map((l) => [l, JSON.parse(readFileSync(join(ROOT, "web", "messages", `${l}.json`), "utf8")) as Messages]),
) as Record<Locale, Messages>;

let token = "";
let articleId = 0;

useExchange();

beforeAll(async () => {
  const res = await fetch(`${server.baseUrl}/api/user/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ user_string: "demo1@exchange.test", password: "Demo1234", type: 1 }),
  });
  const json = (await res.json()) as { type: string; message: { token: string } };
  if (json.type !== "ok") throw new Error(`demo login failed: ${JSON.stringify(json)}`);
  token = json.message.token;
  const news = (await (await fetch(`${server.baseUrl}/api/new/news/index?page=1`)).json()) as { data: { lists: { id: number }[] } };
  articleId = news.data.lists[0]?.id ?? 0;
});

async function openAs(locale: Locale, sessionToken: string | null): Promise<{ context: BrowserContext; page: Page; errors: Error[] }> {
  const context = await newPhoneContext(browser);
  await context.addInitScript(
    ([l, t]) => {
      if (sessionStorage.getItem("seeded")) return;
      sessionStorage.setItem("seeded", "1");
      localStorage.setItem("lang", l as string);
      if (t) localStorage.setItem("token", t as string);
    },
    [locale, sessionToken] as const,
  );
  const page = await context.newPage();
  const errors: Error[] = [];
  page.on("pageerror", (err) => errors.push(err));
  return { context, page, errors };
}

const screens: { name: string; path: string; title: string; ready: string }[] = [
  { name: "home", path: "/", title: "title_home", ready: '[data-testid="home"]' },
  { name: "quotations", path: "/quotations", title: "title_quotations", ready: '[data-testid="quote-row"]' },
  { name: "news", path: "/news/list", title: "title_news", ready: '[data-testid="article-list"]' },
  { name: "news-detail", path: "/news/detail?id=ARTICLE", title: "title_news_detail", ready: '[data-testid="article"]' },
  { name: "help", path: "/help/center", title: "title_help", ready: '[data-testid="article-list"]' },
  { name: "agreement", path: "/agreement", title: "title_agreement", ready: '[data-testid="agreement"]' },
  { name: "customer", path: "/customer", title: "title_customer", ready: "main > *" },
  { name: "lang", path: "/lang", title: "title_lang", ready: '[data-testid="lang-en"]' },
  { name: "login", path: "/login", title: "title_login", ready: '[data-testid="login-submit"]' },
  { name: "register", path: "/register", title: "title_register", ready: '[data-testid="captcha-image"] img' },
  { name: "forget", path: "/forget", title: "title_forget", ready: '[data-testid="forget-continue"]' },
  { name: "exchange", path: "/exchange", title: "title_exchange", ready: '[data-testid="exchange"]' },
  { name: "exchange-lists", path: "/exchange/lists", title: "title_exchange_lists", ready: '[data-testid="spot-records"]' },
];

describe("screens", () => {
  for (const locale of LOCALES) {
    it(`renders every built screen in ${locale}`, async () => {
      const { context, page, errors } = await openAs(locale, token);
      for (const s of screens) {
        await page.goto(`${server.baseUrl}/#${s.path.replace("ARTICLE", String(articleId))}`);
        await page.waitForSelector(s.ready);
        const title = (await page.locator('[data-testid="page-title"]').textContent())?.trim();
        expect(title, `${s.name} title`).toBe(messages[locale][s.title]);
        expect(await page.title()).toBe(`${messages[locale][s.title]} - Honest Exchange`);
        expect(await page.locator(".state-error").count(), `${s.name} shows an error`).toBe(0);
        await snap(page, `screen-${locale}-${s.name}`);
      }
      // The drawer, fully open.
      await page.goto(`${server.baseUrl}/#/`);
      await page.waitForSelector('[data-testid="home"]');
      await page.click('[data-testid="menu-button"]');
      await page.getByText(messages[locale].logout ?? "").waitFor();
      await snap(page, `screen-${locale}-drawer`);
      expect(errors).toEqual([]);
      await context.close();
    });
  }
});

describe("home and session behaviour", () => {
  it("lists five markets until 'view more', shows only real prices, and opens the chart for a tapped pair", async () => {
    const { context, page, errors } = await openAs("en", token);
    await page.goto(`${server.baseUrl}/#/`);
    await page.waitForSelector('[data-testid="market-row"]');
    const quotes = (await (await fetch(`${server.baseUrl}/api/currency/quotation_new`)).json()) as {
      message: { quotation: { currency_name: string; now_price: string }[] }[];
    };
    const rows = quotes.message[0]?.quotation ?? [];
    expect(await page.locator('[data-testid="market-row"]').count()).toBe(Math.min(5, rows.length));
    if (rows.length > 5) {
      await page.getByText("View more").click();
      expect(await page.locator('[data-testid="market-row"]').count()).toBe(rows.length);
    }
    // A pair that has not traded shows "--", never a made-up number.
    const first = rows[0];
    if (first && /^0*(\.0*)?$/.test(first.now_price)) {
      expect((await page.locator('[data-testid="market-row"] [data-testid="market-price"]').first().textContent())?.trim()).toBe("--");
    }
    await page.locator('[data-testid="market-row"]').nth(1).click();
    await waitForRoute(page, /^#\/kline$/);
    expect(await page.evaluate(() => localStorage.getItem("currentCurrency"))).toBe(rows[1]?.currency_name);
    expect(errors).toEqual([]);
    await context.close();
  });

  it("applies the API error rules: 998 → verify identity, 997 → receiving account, errors and network failures shown", async () => {
    const { context, page, errors } = await openAs("en", token);
    // The page's timers run on Playwright's clock (at real speed), so the test can bring the
    // screen's background refresh forward instead of waiting for it.
    await page.clock.install();
    const envelope = (type: string, message: string) => ({
      status: 403,
      contentType: "application/json",
      body: JSON.stringify({ type, status: 0, code: "x", message }),
    });

    await page.route("**/api/new/home/index*", (route) => route.fulfill(envelope("998", "Please complete identity verification first")));
    await page.goto(`${server.baseUrl}/#/`);
    const dialog = page.locator('[role="alertdialog"]');
    await dialog.getByText("Reminder").waitFor();
    await dialog.getByText("Please complete identity verification first").waitFor();
    await snap(page, "rule-998-dialog");
    await dialog.getByRole("button", { name: "Confirm" }).click();
    await waitForRoute(page, /^#\/verifyed$/);
    // The identity screen itself, not only its address: until it renders, home is still mounted.
    await page.locator('[data-testid="verify-page"]').waitFor();
    await page.unroute("**/api/new/home/index*");

    let homeCalls = 0;
    await page.route("**/api/new/home/index*", (route) => {
      homeCalls += 1;
      return route.fulfill(envelope("997", "Please add your receiving account first"));
    });
    await page.goto(`${server.baseUrl}/#/`);
    await dialog.getByText("Please add your receiving account first").waitFor();
    await dialog.getByRole("button", { name: "Cancel" }).click();
    expect(await dialog.count()).toBe(0);
    const screenError = page.locator(".state-error", { hasText: "Please add your receiving account first" });
    await screenError.waitFor(); // the screen's own error state
    // The screen's background refresh (every 10 s, HOME_REFRESH_MS) fails the same way: the error
    // stays on the screen, and the dialog the user just dismissed does not come back. The clock
    // moves 10 s on and the refresh is waited for, then retried by hand: the retry's answer arrives
    // after the refresh's, so once the screen shows the error again both were handled, and neither
    // reopened the dialog.
    await page.clock.fastForward(10_000);
    await expect.poll(() => homeCalls, { timeout: 120_000, interval: 200 }).toBeGreaterThanOrEqual(2);
    const callsBeforeRetry = homeCalls;
    await screenError.getByRole("button", { name: "Retry" }).click();
    await expect.poll(() => homeCalls, { timeout: 120_000, interval: 200 }).toBeGreaterThan(callsBeforeRetry);
    await screenError.waitFor();
    expect(await dialog.count()).toBe(0);
    await page.unroute("**/api/new/home/index*");

    // A failed load shows the server's message with a retry that works once the API answers.
    await page.route("**/api/currency/quotation_new*", (route) => route.fulfill(envelope("error", "Quotes are resting")));
    await page.goto(`${server.baseUrl}/#/quotations`);
    await page.locator(".state-error").getByText("Quotes are resting").waitFor();
    await page.unroute("**/api/currency/quotation_new*");
    await page.getByRole("button", { name: "Retry" }).click();
    await page.waitForSelector('[data-testid="quote-row"]');

    // Network failure.
    await page.route("**/api/new/news/index*", (route) => route.abort("failed"));
    await page.goto(`${server.baseUrl}/#/news/list`);
    await page.locator(".state-error").getByText("Network error, please check your connection").waitFor();
    await snap(page, "rule-network-error");
    expect(errors).toEqual([]);
    await context.close();
  });

  it("serves the app with a content security policy that forbids framing and sniffing, and the app runs under it", async () => {
    for (const path of ["/", "/index.html"]) {
      const res = await fetch(`${server.baseUrl}${path}`);
      expect(res.status).toBe(200);
      const csp = res.headers.get("content-security-policy") ?? "";
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain("connect-src 'self'");
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
      expect(res.headers.get("referrer-policy")).toBe("strict-origin-when-cross-origin");
      expect(res.headers.get("permissions-policy")).toContain("camera=()");
    }
    // Nothing on a real screen (scripts, styles, the socket) is blocked by the policy.
    const { context, page, errors } = await openAs("en", token);
    const blocked: string[] = [];
    page.on("console", (msg) => {
      if (/Content Security Policy/i.test(msg.text())) blocked.push(msg.text());
    });
    await page.goto(`${server.baseUrl}/#/exchange`);
    await page.locator('[data-testid="live-status"][data-status="open"]').waitFor(); // the socket connected
    expect(blocked).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });

  it("answers a build file that does not exist with 404, never cached, while real files stay cached and paths still get the app", async () => {
    // A client holding an old chunk name after a deploy must not store the app's HTML as that chunk.
    for (const path of ["/assets/does-not-exist.js", "/assets/old-chunk-Abc123.css", "/assets/nested/missing.js"]) {
      for (const mode of ["no-cors", "navigate"]) {
        const res = await fetch(`${server.baseUrl}${path}`, { headers: { "sec-fetch-mode": mode } });
        expect(res.status, `${path} (${mode})`).toBe(404);
        expect(res.headers.get("cache-control")).toBe("no-store");
        expect(res.headers.get("content-type") ?? "").not.toContain("text/html");
        expect(await res.text()).not.toContain("<html");
      }
    }
    const index = await (await fetch(`${server.baseUrl}/`)).text();
    const chunk = /\/assets\/[^"]+\.js/.exec(index)?.[0];
    expect(chunk).toBeDefined();
    const real = await fetch(`${server.baseUrl}${chunk}`);
    expect(real.status).toBe(200);
    expect(real.headers.get("content-type")).toContain("javascript");
    expect(real.headers.get("cache-control")).toContain("immutable");
    const nav = await fetch(`${server.baseUrl}/some/deep/link`, { headers: { "sec-fetch-mode": "navigate" } });
    expect(nav.status).toBe(200);
    expect(nav.headers.get("cache-control") ?? "").not.toContain("immutable");
    expect(await nav.text()).toContain("<html");
  });

  it("sends a user whose session is no longer valid to login with 'Please log in'", async () => {
    const { context, page } = await openAs("en", "x".repeat(43));
    await page.goto(`${server.baseUrl}/#/quotations`);
    await page.getByText("Please log in").waitFor();
    await waitForRoute(page, /^#\/login\?redirect=%2Fquotations$/);
    expect(await page.evaluate(() => localStorage.getItem("token"))).toBeNull();
    await context.close();
  });
});
