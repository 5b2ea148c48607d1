/// <reference lib="dom" />
// Functions passed to page.evaluate() run in the browser, hence the DOM types.
/**
 * Contract-asset cover in a real browser at phone size (issue #19 §4), in English and in Chinese:
 * a demo user with USDT in the seconds account opens the cover page, sees the seeded plan, its
 * rule and the published totals, picks 1,000 USDT, reads the confirmation (premium from the spot
 * account, cover reserved by the exchange, in force from the next 00:00 UTC, shown as 08:00 UTC+8 by the one time rule, no early exit), pays,
 * and finds the cover under "My cover" as starting tomorrow, with the premium gone from the spot
 * account. A cover in force whose seconds account has lost half is claimed and paid into the
 * seconds account. The operator publishes a plan from the console and it is on sale at once.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterAll, describe, expect, it } from "vitest";
import type { BrowserContext, Page } from "playwright-core";
import { newPhoneContext, snap } from "./browser.ts";
import { browser, server, useExchange } from "./exchange.ts";
import { waitForRoute } from "./helpers.ts";

const contexts: BrowserContext[] = [];

useExchange();

afterAll(async () => {
  for (const c of contexts) await c.close().catch(() => undefined);
});

async function apiCall<T>(path: string, token: string | null, body?: unknown): Promise<T> {
  const res = await fetch(new URL(`/api${path}`, server.baseUrl), {
    method: body === undefined ? "GET" : "POST",
    headers: { "content-type": "application/json", lang: "en", ...(token ? { authorization: token } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json()) as { type: string; message: T };
  if (json.type !== "ok") throw new Error(`${path}: ${JSON.stringify(json)}`);
  return json.message;
}

const login = async (account: string, password: string) => (await apiCall<{ token: string }>("/user/login", null, { user_string: account, password, type: 1 })).token;

async function spotUsdt(token: string): Promise<string> {
  const wallets = await apiCall<{ change_wallet: { balance: { currency_name: string; change_balance: string }[] } }>("/wallet/list", token, {});
  return wallets.change_wallet.balance.find((b) => b.currency_name === "USDT")!.change_balance;
}

async function openPhone(lang: string, token: string): Promise<{ page: Page; errors: Error[] }> {
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

const text = (page: Page, testId: string) => page.locator(`[data-testid="${testId}"]`).first().innerText();
const tomorrowUtc = () => new Date(Math.floor(Date.now() / 86_400_000) * 86_400_000 + 86_400_000).toISOString().slice(0, 10);

async function buyJourney(lang: "en" | "zh", account: string, words: { plan: string; pay: string; starts: string }) {
  const token = await login(account, "Demo1234");
  // The insured asset: 1,000 USDT moved into the seconds account.
  await apiCall("/wallet/change", token, { number: "1000", from_field: "change", to_field: "micro", currency_id: 3 });
  const spotBefore = await spotUsdt(token);
  const { page, errors } = await openPhone(lang, token);

  await page.goto(`${server.baseUrl}/#/insurance`);
  const plan = page.locator('[data-testid="ins-plan"]').filter({ hasText: words.plan }).first();
  await plan.waitFor();
  await page.locator('[data-testid="ins-rules"]').waitFor();
  await page.locator('[data-testid="ins-totals"]').waitFor();
  await plan.locator('[data-testid="ins-amount"]').filter({ hasText: "1,000" }).click();
  expect(await plan.locator('[data-testid="ins-plan-premium"]').innerText()).toContain("50.00");
  expect(await plan.locator('[data-testid="ins-plan-cover"]').innerText()).toContain("500.00");
  await snap(page, `insurance-plans-${lang}`);

  // The confirmation states the terms before the premium moves.
  await plan.locator('[data-testid="ins-buy"]').click();
  await page.locator('[data-testid="ins-confirm"]').waitFor();
  expect(await text(page, "ins-confirm-premium")).toContain("50.00");
  expect(await text(page, "ins-confirm-cover")).toContain("500.00");
  // The cover's day starts at 00:00 UTC, shown by the one time rule as 08:00 UTC+8 the same date.
  expect(await text(page, "ins-confirm-start")).toContain(`${tomorrowUtc()} 08:00`);
  expect(await text(page, "ins-confirm-rules")).toContain(`${tomorrowUtc()} 08:00 UTC+8`);
  expect(await text(page, "ins-confirm-rules")).not.toMatch(/UTC(?!\+8)/);
  expect(await text(page, "ins-confirm-go")).toContain(words.pay);
  await snap(page, `insurance-confirm-${lang}`);
  expect(await spotUsdt(token)).toBe(spotBefore);

  await page.click('[data-testid="ins-confirm-go"]');
  await waitForRoute(page, /^#\/insurance\/my$/);
  const card = page.locator('[data-testid="ins-cover"]').first();
  await card.waitFor();
  expect(await card.getAttribute("data-status")).toBe("pending");
  expect(await card.locator('[data-testid="ins-cover-status"]').innerText()).toContain(`${tomorrowUtc()} 08:00 UTC+8`);
  expect(await card.innerText()).toContain(words.starts);
  await snap(page, `insurance-my-${lang}`);

  // The premium left the spot account: 50 USDT.
  const spent = Number(spotBefore.replace(/,/g, "")) - Number((await spotUsdt(token)).replace(/,/g, ""));
  expect(spent).toBeCloseTo(50, 6);
  expect(errors).toEqual([]);
}

/**
 * A STAND-IN for a day passing: a cover bought yesterday (so in force now) and a settled seconds
 * contract that lost `loss` USDT since, written into the test server's local D1 (a SQLite file in
 * WAL mode shared with the running worker) exactly as the purchase's batch and the pair object's
 * drain write them: the premium and the reserve as one movement (the ledger trigger moves the
 * balances), the cover row, the plan's totals. The books stay balanced.
 */
