/**
 * Mining plans (issue #20 §1), through the Worker: an operator lists a plan (audited); a verified
 * user buys shares (the price from the spot account to the exchange); operator A records what the
 * pool paid for an hour with its evidence, A cannot approve it, operator B approves it (the amount
 * is held by the exchange first); the hourly cron pays the user their share minus the stated fee,
 * once, and nothing to shares bought after the hour started; an unapproved or rejected record pays
 * nothing; parallel buys cannot pass the plan's shares or the balance; bad input changes nothing;
 * the reconciler stays clean throughout.
 *
 * Time: shares bought now count from the next whole hour H; the payout screens are then used with
 * the clock at H + 1 h (Date faked), when H has ended and may be recorded.
 */
import { env } from "cloudflare:test";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { app } from "../../worker/app.ts";
import { JOBS, runScheduled } from "../../worker/scheduled.ts";
import { miningPayJob } from "../../worker/jobs/mining.ts";
import { buyShares } from "../../worker/domain/mining/holdings.ts";
import { payDueHours } from "../../worker/domain/mining/pay.ts";
import { miningPayoutTotals } from "../../worker/domain/mining/plans.ts";
import { forgetPublicSummary } from "../../worker/domain/transparency/public.ts";
import { TREASURY } from "../../worker/lib/guarded.ts";
import { api, dbFingerprint, makeUser, reconcileNow } from "./helpers.ts";
import { approve, buy, HOUR, listPlan, nextHour, record, reject } from "./mining-fixtures.ts";
import { bal, BTC, fundTreasury, seedWalletCurrencies, u8, USDT } from "./wallet-fixtures.ts";


beforeAll(seedWalletCurrencies);
afterEach(() => {
  vi.useRealTimers();
});

async function booksClean() {
  expect((await reconcileNow()).differences).toEqual([]);
}

