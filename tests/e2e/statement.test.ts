/// <reference lib="dom" />
/**
 * The statement, the holds and fill notifications (issue #26) in a real browser at phone size, in
 * English and Chinese: the statement opens from Assets and from a money toast and lists the
 * movements; with only a vote holding money the spot screen's "In orders" is 0 and Assets names the
 * vote under "Frozen"; a limit order filled while its owner looks at another screen is toasted.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { openPhone, snap } from "./browser.ts";
import { browser, server, useExchange } from "./exchange.ts";
import { waitForRoute } from "./helpers.ts";

const tokens: Record<"demo1" | "demo2", string> = { demo1: "", demo2: "" };

async function call<T>(path: string, token: string, body?: unknown): Promise<T> {
  const res = await fetch(new URL(path, server.baseUrl), {
    method: body === undefined ? "GET" : "POST",
    headers: { authorization: token, lang: "en", ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json()) as { type: string; message: T };
  if (json.type !== "ok") throw new Error(`${path}: ${JSON.stringify(json)}`);
  return json.message;
}

async function login(account: string): Promise<string> {
  const res = await fetch(`${server.baseUrl}/api/user/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ user_string: account, password: "Demo1234", type: 1 }),
  });
  return ((await res.json()) as { message: { token: string } }).message.token;
}

useExchange();

beforeAll(async () => {
  tokens.demo1 = await login("demo1@exchange.test");
  tokens.demo2 = await login("demo2@exchange.test");
});

describe("the statement", () => {
  for (const [lang, title] of [
    ["en", "Statement"],
    ["zh", "资金流水"],
  ] as const) {
    it(`opens from Assets and lists every movement with its balance after (${lang})`, async () => {
      await call("/api/wallet/change", tokens.demo1, { number: "5", from_field: "change", to_field: "micro", currency_id: 3 });
      const { page, errors } = await openPhone(browser, lang, tokens.demo1);
      await page.goto(`${server.baseUrl}/#/assets`);
      await page.click('[data-testid="assets-statement"]');
      await waitForRoute(page, /^#\/statement$/);
      await page.locator('[data-testid="statement-line"]').first().waitFor();
      expect(await page.title()).toContain(title);
      // The newest line is the transfer into the seconds account; its balance after is that account's balance now.
      const newest = page.locator('[data-testid="statement-line"]').first();
      expect(await newest.getAttribute("data-kind")).toBe("transfer");
      const lines = await call<{ lines: { balance_after: string }[] }>("/api/wallet/statement?limit=1", tokens.demo1);
      expect(await newest.getAttribute("data-balance")).toBe(lines.lines[0]!.balance_after);
      await snap(page, `statement-${lang}`);
      expect(errors).toEqual([]);
    });
  }

  it("opens from a money toast: a transfer's toast links to the statement", async () => {
    const { page } = await openPhone(browser, "en", tokens.demo1);
    await page.goto(`${server.baseUrl}/#/transfer`);
    await page.locator('[data-testid="transfer-amount"]').fill("1");
    await page.click('[data-testid="transfer-submit"]');
    const action = page.locator('[data-testid="toast-action"]');
    await action.waitFor();
    expect(await action.innerText()).toBe("View in statement");
    await snap(page, "statement-toast-en");
    await action.click();
    await waitForRoute(page, /^#\/statement$/);
    await page.locator('[data-testid="statement-line"][data-kind="transfer"]').first().waitFor();
  });
});

describe("holds", () => {
  it("with only a vote holding money: 'In orders' is 0 and Assets names the vote under Frozen (zh, en)", async () => {
    const rounds = await call<{ data: { id: number; candidates: { id: number }[] }[] }>("/api/vote/rounds", tokens.demo2);
    await call("/api/vote/cast", tokens.demo2, { candidate_id: rounds.data[0]!.candidates[0]!.id });
    const spot = await call<{ lock_legal: string; order_legal: string }>("/api/transaction/balance?currency_id=1&legal_id=3", tokens.demo2);
    expect(Number(spot.lock_legal)).toBeGreaterThan(0);
    expect(Number(spot.order_legal)).toBe(0);

    for (const [lang, vote] of [
      ["zh", "投票"],
      ["en", "Vote"],
    ] as const) {
      const { page, errors } = await openPhone(browser, lang, tokens.demo2);
      await page.goto(`${server.baseUrl}/#/exchange`);
      await page.locator('[data-testid="other-holds-USDT"]').waitFor();
      expect(await page.locator('[data-testid="balance-legal-frozen"]').innerText()).toBe("0.00");
      await page.locator('[data-testid="balances"]').scrollIntoViewIfNeeded();
      await snap(page, `in-orders-vote-only-${lang}`);

      await page.goto(`${server.baseUrl}/#/assets`);
      await page.locator('[data-testid="asset-row-USDT"] [data-testid="coin-row-main"]').click();
      const reason = page.locator('[data-testid="held-reason"][data-purpose="vote"]');
      await reason.waitFor();
      expect(await reason.innerText()).toContain(vote);
      await page.locator('[data-testid="held-for"]').scrollIntoViewIfNeeded();
      await snap(page, `assets-frozen-reasons-${lang}`);
      await page.click('[data-testid="see-holds"]');
      await waitForRoute(page, /^#\/holds/);
      await page.locator('[data-testid="hold-item"][data-purpose="vote"]').waitFor();
      await snap(page, `holds-${lang}`);
      expect(errors).toEqual([]);
    }
  });
});

describe("fill notifications", () => {
  it("toasts a limit order that filled while its owner was on another screen, with a link to the statement", async () => {
    const { page } = await openPhone(browser, "en", tokens.demo1);
    await page.goto(`${server.baseUrl}/#/assets`);
    await page.locator('[data-testid="notifications-live"]').waitFor({ state: "attached" });
    await page.locator('[data-testid="asset-total"]').waitFor();
    // demo1 rests a sell above the book; demo2 takes it.
    const placed = await call<{ order_id: string }>("/api/transaction/walletOut", tokens.demo1, { currency_id: 1, legal_id: 3, mode: 2, price: "99000", num: "0.0001", client_oid: `e2e-fill-${Date.now()}` });
    await call("/api/transaction/walletIn", tokens.demo2, { currency_id: 1, legal_id: 3, mode: 2, price: "99000", num: "0.0001", client_oid: `e2e-take-${Date.now()}` });
    const toast = page.locator('[data-testid="notice-toast"]').filter({ hasText: "Order filled" });
    await toast.waitFor();
    expect(await toast.innerText()).toContain(`#${placed.order_id}`);
    await snap(page, "fill-notification-en");
    await toast.locator('[data-testid="toast-action"]').click();
    await waitForRoute(page, /^#\/statement$/);
  });
});
