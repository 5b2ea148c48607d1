// Contract-asset cover (issue #19 §4, spec §9) through the Worker: operators publish plans (audited),
// a purchase pays its premium and reserves the full cover in the treasury, a qualifying claim is
// paid once, a claim before T+1 or above 50 % is refused, at most two payouts a day (the rest T+1
// by the cron), the cover ends at +100 % or its end date releasing the reserve once, bad input
// changes nothing, and the reconciler stays clean throughout.
//
// Time: a purchase made "yesterday" (the domain's buyCover with that `now`) is in force today, so
// claims go through the real endpoint now; the seconds results a claim reads are settled contracts
// written as the pair object's drain leaves them (status 3, result, fee).
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { app } from "../../worker/app.ts";
import { TREASURY } from "../../worker/lib/guarded.ts";
import { buyCover } from "../../worker/domain/insurance/covers.ts";
import { runScheduled } from "../../worker/scheduled.ts";
import { api, makeUser, statementLines, type TestUser } from "./helpers.ts";
import { DAY, publishCoverPlan, settledContract, todayStart } from "./insurance-fixtures.ts";
import { bal, expectBooksBalanced, fundTreasury, seedWalletCurrencies, u8, USDT, walletFingerprint } from "./wallet-fixtures.ts";

let operator: TestUser;

beforeAll(async () => {
  await seedWalletCurrencies();
  await fundTreasury(USDT, u8("100000"));
  operator = await makeUser({ role: "operator" });
});

const publishPlan = (over: Record<string, unknown> = {}) => publishCoverPlan(operator, over);

/** A verified user with USDT in the spot account (for premiums) and in the seconds account (the insured asset). */
async function makeBuyer(spot = "1000", micro = "1000"): Promise<TestUser> {
  return makeUser({
    verified: 2,
    balances: [
      { currencyId: USDT, units: u8(spot) },
      { currencyId: USDT, units: u8(micro), account: "micro" },
    ],
  });
}

const settled = settledContract;

/** Buys a cover as if yesterday, so that it is in force now (T+1 has come). */
async function boughtYesterday(user: TestUser, planId: number, amount = "1000"): Promise<number> {
  return (await buyCover(env, user.id, { plan_id: planId, amount }, Date.now() - DAY)).id;
}

async function cover(user: TestUser, id: number) {
  const r = await api("/insurance/my", { token: user.token });
  expect(r.body.type).toBe("ok");
  return (r.body.message.data as { id: number; status: string; pay_day: string; value: string; end_reason: string }[]).find((c) => c.id === id)!;
}

const treasury = () => bal(TREASURY, USDT);

describe("plans", () => {
  it("are published by an operator with the action audited, and shown publicly with their terms and running totals", async () => {
    const plan = await publishPlan({ name: "Audited plan" });
    const audit = await env.DB.prepare("SELECT operator_id, reason, target_id FROM audit_log WHERE action = 'insurance.plan.create' AND target_id = ?").bind(String(plan.id)).first();
    expect(audit).toMatchObject({ operator_id: operator.id, reason: "test plan" });

    const r = await api("/insurance/plans");
    expect(r.body.type).toBe("ok");
    const shown = r.body.message.plans.find((p: { id: number }) => p.id === plan.id);
    expect(shown).toMatchObject({
      name: "Audited plan",
      currency: "USDT",
      premium_percent: "5",
      cover_percent: "50",
      claim_at_percent: "50",
      end_at_percent: "200",
      days: 30,
      quotes: [
        { amount: "100", premium: "5", cover: "50" },
        { amount: "1000", premium: "50", cover: "500" },
      ],
    });
    expect(r.body.message.totals[0]).toMatchObject({ currency: "USDT" });
    expect(r.body.message.payouts_per_day).toBe(2);
  });

  it("refuses a plain user at the console and bad terms with a clear error, publishing nothing", async () => {
    const user = await makeBuyer();
    const before = await env.DB.prepare("SELECT count(*) AS n FROM insurance_plans").first<{ n: number }>();
    expect((await api("/admin/insurance/plans", { token: user.token, body: { name: "x" } })).body.code).toBe("no_permission");
    const bad: [Record<string, unknown>, string][] = [
      [{ cover_percent: "60" }, "insurance_percent"],
      [{ premium_percent: "abc" }, "insurance_percent"],
      [{ amounts: [] }, "insurance_amounts"],
      [{ amounts: ["0"] }, "insurance_amounts"],
      [{ days: 0 }, "insurance_days"],
      [{ name: "" }, "insurance_name"],
      [{ currency_id: 1 }, "insurance_currency"],
      [{ reason: "" }, "reason_required"],
    ];
    for (const [over, code] of bad) {
      const r = await api("/admin/insurance/plans", {
        token: operator.token,
        body: { name: "Bad", currency_id: USDT, amounts: ["100"], premium_percent: "5", cover_percent: "50", days: 30, capacity: "1000", reason: "r", ...over },
      });
      expect(r.body.code, JSON.stringify(over)).toBe(code);
      expect(r.body.message).not.toBe("");
    }
    expect((await env.DB.prepare("SELECT count(*) AS n FROM insurance_plans").first<{ n: number }>())!.n).toBe(before!.n);
  });

  it("can be closed (audited): a closed plan sells nothing more, and its covers run on", async () => {
    const plan = await publishPlan();
    const user = await makeBuyer();
    const bought = await api("/insurance/buy", { token: user.token, body: { plan_id: plan.id, amount: "100" } });
    expect(bought.body.type).toBe("ok");
    const closed = await api("/admin/insurance/close", { token: operator.token, body: { id: plan.id, reason: "enough sold" } });
    expect(closed.body.message.status).toBe(0);
    expect(await env.DB.prepare("SELECT 1 FROM audit_log WHERE action = 'insurance.plan.close' AND target_id = ? AND reason = 'enough sold'").bind(String(plan.id)).first()).not.toBeNull();
    const other = await makeBuyer();
    expect((await api("/insurance/buy", { token: other.token, body: { plan_id: plan.id, amount: "100" } })).body.code).toBe("insurance_plan_closed");
    expect((await api("/admin/insurance/close", { token: operator.token, body: { id: plan.id, reason: "again" } })).body.code).toBe("insurance_plan_closed");
    expect((await api("/insurance/plans")).body.message.plans.some((p: { id: number }) => p.id === plan.id)).toBe(false);
    expect((await cover(user, bought.body.message.id)).status).toBe("pending");
    await expectBooksBalanced();
  });
});