const operator = () => makeUser({ role: "operator" });
const buyer = (usdt = "10000") => makeUser({ verified: 2, balances: [{ currencyId: USDT, units: u8(usdt) }] });
describe("the acceptance: a user's shares are paid what the pool paid, minus the fee, once", () => {
  it("runs from purchase to payout with two operators and the hourly cron", async () => {
    expect(JOBS["0 * * * *"]).toContain(miningPayJob);
    const a = await operator();
    const b = await operator();
    const plan = await listPlan(a);
    const audit = await env.DB.prepare("SELECT operator_id, reason FROM audit_log WHERE action = 'mining.plan.create' AND target_id = ?").bind(String(plan.id)).first();
    expect(audit).toMatchObject({ operator_id: a.id, reason: "machines racked and pointed at the pool" });

    const listed = (await api("/mining/plans")).body.message.find((p: { id: number }) => p.id === plan.id);
    expect(listed).toMatchObject({ pool: "Antpool", worker: expect.stringContaining("honest.s19"), hashrate: "100 TH/s", shares_left: 1000, price: "100", price_currency: "USDT", fee_percent: "2", payout_currency: "BTC", paid_30d_per_share: "0" });

    // The user buys 10 shares: 1,000 USDT from their spot account to the exchange.
    const user = await buyer();
    const treasuryUsdt = (await bal(TREASURY, USDT))[0];
    const bought = await buy(user, plan.id, 10);
    expect(bought.body).toMatchObject({ type: "ok", message: { shares: 10, cost: "1000", status: "in_progress" } });
    expect(await bal(user.id, USDT)).toEqual([u8("9000"), 0n]);
    expect((await bal(TREASURY, USDT))[0] - treasuryUsdt).toBe(u8("1000"));
    expect((await api("/mining/plans")).body.message.find((p: { id: number }) => p.id === plan.id).shares_left).toBe(990);
    await booksClean();

    const H = nextHour();
    // Shares bought 10 minutes into the hour do not count for it.
    const late = await buyer();
    await buyShares(env, late.id, { plan_id: plan.id, shares: 5 }, H + 600_000);
    await fundTreasury(BTC, u8("1"));
    const treasuryBtc = await bal(TREASURY, BTC);

    // H has ended.
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(H + HOUR + 1000);
    const rec = await record(a, plan.id, new Date(H).toISOString(), "0.01", "0xpoolpayout000111");
    expect(rec.body, JSON.stringify(rec.body)).toMatchObject({ type: "ok", message: { status: "pending", hour: H, amount: "0.01", evidence: "0xpoolpayout000111", per_share: "0.00001" } });
    const id = rec.body.message.id as number;

    // Not approved yet: the cron pays nothing.
    await runScheduled("0 * * * *", env, H + HOUR + 2000);
    expect(await bal(user.id, BTC)).toEqual([0n, 0n]);
    const publicList = (await api(`/mining/payouts?plan_id=${plan.id}`)).body.message;
    expect(publicList.data[0]).toMatchObject({ id, status: "pending", evidence: "0xpoolpayout000111" });

    // The recorder cannot approve their own record; the refusal is audited.
    expect((await approve(a, id)).body).toMatchObject({ type: "error", code: "self_review" });
    expect(await env.DB.prepare("SELECT 1 FROM audit_log WHERE action = 'mining.payout.approve.refused' AND operator_id = ? AND target_id = ?").bind(a.id, String(id)).first()).not.toBeNull();
    expect(await bal(TREASURY, BTC)).toEqual(treasuryBtc);

    // A second operator approves: the exchange holds the amount before it owes it.
    expect((await approve(b, id)).body).toMatchObject({ type: "ok", message: { status: "approved", decided_by: b.id } });
    expect(await bal(TREASURY, BTC)).toEqual([treasuryBtc[0] - u8("0.01"), u8("0.01")]);
    expect((await approve(b, id)).body).toMatchObject({ type: "error", code: "mining_decided" });
    await booksClean();

    // The hourly cron pays: 0.01 × 10 / 1000 = 0.0001 BTC gross, 2 % fee 0.000002, net 0.000098.
    await runScheduled("0 * * * *", env, H + HOUR + 3000);
    expect(await bal(user.id, BTC)).toEqual([u8("0.000098"), 0n]);
    expect(await bal(late.id, BTC)).toEqual([0n, 0n]);
    // The fee, the unsold 990 shares' part and nothing else return to the exchange: it is out only what the user got.
    expect(await bal(TREASURY, BTC)).toEqual([treasuryBtc[0] - u8("0.000098"), 0n]);
    await booksClean();

    // Run twice (and the every-minute run too): paid once.
    await runScheduled("0 * * * *", env, H + HOUR + 4000);
    await runScheduled("* * * * *", env, H + HOUR + 5000);
    expect(await bal(user.id, BTC)).toEqual([u8("0.000098"), 0n]);
    const notes = (await api("/notifications", { token: user.token })).body.message.data.map((n: { kind: string }) => n.kind);
    expect(notes.filter((k: string) => k === "mining_paid")).toHaveLength(1);
    expect(notes).toContain("mining_bought");

    const my = (await api("/mining/my", { token: user.token })).body.message;
    expect(my.holdings[0]).toMatchObject({ plan_id: plan.id, shares: 10, status: "in_progress" });
    expect(my.payouts).toEqual([expect.objectContaining({ plan_id: plan.id, hour: H, shares: 10, gross: "0.0001", fee: "0.000002", amount: "0.000098", currency: "BTC", evidence: "0xpoolpayout000111" })]);
    expect(my.totals).toEqual([{ currency: "BTC", amount: "0.000098" }]);
    expect((await api("/mining/my", { token: late.token })).body.message.payouts).toEqual([]);

    const paid = (await api(`/mining/payouts?plan_id=${plan.id}`)).body.message.data[0];
    expect(paid).toMatchObject({ status: "paid", paid_to_users: "0.000098", fees: "0.000002", held_shares: 10 });
    const shown = (await api("/mining/plans")).body.message.find((p: { id: number }) => p.id === plan.id);
    expect(shown).toMatchObject({ paid_30d_per_share: "0.00001", paid_30d_hours: 1 });
    // The public transparency page shows what was paid out of recorded payouts, and the fee kept.
    const totals = await miningPayoutTotals(env.DB);
    expect(totals).toEqual([expect.objectContaining({ currency: "BTC", paid_to_users: "0.000098", fees: "0.000002", hours: 1 })]);
    await forgetPublicSummary();
    const summary = (await api("/transparency")).body.message;
    expect(summary.mining).toEqual([{ currency: "BTC", paid: "0.000098", fees: "0.000002", hours: 1 }]);

    const actions = (await env.DB.prepare("SELECT action, operator_id FROM audit_log WHERE target_type = 'mining_payout' AND target_id = ? ORDER BY id").bind(String(id)).all()).results;
    expect(actions).toEqual([
      { action: "mining.payout.record", operator_id: a.id },
      { action: "mining.payout.approve.refused", operator_id: a.id },
      { action: "mining.payout.approve", operator_id: b.id },
    ]);
    await booksClean();
  });
});

