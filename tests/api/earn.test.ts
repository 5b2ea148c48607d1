// Savings (issue #19 §1 and its part of §5), through the Worker: products published by operators
// with an interest budget frozen from the treasury, subscriptions that freeze the principal in the
// user's own spot account and reserve the position's interest at once, the daily cron's accrual
// (once per position and interest day: 24 hours of holding from the subscription), flexible redemption, fixed maturity and early redemption, the
// console's create and close, bad input and parallel requests. The reconciler stays clean.
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { app } from "../../worker/app.ts";
import { createProduct as createProductAt } from "../../worker/domain/earn/catalogue.ts";
import { subscribe as subscribeAt } from "../../worker/domain/earn/positions.ts";
import { TREASURY } from "../../worker/lib/guarded.ts";
import { runScheduled } from "../../worker/scheduled.ts";
import { api, dbFingerprint, makeUser, reconcileNow, type TestUser } from "./helpers.ts";
import { createEarnProduct, daily, held } from "./earn-fixtures.ts";
import { bal, fundTreasury, makeOperator, seedWalletCurrencies, u8, ETH, USDT } from "./wallet-fixtures.ts";

let operator: TestUser;

beforeAll(async () => {
  await seedWalletCurrencies();
  operator = await makeOperator();
  await fundTreasury(USDT, u8("1000000"));
});

const createProduct = (over: Record<string, unknown> = {}) => createEarnProduct(operator, over);

const demoUser = (usdt = "10000") => makeUser({ verified: 2, balances: [{ currencyId: USDT, units: u8(usdt) }] });
const product = async (id: number, token?: string) => ((await api("/earn/products", { token })).body.message as any[]).find((p) => p.id === id);
const positions = async (token: string) => (await api("/earn/positions", { token })).body.message as any[];
const subscribe = (token: string, product_id: number, amount: string) => api("/earn/subscribe", { token, body: { product_id, amount } });
async function expectClean() {
  const r = await reconcileNow();
  expect(r.differences).toEqual([]);
}
async function inbox(token: string): Promise<{ kind: string; title: string; body: string }[]> {
  return (await api("/notifications", { token })).body.message.data;
}