function coverInForceSinceYesterday(persistDir: string, account: string, planId: number, insured: number, loss: number): number {
  const dir = join(persistDir, "v3", "d1", "miniflare-D1DatabaseObject");
  const file = readdirSync(dir)
    .filter((n) => n.endsWith(".sqlite") && n !== "metadata.sqlite")
    .map((n) => join(dir, n))
    .find((f) => {
      const probe = new DatabaseSync(f, { readOnly: true });
      try {
        return !!probe.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'insurance_covers'").get();
      } finally {
        probe.close();
      }
    })!;
  const db = new DatabaseSync(file, { timeout: 10_000 });
  const U = 100_000_000; // USDT minimal units
  const day = 86_400_000;
  const now = Date.now();
  const start = Math.floor(now / day) * day;
  const id = (now - Date.UTC(2026, 0, 1)) * 4096 + 7;
  const premium = (insured * U) / 20;
  const cover = (insured * U) / 2;
  const key = `insurance:${id}:buy`;
  try {
    db.exec("BEGIN IMMEDIATE");
    const user = (db.prepare("SELECT id FROM users WHERE account = ?").get(account) as { id: number }).id;
    db.prepare("INSERT INTO movements (key, kind, created_at) VALUES (?, 'insurance_premium', ?)").run(key, now - day);
    const row = db.prepare("INSERT INTO ledger (movement_key, user_id, currency_id, account, d_available, d_frozen, kind, memo, created_at) VALUES (?, ?, 3, 'change', ?, ?, 'insurance_premium', 'e2e', ?)");
    row.run(key, user, -premium, 0, now - day);
    row.run(key, -3, premium - cover, cover, now - day);
    db.prepare(
      "INSERT INTO insurance_covers (id, plan_id, user_id, currency_id, insured, premium, cover, start_at, end_at, status, created_at) VALUES (?, ?, ?, 3, ?, ?, ?, ?, ?, 0, ?)",
    ).run(id, planId, user, insured * U, premium, cover, start, start + 30 * day, now - day);
    db.prepare("UPDATE insurance_plans SET reserved = reserved + ?, premiums = premiums + ?, sold = sold + 1 WHERE id = ?").run(cover, premium, planId);
    db.prepare(
      "INSERT INTO micro_orders (user_id, pair_id, currency_id, type, stake, fee, hold, seconds, profit_ratio_bps, result, status, created_at, end_at, settled_at) VALUES (?, 1, 3, 1, ?, 0, 0, 60, 8000, ?, 3, ?, ?, ?)",
    ).run(user, loss * U, -loss * U, now - 120_000, now - 60_000, now - 60_000);
    db.exec("COMMIT");
  } catch (err) {
    if (db.isTransaction) db.exec("ROLLBACK");
    throw err;
  } finally {
    db.close();
  }
  return id;
}

async function microUsdt(token: string): Promise<number> {
  const wallets = await apiCall<{ micro_wallet: { balance: { currency_name: string; micro_balance: string }[] } }>("/wallet/list", token, {});
  return Number(wallets.micro_wallet.balance.find((b) => b.currency_name === "USDT")!.micro_balance.replace(/,/g, ""));
}

