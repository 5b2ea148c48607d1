/// <reference lib="dom" />
// Functions passed to page.evaluate() run in the browser, hence the DOM types.
/**
 * The public transparency page in a real browser at phone size (issue #20 §3): after a spot trade,
 * an open seconds contract and a published liabilities snapshot, a visitor who never logged in
 * opens /transparency and sees the house's reserve for the contract, the fees of the trade, the
 * liabilities root with the way to one's proof, and "none yet" for mining payouts (English and
 * Chinese).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BrowserContext, Page } from "playwright-core";
import { newPhoneContext, snap } from "./browser.ts";
import { browser, server, useExchange } from "./exchange.ts";
import { spotFeeCurrencies, waitForRoute } from "./helpers.ts";

const contexts: BrowserContext[] = [];

async function login(account: string, password: string): Promise<string> {
  const res = await fetch(new URL("/api/user/login", server.baseUrl), {
    method: "POST",
    headers: { "content-type": "application/json", lang: "en" },
    body: JSON.stringify({ user_string: account, password, type: 1 }),
  });
  const json = (await res.json()) as { type: string; message: { token: string } };
  if (json.type !== "ok") throw new Error(`login: ${JSON.stringify(json)}`);
  return json.message.token;
}

async function api<T>(token: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(new URL(path, server.baseUrl), {
    method: body === undefined ? "GET" : "POST",
    headers: { ...(token ? { Authorization: token } : {}), "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json()) as { type?: string; message?: T };
  if (json.type !== "ok") throw new Error(`${path}: ${JSON.stringify(json)}`);
  return json.message as T;
}

/** Waits for a state (checked every 100 ms; the bound only ends a hang). */
async function until(check: () => Promise<boolean>, what: string, timeoutMs = 120_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

useExchange();

beforeAll(async () => {
  const demo1 = await login("demo1@exchange.test", "Demo1234");
  const demo2 = await login("demo2@exchange.test", "Demo1234");
  // demo2 quotes BTC/USDT 60,000 / 61,000; demo1 buys 0.001 BTC from the ask: a trade with its fees.
  await api(demo2, "/api/transaction/walletIn", { currency_id: 1, legal_id: 3, price: "60000", num: "0.01", mode: 2, client_oid: "tp-e2e-bid" });
  await api(demo2, "/api/transaction/walletOut", { currency_id: 1, legal_id: 3, price: "61000", num: "0.01", mode: 2, client_oid: "tp-e2e-ask" });
  await api(demo1, "/api/transaction/walletIn", { currency_id: 1, legal_id: 3, price: "61000", num: "0.001", mode: 2, client_oid: "tp-e2e-take" });
  // The trade reaches D1 with its fee movement when the pair drains: wait for it in demo1's history
  // (the summary is cached a minute once read).
  await until(async () => {
    const res = await fetch(new URL("/api/new/transaction/lists", server.baseUrl), { headers: { Authorization: demo1 } });
    return (((await res.json()) as { data?: { lists?: unknown[] } }).data?.lists?.length ?? 0) > 0;
  }, "demo1's trade in D1");
  // With balances in the account objects the fees reach D1 when the fee shards drain, a moment
  // after the pair's trade rows; the public summary is cached a minute once read, so wait for them
  // (BTC 1 and USDT 3) before anything reads it.
  await until(async () => {
    const ids = spotFeeCurrencies(server.persistDir);
    return ids.includes(1) && ids.includes(3);
  }, "the trade's fees in D1");
  // An open five-minute seconds contract: the house freezes its payout.
  await api(demo1, "/api/wallet/change", { number: "20", from_field: "change", to_field: "micro", currency_id: 3 });
  await api(demo1, "/api/microtrade/submit", { match_id: 1, currency_id: 3, type: 1, seconds: 300, number: "10" });
  const operator = await login("operator@exchange.test", "Operator1234");
  await api(operator, "/api/admin/transparency/liabilities/run", { reason: "transparency page check" });
  // With balances in the account objects the trade's fees reach D1 when the fee shards drain, a
  // moment after the pair's trade rows: wait until the public summary counts both (a summary read
  // before that is cached for a minute, so this may wait that long on a loaded machine).
  await until(async () => {
    const summary = await api<{ fees: { currency: string }[] }>("", "/api/transparency");
    const names = summary.fees.map((f) => f.currency);
    console.log("DBG", Date.now(), JSON.stringify(summary.fees));
    return names.includes("BTC") && names.includes("USDT");
  }, "the trade's fees in the public summary");
});

afterAll(async () => {
  for (const c of contexts) await c.close().catch(() => undefined);
});

/** A phone with no session at all (a visitor), in `lang`. */
async function visitor(lang: string): Promise<{ page: Page; errors: Error[] }> {
  const context = await newPhoneContext(browser);
  contexts.push(context);
  await context.addInitScript((l) => localStorage.setItem("lang", l), lang);
  const page = await context.newPage();
  const errors: Error[] = [];
  page.on("pageerror", (err) => errors.push(err));
  return { page, errors };
}

const byId = (page: Page, testId: string) => page.locator(`[data-testid="${testId}"]`).first();

describe("the public transparency page", () => {
  for (const [lang, title, none] of [
    ["en", "House reserves", "None yet."],
    ["zh", "平台储备金", "暂无。"],
  ] as const) {
    it(`shows a visitor who never logged in the reserves, fees, liabilities root and mining payouts (${lang})`, async () => {
      const { page, errors } = await visitor(lang);
      await page.goto(`${server.baseUrl}/#/transparency`);
      await byId(page, "tp-reserves").getByText(title).waitFor();
      // The contract's reserve: one open contract in USDT with a positive amount.
      expect(await byId(page, "tp-reserves-seconds").locator("tbody tr").first().innerText()).toMatch(/USDT\s+1\s+[1-9]/);
      // The trade's fees: the taker's in BTC, the maker's in USDT.
      await byId(page, "tp-fee-BTC").waitFor();
      await byId(page, "tp-fee-USDT").waitFor();
      expect(await byId(page, "tp-root").innerText()).toMatch(/^[0-9a-f]{64}$/);
      await byId(page, "tp-mining-none").getByText(none).waitFor();
      expect(await byId(page, "tp-computed").innerText()).toMatch(/\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}/);
      await snap(page, `transparency-${lang}`);
      await byId(page, "tp-liabilities-link").click();
      await waitForRoute(page, /#\/transparency\/liabilities/);
      await byId(page, "liab-login").waitFor();
      await byId(page, "liab-all-figures").click();
      await waitForRoute(page, /#\/transparency$/);
      expect(errors).toEqual([]);
    });
  }
});
