/**
 * Seconds contracts and leveraged opens skip the session read, the terms' reads and the read-back
 * when the Worker already knows them (issue #17 §2): the session hint and the remembered terms are
 * checked by the freeze batch itself. Whatever changed in D1 since the last submit (a logout, a
 * revocation elsewhere, verification withdrawn, an operator's edit of a ratio, a fee or a switch),
 * the next submit must be held and answered exactly as if nothing had been remembered, and the
 * answer to a submit is the contract or position as the lists show it.
 */
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { TREASURY } from "../../worker/lib/guarded.ts";
import { formatUnits } from "../../schemas/money.ts";
import { api, d1Only, drainPair, seedSpotPair, units } from "./helpers.ts";
import { BTC, USDT } from "./spot-fixtures.ts";
import { bettor, fundHouse, micro, submit, twoSidedBook } from "./seconds-fixtures.ts";
import { lever, leverUser, open, setIndex } from "./lever-fixtures.ts";

/** A user's contracts and positions in D1, after the pair's drain (in objects mode a record reaches D1 with it). */
const contracts = async (userId: number) => (await drainPair(1), (await env.DB.prepare("SELECT count(*) AS n FROM micro_orders WHERE user_id = ?").bind(userId).first<{ n: number }>())!.n);
const positions = async (userId: number) => (await drainPair(1), (await env.DB.prepare("SELECT count(*) AS n FROM lever_positions WHERE user_id = ?").bind(userId).first<{ n: number }>())!.n);

/**
 * Terms edited by a bare UPDATE of D1: D1 mode's freeze batch re-checks them at the next submit. In
 * objects mode the pairs hold on the terms they were told of, and an edit reaches them only through
 * the operator's routes (tests/objects/seconds-terms-objects.test.ts, lever-objects.test.ts).
 */
const BARE_TERMS = d1Only("terms edited by a bare UPDATE of D1");

beforeAll(async () => {
  await seedSpotPair();
  await fundHouse(USDT, units("1000000"));
  await twoSidedBook();
});

