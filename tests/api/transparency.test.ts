/**
 * The public transparency summary (issue #20 §3, GET /api/transparency), as a visitor would check
 * it: no login; the house's reserves equal what the treasury froze for the contracts and
 * positions opened here; fee revenue grows by exactly the fees of the trades made here; a cover's
 * premium appears once it is bought; the latest liabilities root is the published one; no user's
 * data appears. The answer is cached (Cache API, 60 s): each test drops the cached copy before it
 * reads, and one test shows the cache at work.
 */
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import type { Transparency } from "../../schemas/transparency.ts";
import { forgetPublicSummary } from "../../worker/domain/transparency/public.ts";
import { liabilitiesJob } from "../../worker/jobs/liabilities.ts";
import { TREASURY } from "../../worker/lib/guarded.ts";
import { SYSTEM } from "../../worker/lib/ledger.ts";
import { leverHolds } from "../../worker/domain/lever/positions.ts";
import { secondsHolds } from "../../worker/domain/seconds/orders.ts";
import { formatUnits } from "../../schemas/decimal.ts";
import { api, balance, drainAccounts, drainPair, makeUser, seedSpotPair, type TestUser, units } from "./helpers.ts";
import { PAIR, USDT, buy } from "./spot-fixtures.ts";
import { bettor, fundHouse, submit } from "./seconds-fixtures.ts";
import { leverUser, open, setIndex } from "./lever-fixtures.ts";

let operator: TestUser;

beforeAll(async () => {
  await seedSpotPair();
  await fundHouse(USDT, units("100000"));
  operator = await makeUser({ role: "operator" });
  // BTC/USDT quoted 100.99 / 101.01 (1 BTC each side): an index for contracts and positions.
  await setIndex("101.00");
}, 120_000);

/** A fresh summary (the cached one dropped first), read without a login. */
async function summary(opts: { token?: string } = {}): Promise<Transparency> {
  await forgetPublicSummary();
  const r = await api("/transparency", opts);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  expect(r.body.type).toBe("ok");
  return r.body.message;
}

const u8 = (s: string | undefined) => units(s ?? "0");
const reserveOf = (rows: Transparency["reserves"]["seconds"], currency = "USDT") => rows.find((r) => r.currency === currency);
const feeOf = (s: Transparency, currency: string, product: string) => u8(s.fees.find((f) => f.currency === currency)?.products.find((p) => p.product === product)?.amount);
const feeTotal = (s: Transparency, currency: string) => u8(s.fees.find((f) => f.currency === currency)?.total);

/** The treasury's frozen USDT (where the house holds its reserves). */
async function treasuryFrozen(): Promise<bigint> {
  return (await balance(TREASURY, USDT))[1];
}

