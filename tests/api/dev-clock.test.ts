// The dev clock (issue #27 §5, worker/lib/clock.ts), through the real Worker with DEV_CLOCK on:
// moving the clock ahead by a day and running the next cron puts a bought cover in force, pays a
// recorded mining hour to the holders of that hour, and accrues exactly one day of savings interest
// for a subscription bought before the move (an interest day is 24 hours of holding), and one more
// per further day moved, never twice. Without DEV_CLOCK the routes are 404; bad input moves
// nothing. The clock goes back to real time after the file (it is one isolate's clock).
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import worker from "../../worker/index.ts";
import { resetDevClock } from "../../worker/lib/clock.ts";
import { api, makeUser, reconcileNow, type TestUser } from "./helpers.ts";
import { bal, BTC, fundTreasury, seedWalletCurrencies, u8, USDT } from "./wallet-fixtures.ts";

const DAY_S = 86_400;
const HOUR = 3_600_000;
const devEnv = { ...env, DEV_CLOCK: "on" };

/** A request through the Worker's own entry point with the given environment (DEV_CLOCK on by default). */
async function call(path: string, opts: { body?: unknown; token?: string } = {}, e: Env = devEnv) {
  const headers: Record<string, string> = { lang: "en", "cf-connecting-ip": "198.18.0.27" };
  if (opts.token) headers.authorization = opts.token;
  if (opts.body !== undefined) headers["content-type"] = "application/json";
  const ctx = createExecutionContext();
  const res = await worker.fetch(
    new Request(`http://exchange.test/api${path}`, { method: opts.body === undefined ? "GET" : "POST", headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) }),
    e,
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return { status: res.status, body: (await res.json()) as any };
}

const clock = async () => (await call("/dev/clock")).body.message as { now: number; real_now: number; offset_s: number };
const advance = (advance_s: unknown) => call("/dev/clock", { body: { advance_s } });
const cron = (c = "* * * * *") => call("/dev/cron", { body: { cron: c } });
const daily = (amount: bigint, bps: bigint) => (amount * bps) / 3_650_000n;
async function booksClean() {
  expect((await reconcileNow()).differences).toEqual([]);
}

beforeAll(async () => {
  await seedWalletCurrencies();
  await fundTreasury(USDT, u8("100000"));
  await fundTreasury(BTC, u8("1"));
});
afterAll(() => resetDevClock(env.DB));

describe("without DEV_CLOCK (a deployment)", () => {
  it("answers 404 on every dev clock route and moves nothing", async () => {
    expect(env.DEV_CLOCK).not.toBe("on");
    const before = Date.now();
    expect((await call("/dev/clock", {}, env)).status).toBe(404);
    expect((await call("/dev/clock", { body: { advance_s: DAY_S } }, env)).status).toBe(404);
    expect((await call("/dev/cron", { body: { cron: "* * * * *" } }, env)).status).toBe(404);
    expect(await env.DB.prepare("SELECT count(*) AS n FROM dev_clock").first()).toEqual({ n: 0 });
    // Still real time: nothing moved it by a day.
    expect(Date.now() - before).toBeLessThan(DAY_S * 1000);
  });
});

describe("bad input", () => {
  it("is refused with a clear error and moves nothing", async () => {
    const { offset_s } = await clock();
    for (const advance_s of [0, -60, 1.5, "3600", null, DAY_S * 367]) {
      const r = await advance(advance_s);
      expect(r.status, JSON.stringify(advance_s)).toBe(400);
      expect(r.body).toMatchObject({ type: "error", code: "invalid_param" });
    }
    expect((await call("/dev/clock", { body: { advance_s: 60, back: true } })).status).toBe(400);
    const unknown = await cron("*/5 * * * *");
    expect(unknown.status).toBe(400);
    expect(unknown.body.code).toBe("invalid_param");
    expect((await clock()).offset_s).toBe(offset_s);
  });
});