describe("buying", () => {
  it("takes the premium from the spot account and reserves the full cover in the treasury, in force from 00:00 UTC tomorrow", async () => {
    const plan = await publishPlan();
    const user = await makeBuyer();
    const [tAvail, tFrozen] = await treasury();
    const r = await api("/insurance/buy", { token: user.token, body: { plan_id: plan.id, amount: "1000" } });
    expect(r.body.type, JSON.stringify(r.body)).toBe("ok");
    expect(r.body.message).toMatchObject({ amount: "1000", premium: "50", cover: "500", status: "pending", start_at: todayStart() + DAY, end_at: todayStart() + 31 * DAY });

    expect(await bal(user.id, USDT)).toEqual([u8("950"), 0n]);
    expect(await bal(user.id, USDT, "micro")).toEqual([u8("1000"), 0n]);
    const [tAvail2, tFrozen2] = await treasury();
    expect(tFrozen2 - tFrozen).toBe(u8("500"));
    expect(tAvail2 - tAvail).toBe(u8("50") - u8("500"));
    const premium = (await statementLines(user.token)).filter((l) => l.kind === "insurance_premium");
    expect(premium.map((l) => [l.ref, l.account, l.amount])).toEqual([[{ type: "insurance", id: r.body.message.id }, "change", "-50.00000000"]]);
    const note = await env.DB.prepare("SELECT kind FROM notifications WHERE user_id = ? AND event_key = ?").bind(user.id, `insurance:${r.body.message.id}:buy`).first();
    expect(note).toMatchObject({ kind: "insurance_bought" });

    const shown = (await api("/insurance/plans")).body.message.plans.find((p: { id: number }) => p.id === plan.id);
    expect(shown).toMatchObject({ premiums_collected: "50", reserved: "500", covers_sold: 1, available: "49500" });
    await expectBooksBalanced();
  });

  it("refuses what the rules refuse with the catalogue's errors, and changes nothing", async () => {
    const plan = await publishPlan();
    const user = await makeBuyer("1000", "500");
    const poor = await makeBuyer("10", "1000");
    const unverified = await makeUser({ balances: [{ currencyId: USDT, units: u8("1000") }] });
    const before = await walletFingerprint();
    const cases: [TestUser, unknown, string][] = [
      [user, { plan_id: plan.id, amount: "250" }, "insurance_amount"],
      [user, { plan_id: plan.id, amount: "1000" }, "insurance_asset"],
      [user, { plan_id: plan.id, amount: "-5" }, "invalid_amount"],
      [user, { plan_id: plan.id }, "invalid_amount"],
      [user, { plan_id: "x", amount: "100" }, "invalid_param"],
      [user, { plan_id: 999_999, amount: "100" }, "not_found"],
      [poor, { plan_id: plan.id, amount: "1000" }, "insufficient_balance"],
      [unverified, { plan_id: plan.id, amount: "100" }, "verify_required"],
    ];
    for (const [who, body, code] of cases) {
      const r = await api("/insurance/buy", { token: who.token, body });
      expect(r.body.code, JSON.stringify(body)).toBe(code);
      expect(r.status).toBeLessThan(500);
    }
    expect(await walletFingerprint()).toBe(before);
    expect((await api("/insurance/buy", { token: user.token, body: { plan_id: plan.id, amount: "100" } })).body.type).toBe("ok");
    expect((await api("/insurance/buy", { token: user.token, body: { plan_id: plan.id, amount: "100" } })).body.code).toBe("insurance_bought");
    await expectBooksBalanced();
  });

  it("sells no cover the treasury cannot reserve, nor more than the plan's quota, however many buy at once", async () => {
    // Quota: room for three covers of 500.
    const plan = await publishPlan({ capacity: "1500" });
    const buyers = await Promise.all(Array.from({ length: 6 }, () => makeBuyer()));
    const results = await Promise.all(buyers.map((b) => api("/insurance/buy", { token: b.token, body: { plan_id: plan.id, amount: "1000" } })));
    expect(results.filter((r) => r.body.type === "ok")).toHaveLength(3);
    expect(results.filter((r) => r.body.type !== "ok").map((r) => r.body.code)).toEqual(["insurance_sold_out", "insurance_sold_out", "insurance_sold_out"]);
    const shown = (await api("/admin/insurance/plans", { token: operator.token })).body.message.plans.find((p: { id: number }) => p.id === plan.id);
    expect(shown).toMatchObject({ reserved: "1500", available: "0", covers_sold: 3 });

    // The treasury: a cover larger than what it holds is not sold.
    const [available] = await treasury();
    const huge = await publishPlan({ amounts: ["2000000"], capacity: "4000000" });
    const rich = await makeBuyer("2000000", "2000000");
    // Less than the cover's reserve (half of 2,000,000) in the whole treasury: in objects mode the
    // fixtures give every shard the whole funding (helpers.ts credit), and a shard short of a hold
    // borrows from the others (worker/lib/treasury-refill.ts), so only the total can refuse.
    expect(available).toBeLessThan(u8("1000000"));
    const before = await walletFingerprint();
    const r = await api("/insurance/buy", { token: rich.token, body: { plan_id: huge.id, amount: "2000000" } });
    expect(r.body.code).toBe("insurance_reserve");
    expect(await walletFingerprint()).toBe(before);
    await expectBooksBalanced();
  });
});

