/**
 * Seconds contracts through the Worker (issue #9 §3/§4): the lists, submitting with every kind of
 * bad input, 998, the product switch, no market price, a house that cannot pay, exposure limits,
 * settlement at expiry exactly once with the balances moving by exactly the result and the fee,
 * the tie rule both ways, the public tick log, client order ids, crashes between the hold and the
 * object, operators who cannot reach an outcome, and a reconciliation that stays clean.
 */
import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { app } from "../../worker/app.ts";
import { reconcileHeldContracts, submitContract } from "../../worker/domain/seconds/orders.ts";
import { TREASURY } from "../../worker/lib/guarded.ts";
import { movementStatements, SYSTEM } from "../../worker/lib/ledger.ts";
import { api, d1Only, dbFingerprint, drainPair, makeUser, onObjects, reconcileNow, seedSpotPair, statementLines, units } from "./helpers.ts";
import { PAIR, USDT } from "./spot-fixtures.ts";
import { bettor, expireNow, fundHouse, micro, orderRow, settled, stubOf, submit, twoSidedBook, userSocket } from "./seconds-fixtures.ts";

/** ETH/USDT: a pair whose book stays empty (no index). */
const EMPTY_PAIR = 2;
/** A payable coin the house holds none of. */
const UNFUNDED = 8;
/** A payable coin for the exposure tests, with small limits. */
const LIMITED = 9;

/** The fee account's USDT. */
const fees = async () => (await micro(SYSTEM.fees))[0];

let op: Awaited<ReturnType<typeof makeUser>>;

beforeAll(async () => {
  await seedSpotPair();
  await seedSpotPair({ pairId: EMPTY_PAIR, currencyId: 2 });
  await env.DB.batch(
    [
      [UNFUNDED, "NOPE"],
      [LIMITED, "TST"],
    ].map(([id, name]) => env.DB.prepare("INSERT INTO currencies (id, name, scale) VALUES (?, ?, 8) ON CONFLICT DO NOTHING").bind(id, name)),
  );
  // A one-second duration, so the alarm test needs no fake clock.
  await env.DB.prepare("INSERT INTO seconds_options (seconds, profit_ratio_bps, status) VALUES (1, 8000, 1), (45, 9000, 0)").run();
  await fundHouse(USDT, units("1000000"));
  await fundHouse(LIMITED, units("1000000"));
  op = await makeUser({ role: "operator" });
  for (const [currency_id, pair_exposure, user_exposure] of [
    [UNFUNDED, "100000", "100000"],
    [LIMITED, "30", "20"],
  ] as const) {
    const r = await api("/admin/seconds/currencies", {
      token: op.token,
      body: { currency_id, micro_numbers: ["10"], min_number: "1", max_number: "100", fee_percent: "2", pair_exposure, user_exposure, status: 1, reason: "test coin" },
    });
    expect(r.body.type).toBe("ok");
  }
  await twoSidedBook();
});

describe("options and payable currencies", () => {
  it("lists only offered durations with their ratio, to anyone", async () => {
    const r = await api("/microtrade/seconds");
    expect(r.body.message).toEqual(
      expect.arrayContaining([
        { seconds: 30, profit_ratio: "80", status: 1 },
        { seconds: 60, profit_ratio: "82", status: 1 },
        { seconds: 120, profit_ratio: "85", status: 1 },
        { seconds: 300, profit_ratio: "88", status: 1 },
      ]),
    );
    expect(r.body.message.find((o: { seconds: number }) => o.seconds === 45)).toBeUndefined();
  });

  it("lists payable currencies with the caller's micro balance, and none without a login", async () => {
    const u = await bettor("123.5");
    const mine = (await api("/microtrade/payable_currencies", { token: u.token })).body.message.find((c: { id: number }) => c.id === USDT);
    expect(mine).toEqual({ id: USDT, name: "USDT", user_wallet: { micro_balance: "123.50000000", currency_name: "USDT" }, micro_numbers: ["10", "50", "100", "500", "1000"], min_number: "1", max_number: "5000", fee_percent: "2" });
    const anon = (await api("/microtrade/payable_currencies")).body.message.find((c: { id: number }) => c.id === USDT);
    expect(anon.user_wallet).toBeNull();
  });
});