describe("the public summary", () => {
  it("answers a visitor without a login: nothing reserved, no fees, no snapshot and no mining payouts yet", async () => {
    const s = await summary();
    expect(s.reserves).toEqual({ seconds: [], lever: [] });
    expect(s.cover).toEqual([]);
    expect(s.liabilities).toBeNull();
    expect(s.mining ?? []).toEqual([]);
    expect(s.cache_seconds).toBe(60);
    expect(Math.abs(s.computed_at - Date.now())).toBeLessThan(60_000);
  });

  it("shows as reserves exactly what the treasury froze for an open seconds contract and an open leveraged position", async () => {
    const frozen0 = await treasuryFrozen();
    const b = await bettor("100");
    const c = await submit(b.token, { type: 1, seconds: 300, number: "10" });
    expect(c.body.type, JSON.stringify(c.body)).toBe("ok");
    const l = await leverUser("100");
    const p = await open(l.token, {});
    expect(p.body.type, JSON.stringify(p.body)).toBe("ok");
    // Both records in D1 (in objects mode they reach it with the pair's drain).
    await drainPair(PAIR);
    const contractHold = BigInt((await env.DB.prepare("SELECT CAST(hold AS TEXT) AS h FROM micro_orders WHERE user_id = ?").bind(b.id).first<{ h: string }>())!.h);
    const positionHold = BigInt((await env.DB.prepare("SELECT CAST(hold AS TEXT) AS h FROM lever_positions WHERE user_id = ?").bind(l.id).first<{ h: string }>())!.h);
    expect(contractHold).toBeGreaterThan(0n);
    expect(positionHold).toBeGreaterThan(0n);

    const s = await summary();
    expect(reserveOf(s.reserves.seconds)).toEqual({ currency: "USDT", open: 1, reserved: formatUnits(contractHold, 8) });
    expect(reserveOf(s.reserves.lever)).toEqual({ currency: "USDT", open: 1, reserved: formatUnits(positionHold, 8) });
    // What the treasury froze when they opened, and what the reconciler's hold sources explain.
    expect(u8(reserveOf(s.reserves.seconds)!.reserved) + u8(reserveOf(s.reserves.lever)!.reserved)).toBe((await treasuryFrozen()) - frozen0);
    const house = [...(await secondsHolds.load(env.DB)), ...(await leverHolds.load(env.DB))].filter((h) => h.userId === TREASURY);
    expect(house.reduce((a, h) => a + h.units, 0n)).toBe(contractHold + positionHold);
  });

  it("grows fee revenue by exactly the fees of the trades, contracts and positions made", async () => {
    // The read model has every fee made before (in objects mode the fee shards drain on their own time).
    await drainPair(PAIR);
    await drainAccounts([SYSTEM.fees]);
    const before = await summary();
    const lastTrade = (await env.DB.prepare("SELECT COALESCE(MAX(trade_id), 0) AS id FROM spot_trades WHERE pair_id = 1").first<{ id: number }>())!.id;
    // A spot buy that takes 0.1 BTC from the quoting market maker's ask.
    const taker = await makeUser({ verified: 2, balances: [{ currencyId: USDT, units: units("1000") }] });
    expect((await buy(taker.token, { price: "101.01", num: "0.1" })).body.message).toMatchObject({ status: "filled" });
    await drainPair(PAIR);
    const trades = (await env.DB.prepare("SELECT CAST(SUM(buyer_fee) AS TEXT) AS b, CAST(SUM(seller_fee) AS TEXT) AS s FROM spot_trades WHERE pair_id = 1 AND trade_id > ?").bind(lastTrade).first<{ b: string; s: string }>())!;
    expect(BigInt(trades.b)).toBeGreaterThan(0n);
    const b = await bettor("100");
    const c = (await submit(b.token, { type: 2, seconds: 300, number: "10" })).body.message;
    const l = await leverUser("100");
    expect((await open(l.token, {})).body.type).toBe("ok");
    // The records in D1, and in objects mode the fee shards' movements (the summary's fees) too.
    await drainPair(PAIR);
    await drainAccounts([SYSTEM.fees]);
    const leverFee = BigInt((await env.DB.prepare("SELECT CAST(fee AS TEXT) AS f FROM lever_positions WHERE user_id = ?").bind(l.id).first<{ f: string }>())!.f);

    const after = await summary();
    // The taker's fee in the base coin (BTC), the maker's in the quote (USDT).
    expect(feeOf(after, "BTC", "spot") - feeOf(before, "BTC", "spot")).toBe(BigInt(trades.b));
    expect(feeOf(after, "USDT", "spot") - feeOf(before, "USDT", "spot")).toBe(BigInt(trades.s));
    expect(feeOf(after, "USDT", "seconds") - feeOf(before, "USDT", "seconds")).toBe(units(c.fee));
    expect(feeOf(after, "USDT", "lever") - feeOf(before, "USDT", "lever")).toBe(leverFee);
    expect(feeTotal(after, "USDT") - feeTotal(before, "USDT")).toBe(BigInt(trades.s) + units(c.fee) + leverFee);
    expect(feeTotal(after, "BTC") - feeTotal(before, "BTC")).toBe(BigInt(trades.b));
  });

  it("shows a cover's premium once it is bought, with the cover reserved and no claim paid", async () => {
    const plan = await api("/admin/insurance/plans", {
      token: operator.token,
      body: { name: "Seconds cover", currency_id: USDT, amounts: ["100", "1000"], premium_percent: "5", cover_percent: "50", days: 30, capacity: "50000", reason: "test plan" },
    });
    expect(plan.body.type, JSON.stringify(plan.body)).toBe("ok");
    expect((await summary()).cover).toEqual([{ currency: "USDT", premiums: formatUnits(0n, 8), claims_paid: formatUnits(0n, 8), claims: 0, sold: 0, reserved: formatUnits(0n, 8) }]);
    const buyer = await makeUser({ verified: 2, balances: [{ currencyId: USDT, units: units("1000") }, { currencyId: USDT, units: units("1000"), account: "micro" }] });
    const bought = await api("/insurance/buy", { token: buyer.token, body: { plan_id: plan.body.message.id, amount: "100" } });
    expect(bought.body.type, JSON.stringify(bought.body)).toBe("ok");
    // 5 % of 100 USDT paid; 50 % of 100 USDT reserved in the treasury until the cover ends.
    expect((await summary()).cover).toEqual([{ currency: "USDT", premiums: "5.00000000", claims_paid: "0.00000000", claims: 0, sold: 1, reserved: "50.00000000" }]);
  });

  it("shows the latest published liabilities root and totals, the same as the liabilities page", async () => {
    await drainAccounts();
    await liabilitiesJob.run(env, { cron: "0 0 * * *", now: Date.UTC(2026, 10, 20) });
    const published = (await api("/transparency/liabilities")).body.message;
    expect((await summary()).liabilities).toEqual(published);
    expect(published.user_count).toBeGreaterThan(0);
  });

  it("answers the same with or without a login and carries no user's data", async () => {
    const u = await bettor("77.77");
    expect((await submit(u.token, { type: 1, seconds: 300, number: "10" })).body.type).toBe("ok");
    const anonymous = await summary();
    const withLogin = await summary({ token: u.token });
    expect({ ...withLogin, computed_at: 0 }).toEqual({ ...anonymous, computed_at: 0 });
    const text = JSON.stringify(anonymous);
    expect(text).not.toContain(u.account);
    expect(text).not.toContain("77.77");
    const keys = new Set<string>();
    const walk = (v: unknown) => {
      if (Array.isArray(v)) v.forEach(walk);
      else if (v && typeof v === "object")
        for (const [k, x] of Object.entries(v)) {
          keys.add(k);
          walk(x);
        }
    };
    walk(anonymous);
    for (const k of ["user_id", "user", "account", "email", "uid", "id_card", "token"]) expect(keys.has(k), k).toBe(false);
  });

  it("is served from the cache for a minute: a contract opened meanwhile shows once the cached copy is gone", async () => {
    // Every earlier record in D1 first (in objects mode a contract reaches it with the pair's drain).
    await drainPair(PAIR);
    const first = await summary();
    const b = await bettor("100");
    expect((await submit(b.token, { type: 1, seconds: 300, number: "10" })).body.type).toBe("ok");
    const cached = (await api("/transparency")).body.message as Transparency;
    expect(cached).toEqual(first);
    await drainPair(PAIR);
    const fresh = await summary();
    expect(reserveOf(fresh.reserves.seconds)!.open).toBe(reserveOf(first.reserves.seconds)!.open + 1);
  });
});