describe("moving the clock a day ahead, then the next cron", () => {
  let operator: TestUser;
  let second: TestUser;
  let user: TestUser;

  it("puts a bought cover in force, pays the recorded hour to its holders, and accrues exactly one day of savings interest; each further day one more", async () => {
    operator = await makeUser({ role: "operator" });
    second = await makeUser({ role: "operator" });
    user = await makeUser({ verified: 2, balances: [{ currencyId: USDT, units: u8("3000") }, { currencyId: USDT, units: u8("1000"), account: "micro" }] });

    // Savings: a flexible product at 3.65 % (0.1 USDT a day on 1,000), subscribed today.
    const product = await api("/admin/earn/products", { token: operator.token, body: { currency_id: USDT, term_days: 0, apr: "3.65", min_amount: "10", max_amount: "1000", budget: "50", reason: "dev clock acceptance" } });
    expect(product.body.type, JSON.stringify(product.body)).toBe("ok");
    const productId = (product.body.message as { id: number; status: string }[]).filter((p) => p.status === "open").sort((a, b) => b.id - a.id)[0]!.id;
    const sub = await api("/earn/subscribe", { token: user.token, body: { product_id: productId, amount: "1000" } });
    expect(sub.body.type, JSON.stringify(sub.body)).toBe("ok");
    const d = daily(u8("1000"), 365n);

    // Cover: bought today, in force from 00:00 UTC tomorrow.
    const plan = await api("/admin/insurance/plans", { token: operator.token, body: { name: "Seconds cover", currency_id: USDT, amounts: ["100", "1000"], premium_percent: "5", cover_percent: "50", days: 30, capacity: "50000", reason: "dev clock acceptance" } });
    expect(plan.body.type, JSON.stringify(plan.body)).toBe("ok");
    const bought = await api("/insurance/buy", { token: user.token, body: { plan_id: plan.body.message.id, amount: "1000" } });
    expect(bought.body.message).toMatchObject({ status: "pending" });
    const coverId = bought.body.message.id as number;
    const coverStatus = async () => ((await api("/insurance/my", { token: user.token })).body.message.data as { id: number; status: string }[]).find((c) => c.id === coverId)!.status;

    // Mining: 10 shares of a 1,000-share plan, counting from the next whole hour H.
    const listed = await api("/admin/mining/plans", {
      token: operator.token,
      body: { name: "Dev clock S19", pool: "Antpool", pool_account: "honest-exchange", worker: "honest.devclock", hashrate: "100 TH/s", shares: 1000, price: "100", days: 30, fee_bps: 200, other_fees: "Electricity is included in the price", payout_currency_id: BTC, reason: "dev clock acceptance" },
    });
    expect(listed.body.type, JSON.stringify(listed.body)).toBe("ok");
    const planId = listed.body.message.id as number;
    expect((await api("/mining/buy", { token: user.token, body: { plan_id: planId, shares: 10 } })).body.type).toBe("ok");
    const H = Math.ceil((Date.now() + 1) / HOUR) * HOUR;
    // Today nobody can record H: it has not ended.
    const early = await api("/admin/mining/payouts", { token: operator.token, body: { plan_id: planId, hour: H, amount: "0.01", evidence: "0xdevclock0001", reason: "from the pool's payout page" } });
    expect(early.body.code).toBe("mining_hour_open");

    // One day ahead (the spot balance read first: interest is paid into it).
    const spotAtSubscription = (await bal(user.id, USDT))[0];
    const start = await clock();
    const moved = await advance(DAY_S);
    expect(moved.body.type, JSON.stringify(moved.body)).toBe("ok");
    expect(moved.body.message.offset_s).toBe(start.offset_s + DAY_S);
    expect(moved.body.message.now - moved.body.message.real_now).toBe((start.offset_s + DAY_S) * 1000);
    // Every reader of the time in the Worker sees the moved clock.
    expect(Date.now() - moved.body.message.real_now).toBeGreaterThanOrEqual(DAY_S * 1000);
    const ran = await cron();
    expect(ran.body.message).toMatchObject({ cron: "* * * * *", failed: 0 });
    expect(ran.body.message.now).toBeGreaterThanOrEqual(moved.body.message.now);

    // The cover is in force: active, and a claim is no longer refused as not yet effective.
    expect(await coverStatus()).toBe("active");
    const claim = await api("/insurance/claim", { token: user.token, body: { id: coverId } });
    expect(claim.body.code).not.toBe("insurance_not_effective");

    // H has ended: one operator records it, another approves, the next cron pays the holder once.
    const rec = await api("/admin/mining/payouts", { token: operator.token, body: { plan_id: planId, hour: H, amount: "0.01", evidence: "0xdevclock0001", reason: "from the pool's payout page" } });
    expect(rec.body, JSON.stringify(rec.body)).toMatchObject({ type: "ok", message: { status: "pending", hour: H } });
    expect((await api("/admin/mining/payouts/approve", { token: second.token, body: { id: rec.body.message.id, reason: "checked against the pool" } })).body.type).toBe("ok");
    expect(await bal(user.id, BTC)).toEqual([0n, 0n]);
    await cron("0 * * * *");
    // 0.01 × 10 / 1000 = 0.0001 BTC, minus the 2 % fee.
    expect(await bal(user.id, BTC)).toEqual([u8("0.000098"), 0n]);
    await cron();
    expect(await bal(user.id, BTC)).toEqual([u8("0.000098"), 0n]);

    // Savings: the one day moved is one day of holding: exactly one day of interest, paid into
    // the spot account by the cron above, once however often the cron runs.
    const positions = async () => (await api("/earn/positions", { token: user.token })).body.message as { days: number; paid: string }[];
    expect((await positions())[0]).toMatchObject({ days: 1 });
    expect(u8((await positions())[0]!.paid)).toBe(d);
    expect((await bal(user.id, USDT))[0]).toBe(spotAtSubscription + d);
    await cron("0 0 * * *");
    await cron();
    expect((await positions())[0]).toMatchObject({ days: 1 });
    expect((await bal(user.id, USDT))[0]).toBe(spotAtSubscription + d);

    // A second day moved: exactly one more day, again once.
    await advance(DAY_S);
    await cron();
    await cron("0 0 * * *");
    expect((await positions())[0]).toMatchObject({ days: 2 });
    expect(u8((await positions())[0]!.paid)).toBe(2n * d);
    expect((await bal(user.id, USDT))[0]).toBe(spotAtSubscription + 2n * d);
    await booksClean();
  });
});