describe("submitting", () => {
  it("holds the stake and the fee from the micro account and the payout from the house, in one movement", async () => {
    const u = await bettor("100");
    const house = await micro(TREASURY);
    const fee0 = await fees();
    const r = await submit(u.token, { type: 1, seconds: 60, number: "10" });
    expect(r.body.type).toBe("ok");
    const o = r.body.message;
    expect(o).toMatchObject({ type: 1, symbol_name: "BTC/USDT", currency_name: "USDT", match_id: PAIR, number: "10.00000000", fee: "0.20000000", seconds: 60, profit_ratio: "82", status: 1, end_price: null, fact_profits: null, end_tick_id: null, open_price: "101.00" });
    expect(o.end_at - o.created_at).toBeGreaterThanOrEqual(59_000);
    expect(await micro(u.id)).toEqual([units("89.8"), units("10")]);
    expect(await micro(TREASURY)).toEqual([house[0] - units("8.2"), house[1] + units("8.2")]);
    expect(await fees()).toBe(fee0 + units("0.2"));
    const lines = (await statementLines(u.token)).filter((l) => l.ref.type === "seconds" && l.ref.id === o.id);
    expect(lines.map((l) => [l.kind, l.account])).toEqual([["micro_open", "micro"]]);
    const listed = (await api("/microtrade/lists", { token: u.token })).body.message;
    expect(listed.map((x: { id: number }) => x.id)).toEqual([o.id]);
  });

  it("refuses bad input with a clear error and changes nothing", async () => {
    const u = await bettor("100");
    const before = await dbFingerprint();
    const cases: [Record<string, unknown>, string][] = [
      [{ type: 3 }, "invalid_field"],
      [{ match_id: "x" }, "invalid_param"],
      [{ seconds: 45 }, "seconds_unavailable"],
      [{ seconds: 31 }, "seconds_unavailable"],
      [{ currency_id: 1 }, "currency_unsupported"],
      [{ number: "0.5" }, "stake_range"],
      [{ number: "0" }, "stake_range"],
      [{ number: "5000.00000001" }, "stake_range"],
      [{ number: "1.000000001" }, "too_many_decimals"],
      [{ number: "-1" }, "invalid_amount"],
      [{ number: "abc" }, "invalid_amount"],
      [{ match_id: 99 }, "pair_closed"],
      [{ number: "200" }, "insufficient_balance"],
      [{ client_oid: "bad oid!" }, "invalid_param"],
    ];
    for (const [body, code] of cases) {
      const r = await submit(u.token, body);
      expect({ body, code: r.body.code }).toEqual({ body, code });
      expect(r.body.type).toBe("error");
      expect(r.body.message.length).toBeGreaterThan(3);
    }
    const missing = await api("/microtrade/submit", { token: u.token, body: { match_id: 1, currency_id: USDT, type: 1, seconds: 30 } });
    expect(missing.body).toMatchObject({ code: "invalid_amount", message: "Please enter a valid amount" });
    const en = await submit(u.token, { number: "0.5", seconds: 60 });
    expect(en.body.message).toBe("The amount must be between 1 and 5000 USDT");
    expect((await api("/microtrade/submit", { token: u.token, lang: "zh", body: { match_id: 1, currency_id: USDT, type: 1, seconds: 60, number: "0.5" } })).body.message).toBe("金额须在 1 至 5000 USDT 之间");
    expect(await dbFingerprint()).toBe(before);
  });

  it("answers 998 until the user is verified, and 999 without a login", async () => {
    const u = await makeUser({ verified: 1, balances: [{ currencyId: USDT, units: units("100"), account: "micro" }] });
    const r = await submit(u.token, {});
    expect(r.status).toBe(403);
    expect(r.body).toMatchObject({ type: "998", code: "verify_required" });
    expect(await micro(u.id)).toEqual([units("100"), 0n]);
    expect((await submit("", {})).body.type).toBe("999");
    expect((await api("/microtrade/lists")).body.type).toBe("999");
    expect((await api("/new/microtrade/lists")).body.type).toBe("999");
  });

  it("refuses a pair with no two-sided book (no market price) and holds nothing", async () => {
    const u = await bettor("100");
    const house = await micro(TREASURY);
    const r = await submit(u.token, { match_id: EMPTY_PAIR });
    expect(r.body).toMatchObject({ type: "error", code: "no_market_price" });
    expect(await micro(u.id)).toEqual([units("100"), 0n]);
    expect(await micro(TREASURY)).toEqual(house);
    // The refused contract is in the history as revoked, with its money returned in one movement.
    const h = (await api("/new/microtrade/lists?status=4", { token: u.token })).body.data;
    expect(h.total).toBe(1);
    expect(h.lists[0]).toMatchObject({ status: 4, fact_profits: null, match_id: EMPTY_PAIR });
    // D1's refund movement (in objects mode the hold is given back in the account object: the balances above).
    if (!onObjects()) expect(await env.DB.prepare("SELECT count(*) n FROM movements WHERE key = ?").bind(`micro:${h.lists[0].id}:refund`).first()).toEqual({ n: 1 });
  });

  it("refuses a contract the house cannot cover, translated, and changes nothing", async () => {
    const u = await bettor("100", UNFUNDED);
    const before = await dbFingerprint();
    const r = await submit(u.token, { currency_id: UNFUNDED, number: "10" });
    expect(r.body).toMatchObject({ code: "house_cannot_cover", message: "The exchange cannot cover the payout of this contract right now; please try a smaller amount" });
    expect(await dbFingerprint()).toBe(before);
    expect(await micro(u.id, UNFUNDED)).toEqual([units("100"), 0n]);
  });

  it("refuses contracts past the per-user and per-pair exposure limits, returning their money", async () => {
    // LIMITED: the house holds at most 20 per user and 30 per pair (maximum payouts; 80 % of 30 s stakes).
    const a = await bettor("1000", LIMITED);
    const b = await bettor("1000", LIMITED);
    // The treasury's TST (in objects mode every shard was funded with the whole amount).
    const house = await micro(TREASURY, LIMITED);
    expect((await submit(a.token, { currency_id: LIMITED, number: "25" })).body.type).toBe("ok"); // holds 20
    const over = await submit(a.token, { currency_id: LIMITED, number: "1" });
    expect(over.body).toMatchObject({ code: "exposure_user" });
    expect((await submit(b.token, { currency_id: LIMITED, number: "12.5" })).body.type).toBe("ok"); // holds 10: pair at 30
    const pairFull = await submit(b.token, { currency_id: LIMITED, number: "1" });
    expect(pairFull.body).toMatchObject({ code: "exposure_pair" });
    // Refused contracts return everything: stake, fee and the house's hold.
    expect(await micro(a.id, LIMITED)).toEqual([units("1000") - units("25.5"), units("25")]);
    expect(await micro(b.id, LIMITED)).toEqual([units("1000") - units("12.75"), units("12.5")]);
    expect(await micro(TREASURY, LIMITED)).toEqual([house[0] - units("30"), house[1] + units("30")]);
  });

  it("answers a repeated client order id with the first contract and refuses it for different terms", async () => {
    const u = await bettor("100");
    const first = await submit(u.token, { client_oid: "sec-1", number: "10", seconds: 60 });
    const again = await submit(u.token, { client_oid: "sec-1", number: "10", seconds: 60 });
    expect(again.body.message.id).toBe(first.body.message.id);
    expect(await micro(u.id)).toEqual([units("89.8"), units("10")]);
    expect((await submit(u.token, { client_oid: "sec-1", number: "11", seconds: 60 })).body.code).toBe("duplicate_client_id");
    // Another user's client order id is theirs alone.
    const other = await bettor("100");
    const theirs = await submit(other.token, { client_oid: "sec-1", number: "10", seconds: 60 });
    expect(theirs.body.message.id).not.toBe(first.body.message.id);
  });

  it("shows each user only their own contracts", async () => {
    const a = await bettor("100");
    const b = await bettor("100");
    const mine = (await submit(a.token, { seconds: 120 })).body.message;
    expect((await api("/microtrade/lists", { token: b.token })).body.message).toEqual([]);
    expect((await api("/new/microtrade/lists", { token: b.token })).body.data).toEqual({ total: 0, lists: [] });
    expect((await api("/new/microtrade/lists", { token: a.token })).body.data.lists.map((o: { id: number }) => o.id)).toEqual([mine.id]);
    expect((await api("/new/microtrade/lists?status=9", { token: a.token })).body).toMatchObject({ status: 0, code: "invalid_field" });
  });
});

