/// <reference lib="dom" />
// Functions passed to page.evaluate() run in the browser, hence the DOM types.
/**
 * A seconds contract as a new user tries it in a phone-sized browser (issue #9 acceptance): demo1
 * moves USDT from the spot account to the micro account on /transfer, opens /trade, sees the fee,
 * the win and the worst case before confirming, accepts the risk disclosure once, buys "up 60 s"
 * on BTC/USDT; the countdown runs in the list and in the order modal; at expiry the modal says
 * settling and then shows the result with "settlement finished"; the result follows the tie rule
 * from the public tick log's entry and exit ticks (the modal names both); the micro balance
 * changes by exactly the result and the fee; the history lists it. The file's Worker runs the dev
 * clock, and the test moves it over the contract's minute once the countdown has been seen running. Also: the chart in trade mode
 * offers up and down, and with seconds switched off the tab is gone and /trade says "not open".
 *
 * No market maker runs here: demo2 rests a bid and an ask, so BTC/USDT has a two-sided book and an
 * index (the mid) that stays put, so the up contract ends on a tie and loses, which is the rule.
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { BrowserContext, Page } from "playwright-core";
import { newPhoneContext, snap } from "./browser.ts";
import { browser, server, useExchange } from "./exchange.ts";
import { waitForRoute } from "./helpers.ts";

const tokens: Record<"demo1" | "demo2", string> = { demo1: "", demo2: "" };

interface Tick {
  id: number;
  price: string;
  at: number;
}

async function login(account: string, password = "Demo1234"): Promise<string> {
  const res = await fetch(`${server.baseUrl}/api/user/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ user_string: account, password, type: 1 }),
  });
  const json = (await res.json()) as { type: string; message: { token: string } };
  if (json.type !== "ok") throw new Error(`login ${account}: ${JSON.stringify(json)}`);
  return json.message.token;
}

async function api<T>(token: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${server.baseUrl}${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { ...(token ? { Authorization: token } : {}), "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json()) as { type?: string; status?: number; message?: T; data?: T };
  if (json.type !== "ok" && json.status !== 1) throw new Error(`${path}: ${JSON.stringify(json)}`);
  return (json.message ?? json.data) as T;
}

/** The micro balance of USDT as the API answers it. */
async function microUsdt(token: string): Promise<string> {
  const list = await api<{ id: number; user_wallet: { micro_balance: string } | null }[]>(token, "/api/microtrade/payable_currencies");
  const usdt = list.find((c) => c.id === 3);
  if (!usdt?.user_wallet) throw new Error("no USDT micro wallet");
  return usdt.user_wallet.micro_balance;
}

/** "89.8" as 8-decimal units, exactly. */
const units = (v: string) => {
  const [i = "0", f = ""] = v.replace(/^-/, "").split(".");
  const u = BigInt(i + f.padEnd(8, "0").slice(0, 8));
  return v.startsWith("-") ? -u : u;
};

// The dev clock (worker/lib/clock.ts) moves the contract's minute on instead of waiting for it.
useExchange({ DEV_CLOCK: "on" });

beforeAll(async () => {
  tokens.demo1 = await login("demo1@exchange.test");
  tokens.demo2 = await login("demo2@exchange.test");
  // A two-sided BTC/USDT book from someone else: bid 60,000, ask 61,000 → index 60,500 (no trade yet).
  await api(tokens.demo2, "/api/transaction/walletIn", { currency_id: 1, legal_id: 3, price: "60000", num: "0.01", mode: 2, client_oid: "sec-e2e-bid" });
  await api(tokens.demo2, "/api/transaction/walletOut", { currency_id: 1, legal_id: 3, price: "61000", num: "0.01", mode: 2, client_oid: "sec-e2e-ask" });
});

interface Opened {
  context: BrowserContext;
  page: Page;
  errors: Error[];
}

