/**
 * The session check in the account object (ACCOUNTS=objects; durable/account/sessions.ts): an
 * order, a batch, a cancel and a transfer carry the request's session into the call that moves the
 * money, the object answers from what it remembers (no D1 statement), and every change of the
 * user's sessions or trading flags reaches it before the changing request answers, so the very next
 * order of an ended session is refused with its usual error and holds nothing.
 */
import { env } from "cloudflare:test";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { accountStub } from "../../worker/lib/accounts.ts";
import { createSession } from "../../worker/lib/auth.ts";
import { changingSessions } from "../../worker/lib/session-push.ts";
import { api, seedSpotPair, units } from "../api/helpers.ts";
import { BTC, USDT, objectBalances, objectTrader } from "./fixtures.ts";
import { onPath, statementsOf, stopRecording } from "./d1-statements.ts";

const spot = (token: string, body: Record<string, unknown> = {}) => api("/transaction/walletIn", { token, body: { currency_id: BTC, legal_id: USDT, mode: 2, price: "40000", num: "0.01", ...body } });
const batch = (token: string) =>
  api("/transaction/batch", { token, body: { currency_id: BTC, legal_id: USDT, orders: [1, 2].map(() => ({ side: "buy", mode: 2, price: "40000", num: "0.01" })) } });
const cancel = (token: string, id: string) => api("/transaction_del", { token, body: { id } });
const transfer = (token: string) => api("/wallet/change", { token, body: { currency_id: USDT, number: "1", from_field: "change", to_field: "micro" } });
/** Any route that resolves the session in D1: the isolate then holds the session's hint, as a client's first screen does. */
const warm = async (token: string) => expect((await api("/user/info", { token })).body.type).toBe("ok");
const sessionReads = (userId: number) => accountStub(env, userId).accountSessionReads();

afterEach(() => {
  stopRecording();
});

beforeAll(async () => {
  await seedSpotPair();
});

/** Nothing held and no order booked: the balances as opened, no open hold. */
async function expectNothingHeld(userId: number, usdt = "10000") {
  expect(await objectBalances(userId)).toEqual([["change", USDT, units(usdt), 0n]]);
  expect(await accountStub(env, userId).accountOpenHolds(userId)).toEqual([]);
}