describe("a 30-day product, as demo1 would try it", () => {
  it("reserves the position's interest from the budget at subscription and accrues exactly one day's interest per daily run", async () => {
    const p = await createProduct({ term_days: 30, apr: "5", budget: "1000" });
    expect(p).toMatchObject({ kind: "fixed", term_days: 30, apr: "5.00", apr_bps: 500, budget: "1000", remaining: "1000", reserved: "0", paid: "0" });
    const user = await demoUser();

    const sub = await subscribe(user.token, p.id, "100");
    expect(sub.body.type, JSON.stringify(sub.body)).toBe("ok");
    const d = daily(u8("100"), 500n);
    const reserve = d * 30n;
    expect(sub.body.message).toMatchObject({ amount: "100", status: "open", kind: "fixed", days: 0, earned: "0" });
    // The principal stays the user's: frozen in their own spot account.
    expect(await bal(user.id, USDT)).toEqual([u8("9900"), u8("100")]);
    // The budget's remainder fell by exactly the reserved amount.
    const after = await product(p.id, user.token);
    expect(u8(after.remaining)).toBe(u8("1000") - reserve);
    expect(u8(after.reserved)).toBe(reserve);
    expect(after.my_open).toBe("100");
    await expectClean();
    // The wallet's held funds name the position by its product: the 30-day term.
    const groups = (await api("/wallet/holds", { token: user.token })).body.message.groups as { holds: unknown[] }[];
    expect(groups.flatMap((g) => g.holds)).toEqual([expect.objectContaining({ purpose: "savings", ref: { type: "earn", id: sub.body.message.id }, term_days: 30 })]);

    // Just short of a day of holding earns nothing yet; one day of holding accrues exactly one day.
    await runScheduled("* * * * *", env, held(1) - 3 * 60_000);
    expect((await positions(user.token))[0]).toMatchObject({ days: 0, earned: "0" });
    await runScheduled("0 0 * * *", env, held(1));
    let [pos] = await positions(user.token);
    expect(pos).toMatchObject({ days: 1, status: "open" });
    expect(u8(pos.earned)).toBe(d);
    // Fixed: the interest waits in the reserve until maturity.
    expect(pos.paid).toBe("0");
    expect(await bal(user.id, USDT)).toEqual([u8("9900"), u8("100")]);

    // A second run of the same day pays nothing.
    await runScheduled("0 0 * * *", env, held(1));
    await runScheduled("* * * * *", env, held(1) + 60_000);
    [pos] = await positions(user.token);
    expect(pos.days).toBe(1);
    expect(u8(pos.earned)).toBe(d);
    expect((await env.DB.prepare("SELECT count(*) AS n FROM earn_accruals WHERE position_id = ?").bind(pos.id).first<{ n: number }>())!.n).toBe(1);
    await expectClean();

    // The user was told, in their language.
    expect((await inbox(user.token)).map((n) => n.kind)).toContain("earn_subscribed");
  });

  it("redeems a fixed position early with its accrued interest forfeited, as stated, and returns the whole reserve to the budget", async () => {
    const p = await createProduct({ term_days: 30, budget: "500" });
    const user = await demoUser();
    const pos = (await subscribe(user.token, p.id, "100")).body.message;
    await runScheduled("0 0 * * *", env, held(1));
    expect((await positions(user.token))[0].days).toBe(1);

    const r = await api("/earn/redeem", { token: user.token, body: { position_id: pos.id } });
    expect(r.body.message).toMatchObject({ status: "redeemed", paid: "0" });
    expect(await bal(user.id, USDT)).toEqual([u8("10000"), 0n]);
    expect(await product(p.id)).toMatchObject({ remaining: "500", reserved: "0", paid: "0" });
    const [note] = await inbox(user.token);
    expect(note!.kind).toBe("earn_redeemed_early");
    expect(note!.body).toContain("forfeited");

    // Twice is refused and changes nothing.
    const again = await api("/earn/redeem", { token: user.token, body: { position_id: pos.id } });
    expect(again.body).toMatchObject({ type: "error", code: "earn_position_closed" });
    expect(await bal(user.id, USDT)).toEqual([u8("10000"), 0n]);
    await expectClean();
  });

  it("pays principal and every day's interest at maturity, once, catching up days a missed run skipped", async () => {
    const p = await createProduct({ term_days: 7, apr: "12.5", budget: "100" });
    const user = await demoUser("1000");
    const pos = (await subscribe(user.token, p.id, "1000")).body.message;
    const d = daily(u8("1000"), 1250n);

    // No run for 9 days: the next one accrues the 7 interest days and pays out.
    await runScheduled("0 0 * * *", env, held(8));
    const [done] = await positions(user.token);
    expect(done).toMatchObject({ id: pos.id, status: "matured", days: 7, maturity_day: pos.maturity_day });
    expect(u8(done.paid)).toBe(d * 7n);
    expect(await bal(user.id, USDT)).toEqual([u8("1000") + d * 7n, 0n]);
    expect(u8((await product(p.id)).paid)).toBe(d * 7n);

    await runScheduled("0 0 * * *", env, held(8));
    await runScheduled("0 0 * * *", env, held(9));
    expect(await bal(user.id, USDT)).toEqual([u8("1000") + d * 7n, 0n]);
    expect((await inbox(user.token)).filter((n) => n.kind === "earn_matured")).toHaveLength(1);
    await expectClean();
  });
});

describe("a flexible product", () => {
  it("pays each day's interest into the spot account, keeps 30 days reserved ahead, and redeems at once", async () => {
    const p = await createProduct({ term_days: 0, apr: "3.65", budget: "50" });
    expect(p).toMatchObject({ kind: "flexible", reserve_days: 30 });
    const user = await demoUser("1000");
    const pos = (await subscribe(user.token, p.id, "1000")).body.message;
    const d = daily(u8("1000"), 365n); // 0.1 USDT a day
    expect(u8(pos.reserved)).toBe(d * 30n);

    await runScheduled("0 0 * * *", env, held(2));
    const [open] = await positions(user.token);
    expect(open.days).toBe(2);
    expect(u8(open.paid)).toBe(d * 2n);
    expect(u8(open.reserved)).toBe(d * 30n);
    expect(await bal(user.id, USDT)).toEqual([d * 2n, u8("1000")]);
    expect((await inbox(user.token)).filter((n) => n.kind === "earn_interest")).toHaveLength(2);

    const r = await api("/earn/redeem", { token: user.token, body: { position_id: pos.id } });
    expect(r.body.message).toMatchObject({ status: "redeemed" });
    expect(await bal(user.id, USDT)).toEqual([u8("1000") + d * 2n, 0n]);
    const after = await product(p.id);
    expect(after.reserved).toBe("0");
    expect(u8(after.remaining)).toBe(u8("50") - d * 2n);
    expect((await inbox(user.token))[0]!.kind).toBe("earn_redeemed");
    await expectClean();
  });
});