describe("records that pay nothing", () => {
  it("pays nothing for an unapproved or a rejected record, refuses an approval the exchange cannot hold, and one record per plan and hour", async () => {
    const a = await operator();
    const b = await operator();
    const plan = await listPlan(a, { payout_currency_id: USDT, price: "1" });
    const user = await buyer();
    expect((await buy(user, plan.id, 100)).body.type).toBe("ok");
    const H = nextHour();
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(H + 2 * HOUR + 1000);
    const first = (await record(a, plan.id, H, "5")).body.message;
    expect((await record(b, plan.id, H, "6")).body).toMatchObject({ type: "error", code: "mining_hour_taken" });
    const second = (await record(a, plan.id, H + HOUR, "9999999")).body.message;
    // Rejected: nothing is held or paid, and the hour may be recorded again.
    expect((await reject(b, first.id)).body).toMatchObject({ type: "ok", message: { status: "rejected" } });
    // The exchange holds less USDT than recorded: the approval is refused and nothing moves.
    const treasury = await bal(TREASURY, USDT);
    const short = await approve(b, second.id);
    expect(short.body).toMatchObject({ type: "error", code: "mining_treasury_short" });
    expect(await bal(TREASURY, USDT)).toEqual(treasury);
    await runScheduled("0 * * * *", env, H + 2 * HOUR + 2000);
    expect(await bal(user.id, USDT)).toEqual([u8("9900"), 0n]);
    expect((await api(`/mining/payouts?plan_id=${plan.id}`)).body.message.data.map((p: { status: string }) => p.status)).toEqual(["pending", "rejected"]);
    expect((await record(b, plan.id, H, "4")).body).toMatchObject({ type: "ok", message: { status: "pending" } });
    await booksClean();
  });
});

describe("operators and their own money", () => {
  it("refuses an operator who holds shares counting for the hour to record or decide its payout, and audits it", async () => {
    const a = await operator();
    const b = await makeUser({ role: "operator", balances: [{ currencyId: USDT, units: u8("100") }] });
    const plan = await listPlan(a, { price: "1" });
    // Only possible where operators may hold money (OPERATOR_MONEY): bought through the domain.
    await buyShares(env, b.id, { plan_id: plan.id, shares: 1 });
    const H = nextHour();
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(H + HOUR + 1000);
    expect((await record(b, plan.id, H, "0.01")).body).toMatchObject({ type: "error", code: "own_record" });
    const rec = (await record(a, plan.id, H, "0.01")).body.message;
    expect((await approve(b, rec.id)).body).toMatchObject({ type: "error", code: "own_record" });
    const refused = await env.DB.prepare("SELECT action FROM audit_log WHERE operator_id = ? ORDER BY id").bind(b.id).all();
    expect(refused.results.map((r: any) => r.action)).toEqual(["mining.payout.record.refused", "mining.payout.approve.refused"]);
    expect((await env.DB.prepare("SELECT status FROM mining_payouts WHERE id = ?").bind(rec.id).first())!.status).toBe("recorded");
    await booksClean();
  });
});

describe("the payout run", () => {
  it("pays many holders in bounded batches, resumes after a stop, and pays once when two runs race", async () => {
    const a = await operator();
    const b = await operator();
    const plan = await listPlan(a, { shares: 10, price: "1", fee_bps: 1000, payout_currency_id: USDT });
    const users = await Promise.all([1, 2, 3, 4, 5].map(() => buyer("10")));
    for (const u of users) expect((await buy(u, plan.id, 2)).body.type).toBe("ok");
    const H = nextHour();
    await fundTreasury(USDT, u8("100"));
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(H + HOUR + 1000);
    const rec = (await record(a, plan.id, H, "1.00000001")).body.message;
    expect((await approve(b, rec.id)).body.type).toBe("ok");
    // One batch of two holders, then stop (as a run that ran out of statements would).
    expect(await payDueHours(env, H + HOUR + 2000, { batches: 1, usersPerBatch: 2 })).toMatchObject({ credited: 2, paid: 0 });
    await booksClean();
    // Two runs at once finish it: each holder paid once.
    await Promise.all([payDueHours(env, H + HOUR + 3000, { usersPerBatch: 2 }), payDueHours(env, H + HOUR + 3000, { usersPerBatch: 2 })]);
    await payDueHours(env, H + HOUR + 4000);
    // Each: 1.00000001 × 2 / 10 = 0.200000002 → 0.2 gross (8 decimals: 0.20000000), fee 10 % = 0.02, net 0.18.
    for (const u of users) expect(await bal(u.id, USDT)).toEqual([u8("8.18"), 0n]);
    const row = await env.DB.prepare("SELECT status, credited, fees, holders, held FROM mining_payouts WHERE id = ?").bind(rec.id).first();
    expect(row).toMatchObject({ status: "paid", credited: 100_000_000, fees: 10_000_000, holders: 5, held: 10 });
    expect((await env.DB.prepare("SELECT COUNT(*) AS n FROM mining_credits WHERE payout_id = ?").bind(rec.id).first())!.n).toBe(5);
    await booksClean();
  });
});