async function claimJourney(lang: "en" | "zh", account: string, planName: string, words: { claimable: string; paid: string }) {
  const op = await login("operator@exchange.test", "Operator1234");
  const plan = await apiCall<{ id: number }>("/admin/insurance/plans", op, { name: planName, currency_id: 3, amounts: ["1000"], premium_percent: "5", cover_percent: "50", days: 30, capacity: "10000", reason: "e2e claim" });
  const token = await login(account, "Demo1234");
  const id = coverInForceSinceYesterday(server.persistDir, account, plan.id, 1000, 600);
  const microBefore = await microUsdt(token);
  const { page, errors } = await openPhone(lang, token);
  await page.goto(`${server.baseUrl}/#/insurance/my`);
  const card = page.locator(`[data-testid="ins-cover"]`).filter({ hasText: `#${id}` });
  await card.waitFor();
  expect(await card.getAttribute("data-status")).toBe("claimable");
  expect(await card.locator('[data-testid="ins-cover-status"]').innerText()).toBe(words.claimable);
  expect(await card.locator('[data-testid="ins-cover-value"]').innerText()).toContain("400.00");
  await snap(page, `insurance-claimable-${lang}`);
  await card.locator('[data-testid="ins-claim"]').click();
  await page.locator('[role="alertdialog"]').waitFor();
  await snap(page, `insurance-claim-confirm-${lang}`);
  await page.locator('[role="alertdialog"] .btn-primary').click();
  await page.waitForFunction((cid) => document.querySelector(`[data-testid="ins-cover"][data-status="paid"]`)?.textContent?.includes(`#${cid}`) ?? false, id);
  expect(await card.locator('[data-testid="ins-cover-status"]').innerText()).toBe(words.paid);
  expect((await microUsdt(token)) - microBefore).toBeCloseTo(500, 6);
  await snap(page, `insurance-paid-${lang}`);
  expect(errors).toEqual([]);
}

describe("contract-asset cover", () => {
  it("in English: demo1 reads the plan and its terms, buys 1,000 USDT of cover and sees it start at the next 08:00 UTC+8", async () => {
    await buyJourney("en", "demo1@exchange.test", { plan: "Seconds account cover", pay: "Pay 50", starts: "Starts" });
  });

  it("in Chinese: demo2 does the same in 简体中文", async () => {
    await buyJourney("zh", "demo2@exchange.test", { plan: "Seconds account cover", pay: "支付 50", starts: "生效" });
  });

  it("in English: a cover in force whose seconds account lost half is claimed, and the cover is paid into the seconds account", async () => {
    await claimJourney("en", "demo1@exchange.test", "Claim test plan", { claimable: "Claimable", paid: "Paid" });
  });

  it("in Chinese: the same claim in 简体中文", async () => {
    await claimJourney("zh", "demo2@exchange.test", "理赔测试方案", { claimable: "可理赔", paid: "已赔付" });
  });

  it("the operator publishes a plan from the console, and it is on sale at once", async () => {
    const token = await login("operator@exchange.test", "Operator1234");
    const { page, errors } = await openPhone("en", token);
    await page.goto(`${server.baseUrl}/#/admin/insurance`);
    await page.locator('[data-testid="admin-insurance"]').waitFor();
    await page.locator('[data-testid="ins-plan-row"]').first().waitFor();
    await page.click('[data-testid="ins-plan-add"]');
    await page.fill('[data-testid="ins-plan-name"]', "Weekly cover");
    await page.fill('[data-testid="ins-plan-amounts"]', "50, 200");
    await page.fill('[data-testid="ins-plan-days"]', "7");
    await page.fill('[data-testid="ins-plan-capacity"]', "10000");
    await page.fill('[data-testid="ins-plan-reason"]', "weekly plan for small accounts");
    await snap(page, "insurance-console-new-en");
    await page.click('[data-testid="ins-plan-save"]');
    await page.locator('[data-testid="ins-plan-row"]').filter({ hasText: "Weekly cover" }).waitFor();
    await snap(page, "insurance-console-en");
    const plans = await apiCall<{ plans: { name: string; days: number }[] }>("/insurance/plans", null);
    expect(plans.plans.find((p) => p.name === "Weekly cover")).toMatchObject({ days: 7 });
    expect(errors).toEqual([]);
  });
});