describe("claims", () => {
  it("are refused before the cover takes effect (T+1), with the effective day", async () => {
    const plan = await publishPlan();
    const user = await makeBuyer();
    const bought = await api("/insurance/buy", { token: user.token, body: { plan_id: plan.id, amount: "1000" } });
    await settled(user.id, "-600");
    const r = await api("/insurance/claim", { token: user.token, body: { id: bought.body.message.id } });
    expect(r.body.code).toBe("insurance_not_effective");
    expect(r.body.message).toContain(new Date(todayStart() + DAY).toISOString().slice(0, 10));
  });

  it("are refused above 50 %, with open seconds contracts, and for another user's cover (not found)", async () => {
    const plan = await publishPlan();
    const user = await makeBuyer();
    const id = await boughtYesterday(user, plan.id);
    await settled(user.id, "-499.99");
    const above = await api("/insurance/claim", { token: user.token, body: { id } });
    expect(above.body.code).toBe("insurance_not_claimable");
    expect(above.body.message).toContain("500.01");
    expect((await cover(user, id)).status).toBe("active");

    await settled(user.id, "-0.01");
    expect((await cover(user, id)).status).toBe("claimable");
    const stranger = await makeBuyer();
    expect((await api("/insurance/claim", { token: stranger.token, body: { id } })).body.code).toBe("not_found");
    await env.DB.prepare("INSERT INTO micro_orders (user_id, pair_id, currency_id, type, stake, fee, hold, seconds, profit_ratio_bps, status, created_at) VALUES (?, 1, ?, 1, 100, 0, 0, 60, 8000, 0, ?)")
      .bind(user.id, USDT, Date.now())
      .run();
    expect((await api("/insurance/claim", { token: user.token, body: { id } })).body.code).toBe("insurance_open_orders");
    // That open contract (made up for this check, with no money held) is closed again for the books.
    await env.DB.prepare("UPDATE micro_orders SET status = 4 WHERE user_id = ? AND status = 0").bind(user.id).run();
    expect((await cover(user, id)).status).toBe("claimable");
    await expectBooksBalanced();
  });

  it("pay a qualifying claim once: from the treasury's reserve into the seconds account; a second claim and parallel claims pay nothing more", async () => {
    const plan = await publishPlan();
    const user = await makeBuyer();
    const id = await boughtYesterday(user, plan.id);
    await settled(user.id, "-500");
    const [tAvail, tFrozen] = await treasury();

    const results = await Promise.all(Array.from({ length: 5 }, () => api("/insurance/claim", { token: user.token, body: { id } })));
    const paid = results.filter((r) => r.body.type === "ok");
    expect(paid).toHaveLength(1);
    expect(paid[0]!.body.message).toMatchObject({ result: "paid", cover: { status: "paid" } });
    for (const r of results.filter((r) => r.body.type !== "ok")) expect(["insurance_processing", "insurance_invalid"]).toContain(r.body.code);

    expect(await bal(user.id, USDT, "micro")).toEqual([u8("1500"), 0n]);
    const [tAvail2, tFrozen2] = await treasury();
    expect(tFrozen - tFrozen2).toBe(u8("500"));
    expect(tAvail2).toBe(tAvail);
    expect((await api("/insurance/claim", { token: user.token, body: { id } })).body.code).toBe("insurance_invalid");
    expect(await bal(user.id, USDT, "micro")).toEqual([u8("1500"), 0n]);
    expect((await statementLines(user.token)).filter((l) => l.kind === "insurance_payout").map((l) => [l.ref, l.account, l.amount])).toEqual([[{ type: "insurance", id }, "micro", "500.00000000"]]);
    expect(await env.DB.prepare("SELECT kind FROM notifications WHERE user_id = ? AND event_key = ?").bind(user.id, `insurance:${id}:paid`).first()).toMatchObject({ kind: "insurance_paid" });
    const shown = (await api("/insurance/plans")).body.message.plans.find((p: { id: number }) => p.id === plan.id);
    expect(shown).toMatchObject({ claims_paid: "500", claims_count: 1, reserved: "0" });
    await expectBooksBalanced();
  });

  it("answer each loss once: a second cover counts only the loss after the last claim", async () => {
    const a = await publishPlan();
    const b = await publishPlan();
    const user = await makeBuyer();
    const first = await boughtYesterday(user, a.id);
    const second = await boughtYesterday(user, b.id);
    await settled(user.id, "-500", 5000);
    expect((await api("/insurance/claim", { token: user.token, body: { id: first } })).body.message.result).toBe("paid");
    const again = await api("/insurance/claim", { token: user.token, body: { id: second } });
    expect(again.body.code).toBe("insurance_not_claimable");
    expect((await cover(user, second)).status).toBe("active");
    await expectBooksBalanced();
  });

  it("pay at most two a day: a third claim that day is queued and the cron pays it the next UTC day, once", async () => {
    const plans = [await publishPlan(), await publishPlan(), await publishPlan()];
    const user = await makeBuyer("1000", "1000");
    const ids: number[] = [];
    for (const p of plans) ids.push(await boughtYesterday(user, p.id));
    for (const [i, id] of ids.entries()) {
      // Each loss is opened after the previous claim (its mark), so each claim answers a loss of its own.
      const mark = await env.DB.prepare("SELECT last_claim_at FROM insurance_claimants WHERE user_id = ?").bind(user.id).first<{ last_claim_at: number }>();
      await settled(user.id, "-500", 0, mark ? mark.last_claim_at : Date.now() - 1000);
      const r = await api("/insurance/claim", { token: user.token, body: { id } });
      expect(r.body.type, JSON.stringify(r.body)).toBe("ok");
      expect(r.body.message.result).toBe(i < 2 ? "paid" : "queued");
    }
    const tomorrow = new Date(todayStart() + DAY).toISOString().slice(0, 10);
    expect(await cover(user, ids[2]!)).toMatchObject({ status: "processing", pay_day: tomorrow });
    expect(await bal(user.id, USDT, "micro")).toEqual([u8("2000"), 0n]);
    expect((await api("/insurance/claim", { token: user.token, body: { id: ids[2] } })).body.code).toBe("insurance_processing");
    await expectBooksBalanced();

    // The every-minute cron today pays nothing; 00:00 UTC tomorrow pays it; running again pays nothing more.
    await runScheduled("* * * * *", env, Date.now());
    expect(await bal(user.id, USDT, "micro")).toEqual([u8("2000"), 0n]);
    await runScheduled("0 0 * * *", env, todayStart() + DAY);
    expect(await bal(user.id, USDT, "micro")).toEqual([u8("2500"), 0n]);
    await runScheduled("* * * * *", env, todayStart() + DAY + 60_000);
    expect(await bal(user.id, USDT, "micro")).toEqual([u8("2500"), 0n]);
    expect(await cover(user, ids[2]!)).toMatchObject({ status: "paid" });
    await expectBooksBalanced();
  });
});

