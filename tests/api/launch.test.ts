/**
 * Launch subscriptions (issue #19 §2), through the Worker: an operator publishes a sale whose supply
 * the treasury reserves, two users commit, the every-minute cron allocates pro rata at the window's
 * end and refunds the rest to the unit, the locked tokens unlock on the published schedule and a
 * claim pays once; limits hold under parallel requests; bad input changes nothing; the reconciler
 * stays clean throughout.
 */
import { env } from "cloudflare:test";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { app } from "../../worker/app.ts";
import { runScheduled } from "../../worker/scheduled.ts";
import { claim } from "../../worker/domain/launch/commit.ts";
import { TREASURY } from "../../worker/lib/guarded.ts";
import { ApiError } from "../../worker/lib/errors.ts";
import { api, dbFingerprint, makeUser, reconcileNow, type TestUser } from "./helpers.ts";
import { bal, BTC, fundTreasury, seedWalletCurrencies, u8, USDT } from "./wallet-fixtures.ts";

const DAY = 86_400_000;
let seq = 0;

beforeAll(seedWalletCurrencies);
afterEach(() => {
  vi.useRealTimers();
});

async function booksClean() {
  expect((await reconcileNow()).differences).toEqual([]);
}

const operator = () => makeUser({ role: "operator" });
const committer = (usdt = "1000", btc = "0") =>
  makeUser({ verified: 2, balances: [{ currencyId: USDT, units: u8(usdt) }, ...(btc !== "0" ? [{ currencyId: BTC, units: u8(btc) }] : [])] });

/**
 * A new token (scale 4) for sale at 0.5 USDT or 0.00001 BTC: 1,000 for sale, at most 800 per user
 * (400 USDT), window open now for a minute, vesting: 10-day cliff then 3 steps over 30 days.
 */
async function publishedSale(op: TestUser, over: Record<string, unknown> = {}, fund = true) {
  seq += 1;
  const now = Date.now();
  const create = await api("/admin/launch/projects", {
    token: op.token,
    body: {
      title: `Sale ${seq}`,
      token_name: `TK${seq}${now.toString(36).slice(-4).toUpperCase()}`,
      token_scale: 4,
      prices: [
        { currency_id: USDT, price: "0.5" },
        { currency_id: BTC, price: "0.00001" },
      ],
      supply: "1000",
      cap: "800",
      start_at: now - 1000,
      end_at: now + 60_000,
      cliff_days: 10,
      vest_days: 30,
      vest_steps: 3,
      listing_note: "Listing is reviewed after the sale; not promised.",
      reason: "test sale",
      ...over,
    },
  });
  expect(create.body).toMatchObject({ type: "ok", message: { status: "draft" } });
  const p = create.body.message;
  if (fund) await fundTreasury(p.token_id, 1000n * 10_000n, { for: p.id });
  return p as { id: number; token_id: number; end_at: number; status: string };
}

async function publish(op: TestUser, id: number) {
  return api("/admin/launch/publish", { token: op.token, body: { id, reason: "go" } });
}

const commitTo = (user: TestUser, project_id: number, amount: string, currency_id = USDT) => api("/launch/commit", { token: user.token, body: { project_id, currency_id, amount } });

async function subscription(userId: number, projectId: number) {
  return env.DB.prepare("SELECT * FROM launch_subscriptions WHERE user_id = ? AND project_id = ?").bind(userId, projectId).first<Record<string, number | string>>();
}