describe("the session check in the account object", () => {
  it("an order, a batch, a cancel and a transfer with a live session make no D1 statement; a session the object never heard of is read from D1 once", async () => {
    const a = await objectTrader("10000", "0");
    await warm(a.token);
    expect(await sessionReads(a.id)).toBe(0);

    // The first order and transfer: the object had never heard of this session, one read of it in the
    // object (and the currency's scale, which an isolate caches, is read once).
    const first = await statementsOf(async () => {
      expect((await spot(a.token)).body.type).toBe("ok");
      expect((await transfer(a.token)).body.type).toBe("ok");
    });
    expect(await sessionReads(a.id)).toBe(1);
    expect(first.filter((s) => /FROM sessions s JOIN users u ON u.id = s.user_id WHERE s.id = \?/.test(s))).toHaveLength(1);

    let id = "";
    const path = await statementsOf(async () => {
      const placed = await spot(a.token);
      expect(placed.body.type).toBe("ok");
      id = placed.body.message.order_id as string;
      expect((await batch(a.token)).body.message.orders).toHaveLength(2);
      expect((await cancel(a.token, id)).body.type).toBe("ok");
      expect((await transfer(a.token)).body.type).toBe("ok");
    });
    expect(onPath(path)).toEqual([]);
    expect(await sessionReads(a.id)).toBe(1);
    // The money moved: 4 orders of 400 held, one cancelled (its hold comes back with the pair's leg), 2 moved to micro.
    await expect.poll(() => objectBalances(a.id)).toEqual([
      ["change", USDT, units("8798"), units("1200")],
      ["micro", USDT, units("2"), 0n],
    ]);
  });

  it("after logout the very next order, cancel and transfer of that session are refused with 999 and nothing is held", async () => {
    const a = await objectTrader("10000", "0");
    await warm(a.token);
    expect((await spot(a.token)).body.type).toBe("ok");
    const id = (await accountStub(env, a.id).accountOpenHolds(a.id))[0]!.forId;
    expect((await api("/user/logout", { token: a.token, body: {} })).body.type).toBe("ok");
    const refused = await spot(a.token);
    expect(refused.body.type).toBe("999");
    expect((await batch(a.token)).body.type).toBe("999");
    expect((await transfer(a.token)).body.type).toBe("999");
    expect((await cancel(a.token, id)).body.type).toBe("999");
    // Only the first order's hold: nothing more.
    expect(await objectBalances(a.id)).toEqual([["change", USDT, units("9600"), units("400")]]);
  });

  it("after revoking a session from the device list, that session's very next order is refused and nothing is held", async () => {
    const a = await objectTrader("10000", "0");
    const other = await createSession(env.DB, a.id, "test");
    await warm(a.token);
    await warm(other);
    expect((await spot(other)).body.type).toBe("ok");
    expect((await cancel(other, (await accountStub(env, a.id).accountOpenHolds(a.id))[0]!.forId)).body.type).toBe("ok");
    await expect.poll(() => objectBalances(a.id)).toEqual([["change", USDT, units("10000"), 0n]]);

    expect((await api("/security/sessions/revoke", { token: a.token, body: { all: true } })).body.message).toEqual({ revoked: 1 });
    expect((await spot(other)).body.type).toBe("999");
    await expectNothingHeld(a.id);
    // The session that revoked it still trades.
    expect((await spot(a.token)).body.type).toBe("ok");
  });

  it("after a password change the very next order of the old session is refused and nothing is held", async () => {
    const a = await objectTrader("10000", "0");
    await warm(a.token);
    expect((await transfer(a.token)).body.type).toBe("ok");
    expect((await api("/new/users/update-password", { token: a.token, body: { oldpwd: "Passw0rd1", newpwd: "An0ther-Passw0rd", repwd: "An0ther-Passw0rd" } })).body.status).toBe(1);
    expect((await spot(a.token)).body.type).toBe("999");
    expect(await objectBalances(a.id)).toEqual([
      ["change", USDT, units("9999"), 0n],
      ["micro", USDT, units("1"), 0n],
    ]);
  });

  it("after an operator lock or a review status change the very next order is refused with today's error and nothing is held", async () => {
    const locked = await objectTrader("10000", "0");
    await warm(locked.token);
    expect((await transfer(locked.token)).body.type).toBe("ok");
    expect((await transfer(locked.token)).body.type).toBe("ok");
    // What an operator's lock writes, through the one path every writer of these flags takes.
    await changingSessions(env, locked.id, () => env.DB.prepare("UPDATE users SET locked = 1 WHERE id = ?").bind(locked.id).run());
    expect((await spot(locked.token)).body.type).toBe("999");
    expect((await transfer(locked.token)).body.type).toBe("999");
    expect(await objectBalances(locked.id)).toEqual([
      ["change", USDT, units("9998"), 0n],
      ["micro", USDT, units("2"), 0n],
    ]);

    const unverified = await objectTrader("10000", "0");
    await warm(unverified.token);
    expect((await transfer(unverified.token)).body.type).toBe("ok");
    await changingSessions(env, unverified.id, () => env.DB.prepare("UPDATE users SET review_status = 1 WHERE id = ?").bind(unverified.id).run());
    expect((await spot(unverified.token)).body.type).toBe("998");
    expect((await accountStub(env, unverified.id).accountOpenHolds(unverified.id))).toEqual([]);
    // A transfer needs no verification: it still moves.
    expect((await transfer(unverified.token)).body.type).toBe("ok");
  });

  it("fails closed: while a change is open (its close never came) every check asks D1, and a session ended meanwhile is refused", async () => {
    const a = await objectTrader("10000", "0");
    await warm(a.token);
    expect((await transfer(a.token)).body.type).toBe("ok");
    const before = await sessionReads(a.id);
    // A writer told the object and then died before closing: the object no longer trusts what it knew.
    await accountStub(env, a.id).accountSessionsChanging(a.id, "lost-close");
    expect((await transfer(a.token)).body.type).toBe("ok");
    expect((await transfer(a.token)).body.type).toBe("ok");
    expect(await sessionReads(a.id)).toBe(before + 2);
    // The writer's D1 write landed after all: the next order sees it.
    await env.DB.prepare("UPDATE sessions SET revoked_at = ? WHERE user_id = ?").bind(Date.now(), a.id).run();
    expect((await spot(a.token)).body.type).toBe("999");
    expect(await objectBalances(a.id)).toEqual([
      ["change", USDT, units("9997"), 0n],
      ["micro", USDT, units("3"), 0n],
    ]);
  });
});