describe("limits under parallel buys", () => {
  it("never sells more shares than the plan has", async () => {
    const op = await operator();
    const plan = await listPlan(op, { shares: 10 });
    const users = await Promise.all([1, 2, 3, 4, 5, 6].map(() => buyer()));
    const results = await Promise.all(users.map((u) => buy(u, plan.id, 3)));
    expect(results.filter((r) => r.body.type === "ok")).toHaveLength(3);
    expect(results.filter((r) => r.body.type === "error").every((r) => r.body.code === "mining_sold_out")).toBe(true);
    expect((await env.DB.prepare("SELECT sold FROM mining_plans WHERE id = ?").bind(plan.id).first())!.sold).toBe(9);
    expect((await buy(users[0]!, plan.id, 2)).body).toMatchObject({ type: "error", code: "mining_sold_out", message: "Only 1 shares of this plan are left" });
    await booksClean();
  });

  it("never lets parallel buys pass the balance", async () => {
    const op = await operator();
    const plan = await listPlan(op);
    const user = await buyer("250");
    const results = await Promise.all([1, 2, 3, 4, 5].map(() => buy(user, plan.id, 1)));
    expect(results.filter((r) => r.body.type === "ok")).toHaveLength(2);
    expect(results.filter((r) => r.body.type === "error").every((r) => r.body.code === "insufficient_balance")).toBe(true);
    expect(await bal(user.id, USDT)).toEqual([u8("50"), 0n]);
    await booksClean();
  });

  it("books every buy made in the same millisecond, each under its own id", async () => {
    // Holding ids are (ms since 2026) × 4096 + 12 random bits; 300 buys stamped with one
    // millisecond draw a taken id almost surely (birthday bound: 1 − e^(−300·299/8192) ≈ 1), and
    // a buy that meets one must draw again rather than fail.
    const op = await operator();
    const plan = await listPlan(op, { shares: 1000, price: "1" });
    const user = await buyer("300");
    const now = Date.now();
    const ids = new Set<number>();
    for (let i = 0; i < 300; i++) ids.add((await buyShares(env, user.id, { plan_id: plan.id, shares: 1 }, now)).id);
    expect(ids.size).toBe(300);
    expect(await bal(user.id, USDT)).toEqual([0n, 0n]);
    await booksClean();
  });
});