describe("a launch with two committers", () => {
  it("allocates pro rata, refunds the rest to the unit, unlocks on schedule and pays a claim once", async () => {
    const op = await operator();
    const p = await publishedSale(op);
    expect((await publish(op, p.id)).body).toMatchObject({ type: "ok", message: { status: "open", supply: "1000", cap: "800" } });
    // The whole supply is reserved in the treasury from publication.
    expect(await bal(TREASURY, p.token_id)).toEqual([0n, 10_000_000n]);
    await booksClean();

    const a = await committer();
    const b = await committer();
    expect((await commitTo(a, p.id, "300")).body).toMatchObject({ type: "ok", message: { status: "committed", amount: "300", currency: "USDT" } });
    expect((await commitTo(b, p.id, "250")).body.type).toBe("ok");
    expect((await commitTo(b, p.id, "150")).body).toMatchObject({ type: "ok", message: { amount: "400" } });
    // Escrowed in their own spot accounts.
    expect(await bal(a.id, USDT)).toEqual([u8("700"), u8("300")]);
    expect(await bal(b.id, USDT)).toEqual([u8("600"), u8("400")]);
    const listed = (await api("/launch/projects", { token: a.token })).body.message.find((x: any) => x.id === p.id);
    expect(listed).toMatchObject({ total_demand: "1400", committers: 2, mine: { amount: "300", currency: "USDT" } });
    expect(listed.prices[0]).toMatchObject({ currency: "USDT", price: "0.5", max_amount: "400", committed: "700" });
    await booksClean();

    // The window ends: demand 600 + 800 = 1,400 for 1,000 tokens.
    await runScheduled("* * * * *", env, p.end_at + 1000);
    // a: floor(600 × 1000 / 1400) = 428.5714, cost 214.2857 USDT, refund 85.7143.
    expect(await subscription(a.id, p.id)).toMatchObject({ status: "allocated", alloc: 4_285_714, cost: 21_428_570_000, refund: 8_571_430_000 });
    // b: floor(800 × 1000 / 1400) = 571.4285, cost 285.71425 USDT, refund 114.28575.
    expect(await subscription(b.id, p.id)).toMatchObject({ status: "allocated", alloc: 5_714_285, cost: 28_571_425_000, refund: 11_428_575_000 });
    expect(await bal(a.id, USDT)).toEqual([u8("785.7143"), 0n]);
    expect(await bal(b.id, USDT)).toEqual([u8("714.28575"), 0n]);
    // The tokens are theirs and locked; the treasury got the cost and its 0.0001 remainder back.
    expect(await bal(a.id, p.token_id)).toEqual([0n, 4_285_714n]);
    expect(await bal(b.id, p.token_id)).toEqual([0n, 5_714_285n]);
    expect(await bal(TREASURY, p.token_id)).toEqual([1n, 0n]);
    expect((await env.DB.prepare("SELECT status FROM launch_projects WHERE id = ?").bind(p.id).first())!.status).toBe("done");
    await booksClean();

    // A second run settles nothing twice.
    await runScheduled("* * * * *", env, p.end_at + 61_000);
    expect(await bal(a.id, USDT)).toEqual([u8("785.7143"), 0n]);
    const notes = (await api("/notifications", { token: a.token })).body.message.data.map((n: any) => n.kind);
    expect(notes.filter((k: string) => k === "launch_allocated")).toHaveLength(1);

    const subId = Number((await subscription(a.id, p.id))!.id);
    const my = (await api("/launch/my", { token: a.token })).body.message[0];
    expect(my).toMatchObject({ id: subId, alloc: "428.5714", locked: "428.5714", claimable: "0", cost: "214.2857", refund: "85.7143" });

    // Nothing before the cliff and the first step (cliff 10 days, then a step every 10 days).
    const e = p.end_at;
    await expect(claim(env, a.id, subId, e + 19 * DAY)).rejects.toMatchObject({ key: "launch_nothing_to_claim" });
    // One third at day 20, paid once even when claimed three times at once.
    const tries = await Promise.allSettled([0, 1, 2].map(() => claim(env, a.id, subId, e + 20 * DAY)));
    expect(tries.filter((t) => t.status === "fulfilled")).toHaveLength(1);
    expect(tries.filter((t) => t.status === "rejected").every((t) => (t as PromiseRejectedResult).reason instanceof ApiError)).toBe(true);
    expect(await bal(a.id, p.token_id)).toEqual([1_428_571n, 4_285_714n - 1_428_571n]);
    await booksClean();
    // Two thirds at day 30, everything at day 40.
    expect(await claim(env, a.id, subId, e + 30 * DAY)).toMatchObject({ claimed: "285.7142", claimable: "0" });
    expect(await claim(env, a.id, subId, e + 41 * DAY)).toMatchObject({ claimed: "428.5714", locked: "0", claimable: "0" });
    await expect(claim(env, a.id, subId, e + 50 * DAY)).rejects.toMatchObject({ key: "launch_nothing_to_claim" });
    expect(await bal(a.id, p.token_id)).toEqual([4_285_714n, 0n]);
    await booksClean();
  });

  it("shows what has vested as claimable and claims it through the API", async () => {
    const op = await operator();
    // No cliff, no vesting: all of it unlocks at the window's end.
    const p = await publishedSale(op, { cliff_days: 0, vest_days: 0, vest_steps: 0, end_at: Date.now() + 30_000 });
    await publish(op, p.id);
    const a = await committer();
    expect((await commitTo(a, p.id, "100")).body.type).toBe("ok");
    await runScheduled("* * * * *", env, p.end_at);
    // The API reads the clock: let it be past the window's end.
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(p.end_at + 1000);
    const my = (await api("/launch/my", { token: a.token })).body.message[0];
    expect(my).toMatchObject({ status: "allocated", alloc: "200", claimable: "200", locked: "0", cost: "100", refund: "0" });
    expect((await api("/launch/claim", { token: a.token, body: { id: my.id } })).body).toMatchObject({ type: "ok", message: { claimed: "200", claimable: "0" } });
    expect((await api("/launch/claim", { token: a.token, body: { id: my.id } })).body).toMatchObject({ type: "error", code: "launch_nothing_to_claim" });
    vi.useRealTimers();
    expect(await bal(a.id, p.token_id)).toEqual([2_000_000n, 0n]);
    // Another user's subscription reads as not found.
    const other = await committer();
    expect((await api("/launch/claim", { token: other.token, body: { id: my.id } })).body).toMatchObject({ type: "error", code: "not_found" });
    await booksClean();
  });
});