describe("a seconds contract after something changed in D1", () => {
  /** A bettor who has just opened a contract (the Worker knows the token and the terms). */
  async function activeBettor() {
    const u = await bettor("1000");
    expect((await submit(u.token, { number: "10" })).body.type).toBe("ok");
    return { u, micro: await micro(u.id), house: await micro(TREASURY), contracts: await contracts(u.id) };
  }
  async function nothingHeld(a: Awaited<ReturnType<typeof activeBettor>>) {
    expect(await micro(a.u.id)).toEqual(a.micro);
    expect(await micro(TREASURY)).toEqual(a.house);
    expect(await contracts(a.u.id)).toBe(a.contracts);
  }

  it("asks a user who logged out, or whose session was revoked elsewhere, to log in (999) and holds nothing", async () => {
    const a = await activeBettor();
    expect((await api("/user/logout", { token: a.u.token, body: {} })).body.type).toBe("ok");
    const r = await submit(a.u.token, { number: "10" });
    expect(r.status).toBe(401);
    expect(r.body.type).toBe("999");
    await nothingHeld(a);

    const b = await activeBettor();
    await env.DB.prepare("UPDATE sessions SET revoked_at = ? WHERE user_id = ?").bind(Date.now(), b.u.id).run();
    expect((await submit(b.u.token, { number: "10" })).body.type).toBe("999");
    // Bad input from an ended session is answered with the session error too.
    expect((await submit(b.u.token, { number: "abc" })).body.type).toBe("999");
    await nothingHeld(b);
  });

  it("asks a user whose verification was withdrawn to verify first (998) and holds nothing", async () => {
    const a = await activeBettor();
    await env.DB.prepare("UPDATE users SET review_status = 1 WHERE id = ?").bind(a.u.id).run();
    const r = await submit(a.u.token, { number: "10" });
    expect(r.body.type).toBe("998");
    await nothingHeld(a);
  });

  it.skipIf(BARE_TERMS)("holds a contract at the ratio and fee D1 has now, after they were edited elsewhere", async () => {
    const a = await activeBettor();
    await env.DB.batch([
      env.DB.prepare("UPDATE seconds_options SET profit_ratio_bps = 5000 WHERE seconds = 30"),
      env.DB.prepare("UPDATE micro_currencies SET fee_bps = 100 WHERE currency_id = ?").bind(USDT),
    ]);
    try {
      const r = await submit(a.u.token, { number: "10" });
      expect(r.body.message).toMatchObject({ profit_ratio: "50", fee: "0.10000000", number: "10.00000000" });
      // The user paid 10 + 0.10; the house holds 5 more (10 × 50 %), not 8.
      expect(await micro(a.u.id)).toEqual([a.micro[0] - units("10.1"), a.micro[1] + units("10")]);
      expect((await micro(TREASURY))[1]).toBe(a.house[1] + units("5"));
    } finally {
      await env.DB.batch([
        env.DB.prepare("UPDATE seconds_options SET profit_ratio_bps = 8000 WHERE seconds = 30"),
        env.DB.prepare("UPDATE micro_currencies SET fee_bps = 200 WHERE currency_id = ?").bind(USDT),
      ]);
    }
  });

  it.skipIf(BARE_TERMS)("refuses a duration withdrawn, a stake past a lowered maximum and a closed pair, as D1 has them now, and holds nothing", async () => {
    const a = await activeBettor();
    await env.DB.prepare("UPDATE seconds_options SET status = 0 WHERE seconds = 30").run();
    expect((await submit(a.u.token, { number: "10" })).body).toMatchObject({ type: "error", code: "seconds_unavailable" });
    await env.DB.prepare("UPDATE seconds_options SET status = 1 WHERE seconds = 30").run();
    await nothingHeld(a);

    await env.DB.prepare("UPDATE micro_currencies SET max_number = '5' WHERE currency_id = ?").bind(USDT).run();
    expect((await submit(a.u.token, { number: "10" })).body).toMatchObject({ code: "stake_range" });
    await env.DB.prepare("UPDATE micro_currencies SET max_number = '5000' WHERE currency_id = ?").bind(USDT).run();
    await nothingHeld(a);

    await env.DB.prepare("UPDATE pairs SET open = 0 WHERE id = 1").run();
    expect((await submit(a.u.token, { number: "10" })).body).toMatchObject({ code: "pair_closed" });
    await env.DB.prepare("UPDATE pairs SET open = 1 WHERE id = 1").run();
    await nothingHeld(a);

    // And with everything back, the next contract goes through at the usual terms.
    expect((await submit(a.u.token, { number: "10" })).body.message).toMatchObject({ profit_ratio: "80", fee: "0.20000000" });
  });

  it("answers a submit with the contract exactly as the running list shows it once the pair's drain has run, and lists it running before", async () => {
    const u = await bettor("100");
    const mine = (await submit(u.token, { number: "10", type: 2 })).body.message;
    const listed = async () => {
      const { remain_milli_seconds: _b, ...shown } = (await api("/microtrade/lists", { token: u.token })).body.message.find((x: { id: number }) => x.id === mine.id);
      return shown;
    };
    const { remain_milli_seconds: _a, ...answered } = mine;
    // At once (the acceptance may still be on its way to D1): running, with its stake, fee and terms.
    const { open_price: _p, open_tick_id: _t, end_at: _e, ...terms } = answered;
    expect(await listed()).toMatchObject({ ...terms, status: 1 });
    await drainPair(1);
    expect(await listed()).toEqual(answered);
    expect(answered).toMatchObject({ status: 1, type: 2, number: "10.00000000", seconds: 30 });
    expect(answered.open_price).not.toBeNull();
  });
});