describe("a flexible product whose budget runs low", () => {
  it("renews the reserve while the budget can, then lets it run down, and takes no subscription it cannot reserve", async () => {
    // 0.1 USDT a day: the 30-day reserve is 3 USDT; the budget leaves 0.15 USDT for renewals.
    const p = await createProduct({ term_days: 0, apr: "3.65", budget: "3.15" });
    const user = await demoUser("1000");
    await subscribe(user.token, p.id, "1000");
    const other = await demoUser("100");
    expect((await subscribe(other.token, p.id, "100")).body).toMatchObject({ code: "earn_budget", message: expect.stringMatching(/at most 50\.00009999 USDT/) });

    await runScheduled("0 0 * * *", env, held(3));
    const [pos] = await positions(user.token);
    expect(pos).toMatchObject({ days: 3, paid: "0.3" });
    // Day 1 renewed (0.1 of the 0.15 left); days 2 and 3 could not be: the reserve ran down to 2.8.
    expect(pos.reserved).toBe("2.8");
    expect(await product(p.id)).toMatchObject({ reserved: "2.8", paid: "0.3", remaining: "0.05" });
    expect(await bal(user.id, USDT)).toEqual([u8("0.3"), u8("1000")]);
    await expectClean();
  });
});

describe("limits the database keeps under parallel requests", () => {
  it("never promises more interest than the budget, however many subscribe at once", async () => {
    // 100 USDT at 36.5 % for 30 days reserves 3 USDT: a 10 USDT budget covers three.
    const p = await createProduct({ term_days: 30, apr: "36.5", budget: "10", max_amount: "100" });
    const users = await Promise.all(Array.from({ length: 6 }, () => demoUser("100")));
    const results = await Promise.all(users.map((u) => subscribe(u.token, p.id, "100")));
    const ok = results.filter((r) => r.body.type === "ok");
    expect(ok).toHaveLength(3);
    for (const r of results.filter((r) => r.body.type !== "ok")) {
      expect(r.body).toMatchObject({ code: "earn_budget" });
      expect(r.body.message).toMatch(/at most 33\.3\d+ USDT/);
    }
    const after = await product(p.id);
    expect(after).toMatchObject({ reserved: "9", remaining: "1" });
    await expectClean();
  });

  it("never lets one user's open positions pass the product's maximum, however many subscribe at once", async () => {
    const p = await createProduct({ term_days: 7, max_amount: "300", budget: "100" });
    const user = await demoUser("1000");
    const results = await Promise.all(Array.from({ length: 5 }, () => subscribe(user.token, p.id, "100")));
    expect(results.filter((r) => r.body.type === "ok")).toHaveLength(3);
    expect(results.filter((r) => r.body.type !== "ok").map((r) => r.body.code)).toEqual(["earn_user_max", "earn_user_max"]);
    expect(await bal(user.id, USDT)).toEqual([u8("700"), u8("300")]);
    expect((await product(p.id, user.token)).my_open).toBe("300");
    await expectClean();
  });

  it("redeems a position once when asked twice at once", async () => {
    const p = await createProduct({ term_days: 0, budget: "10" });
    const user = await demoUser("100");
    const pos = (await subscribe(user.token, p.id, "100")).body.message;
    const rs = await Promise.all([1, 2, 3].map(() => api("/earn/redeem", { token: user.token, body: { position_id: pos.id } })));
    expect(rs.filter((r) => r.body.type === "ok")).toHaveLength(1);
    expect(await bal(user.id, USDT)).toEqual([u8("100"), 0n]);
    await expectClean();
  });
});