async function openAs(locale: string, token: string | null): Promise<Opened> {
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

const text = async (page: Page, testId: string) => (await page.locator(`[data-testid="${testId}"]`).first().textContent())?.trim();

describe("seconds contracts", () => {
  it("moves USDT to the micro account, buys up 60 s, counts down, settles by the tie rule from the public ticks and books exactly result and fee", async () => {
    const o = await openAs("en", tokens.demo1);
    const p = o.page;
    // `closed_microorder` frames on this tab's private channel (/ws/user), by contract id.
    const closedEvents: number[] = [];
    p.on("websocket", (ws) => {
      if (!ws.url().endsWith("/ws/user")) return;
      ws.on("framereceived", (f) => {
        try {
          const msg = JSON.parse(String(f.payload)) as { type?: string; data?: { id?: number } };
          if (msg.type === "closed_microorder" && typeof msg.data?.id === "number") closedEvents.push(msg.data.id);
        } catch {
          // not JSON: not ours
        }
      });
    });

    // 1. Spot → micro: 100 USDT on the transfer screen.
    await p.goto(`${server.baseUrl}/#/transfer`);
    await p.waitForSelector('[data-testid="transfer-page"]');
    await p.selectOption('[data-testid="transfer-from"]', "change");
    await p.selectOption('[data-testid="transfer-to"]', "micro");
    await p.fill('[data-testid="transfer-amount"]', "100");
    await p.click('[data-testid="transfer-submit"]');
    await p.waitForFunction(() => document.querySelector('[data-testid="transfer-available"]')?.textContent === "Available: 9,900.00 USDT");
    const before = await microUsdt(tokens.demo1);
    expect(units(before)).toBe(units("100"));

    // 2. The contract screen: index from the live book, the balance just moved, the terms before confirming.
    await p.goto(`${server.baseUrl}/#/`);
    await p.click('[data-testid="tabbar"] a[href="#/trade"]');
    await waitForRoute(p, /^#\/trade$/);
    await p.waitForSelector('[data-testid="sec-form"]');
    await p.waitForFunction(() => document.querySelector('[data-testid="index-price"]')?.textContent === "60,500.00");
    expect(await text(p, "sec-available")).toBe("100.00");
    const sixty = p.locator('[data-testid="sec-duration"][data-seconds="60"]');
    expect(await sixty.getAttribute("aria-checked")).toBe("true"); // spec §9: 60 s by default
    const ratio = /(\d+(?:\.\d+)?)%/.exec((await sixty.textContent()) ?? "")?.[1] ?? "";
    expect(ratio).not.toBe("");
    await p.fill('[data-testid="sec-amount"]', "10");
    expect(await text(p, "sec-fee")).toBe("0.20 USDT");
    // Both ways net of the 0.2 fee: win = 10 × ratio% (cut) − 0.2, e.g. 85 → +8.3; wrong: −10 − 0.2.
    const win = (units("10") * units(ratio)) / 100n / 10n ** 8n;
    const dec = (u: bigint) => `${u / 10n ** 8n}${u % 10n ** 8n ? `.${(u % 10n ** 8n).toString().padStart(8, "0").replace(/0+$/, "")}` : ""}`;
    const two = (t: string) => t.replace(/^(-?\d+)$/, "$1.00").replace(/^(-?\d+\.\d)$/, "$10");
    const winText = two(dec(win));
    // Shown by the one amount rule: exact, at least two decimals ("8.30").
    const netText = two(dec(win - units("0.2")));
    expect(await text(p, "sec-win")).toBe(`+${netText} USDT`);
    expect(await text(p, "sec-worst")).toBe("-10.20 USDT");
    expect(await text(p, "sec-net-note")).toBe(`Both net of the 0.20 USDT fee you pay now: a right call pays ${winText} on top of your 10.00 stake, a wrong one loses the stake.`);
    expect(await text(p, "sec-tie-rule")).toContain("Up wins only if the exit price is above the entry price; down wins if it is equal or below");
    // A stake the form refuses before sending: more than the micro balance holds with the fee.
    await p.fill('[data-testid="sec-amount"]', "99");
    await p.click('[data-testid="sec-submit"]');
    expect(await text(p, "sec-error")).toBe("Not enough in the seconds account: amount plus fee is 100.98 USDT");
    expect(await p.locator('[data-testid="sec-transfer-link"]').count()).toBe(1);
    await p.fill('[data-testid="sec-amount"]', "10");
    await snap(p, "seconds-form-en");

    // 3. The risk disclosure comes first, once; then the confirm dialog repeats the terms.
    await p.click('[data-testid="sec-submit"]');
    const risk = p.locator('[data-testid="risk-dialog"]');
    await risk.waitFor();
    expect((await risk.textContent()) ?? "").toContain("banned these products for retail clients in the EU, the UK and Australia");
    expect(await p.locator('[data-testid="risk-accept"]').isDisabled()).toBe(true);
    await snap(p, "seconds-risk-en");
    await p.locator('[data-testid="risk-tick"]').check({ force: true });
    await p.click('[data-testid="risk-accept"]');
    await p.waitForSelector('[data-testid="sec-confirm"]');
    expect(await text(p, "sec-confirm-fee")).toBe("0.20 USDT");
    expect(await text(p, "sec-confirm-worst")).toBe("-10.20 USDT");
    expect(await text(p, "sec-confirm-win")).toBe(`+${netText} USDT`);
    await snap(p, "seconds-confirm-en");
    await p.click('[data-testid="sec-confirm-go"]');
    await p.getByText("Contract started: Up, 60 s").waitFor();

    // 4. Running: the row counts down; stake and fee left the micro balance at once.
    const row = p.locator('[data-testid="running-order"]').first();
    await row.waitFor();
    expect(await row.getAttribute("data-phase")).toBe("running");
    const id = Number(await row.getAttribute("data-id"));
    const firstClock = (await row.locator('[data-testid="running-countdown"]').textContent()) ?? "";
    expect(firstClock).toMatch(/^00:[0-5]\d$|^01:00$/);
    await p.waitForFunction(
      ([rid, was]) => {
        const c = document.querySelector(`[data-testid="running-order"][data-id="${rid}"] [data-testid="running-countdown"]`)?.textContent ?? was;
        return c !== was;
      },
      [id, firstClock] as const,
    );
    await p.waitForFunction(() => document.querySelector('[data-testid="sec-available"]')?.textContent === "89.80");
    expect(units(await microUsdt(tokens.demo1))).toBe(units("89.8"));
    await snap(p, "seconds-running-en");

    // 5. The modal: ring countdown, then settling, then the result with "settlement finished".
    await row.click();
    const modal = p.locator('[data-testid="order-modal"]');
    await modal.waitFor();
    await p.waitForSelector('[data-testid="order-modal-countdown"]');
    expect(await text(p, "order-modal-open")).toBe("60,500.00");
    await snap(p, "seconds-modal-running-en");
    // The minute passes: the clock moves 60 s on, and the pair object settles the contract at once,
    // at the index of its end (the book never moved), as it would at the real end.
    await api("", "/api/dev/clock", { advance_s: 60 });
    await p.waitForSelector('[data-testid="order-modal-state"][data-phase="settling"], [data-testid="order-modal-state"][data-phase="settled"]', { timeout: 120_000 });
    await p.waitForSelector('[data-testid="order-modal-state"][data-phase="settled"]', { timeout: 120_000 });
    expect((await modal.textContent()) ?? "").toContain("Settlement finished");
    // Exit = entry (the book never moved): up does not win on a tie.
    expect(await text(p, "order-modal-close-price")).toBe("60,500.00");
    // Net of the fee, as the form said before confirming; the result before the fee beside it.
    expect(await text(p, "order-modal-result")).toBe("-10.20 USDT");
    expect(await text(p, "order-modal-gross")).toBe("-10.00 USDT");
    expect(await p.locator('[data-testid="order-modal-result"]').getAttribute("class")).toContain("down");
    await snap(p, "seconds-modal-settled-en");
    // The owner got `closed_microorder` for this contract on the private channel.
    await expect.poll(() => closedEvents, { timeout: 120_000 }).toContain(id);

    // 6. The public tick log has the two ticks the modal names, and they give this result.
    const entryId = Number(((await text(p, "entry-tick")) ?? "").slice(1));
    const exitId = Number(((await text(p, "exit-tick")) ?? "").slice(1));
    // Public: read without a login.
    const entry = await api<{ tick: Tick }>("", `/api/currency/index_tick?match_id=1&id=${entryId}`);
    const exit = await api<{ tick: Tick }>("", `/api/currency/index_tick?match_id=1&id=${exitId}`);
    expect(entry.tick.price).toBe("60500.00");
    expect(exit.tick.price).toBe("60500.00");
    // The settled contract offers its check (tested in settle-verify.test.ts).
    expect(await p.locator('[data-testid="order-modal-verify"]').getAttribute("href")).toBe(`#/trade/verify?id=${id}`);
    await p.click('[data-testid="order-modal-close"]');

    // 7. Exactly the result and the fee: 100 − 10 − 0.2 = 89.8, nothing frozen or returned besides.
    expect(units(await microUsdt(tokens.demo1))).toBe(units(before) - units("10") - units("0.2"));
    await p.waitForFunction(() => document.querySelector('[data-testid="sec-available"]')?.textContent === "89.80");
    // The settled row stays in the running list with its result until dismissed.
    const settledRow = p.locator(`li:has([data-testid="running-order"][data-id="${id}"])`);
    expect(await settledRow.locator('[data-testid="running-order"]').getAttribute("data-phase")).toBe("settled");
    expect(await settledRow.locator('[data-testid="running-outcome"]').textContent()).toBe("Lost -10.20 USDT netDismiss");
    expect(await settledRow.locator('[data-testid="running-result"]').textContent()).toBe("-10.20");
    await snap(p, "seconds-settled-row-en");
    await settledRow.locator('[data-testid="running-dismiss"]').click();
    await p.locator(`[data-testid="running-order"][data-id="${id}"]`).waitFor({ state: "detached" });

    // 8. The history: settled, −10 in red.
    await p.click('[data-testid="history-link"]');
    await waitForRoute(p, /^#\/trade\/lists$/);
    const hist = p.locator(`[data-testid="history-row"][data-id="${id}"]`);
    await hist.waitFor();
    expect(await hist.locator('[data-testid="history-status"]').textContent()).toBe("Settled");
    expect(await hist.locator('[data-testid="history-result"]').textContent()).toBe("-10.20");
    expect(await hist.locator('[data-testid="history-fee"]').textContent()).toBe("0.20");
    expect(await hist.locator('[data-testid="history-result"]').getAttribute("class")).toContain("down");
    await snap(p, "seconds-lists-en");

    // 9. A second contract: no disclosure again for this user on this device.
    await p.goto(`${server.baseUrl}/#/trade`);
    await p.waitForFunction(() => document.querySelector('[data-testid="index-price"]')?.textContent === "60,500.00");
    await p.click('[data-testid="sec-dir-down"]');
    await p.click('[data-testid="sec-amount-choice"] >> nth=0');
    await p.click('[data-testid="sec-submit"]');
    await p.waitForSelector('[data-testid="sec-confirm"]');
    expect(await p.locator('[data-testid="risk-dialog"]').count()).toBe(0);
    await p.click('[data-testid="sec-confirm"] .btn-ghost');

    // 10. The chart in trade mode: up and down, opening the contract form on that direction.
    await p.click('[data-testid="kline-link"]');
    await waitForRoute(p, /^#\/kline\?from=trade&mode=seconds$/);
    expect(await text(p, "kline-buy")).toBe("Up");
    expect(await text(p, "kline-sell")).toBe("Down");
    await p.click('[data-testid="kline-sell"]');
    await p.waitForSelector('[data-testid="contract-sheet"] [data-testid="sheet-form"]');
    expect(await p.locator('[data-testid="sheet-dir-down"]').getAttribute("aria-checked")).toBe("true");
    await snap(p, "seconds-kline-sheet-en");

    // 11. The same screens in Chinese.
    const zh = await openAs("zh", tokens.demo1);
    await zh.page.goto(`${server.baseUrl}/#/trade`);
    await zh.page.waitForFunction(() => document.querySelector('[data-testid="index-price"]')?.textContent === "60,500.00");
    expect(await text(zh.page, "sec-dir-up")).toBe("看涨");
    // Each product its own name: this tab is the seconds contract, leverage is one tap away.
    expect(await text(zh.page, "product-seconds")).toBe("秒合约");
    expect(await text(zh.page, "product-lever")).toBe("杠杆合约");
    expect(await zh.page.locator('[data-testid="tabbar"] a[href="#/trade"]').textContent()).toBe("秒合约");
    await snap(zh.page, "seconds-trade-zh");
    await zh.page.goto(`${server.baseUrl}/#/trade/lists`);
    await zh.page.locator('[data-testid="history-row"]').first().waitFor();
    expect(await zh.page.locator('[data-testid="history-status"]').first().textContent()).toBe("已结算");
    await snap(zh.page, "seconds-lists-zh");

    for (const x of [o, zh]) {
      expect(x.errors).toEqual([]);
      await x.context.close();
    }
  });

  it("refuses before sending on a pair with no two-sided book, and sends a 998 answer to identity verification", async () => {
    await api(tokens.demo2, "/api/wallet/change", { number: "20", from_field: "change", to_field: "micro", currency_id: 3 });
    const o = await openAs("en", tokens.demo2);
    const p = o.page;
    await p.goto(`${server.baseUrl}/#/trade`);
    await p.waitForSelector('[data-testid="sec-form"]');
    // ETH/USDT has no orders here: no index, so no contract (the server would refuse it the same way).
    await p.click('[data-testid="pair-button"]');
    await p.locator('[data-testid="pair-row"]').filter({ hasText: "ETH" }).click();
    await p.waitForSelector('[data-testid="no-index"]');
    await p.fill('[data-testid="sec-amount"]', "10");
    await p.click('[data-testid="sec-submit"]');
    expect(await text(p, "sec-error")).toBe("No market price: the book needs bids and asks before a contract can start.");
    expect(await p.locator('[data-testid="risk-dialog"]').count()).toBe(0);

    // Back on BTC/USDT, the server answers 998 (identity not verified): the reminder leads to /verifyed.
    await o.context.route("**/api/microtrade/submit", (route) =>
      route.fulfill({ status: 403, contentType: "application/json", body: JSON.stringify({ type: "998", code: "kyc_required", message: "Please complete identity verification first" }) }),
    );
    await p.click('[data-testid="pair-button"]');
    await p.locator('[data-testid="pair-row"]').filter({ hasText: "BTC" }).click();
    await p.waitForFunction(() => document.querySelector('[data-testid="index-price"]')?.textContent === "60,500.00");
    await p.fill('[data-testid="sec-amount"]', "10");
    await p.click('[data-testid="sec-submit"]');
    await p.locator('[data-testid="risk-tick"]').check({ force: true });
    await p.click('[data-testid="risk-accept"]');
    await p.click('[data-testid="sec-confirm-go"]');
    const reminder = p.locator('[role="alertdialog"]');
    await reminder.getByText("Please complete identity verification first").waitFor();
    await reminder.getByRole("button", { name: "Confirm" }).click();
    await waitForRoute(p, /^#\/verifyed$/);
    expect(o.errors).toEqual([]);
    await o.context.close();
  });

  it("hides the contract tab and the home shortcut, and says not open on /trade, when seconds contracts are switched off", async () => {
    const o = await openAs("en", tokens.demo1);
    // The deployment's switches as GET /api/cfg/kefu publishes them with PRODUCT_SECONDS=off (the
    // server's own refusal is the API tests' business; this is what the screens do with it).
    await o.context.route("**/api/cfg/kefu", async (route) => {
      const res = await route.fetch();
      const json = (await res.json()) as { type: string; message: { products: { seconds: boolean } } };
      json.message.products.seconds = false;
      await route.fulfill({ response: res, json });
    });
    const p = o.page;
    await p.goto(`${server.baseUrl}/#/`);
    await p.locator('[data-testid="tabbar"]').getByText("Spot").waitFor();
    await p.locator('[data-testid="tabbar"] a').nth(3).waitFor();
    expect(await p.locator('[data-testid="tabbar"] a[href="#/trade"]').count()).toBe(0);
    expect(await p.locator('a[href="#/trade"]').count()).toBe(0);
    await p.goto(`${server.baseUrl}/#/trade`);
    await p.waitForSelector('[data-testid="seconds-off"]');
    expect(await text(p, "seconds-off")).toContain("Seconds contracts are not open");
    await snap(p, "seconds-off-en");
    expect(o.errors).toEqual([]);
    await o.context.close();
  });

  it("lets an operator add a duration (with a reason) that users then see with its ratio, and withdraw it again", async () => {
    const operator = await login("operator@exchange.test", "Operator1234");
    const op = await openAs("en", operator);
    await op.page.goto(`${server.baseUrl}/#/admin/seconds`);
    await op.page.waitForSelector('[data-testid="sec-option-row"]');
    await op.page.click('[data-testid="sec-option-add"]');
    await op.page.fill('[data-testid="sec-option-seconds"]', "45");
    await op.page.fill('[data-testid="sec-option-ratio"]', "81.5");
    await op.page.click('[data-testid="sec-option-save"]');
    expect((await op.page.locator('[data-testid="sec-option-dialog"] [role="alert"]').textContent())?.trim()).toBe("Please give a reason");
    await op.page.fill('[data-testid="sec-option-reason"]', "e2e: a 45 s duration");
    await op.page.click('[data-testid="sec-option-save"]');
    await op.page.locator('[data-testid="sec-option-row"]').filter({ hasText: "45 s" }).waitFor();
    await snap(op.page, "seconds-admin-en");

    const user = await openAs("en", tokens.demo2);
    await user.page.goto(`${server.baseUrl}/#/trade`);
    const option = user.page.locator('[data-testid="sec-duration"][data-seconds="45"]');
    await option.waitFor();
    expect((await option.textContent())?.replace(/\s+/g, " ").trim()).toBe("45 s pays 81.5%");

    // Withdrawn: no longer offered to users.
    await op.page.locator('[data-testid="sec-option-row"]').filter({ hasText: "45 s" }).locator('[data-testid="sec-option-edit"]').click();
    await op.page.locator('[data-testid="sec-option-on"]').uncheck({ force: true });
    await op.page.fill('[data-testid="sec-option-reason"]', "e2e: withdrawn");
    await op.page.click('[data-testid="sec-option-save"]');
    await op.page.locator('[data-testid="sec-option-row"]').filter({ hasText: "45 s" }).getByText("Withdrawn").waitFor();
    await user.page.reload();
    await user.page.waitForSelector('[data-testid="sec-duration"][data-seconds="60"]');
    expect(await user.page.locator('[data-testid="sec-duration"][data-seconds="45"]').count()).toBe(0);
    for (const x of [op, user]) {
      expect(x.errors).toEqual([]);
      await x.context.close();
    }
  });
});
