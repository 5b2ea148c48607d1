/**
 * The order routes skip the session read when the Worker already knows the token (issue #17), and
 * let the freeze batch check the session instead. Whatever a session went through since its last
 * order (logout, revocation elsewhere, a lock, expiry, verification withdrawn), the next order
 * must be answered exactly as without that shortcut, and change nothing.
 */
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { api, balance, drainPair, seedSpotPair, units } from "./helpers.ts";
import { BTC, PAIR, USDT, buy, clearBook, trader } from "./spot-fixtures.ts";

/** A user's orders in D1, after the pair's drain (in objects mode an order's row reaches D1 with it). */
const orderCount = async (userId: number) => (await drainPair(PAIR), (await env.DB.prepare("SELECT count(*) AS n FROM spot_orders WHERE user_id = ?").bind(userId).first<{ n: number }>())!.n);
const batch = (token: string, orders: Record<string, unknown>[]) =>
  api("/transaction/batch", { token, body: { currency_id: BTC, legal_id: USDT, orders: orders.map((o) => ({ mode: 2, ...o })) } });

/** A trader who has just placed an order (the Worker has seen the token), and what they hold now. */
async function activeTrader() {
  const u = await trader();
  expect((await buy(u.token, { price: "100", num: "1" })).body.type).toBe("ok");
  return { u, usdt: await balance(u.id, USDT), orders: await orderCount(u.id) };
}

async function expectNothingChanged(a: Awaited<ReturnType<typeof activeTrader>>) {
  expect(await balance(a.u.id, USDT)).toEqual(a.usdt);
  expect(await orderCount(a.u.id)).toBe(a.orders);
}

beforeAll(async () => {
  await seedSpotPair();
  await clearBook();
});

describe("an order right after the session ended", () => {
  it("asks a user who logged out to log in (999) and places nothing, alone or in a batch", async () => {
    const a = await activeTrader();
    expect((await api("/user/logout", { token: a.u.token, body: {} })).body.type).toBe("ok");
    const one = await buy(a.u.token, { price: "100", num: "1" });
    expect(one.status).toBe(401);
    expect(one.body.type).toBe("999");
    const many = await batch(a.u.token, [{ side: "buy", price: "100", num: "1" }]);
    expect(many.body.type).toBe("999");
    await expectNothingChanged(a);
  });

  it("refuses a session revoked by another Worker (a logout or password change the Worker never saw)", async () => {
    const a = await activeTrader();
    await env.DB.prepare("UPDATE sessions SET revoked_at = ? WHERE user_id = ?").bind(Date.now(), a.u.id).run();
    expect((await buy(a.u.token, { price: "100", num: "1" })).body.type).toBe("999");
    expect((await batch(a.u.token, [{ side: "buy", price: "100", num: "1" }, { side: "buy", price: "99", num: "1" }])).body.type).toBe("999");
    await expectNothingChanged(a);
  });

  it("refuses an expired session and a locked account", async () => {
    const expired = await activeTrader();
    await env.DB.prepare("UPDATE sessions SET expires_at = ? WHERE user_id = ?").bind(Date.now() - 1, expired.u.id).run();
    expect((await buy(expired.u.token, { price: "100", num: "1" })).body.type).toBe("999");
    await expectNothingChanged(expired);

    const locked = await activeTrader();
    await env.DB.prepare("UPDATE users SET locked = 1 WHERE id = ?").bind(locked.u.id).run();
    expect((await batch(locked.u.token, [{ side: "buy", price: "100", num: "1" }])).body.type).toBe("999");
    await expectNothingChanged(locked);
  });

  it("asks a user whose verification was withdrawn to verify first (998)", async () => {
    const a = await activeTrader();
    await env.DB.prepare("UPDATE users SET review_status = 1 WHERE id = ?").bind(a.u.id).run();
    const r = await buy(a.u.token, { price: "100", num: "1" });
    expect(r.status).toBe(403);
    expect(r.body.type).toBe("998");
    await expectNothingChanged(a);
  });

  it("answers a refused order or bad input of an ended session with 999, not with the refusal", async () => {
    const a = await activeTrader();
    await env.DB.prepare("UPDATE sessions SET revoked_at = ? WHERE user_id = ?").bind(Date.now(), a.u.id).run();
    // More than the balance, below the minimum value, malformed, and a batch whose every order is refused.
    expect((await buy(a.u.token, { price: "100", num: "1000" })).body.type).toBe("999");
    expect((await buy(a.u.token, { price: "1", num: "1" })).body.type).toBe("999");
    expect((await buy(a.u.token, { price: "abc", num: "1" })).body.type).toBe("999");
    expect((await batch(a.u.token, [{ side: "buy", price: "100", num: "1000" }])).body.type).toBe("999");
    await expectNothingChanged(a);
  });

  it("still places orders for a live session, one after another and in batches", async () => {
    const a = await activeTrader();
    expect((await buy(a.u.token, { price: "100", num: "1" })).body.message.status).toBe("open");
    const r = await batch(a.u.token, [{ side: "buy", price: "100", num: "1" }, { side: "buy", price: "99", num: "1" }]);
    expect(r.body.message.orders.map((o: { status: string }) => o.status)).toEqual(["open", "open"]);
    expect(await orderCount(a.u.id)).toBe(a.orders + 3);
    expect(await balance(a.u.id, USDT)).toEqual([a.usdt[0] - units("299"), a.usdt[1] + units("299")]);
  });
});