describe("the end of a cover", () => {
  it("comes when the account reaches +100 %: the reserve goes back to the treasury once, and nothing is claimable after", async () => {
    const plan = await publishPlan();
    const user = await makeBuyer();
    const id = await boughtYesterday(user, plan.id);
    await settled(user.id, "1000", 5000);
    await settled(user.id, "-1600", 2000);
    const [tAvail, tFrozen] = await treasury();
    await runScheduled("* * * * *", env, Date.now());
    expect(await cover(user, id)).toMatchObject({ status: "ended", end_reason: "profit" });
    const [tAvail2, tFrozen2] = await treasury();
    expect(tFrozen - tFrozen2).toBe(u8("500"));
    expect(tAvail2 - tAvail).toBe(u8("500"));
    await runScheduled("* * * * *", env, Date.now() + 60_000);
    expect(await treasury()).toEqual([tAvail2, tFrozen2]);
    // Even though the value is now below 50 %, the cover had ended.
    expect((await api("/insurance/claim", { token: user.token, body: { id } })).body.code).toBe("insurance_invalid");
    expect(await env.DB.prepare("SELECT kind FROM notifications WHERE user_id = ? AND event_key = ?").bind(user.id, `insurance:${id}:ended`).first()).toMatchObject({ kind: "insurance_ended" });
    await expectBooksBalanced();
  });

  it("comes at its end date: the cron releases the reserve", async () => {
    const plan = await publishPlan({ days: 1 });
    const user = await makeBuyer();
    const id = await boughtYesterday(user, plan.id);
    const [, tFrozen] = await treasury();
    await runScheduled("0 0 * * *", env, todayStart() + DAY);
    expect(await cover(user, id)).toMatchObject({ status: "ended", end_reason: "expired" });
    expect(tFrozen - (await treasury())[1]).toBe(u8("500"));
    await expectBooksBalanced();
  });
});

