/**
 * The local bench helper POST /api/dev/seconds/seed (issue #16 §4a) has the same checks as
 * POST /api/microtrade/submit: a session, never an operator's money, a verified user, the product
 * switch; and it opens contracts only on the session user's own money, never on a user it is told.
 */
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { app } from "../../worker/app.ts";
import { api, dbFingerprint, drainPair, makeUser, seedSpotPair, units } from "./helpers.ts";
import { PAIR, USDT } from "./spot-fixtures.ts";
import { bettor, fundHouse, micro, twoSidedBook } from "./seconds-fixtures.ts";

const seedBody = (extra: Record<string, unknown> = {}) => ({ match_id: PAIR, currency_id: USDT, number: "10", end_at: Date.now() + 60_000, count: 2, concurrency: 2, ...extra });
const seed = (token: string | undefined, body: Record<string, unknown> = seedBody()) => api("/dev/seconds/seed", { token, body });
/** A user's contracts in D1, after the pair's drain (in objects mode a contract's row reaches D1 with it). */
async function contractsOf(userId: number) {
  await drainPair(PAIR);
  return (await env.DB.prepare("SELECT count(*) AS n FROM micro_orders WHERE user_id = ?").bind(userId).first<{ n: number }>())?.n ?? 0;
}

beforeAll(async () => {
  await seedSpotPair();
  await fundHouse(USDT, units("1000000"));
  await twoSidedBook();
  // The book's trades in D1 now: a test's "nothing changed" is then not a drain of them (contractsOf drains).
  await drainPair(PAIR);
});

describe("the dev seeding endpoint", () => {
  it("refuses a caller without a session and opens nothing", async () => {
    const victim = await bettor("100");
    const before = await dbFingerprint();
    const r = await seed(undefined, { ...seedBody(), user_id: victim.id });
    expect(r.status).toBe(401);
    expect(r.body.type).toBe("999");
    expect(await contractsOf(victim.id)).toBe(0);
    expect(await micro(victim.id)).toEqual([units("100"), 0n]);
    expect(await dbFingerprint()).toBe(before);
  });

  it("opens contracts on the session user's own money only, and refuses a body that names another user", async () => {
    const me = await bettor("100");
    const victim = await bettor("100");
    const named = await seed(me.token, { ...seedBody(), user_id: victim.id });
    expect(named.body).toMatchObject({ type: "error", code: "invalid_param" });
    expect(await contractsOf(victim.id)).toBe(0);
    expect(await contractsOf(me.id)).toBe(0);

    const r = await seed(me.token);
    expect(r.body.type).toBe("ok");
    expect(r.body.message.ids).toHaveLength(2);
    expect(await contractsOf(me.id)).toBe(2);
    expect(await contractsOf(victim.id)).toBe(0);
    expect(await micro(victim.id)).toEqual([units("100"), 0n]);
    // Both stakes and their 2 % fees left my micro account: 100 − 2 × 10.2.
    expect((await micro(me.id))[0]).toBe(units("79.6"));
  });

  it("refuses an unverified user with 998 and an operator, as the real submit does", async () => {
    const unverified = await makeUser({ verified: 0, balances: [{ currencyId: USDT, units: units("100"), account: "micro" }] });
    const op = await makeUser({ role: "operator", verified: 2, balances: [{ currencyId: USDT, units: units("100"), account: "micro" }] });
    const before = await dbFingerprint();
    const r1 = await seed(unverified.token);
    expect(r1.body.type).toBe("998");
    const r2 = await seed(op.token);
    expect(r2.body).toMatchObject({ type: "error", code: "operator_money_off" });
    expect(await contractsOf(unverified.id)).toBe(0);
    expect(await contractsOf(op.id)).toBe(0);
    expect(await dbFingerprint()).toBe(before);
  });

  it("answers feature_off while the seconds product is switched off", async () => {
    const u = await bettor("100");
    const before = await dbFingerprint();
    const res = await app.request(
      "/api/dev/seconds/seed",
      { method: "POST", body: JSON.stringify(seedBody()), headers: { authorization: u.token, lang: "en", "content-type": "application/json", "cf-connecting-ip": "198.18.7.7" } },
      { ...env, PRODUCT_SECONDS: "off" },
    );
    expect(await res.json()).toMatchObject({ type: "error", code: "feature_off" });
    expect(await contractsOf(u.id)).toBe(0);
    expect(await dbFingerprint()).toBe(before);
  });
});