describe("settlement", () => {
  it("settles at expiry by the pair's own alarm; a tie loses an up contract and the balance moves by exactly the stake and fee", async () => {
    const u = await bettor("100");
    const house = await micro(TREASURY);
    const o = (await submit(u.token, { type: 1, seconds: 1, number: "10" })).body.message;
    const row = await settled(PAIR, o.id);
    expect(Number(row.end_price)).toBe(Number(row.open_price));
    expect(row.result).toBe(-Number(units("10")));
    expect(await micro(u.id)).toEqual([units("100") - units("10") - units("0.2"), 0n]);
    expect(await micro(TREASURY)).toEqual([house[0] + units("10"), house[1]]);
  });

  it("pays a down contract on a tie: stake back plus stake × ratio, and tells its owner only", async () => {
    const u = await bettor("100");
    const other = await bettor("100");
    const mine = await userSocket(u);
    const theirs = await userSocket(other);
    const o = (await submit(u.token, { type: 2, seconds: 1, number: "10" })).body.message;
    const row = await settled(PAIR, o.id);
    for (let i = 0; i < 500 && mine.messages.length < 2; i++) await new Promise((r) => setTimeout(r, 10));
    expect(mine.messages).toEqual([
      { type: "closed_microorder", data: expect.objectContaining({ id: o.id, status: 3, fact_profits: "8.00000000", end_tick_id: Number(row.end_tick_id), open_tick_id: o.open_tick_id }) },
      // its inbox item (issue #16 §1) landed with the settlement
      { type: "notification" },
    ]);
    expect(theirs.messages).toEqual([]);
    mine.ws.close();
    theirs.ws.close();
    expect(row.end_price).toBe(row.open_price);
    expect(await micro(u.id)).toEqual([units("100") - units("0.2") + units("8"), 0n]);
    const listed = (await api("/microtrade/lists", { token: u.token })).body.message.find((x: { id: number }) => x.id === o.id);
    expect(listed).toMatchObject({ status: 3, fact_profits: "8.00000000", remain_milli_seconds: 0 });
  });

  it("pays up only when the exit is above the entry, and down only when it is not", async () => {
    const up = await bettor("100");
    const down = await bettor("100");
    const a = (await submit(up.token, { type: 1, seconds: 30, number: "10" })).body.message;
    const b = (await submit(down.token, { type: 2, seconds: 30, number: "10" })).body.message;
    // A higher bid moves the index (mid of 100.50 and 102.00) above the entry.
    const mm = await twoSidedBook("100.5", "102");
    expect(mm).toBeTruthy();
    await expireNow(PAIR, a.id);
    await expireNow(PAIR, b.id);
    const ra = await settled(PAIR, a.id);
    const rb = await settled(PAIR, b.id);
    expect(Number(ra.end_price)).toBeGreaterThan(Number(ra.open_price));
    expect(ra.result).toBe(Number(units("8")));
    expect(rb.result).toBe(-Number(units("10")));
    expect(await micro(up.id)).toEqual([units("100") - units("0.2") + units("8"), 0n]);
    expect(await micro(down.id)).toEqual([units("100") - units("10.2"), 0n]);

    // And the other way: a lower ask moves the index below the entry.
    const a2 = (await submit(up.token, { type: 1, seconds: 30, number: "10" })).body.message;
    const b2 = (await submit(down.token, { type: 2, seconds: 30, number: "10" })).body.message;
    const mm2 = await makeUser({ verified: 2, balances: [{ currencyId: 1, units: units("1") }] });
    expect((await api("/transaction/walletOut", { token: mm2.token, body: { currency_id: 1, legal_id: USDT, mode: 2, price: "101", num: "0.1" } })).body.type).toBe("ok");
    await expireNow(PAIR, a2.id);
    await expireNow(PAIR, b2.id);
    const ra2 = await settled(PAIR, a2.id);
    const rb2 = await settled(PAIR, b2.id);
    expect(Number(ra2.end_price)).toBeLessThan(Number(ra2.open_price));
    expect(ra2.result).toBe(-Number(units("10")));
    expect(rb2.result).toBe(Number(units("8")));
  });

  it("lists the entry and exit ticks of a settled contract in the public tick log", async () => {
    const u = await bettor("100");
    const o = (await submit(u.token, { type: 1, seconds: 1, number: "5" })).body.message;
    await settled(PAIR, o.id);
    const done = (await api("/new/microtrade/lists?status=3", { token: u.token })).body.data.lists[0];
    expect(done.id).toBe(o.id);
    const ticks = (await api(`/microtrade/ticks?match_id=${PAIR}&from=${done.created_at - 60_000}&to=${done.end_at}&limit=1000`)).body.message;
    const entry = ticks.lists.find((t: { id: number }) => t.id === done.open_tick_id);
    const exit = ticks.lists.find((t: { id: number }) => t.id === done.end_tick_id);
    expect(entry).toMatchObject({ match_id: PAIR, price: done.open_price });
    expect(exit).toMatchObject({ match_id: PAIR, price: done.end_price });
    expect(exit.at).toBeLessThanOrEqual(done.end_at);
    // The exit is the LAST tick at or before the expiry.
    expect(ticks.lists.filter((t: { at: number }) => t.at <= done.end_at).at(-1).id).toBe(done.end_tick_id);
    expect((await api(`/microtrade/ticks?match_id=${PAIR}&from=10&to=5`)).body.code).toBe("invalid_field");
    expect((await api(`/microtrade/ticks?match_id=abc`)).body.code).toBe("invalid_param");
    expect((await api(`/microtrade/ticks?match_id=777`)).body.code).toBe("pair_closed");
  });

  it("applies a settlement once even when the alarm fires again and the drain is repeated", async () => {
    const u = await bettor("100");
    const o = (await submit(u.token, { type: 2, seconds: 30, number: "10" })).body.message;
    await expireNow(PAIR, o.id);
    await settled(PAIR, o.id);
    const after = await micro(u.id);
    const lines = await statementLines(u.token);
    // As if the object had lost its note that the settlement reached D1, then fired twice.
    await expireNow(PAIR, o.id);
    await runInDurableObject(stubOf(PAIR), async (_obj, state) => {
      state.storage.sql.exec("UPDATE outbox SET drained_at = NULL WHERE payload LIKE ?", `%"orderId":${o.id},%`);
      state.storage.sql.exec("UPDATE contracts SET status = 2 WHERE id = ?", o.id);
    });
    await runDurableObjectAlarm(stubOf(PAIR));
    await drainPair(PAIR);
    await drainPair(PAIR);
    expect(await micro(u.id)).toEqual(after);
    expect(await statementLines(u.token)).toEqual(lines);
    const state = await runInDurableObject(stubOf(PAIR), async (_obj, s) => s.storage.sql.exec("SELECT status FROM contracts WHERE id = ?", o.id).one().status);
    expect(state).toBe(3);
  });
});