describe("the switch", () => {
  it("answers feature_off to the plans and to buying while PRODUCT_INSURANCE is off; one's covers can still be listed", async () => {
    const plan = await publishPlan();
    const user = await makeBuyer();
    const off = { ...env, PRODUCT_INSURANCE: "off" };
    const req = (path: string, body?: unknown) =>
      app.request(path, { method: body ? "POST" : "GET", headers: { authorization: user.token, "content-type": "application/json", lang: "en" }, body: body ? JSON.stringify(body) : undefined }, off);
    expect(((await (await req("/api/insurance/plans")).json()) as { code: string }).code).toBe("feature_off");
    expect(((await (await req("/api/insurance/buy", { plan_id: plan.id, amount: "100" })).json()) as { code: string }).code).toBe("feature_off");
    expect(((await (await req("/api/insurance/my")).json()) as { type: string }).type).toBe("ok");
  });
});

describe("ids drawn in one millisecond", () => {
  it("sells every cover bought in the same millisecond, each under its own id", async () => {
    // Cover ids are (ms since 2026) × 4096 + 12 random bits: 200 buys stamped with one millisecond
    // draw a taken id almost surely (1 − e^(−200·199/8192) ≈ 0.99); a buy that meets one draws again.
    const plan = await publishPlan({ capacity: "10000" });
    const buyers = await Promise.all(Array.from({ length: 200 }, () => makeBuyer("100", "100")));
    const [tAvail, tFrozen] = await treasury();
    const now = Date.now();
    const ids = new Set<number>();
    for (const b of buyers) ids.add((await buyCover(env, b.id, { plan_id: plan.id, amount: "100" }, now)).id);
    expect(ids.size).toBe(200);
    for (const b of buyers.slice(0, 5)) expect(await bal(b.id, USDT)).toEqual([u8("95"), 0n]);
    const spent = await Promise.all(buyers.map((b) => bal(b.id, USDT)));
    expect(spent.filter(([a, f]) => a === u8("95") && f === 0n)).toHaveLength(200);
    expect(await treasury()).toEqual([tAvail + 200n * (u8("5") - u8("50")), tFrozen + 200n * u8("50")]);
    await expectBooksBalanced();
  });
});