describe("limits under parallel commits", () => {
  it("never lets parallel commits pass the per-user cap", async () => {
    const op = await operator();
    const p = await publishedSale(op);
    await publish(op, p.id);
    const a = await committer("1000");
    const results = await Promise.all([1, 2, 3, 4, 5, 6].map(() => commitTo(a, p.id, "100")));
    expect(results.filter((r) => r.body.type === "ok")).toHaveLength(4);
    expect(results.filter((r) => r.body.type === "error").every((r) => r.body.code === "launch_cap")).toBe(true);
    expect(await bal(a.id, USDT)).toEqual([u8("600"), u8("400")]);
    expect((await subscription(a.id, p.id))!.amount).toBe(40_000_000_000);
    await booksClean();
  });

  it("never lets parallel commits pass the balance", async () => {
    const op = await operator();
    const p = await publishedSale(op);
    await publish(op, p.id);
    const a = await committer("250");
    const results = await Promise.all([1, 2, 3, 4, 5].map(() => commitTo(a, p.id, "100")));
    expect(results.filter((r) => r.body.type === "ok")).toHaveLength(2);
    expect(results.filter((r) => r.body.type === "error").every((r) => r.body.code === "insufficient_balance")).toBe(true);
    expect(await bal(a.id, USDT)).toEqual([u8("50"), u8("200")]);
    await booksClean();
  });
});