// D1 mode's crash between D1's hold and the pair; in objects mode the hold is in the account object
// and a contract the pair never took is swept from there (tests/objects/orphans-objects.test.ts).
describe.skipIf(d1Only("a hold in D1's ledger left by a crash"))("crash between the hold and the object", () => {
  async function heldOnly(userId: number, id: number) {
    // What a Worker that died right after the hold leaves behind.
    const stake = units("10");
    await env.DB.batch([
      ...movementStatements(env.DB, `micro:${id}:open`, "micro_open", [
        { userId, currencyId: USDT, account: "micro", dAvailable: -(stake + units("0.2")), dFrozen: stake },
        { userId: SYSTEM.fees, currencyId: USDT, account: "change", dAvailable: units("0.2"), dFrozen: 0n },
        { userId: TREASURY, currencyId: USDT, account: "change", dAvailable: -units("8"), dFrozen: units("8") },
      ]),
      env.DB.prepare(
        "INSERT INTO micro_orders (id, user_id, pair_id, currency_id, type, stake, fee, hold, seconds, profit_ratio_bps, status, client_oid, created_at) VALUES (?, ?, 1, ?, 1, ?, ?, ?, 30, 8000, 0, ?, ?)",
      ).bind(id, userId, USDT, stake.toString(), units("0.2").toString(), units("8").toString(), `held-${id}`, Date.now() - 120_000),
    ]);
  }

  it("refunds a held contract the object never saw, once, and the object refuses it afterwards", async () => {
    const u = await bettor("100");
    const house = await micro(TREASURY);
    const id = 900_000_001;
    await heldOnly(u.id, id);
    const r = await reconcileHeldContracts(env, Date.now());
    expect(r.refunded).toBeGreaterThanOrEqual(1);
    expect(await micro(u.id)).toEqual([units("100"), 0n]);
    expect(await micro(TREASURY)).toEqual(house);
    expect(Number((await orderRow(id))!.status)).toBe(4);
    const late = await stubOf(PAIR).acceptSeconds({ pairId: PAIR, orderId: id, userId: u.id, currencyId: USDT, currencyName: "USDT", currencyScale: 8, type: 1, stake: units("10").toString(), fee: units("0.2").toString(), hold: units("8").toString(), ratioBps: 8000, seconds: 30, pairExposure: "1", userExposure: "1" });
    expect(late).toEqual({ ok: false, code: "tombstoned" });
    await reconcileHeldContracts(env, Date.now());
    expect(await micro(u.id)).toEqual([units("100"), 0n]);
    // Its owner sees it revoked, with no entry price or tick (it never ran), not a price of 0.
    const listed = (await api("/new/microtrade/lists?page=1&limit=10", { token: u.token })).body.data.lists;
    expect(listed.find((o: { id: number }) => o.id === id)).toMatchObject({ status: 4, open_price: null, open_tick_id: null, end_price: null, fact_profits: null });
  });

  it("finishes a held contract when its client order id is sent again", async () => {
    const u = await bettor("100");
    const id = 900_000_002;
    await heldOnly(u.id, id);
    const again = await submit(u.token, { client_oid: `held-${id}`, type: 1, seconds: 30, number: "10" });
    expect(again.body.message).toMatchObject({ id, status: 1 });
    expect(await micro(u.id)).toEqual([units("89.8"), units("10")]);
    // The reconciler now finds it known and leaves the money where it is.
    await reconcileHeldContracts(env, Date.now());
    expect(await micro(u.id)).toEqual([units("89.8"), units("10")]);
  });
});