describe("refusals that change nothing", () => {
  it("answers bad input, unverified users, operators and strangers with a translated error and changes nothing", async () => {
    const op = await operator();
    const plan = await listPlan(op);
    const user = await buyer();
    const unverified = await makeUser({ balances: [{ currencyId: USDT, units: u8("1000") }] });
    const before = await dbFingerprint();
    const cases: [Record<string, unknown>, string][] = [
      [{ plan_id: plan.id, shares: 0 }, "mining_shares"],
      [{ plan_id: plan.id, shares: -1 }, "mining_shares"],
      [{ plan_id: plan.id, shares: 1.5 }, "mining_shares"],
      [{ plan_id: plan.id, shares: "x" }, "mining_shares"],
      [{ plan_id: plan.id }, "mining_shares"],
      [{ plan_id: "x", shares: 1 }, "invalid_param"],
      [{ plan_id: 999_999, shares: 1 }, "not_found"],
      [{ plan_id: plan.id, shares: 1001 }, "mining_sold_out"],
      [{ plan_id: plan.id, shares: 101 }, "insufficient_balance"],
    ];
    for (const [body, code] of cases) {
      const r = await api("/mining/buy", { token: user.token, body, lang: "zh" });
      expect(r.body, JSON.stringify(body)).toMatchObject({ type: "error", code });
      expect(r.status).toBeLessThan(500);
    }
    expect((await buy(unverified, plan.id, 1)).body.type).toBe("998");
    expect((await api("/mining/buy", { body: { plan_id: plan.id, shares: 1 } })).body.type).toBe("999");
    expect((await buy(op, plan.id, 1)).body).toMatchObject({ type: "error", code: "operator_money_off" });
    expect((await api("/admin/mining/plans", { token: user.token })).body).toMatchObject({ type: "error", code: "no_permission" });
    expect((await api(`/mining/payouts?plan_id=abc`)).body).toMatchObject({ type: "error", code: "invalid_param" });
    expect((await api(`/mining/payouts?plan_id=999999`)).body).toMatchObject({ type: "error", code: "not_found" });

    // Console input.
    const H = nextHour();
    const bad: [string, Record<string, unknown>, string][] = [
      ["/admin/mining/plans", { name: "x", pool: "p", pool_account: "a", worker: "w", hashrate: "fast", shares: 10, price: "1", days: 30, fee_bps: 0, payout_currency_id: BTC, reason: "r" }, "mining_hashrate"],
      ["/admin/mining/plans", { name: "x", pool: "p", pool_account: "a", worker: "w", hashrate: "1 TH/s", shares: 0, price: "1", days: 30, fee_bps: 0, payout_currency_id: BTC, reason: "r" }, "mining_plan_shares"],
      ["/admin/mining/plans", { name: "x", pool: "p", pool_account: "a", worker: "w", hashrate: "1 TH/s", shares: 10, price: "1", days: 30, fee_bps: 10001, payout_currency_id: BTC, reason: "r" }, "mining_fee"],
      ["/admin/mining/plans", { name: "x", pool: "p", pool_account: "a", worker: "w", hashrate: "1 TH/s", shares: 10, price: "0.000000001", days: 30, fee_bps: 0, payout_currency_id: BTC, reason: "r" }, "too_many_decimals"],
      ["/admin/mining/plans", { name: "x", pool: "p", pool_account: "a", worker: "w", hashrate: "1 TH/s", shares: 10, price: "1", days: 30, fee_bps: 0, payout_currency_id: BTC }, "reason_required"],
      ["/admin/mining/payouts", { plan_id: plan.id, hour: H + 60_000, amount: "1", evidence: "0xabc123", reason: "r" }, "mining_hour"],
      ["/admin/mining/payouts", { plan_id: plan.id, hour: "yesterday", amount: "1", evidence: "0xabc123", reason: "r" }, "mining_hour"],
      ["/admin/mining/payouts", { plan_id: plan.id, hour: H, amount: "1", evidence: "0xabc123", reason: "r" }, "mining_hour_open"],
      ["/admin/mining/payouts", { plan_id: plan.id, hour: H - 48 * HOUR, amount: "1", evidence: "0xabc123", reason: "r" }, "mining_hour_open"],
      ["/admin/mining/payouts", { plan_id: plan.id, hour: H - HOUR, amount: "1", evidence: "", reason: "r" }, "mining_evidence"],
      ["/admin/mining/payouts", { plan_id: plan.id, hour: H - HOUR, amount: "0", evidence: "0xabc123", reason: "r" }, "amount_positive"],
      ["/admin/mining/payouts/approve", { id: 999_999, reason: "r" }, "not_found"],
      ["/admin/mining/close", { id: plan.id }, "reason_required"],
    ];
    for (const [path, body, code] of bad) {
      const r = await api(path, { token: op.token, body, lang: "es" });
      expect(r.body, `${path} ${JSON.stringify(body)}`).toMatchObject({ type: "error", code });
      expect(r.status).toBeLessThan(500);
    }
    expect(await dbFingerprint()).toBe(before);
    expect(await bal(user.id, USDT)).toEqual([u8("10000"), 0n]);
    await booksClean();
  });

  it("sells nothing on a closed plan, and answers feature_off for buying when the product is switched off while plans and holdings stay readable", async () => {
    const op = await operator();
    const plan = await listPlan(op);
    const user = await buyer();
    expect((await buy(user, plan.id, 1)).body.type).toBe("ok");
    expect((await api("/admin/mining/close", { token: op.token, body: { id: plan.id, reason: "machines sold" } })).body).toMatchObject({ type: "ok", message: { status: "closed" } });
    expect((await buy(user, plan.id, 1)).body).toMatchObject({ type: "error", code: "mining_plan_closed" });
    expect((await api("/mining/plans")).body.message.some((p: { id: number }) => p.id === plan.id)).toBe(false);

    const off = { ...env, PRODUCT_MINING: "off" };
    const call = async (path: string, init: RequestInit = {}) =>
      (await app.request(`/api${path}`, { ...init, headers: { authorization: user.token, lang: "en", "content-type": "application/json", "cf-connecting-ip": "198.18.9.11" } }, off)).json() as Promise<any>;
    expect(await call("/mining/buy", { method: "POST", body: JSON.stringify({ plan_id: plan.id, shares: 1 }) })).toMatchObject({ type: "error", code: "feature_off" });
    expect(await call("/mining/plans")).toMatchObject({ type: "ok" });
    expect(await call("/mining/my")).toMatchObject({ type: "ok", message: { holdings: [expect.objectContaining({ plan_id: plan.id })] } });
  });
});