describe("bad input changes nothing", () => {
  it("answers each bad subscription with a clear message", async () => {
    const p = await createProduct({ term_days: 30, min_amount: "10", max_amount: "500", budget: "100" });
    const user = await demoUser("50");
    const unverified = await makeUser({ balances: [{ currencyId: USDT, units: u8("100") }] });
    const before = await dbFingerprint();
    const cases: [unknown, string, RegExp?][] = [
      [{ product_id: p.id, amount: "abc" }, "invalid_amount"],
      [{ product_id: p.id, amount: "-5" }, "invalid_amount"],
      [{ product_id: p.id, amount: "0" }, "amount_positive"],
      [{ product_id: p.id, amount: "10.123456789" }, "too_many_decimals"],
      [{ product_id: p.id, amount: "5" }, "below_min", /minimum of 10 USDT/],
      [{ product_id: p.id, amount: "600" }, "earn_user_max", /at most 500 USDT/],
      [{ product_id: p.id, amount: "60" }, "insufficient_balance"],
      [{ product_id: 999999999, amount: "20" }, "not_found"],
      [{ product_id: "x", amount: "20" }, "invalid_param"],
      [{ amount: "20" }, "invalid_param"],
      [{ product_id: p.id }, "invalid_amount"],
    ];
    for (const [body, code, text] of cases) {
      const r = await api("/earn/subscribe", { token: user.token, body });
      expect(r.body, JSON.stringify(body)).toMatchObject({ type: "error", code });
      if (text) expect(r.body.message).toMatch(text);
    }
    expect((await api("/earn/subscribe", { token: unverified.token, body: { product_id: p.id, amount: "20" } })).body).toMatchObject({ type: "998" });
    expect((await api("/earn/subscribe", { body: { product_id: p.id, amount: "20" } })).body).toMatchObject({ type: "999" });
    // In Chinese too.
    const zh = await api("/earn/subscribe", { token: user.token, lang: "zh", body: { product_id: p.id, amount: "600" } });
    expect(zh.body.message).toBe("您在该产品中的持仓合计最多为 500 USDT");
    expect(await dbFingerprint()).toBe(before);
  });

  it("reads another user's position as not found and leaves it alone", async () => {
    const p = await createProduct({ term_days: 0, budget: "10" });
    const owner = await demoUser("100");
    const other = await demoUser("100");
    const pos = (await subscribe(owner.token, p.id, "100")).body.message;
    const r = await api("/earn/redeem", { token: other.token, body: { position_id: pos.id } });
    expect(r.body).toMatchObject({ type: "error", code: "not_found" });
    expect(await positions(other.token)).toEqual([]);
    expect((await positions(owner.token))[0]).toMatchObject({ id: pos.id, status: "open" });
    expect((await api("/earn/redeem", { token: other.token, body: { position_id: "abc" } })).body).toMatchObject({ code: "invalid_param" });
  });
});

describe("the operator console", () => {
  it("creates a product only with a reason, the terms checked, and a budget the treasury holds; audited", async () => {
    const before = await dbFingerprint();
    const bad: [Record<string, unknown>, string][] = [
      [{ reason: "" }, "reason_required"],
      [{ term_days: 14 }, "earn_term"],
      [{ apr: "5.255" }, "earn_apr"],
      [{ apr: "0" }, "earn_apr"],
      [{ apr: "101" }, "earn_apr"],
      [{ min_amount: "500", max_amount: "100" }, "earn_limits"],
      [{ budget: "0" }, "amount_positive"],
      [{ currency_id: ETH, budget: "5" }, "earn_treasury_short"],
    ];
    for (const [over, code] of bad) {
      const body = { currency_id: USDT, term_days: 30, apr: "5", min_amount: "10", max_amount: "1000", budget: "100", reason: "campaign", ...over };
      const r = await api("/admin/earn/products", { token: operator.token, body });
      expect(r.body, JSON.stringify(over)).toMatchObject({ type: "error", code });
    }
    expect(await dbFingerprint()).toBe(before);
    const user = await demoUser("10");
    expect((await api("/admin/earn/products", { token: user.token, body: { currency_id: USDT, term_days: 7, apr: "5", min_amount: "1", max_amount: "2", budget: "1", reason: "x" } })).body).toMatchObject({ code: "no_permission" });
    const t = await bal(TREASURY, USDT);
    const p = await createProduct({ budget: "250" });
    expect(await bal(TREASURY, USDT)).toEqual([t[0] - u8("250"), t[1] + u8("250")]);
    const audit = await env.DB.prepare("SELECT action, reason FROM audit_log WHERE target_type = 'earn_product' AND target_id = ?").bind(String(p.id)).all();
    expect(audit.results).toEqual([{ action: "earn.product.create", reason: "November savings campaign" }]);
    await expectClean();
  });

  it("closes a product to new subscriptions without stranding its positions, and gives the unpromised budget back", async () => {
    const p = await createProduct({ term_days: 7, apr: "10", budget: "100" });
    const user = await demoUser("1000");
    await subscribe(user.token, p.id, "1000");
    const reserve = daily(u8("1000"), 1000n) * 7n;
    const t0 = await bal(TREASURY, USDT);

    expect((await api("/admin/earn/close", { token: operator.token, body: { product_id: p.id } })).body).toMatchObject({ code: "reason_required" });
    const r = await api("/admin/earn/close", { token: operator.token, body: { product_id: p.id, reason: "campaign over" } });
    const row = r.body.message.find((x: any) => x.id === p.id);
    expect(row).toMatchObject({ status: "closed", open_positions: 1, open_principal: "1000", remaining: "0" });
    expect(u8(row.released)).toBe(u8("100") - reserve);
    expect(await bal(TREASURY, USDT)).toEqual([t0[0] + u8("100") - reserve, t0[1] - u8("100") + reserve]);
    // Gone from the list, refused for new money …
    expect(await product(p.id)).toBeUndefined();
    expect((await subscribe(user.token, p.id, "10")).body).toMatchObject({ code: "earn_closed" });
    expect((await api("/admin/earn/close", { token: operator.token, body: { product_id: p.id, reason: "again" } })).body).toMatchObject({ code: "earn_closed" });
    // … while the open position runs to maturity and is paid in full.
    await runScheduled("0 0 * * *", env, held(8));
    expect((await positions(user.token))[0]).toMatchObject({ status: "matured" });
    expect(await bal(user.id, USDT)).toEqual([u8("1000") + reserve, 0n]);
    const audit = await env.DB.prepare("SELECT action FROM audit_log WHERE target_type = 'earn_product' AND target_id = ? ORDER BY id").bind(String(p.id)).all();
    expect(audit.results.map((a: any) => a.action)).toEqual(["earn.product.create", "earn.product.close"]);
    await expectClean();
  });
});