describe("the product switch", () => {
  it("answers feature_off on every seconds endpoint when PRODUCT_SECONDS is off, and changes nothing", async () => {
    const u = await bettor("100");
    const off = { ...env, PRODUCT_SECONDS: "off" };
    const before = await dbFingerprint();
    const call = async (path: string, init: RequestInit = {}): Promise<any> => {
      const res = await app.request(`/api${path}`, { ...init, headers: { authorization: u.token, lang: "en", "content-type": "application/json", "cf-connecting-ip": "198.18.9.9" } }, off);
      return res.json();
    };
    for (const path of ["/microtrade/seconds", "/microtrade/payable_currencies", "/microtrade/lists", `/microtrade/ticks?match_id=${PAIR}`]) {
      expect(await call(path)).toMatchObject({ type: "error", code: "feature_off", message: "This feature is not open" });
    }
    expect(await call("/new/microtrade/lists")).toMatchObject({ status: 0, code: "feature_off" });
    const r = await call("/microtrade/submit", { method: "POST", body: JSON.stringify({ match_id: PAIR, currency_id: USDT, type: 1, seconds: 30, number: "10" }) });
    expect(r).toMatchObject({ code: "feature_off" });
    expect(await dbFingerprint()).toBe(before);
  });
});

describe("operators", () => {
  it("edit options and payable currencies with an audited reason, and a non-operator cannot", async () => {
    const user = await makeUser({ verified: 2 });
    expect((await api("/admin/seconds/options", { token: user.token })).body.code).toBe("no_permission");
    const bad = await api("/admin/seconds/options", { token: op.token, body: { seconds: 60, profit_ratio: "101", status: 1, reason: "x" } });
    expect(bad.body.code).toBe("invalid_field");
    expect((await api("/admin/seconds/options", { token: op.token, body: { seconds: 60, profit_ratio: "82", status: 1 } })).body.code).toBe("reason_required");
    const r = await api("/admin/seconds/options", { token: op.token, body: { seconds: 600, profit_ratio: "90.5", status: 0, reason: "new long option, not offered yet" } });
    expect(r.body.message).toEqual(expect.arrayContaining([expect.objectContaining({ seconds: 600, profit_ratio: "90.5", status: 0 })]));
    const audit = await api("/admin/audit?action=seconds.option", { token: op.token });
    expect(audit.body.message.lists[0]).toMatchObject({ operator_id: op.id, target_id: "600", reason: "new long option, not offered yet" });
    const cur = await api("/admin/seconds/currencies", { token: op.token, body: { currency_id: USDT, micro_numbers: ["9999"], min_number: "1", max_number: "5000", fee_percent: "2", pair_exposure: "1", user_exposure: "1", status: 1, reason: "x" } });
    expect(cur.body.code).toBe("invalid_field");
  });

  it("cannot change a running contract: a ratio edited after acceptance leaves its ratio and result alone", async () => {
    const u = await bettor("100");
    const o = (await submit(u.token, { type: 2, seconds: 120, number: "10" })).body.message;
    expect(o.profit_ratio).toBe("85");
    expect((await api("/admin/seconds/options", { token: op.token, body: { seconds: 120, profit_ratio: "10", status: 1, reason: "lower the ratio" } })).body.type).toBe("ok");
    await expireNow(PAIR, o.id);
    const row = await settled(PAIR, o.id);
    // The index did not move: down wins at the ratio it was accepted with.
    expect(row.profit_ratio_bps).toBe(8500);
    expect(row.result).toBe(Number(units("8.5")));
    await api("/admin/seconds/options", { token: op.token, body: { seconds: 120, profit_ratio: "85", status: 1, reason: "restore" } });
    // Nothing in the API names a contract for an operator: no route under /admin reaches micro orders.
    const doc = (await api("/openapi.json")).body as { paths: Record<string, unknown> };
    const adminPaths = Object.keys(doc.paths).filter((p) => p.includes("/admin/"));
    // (a path segment "tick"/"ticks", not the support queue's "tickets")
    expect(adminPaths.filter((p) => /micro|contract|order|\/ticks?(\/|$)/i.test(p))).toEqual([]);
    // And the database refuses a changed result or changed terms.
    await expect(env.DB.prepare("UPDATE micro_orders SET result = 1 WHERE id = ?").bind(o.id).run()).rejects.toThrow(/immutable/);
    await expect(env.DB.prepare("UPDATE micro_orders SET profit_ratio_bps = 1 WHERE id = ?").bind(o.id).run()).rejects.toThrow(/immutable/);
    await expect(env.DB.prepare("UPDATE micro_orders SET status = 1 WHERE id = ?").bind(o.id).run()).rejects.toThrow(/state_conflict/);
  });
});

