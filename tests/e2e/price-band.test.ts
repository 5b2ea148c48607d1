/// <reference lib="dom" />
// Functions passed to page.evaluate() run in the browser, hence the DOM types.
/**
 * A price nobody can print (issue #26), at phone size in English and Chinese: the spot order form
 * states the allowed price range around the index and refuses a limit price outside it with the
 * band in words; the invite team list shows an invitee verified at level 1 as such, with the level
 * rebates need.
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { openPhone, snap } from "./browser.ts";
import { browser, server, useExchange } from "./exchange.ts";
import { captchaAnswer, uniqueEmail } from "./helpers.ts";

let demo1 = "";
let band = { index: "", low: "", high: "" };

type Json = { type?: string; message?: unknown; status?: number; data?: unknown };

async function call<T>(path: string, opts: { token?: string; body?: unknown } = {}): Promise<T> {
  const res = await fetch(new URL(path, server.baseUrl), {
    method: opts.body === undefined ? "GET" : "POST",
    headers: { "content-type": "application/json", lang: "en", ...(opts.token ? { authorization: opts.token } : {}) },
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
  });
  const json = (await res.json()) as Json;
  if (json.type === "ok") return json.message as T;
  throw new Error(`${path}: ${JSON.stringify(json)}`);
}

const login = async (account: string, password: string) => (await call<{ token: string }>("/api/user/login", { body: { user_string: account, password, type: 1 } })).token;

/** "50100.00" as the screens show it: "50,100.00". */
const grouped = (v: string) => {
  const [i = "0", f] = v.split(".");
  return `${i.replace(/\B(?=(\d{3})+(?!\d))/g, ",")}${f === undefined ? "" : `.${f}`}`;
};

useExchange();

beforeAll(async () => {
  demo1 = await login("demo1@exchange.test", "Demo1234");
  const demo2 = await login("demo2@exchange.test", "Demo1234");
  // A two-sided BTC book gives the pair an index, and with it a band.
  await call("/api/transaction/walletIn", { token: demo2, body: { currency_id: 1, legal_id: 3, mode: 2, price: "50000", num: "0.01" } });
  await call("/api/transaction/walletOut", { token: demo2, body: { currency_id: 1, legal_id: 3, mode: 2, price: "50200", num: "0.01" } });
  const rules = await call<{ index_price: string; price_band_low: string; price_band_high: string }>("/api/transaction/balance?currency_id=1&legal_id=3", { token: demo1 });
  band = { index: rules.index_price, low: rules.price_band_low, high: rules.price_band_high };

  // demo1 invites a friend who verifies their identity at level 1 only.
  const code = (await call<{ code: string }>("/api/invite/info", { token: demo1 })).code;
  const account = uniqueEmail("band");
  const cap = await call<{ code_id: string }>("/api/login/smscode", { body: {} });
  await call("/api/user/register", {
    body: { type: 1, user_string: account, password: "Friend2026x", re_password: "Friend2026x", code_id: cap.code_id, code: await captchaAnswer(server.baseUrl, cap.code_id), extension_code: code },
  });
  const friend = await login(account, "Friend2026x");
  await call("/api/user/real_name", { token: friend, body: { name: "Level One", type: 1, card_id: "BAND-L1-0001" } });
  const op = await login("operator@exchange.test", "Operator1234");
  const kyc = await call<{ lists: { id: number; account: string }[] }>("/api/admin/kyc?status=1&limit=100", { token: op });
  await call(`/api/admin/kyc/${kyc.lists.find((k) => k.account === account)!.id}/approve`, { token: op, body: { reason: "" } });
}, 180_000);

const text = async (page: Page, testId: string) => (await page.locator(`[data-testid="${testId}"]`).first().textContent())?.trim();

const words = {
  en: { band: "Allowed price", refused: "A limit price must be within 10% of the index price", level: "Level 1", needed: "rebates need level 2", badge: "Needs level 2" },
  zh: { band: "允许价格", refused: "限价须在指数价格的 10% 以内", level: "1 级", needed: "返佣需 2 级认证", badge: "需 2 级认证" },
} as const;

async function journey(lang: "en" | "zh") {
  const w = words[lang];
  const { page, errors } = await openPhone(browser, lang, demo1);
  await page.goto(`${server.baseUrl}/#/exchange`);
  await page.waitForSelector('[data-testid="exchange"]');
  // The form states the band in words, with both ends.
  await page.locator('[data-testid="order-price-band"]').getByText(w.band).waitFor();
  const shown = await text(page, "order-price-band");
  expect(shown).toContain(grouped(band.low));
  expect(shown).toContain(grouped(band.high));
  expect(band.low).not.toBe("");

  // A limit buy at 100,000,000 is refused before anything is sent, with the band in words.
  await page.click('[data-testid="order-side-buy"]');
  await page.fill('[data-testid="order-price"]', "100000000");
  await page.fill('[data-testid="order-qty"]', "0.0001");
  await page.click('[data-testid="order-submit"]');
  await page.getByText(w.refused).first().waitFor();
  expect(await page.locator('[data-testid="open-order"]').filter({ hasText: "100,000,000" }).count()).toBe(0);
  await snap(page, `price-band-refused-${lang}`);

  // The invite team list: the friend verified at level 1, and the level rebates need.
  await page.goto(`${server.baseUrl}/#/invite/team`);
  const row = page.locator('[data-testid="team-member"]').filter({ has: page.locator('[data-testid="team-kyc"]', { hasText: w.level }) }).first();
  await row.waitFor();
  expect(await row.locator('[data-testid="team-kyc"]').innerText()).toContain(w.needed);
  expect(await row.locator('[data-testid="team-status"]').innerText()).toBe(w.badge);
  await snap(page, `price-band-team-${lang}`);
  expect(errors).toEqual([]);
}

describe("a price nobody can print, on the phone", () => {
  it("in English: the spot form states the band and refuses a price outside it; the team list shows a level-1 invitee's level", async () => {
    await journey("en");
  });
  it("in Chinese: the same in Chinese", async () => {
    await journey("zh");
  });
});