describe("PRODUCT_EARN off", () => {
  it("refuses the list and new subscriptions, but still shows and redeems what users have", async () => {
    const p = await createProduct({ term_days: 0, budget: "10" });
    const user = await demoUser("100");
    const pos = (await subscribe(user.token, p.id, "100")).body.message;
    const off = { ...env, PRODUCT_EARN: "off" };
    const call = async (path: string, body?: unknown): Promise<any> => {
      const res = await app.request(
        `/api${path}`,
        { method: body === undefined ? "GET" : "POST", body: body === undefined ? undefined : JSON.stringify(body), headers: { authorization: user.token, lang: "en", "content-type": "application/json", "cf-connecting-ip": "198.18.9.12" } },
        off,
      );
      return res.json();
    };
    expect(await call("/earn/products")).toMatchObject({ code: "feature_off" });
    expect(await call("/earn/subscribe", { product_id: p.id, amount: "10" })).toMatchObject({ code: "feature_off" });
    expect((await call("/earn/positions")).message).toHaveLength(1);
    expect((await call("/earn/redeem", { position_id: pos.id })).message).toMatchObject({ status: "redeemed" });
    expect(await bal(user.id, USDT)).toEqual([u8("100"), 0n]);
  });
});

describe("ids drawn in one millisecond", () => {
  // Product and position ids are (ms since 2026) × 4096 + 12 random bits: 300 writes stamped with
  // one millisecond draw a taken id almost surely (1 − e^(−300·299/8192) ≈ 1); each must draw again.
  it("books every subscription made in the same millisecond, each under its own id", async () => {
    const p = await createProduct({ term_days: 0, max_amount: "10000", budget: "100" });
    const user = await demoUser("3000");
    const now = Date.now();
    const ids = new Set<number>();
    for (let i = 0; i < 300; i++) ids.add((await subscribeAt(env, user.id, { product_id: p.id, amount: "10" }, now)).id);
    expect(ids.size).toBe(300);
    expect(await bal(user.id, USDT)).toEqual([0n, u8("3000")]);
    expect(await positions(user.token)).toHaveLength(200);
    await expectClean();
  });

  it("publishes every product created in the same millisecond, each under its own id", async () => {
    const before = await bal(TREASURY, USDT);
    const now = Date.now();
    const ids = new Set<number>();
    const input = { currency_id: USDT, term_days: 7 as const, apr: "5", min_amount: "10", max_amount: "100", budget: "1", reason: "one millisecond" };
    for (let i = 0; i < 300; i++) ids.add(await createProductAt(env, operator.id, input, now));
    expect(ids.size).toBe(300);
    expect(await bal(TREASURY, USDT)).toEqual([before[0] - u8("300"), before[1] + u8("300")]);
    await expectClean();
  });
});