describe("a leveraged open after something changed in D1", () => {
  beforeAll(async () => {
    await setIndex("100");
  });

  async function activeHolder() {
    const u = await leverUser("1000");
    expect((await open(u.token, { share: 10, multiple: 10 })).body.type).toBe("ok");
    return { u, lever: await lever(u.id), house: await lever(TREASURY), positions: await positions(u.id) };
  }
  async function nothingHeld(a: Awaited<ReturnType<typeof activeHolder>>) {
    expect(await lever(a.u.id)).toEqual(a.lever);
    expect(await lever(TREASURY)).toEqual(a.house);
    expect(await positions(a.u.id)).toBe(a.positions);
  }

  it("asks a user who logged out or was locked to log in (999), and an unverified one to verify (998), holding nothing", async () => {
    const a = await activeHolder();
    expect((await api("/user/logout", { token: a.u.token, body: {} })).body.type).toBe("ok");
    expect((await open(a.u.token, { share: 10, multiple: 10 })).body.type).toBe("999");
    await nothingHeld(a);

    const b = await activeHolder();
    await env.DB.prepare("UPDATE users SET locked = 1 WHERE id = ?").bind(b.u.id).run();
    expect((await open(b.u.token, { share: 10, multiple: 10 })).body.type).toBe("999");
    await nothingHeld(b);

    const c = await activeHolder();
    await env.DB.prepare("UPDATE users SET review_status = 1 WHERE id = ?").bind(c.u.id).run();
    expect((await open(c.u.token, { share: 10, multiple: 10 })).body.type).toBe("998");
    await nothingHeld(c);
  });

  it.skipIf(BARE_TERMS)("charges the fee D1 has now and refuses a leverage or a pair switched off since, holding nothing", async () => {
    const a = await activeHolder();
    await env.DB.prepare("UPDATE lever_pairs SET fee_bps = 50 WHERE pair_id = 1").run();
    try {
      const r = await open(a.u.token, { share: 10, multiple: 10 });
      expect(r.body.type).toBe("ok");
      await drainPair(1);
      const row = await env.DB.prepare("SELECT fee_bps, CAST(fee AS TEXT) AS fee, CAST(margin AS TEXT) AS margin FROM lever_positions WHERE id = ?").bind(r.body.message.id).first<{ fee_bps: number; fee: string; margin: string }>();
      const first = await env.DB.prepare("SELECT fee_bps, CAST(fee AS TEXT) AS fee FROM lever_positions WHERE user_id = ? AND id != ?").bind(a.u.id, r.body.message.id).first<{ fee_bps: number; fee: string }>();
      expect([first!.fee_bps, row!.fee_bps]).toEqual([5, 50]);
      // The same position at the same index: ten times the fee of the one opened at 0.05 %.
      expect(BigInt(row!.fee)).toBeGreaterThanOrEqual(BigInt(first!.fee) * 9n);
      expect(BigInt(row!.fee)).toBeLessThanOrEqual(BigInt(first!.fee) * 10n + 10n);
      expect(r.body.message.trade_fee).toBe(formatUnits(BigInt(row!.fee), 8));
    } finally {
      await env.DB.prepare("UPDATE lever_pairs SET fee_bps = 5 WHERE pair_id = 1").run();
    }
    const b = await activeHolder();
    await env.DB.prepare("UPDATE lever_pairs SET multiples = '[1,2,5]' WHERE pair_id = 1").run();
    expect((await open(b.u.token, { share: 10, multiple: 10 })).body).toMatchObject({ code: "lever_multiple" });
    await env.DB.prepare("UPDATE lever_pairs SET multiples = '[1,2,5,10,20,50,100]' WHERE pair_id = 1").run();
    await nothingHeld(b);
    await env.DB.prepare("UPDATE lever_pairs SET status = 0 WHERE pair_id = 1").run();
    expect((await open(b.u.token, { share: 10, multiple: 10 })).body).toMatchObject({ code: "lever_pair_off" });
    await env.DB.prepare("UPDATE lever_pairs SET status = 1 WHERE pair_id = 1").run();
    await nothingHeld(b);
  });

  it("answers an open with the position exactly as the list shows it at the same index once the pair's drain has run, and lists it trading before", async () => {
    const u = await leverUser("1000");
    const mine = (await open(u.token, { share: 10, multiple: 10, type: 2 })).body.message;
    const listed = async () => (await api(`/lever/my_trade?legal_id=${USDT}&currency_id=${BTC}`, { token: u.token, method: "POST" })).body.message.message.data.find((x: { id: number }) => x.id === mine.id);
    // At once (the acceptance may still be on its way to D1): trading, with its margin, fee and terms.
    expect(await listed()).toMatchObject({ id: mine.id, status: 2, margin: mine.margin, trade_fee: mine.trade_fee, share: 10, multiple: 10 });
    await drainPair(1);
    expect(await listed()).toEqual(mine);
    expect(mine).toMatchObject({ status: 2, type: 2, share: 10, multiple: 10 });
    expect(mine.open_price).not.toBeNull();
  });
});