describe("refusals that change nothing", () => {
  it("answers bad input with a translated error and changes nothing", async () => {
    const op = await operator();
    const p = await publishedSale(op);
    await publish(op, p.id);
    const a = await committer("1000", "1");
    expect((await commitTo(a, p.id, "10")).body.type).toBe("ok");
    const unverified = await makeUser({ balances: [{ currencyId: USDT, units: u8("100") }] });
    const before = await dbFingerprint();
    const cases: [Record<string, unknown>, string][] = [
      [{ project_id: p.id, currency_id: USDT, amount: "-1" }, "amount_positive"],
      [{ project_id: p.id, currency_id: USDT, amount: "0" }, "amount_positive"],
      [{ project_id: p.id, currency_id: USDT, amount: "abc" }, "invalid_amount"],
      [{ project_id: p.id, currency_id: USDT, amount: "1.123456789" }, "too_many_decimals"],
      [{ project_id: p.id, currency_id: USDT, amount: "391" }, "launch_cap"],
      [{ project_id: p.id, currency_id: USDT }, "invalid_amount"],
      [{ project_id: "x", currency_id: USDT, amount: "1" }, "invalid_param"],
      [{ project_id: 999_999, currency_id: USDT, amount: "1" }, "not_found"],
      [{ project_id: p.id, currency_id: 2, amount: "1" }, "currency_unsupported"],
      [{ project_id: p.id, currency_id: BTC, amount: "0.001" }, "launch_currency_fixed"],
    ];
    for (const [body, code] of cases) {
      const r = await api("/launch/commit", { token: a.token, body, lang: "zh" });
      expect(r.body, JSON.stringify(body)).toMatchObject({ type: "error", code });
      expect(r.status).toBeLessThan(500);
    }
    expect((await api("/launch/claim", { token: a.token, body: { id: "nope" } })).body).toMatchObject({ type: "error", code: "invalid_param" });
    // Not verified, not logged in, an operator.
    expect((await commitTo(unverified, p.id, "1")).body.type).toBe("998");
    expect((await api("/launch/commit", { body: { project_id: p.id, currency_id: USDT, amount: "1" } })).body.type).toBe("999");
    expect((await commitTo(op, p.id, "1")).body).toMatchObject({ type: "error", code: "operator_money_off" });
    expect((await api("/admin/launch/projects", { token: a.token })).body).toMatchObject({ type: "error", code: "no_permission" });
    expect(await dbFingerprint()).toBe(before);
    expect(await bal(a.id, USDT)).toEqual([u8("990"), u8("10")]);
    await booksClean();
  });

  it("refuses commits outside the window and a draft's commits, and a publication the treasury cannot reserve", async () => {
    const op = await operator();
    const later = await publishedSale(op, { start_at: Date.now() + 3_600_000, end_at: Date.now() + 7_200_000 });
    await publish(op, later.id);
    const a = await committer();
    expect((await commitTo(a, later.id, "10")).body).toMatchObject({ type: "error", code: "launch_not_started" });
    const unfunded = await publishedSale(op, {}, false);
    expect((await commitTo(a, unfunded.id, "10")).body).toMatchObject({ type: "error", code: "not_found" });
    expect((await publish(op, unfunded.id)).body).toMatchObject({ type: "error", code: "launch_reserve_short" });
    expect((await env.DB.prepare("SELECT status FROM launch_projects WHERE id = ?").bind(unfunded.id).first())!.status).toBe("draft");
    const bad = await api("/admin/launch/projects", {
      token: op.token,
      body: { title: "x", token_id: USDT, token_name: "ZZZ", prices: [{ currency_id: USDT, price: "1" }], supply: "1", cap: "2", start_at: 0, end_at: 1, cliff_days: 0, vest_days: 0, reason: "r" },
    });
    expect(bad.body).toMatchObject({ type: "error", code: "launch_token" });
    const overCap = await api("/admin/launch/projects", {
      token: op.token,
      body: { title: "x", token_id: BTC, prices: [{ currency_id: USDT, price: "1" }], supply: "1", cap: "2", start_at: 0, end_at: Date.now() + 60_000, cliff_days: 0, vest_days: 0, reason: "r" },
    });
    expect(overCap.body).toMatchObject({ type: "error", code: "launch_cap_supply" });
    await booksClean();
  });

  it("answers feature_off for the list and new commitments when the product is switched off", async () => {
    const user = await committer();
    const off = { ...env, PRODUCT_LAUNCH: "off" };
    const call = async (path: string, init: RequestInit = {}) =>
      (await app.request(`/api${path}`, { ...init, headers: { authorization: user.token, lang: "en", "content-type": "application/json", "cf-connecting-ip": "198.18.9.10" } }, off)).json() as Promise<any>;
    expect(await call("/launch/projects")).toMatchObject({ type: "error", code: "feature_off" });
    expect(await call("/launch/commit", { method: "POST", body: JSON.stringify({ project_id: 1, currency_id: USDT, amount: "1" }) })).toMatchObject({ type: "error", code: "feature_off" });
    // What one already has stays reachable.
    expect(await call("/launch/my")).toMatchObject({ type: "ok" });
  });
});

describe("a cancelled project", () => {
  it("refunds every commitment in full, releases the reserve, and is audited", async () => {
    const op = await operator();
    const p = await publishedSale(op);
    await publish(op, p.id);
    const a = await committer();
    const b = await committer("0", "1");
    await commitTo(a, p.id, "123.45");
    expect((await commitTo(b, p.id, "0.002", BTC)).body.type).toBe("ok");
    await booksClean();
    const r = await api("/admin/launch/cancel", { token: op.token, body: { id: p.id, reason: "issuer withdrew" } });
    expect(r.body).toMatchObject({ type: "ok", message: { status: "cancelled" } });
    expect(await bal(a.id, USDT)).toEqual([u8("1000"), 0n]);
    expect(await bal(b.id, BTC)).toEqual([u8("1"), 0n]);
    expect(await bal(TREASURY, p.token_id)).toEqual([10_000_000n, 0n]);
    const audit = await env.DB.prepare("SELECT action, reason FROM audit_log WHERE operator_id = ? ORDER BY id").bind(op.id).all();
    expect(audit.results.map((x: any) => x.action)).toEqual(["launch.create", "launch.publish", "launch.cancel"]);
    const kinds = (await api("/notifications", { token: a.token })).body.message.data.map((n: any) => n.kind);
    expect(kinds).toEqual(["launch_refunded", "launch_committed"]);
    expect((await api("/admin/launch/cancel", { token: op.token, body: { id: p.id, reason: "again" } })).body).toMatchObject({ type: "error", code: "state_conflict" });
    expect((await api("/admin/launch/cancel", { token: op.token, body: { id: p.id } })).body).toMatchObject({ type: "error", code: "reason_required" });
    await booksClean();
  });
});