describe("reconciliation", () => {
  it("finds no difference with contracts open and settled (micro stakes and house holds counted)", async () => {
    const u = await bettor("100");
    await submit(u.token, { seconds: 300, number: "20" });
    const s = await bettor("100");
    await settled(PAIR, (await submit(s.token, { type: 2, seconds: 1, number: "10" })).body.message.id);
    await drainPair(PAIR);
    const r = await reconcileNow();
    expect(r.differences).toEqual([]);
    expect(r.stats.hold_sources).toContain("micro_orders");
  });
});

describe("ids drawn in one millisecond", () => {
  it("holds every contract submitted in the same millisecond, each under its own id", async () => {
    // Contract ids are (ms since 2026) × 4096 + 12 random bits: 300 submits stamped with one
    // millisecond draw a taken id almost surely (1 − e^(−300·299/8192) ≈ 1); each must draw again.
    const u = await bettor("3060");
    const house = await micro(TREASURY);
    const fee0 = await fees();
    const now = Date.now();
    const ids = new Set<number>();
    for (let i = 0; i < 300; i++) ids.add((await submitContract(env, u.id, { match_id: PAIR, currency_id: USDT, type: 1, seconds: 60, number: "10" }, now)).id);
    expect(ids.size).toBe(300);
    expect(await micro(u.id)).toEqual([0n, units("3000")]);
    expect(await micro(TREASURY)).toEqual([house[0] - 300n * units("8.2"), house[1] + 300n * units("8.2")]);
    expect(await fees()).toBe(fee0 + 300n * units("0.2"));
    await drainPair(PAIR);
    expect((await reconcileNow()).differences).toEqual([]);
  });
});
