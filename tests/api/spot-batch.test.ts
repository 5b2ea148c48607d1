/**
 * The batch order endpoints: several orders of one pair in one request must behave exactly like
 * the same orders sent one after the other — same fills, same balances, same refusals — while a
 * malformed request changes nothing at all.
 */
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { MAX_BATCH_ORDERS } from "../../schemas/spot.ts";
import { api, balance, dbFingerprint, drainPair, reconcileNow, seedSpotPair, units } from "./helpers.ts";
import { BTC, PAIR, USDT, buy, clearBook, sell, trader } from "./spot-fixtures.ts";

const batch = (token: string, orders: Record<string, unknown>[], extra: Record<string, unknown> = {}, lang = "en") =>
  api("/transaction/batch", { token, lang, body: { currency_id: BTC, legal_id: USDT, orders: orders.map((o) => ({ mode: 2, ...o })), ...extra } });

beforeAll(async () => {
  await seedSpotPair();
});

describe("placing a batch", () => {
  it("books every order, freezes exactly their sum and lists them as open orders", async () => {
    await clearBook();
    const u = await trader();
    const r = await batch(u.token, [
      { side: "buy", price: "100", num: "1" },
      { side: "buy", price: "99.5", num: "2" },
      { side: "sell", price: "70000", num: "0.25" },
    ]);
    expect(r.status).toBe(200);
    expect(r.body.type).toBe("ok");
    expect(r.body.message.orders).toEqual([
      expect.objectContaining({ status: "open", filled: "0.000000", remaining: "1.000000" }),
      expect.objectContaining({ status: "open", remaining: "2.000000" }),
      expect.objectContaining({ status: "open", remaining: "0.250000" }),
    ]);
    const ids = r.body.message.orders.map((o: { order_id: string }) => o.order_id);
    expect(new Set(ids).size).toBe(3);
    // 100 × 1 + 99.5 × 2 = 299 USDT and 0.25 BTC frozen.
    expect(await balance(u.id, USDT)).toEqual([units("10000") - units("299"), units("299")]);
    expect(await balance(u.id, BTC)).toEqual([units("0.75"), units("0.25")]);
    await drainPair(PAIR);
    const open = await api("/new/transaction/index", { token: u.token });
    expect(open.body.data.lists.map((o: { id: string }) => o.id).sort()).toEqual([...ids].sort());
  });

  it("trades against the book like single orders, in the order given, at the makers' prices", async () => {
    await clearBook();
    const maker = await trader();
    const taker = await trader("20000");
    await sell(maker.token, { price: "50000", num: "0.1" });
    await sell(maker.token, { price: "50010", num: "0.1" });
    const r = await batch(taker.token, [
      { side: "buy", price: "50100", num: "0.1" }, // takes the 50000 ask
      { side: "buy", price: "50100", num: "0.15" }, // takes the 50010 ask, rests 0.05
    ]);
    expect(r.body.message.orders).toEqual([
      expect.objectContaining({ status: "filled", filled: "0.100000", remaining: "0.000000" }),
      expect.objectContaining({ status: "open", filled: "0.100000", remaining: "0.050000" }),
    ]);
    await drainPair(PAIR);
    // Taker paid 5000 + 5001 and keeps 50100 × 0.05 = 2505 frozen for the rest; fee 20 bps in BTC.
    expect(await balance(taker.id, USDT)).toEqual([units("20000") - units("10001") - units("2505"), units("2505")]);
    expect(await balance(taker.id, BTC)).toEqual([units("1") + units("0.2") - units("0.0004"), 0n]);
    expect(await balance(maker.id, USDT)).toEqual([units("10000") + units("10001") - units("10.001"), 0n]);
    expect((await reconcileNow()).differences).toEqual([]);
  });

  it("refuses only the orders the balance no longer covers; the earlier ones go through", async () => {
    await clearBook();
    const u = await trader("250", "0");
    const r = await batch(u.token, [
      { side: "buy", price: "100", num: "1" },
      { side: "buy", price: "100", num: "1" },
      { side: "buy", price: "100", num: "1" }, // 300 > 250
      { side: "buy", price: "50", num: "1" }, // still fits: 250 - 200 = 50
      { side: "sell", price: "100", num: "1" }, // no BTC
    ]);
    const out = r.body.message.orders;
    expect(out.map((o: { status?: string; code?: string }) => o.status ?? o.code)).toEqual(["open", "open", "insufficient_balance", "open", "insufficient_balance"]);
    expect(out[2].message).toBe("Insufficient balance");
    expect(await balance(u.id, USDT)).toEqual([0n, units("250")]);
    await drainPair(PAIR);
    expect((await reconcileNow()).differences).toEqual([]);
  });

  it("freezes nothing and books nothing when the balance covers none of the orders", async () => {
    await clearBook();
    const u = await trader("150", "0");
    const r = await batch(u.token, [
      { side: "buy", price: "200", num: "1" },
      { side: "sell", price: "100", num: "1" },
    ]);
    expect(r.body.message.orders.map((o: { code?: string }) => o.code)).toEqual(["insufficient_balance", "insufficient_balance"]);
    expect(await balance(u.id, USDT)).toEqual([units("150"), 0n]);
    const rows = await env.DB.prepare("SELECT COUNT(*) AS n FROM spot_orders WHERE user_id = ?").bind(u.id).first<{ n: number }>();
    expect(rows?.n).toBe(0);
  });

  it("records each order of a batch exactly as the same order sent alone: side, kind, price, size, funds held, client id, budget", async () => {
    await clearBook();
    const maker = await trader();
    await sell(maker.token, { price: "50000", num: "0.5" });
    const orders = [
      // Within the price band (10 % around the index) of the book these orders meet.
      { side: "buy", price: "46000", num: "0.1", client_oid: "row-1" },
      { side: "sell", price: "50500", num: "0.25" },
      { side: "buy", mode: 1, total: "500" },
    ];
    const inBatch = await trader("20000");
    const alone = await trader("20000");
    const r = await batch(inBatch.token, orders);
    expect(r.body.message.orders.every((o: { order_id?: string }) => o.order_id)).toBe(true);
    for (const { side, ...o } of orders) expect((await (side === "buy" ? buy : sell)(alone.token, { mode: 2, ...o })).body.type).toBe("ok");
    const rows = async (userId: number) =>
      (
        await env.DB.prepare(
          `SELECT pair_id, side, kind, price, qty, reserved_units, reserved_currency, client_oid, budget,
             typeof(price) || typeof(qty) || typeof(reserved_units) || typeof(budget) AS types
           FROM spot_orders WHERE user_id = ? ORDER BY id`,
        )
          .bind(userId)
          .all()
      ).results;
    // The orders' rows in D1 (in objects mode they reach it with the pair's drain).
    await drainPair(PAIR);
    const mine = await rows(inBatch.id);
    expect(mine).toHaveLength(3);
    expect(mine).toEqual(await rows(alone.id));
    expect(mine[2]).toMatchObject({ kind: "market", budget: expect.any(Number), types: "integerintegerintegerinteger" });
    expect(mine[0]).toMatchObject({ client_oid: "row-1", types: "integerintegerintegernull" });
    await drainPair(PAIR);
    expect(await balance(inBatch.id, USDT)).toEqual(await balance(alone.id, USDT));
    expect(await balance(inBatch.id, BTC)).toEqual(await balance(alone.id, BTC));
    expect((await reconcileNow()).differences).toEqual([]);
  });

  it("refuses each order that breaks a rule with its own translated reason, and places the rest", async () => {
    await clearBook();
    const u = await trader();
    const r = await batch(
      u.token,
      [
        { side: "buy", price: "100", num: "0" },
        { side: "buy", price: "100.001", num: "1" },
        { side: "buy", price: "1", num: "0.000001" },
        { side: "buy", mode: 1, num: "1" }, // market order, empty book
        { side: "buy", price: "100", num: "1" },
      ],
      {},
      "zh",
    );
    const out = r.body.message.orders;
    expect(out.map((o: { status?: string; code?: string }) => o.status ?? o.code)).toEqual(["buy_qty_positive", "too_many_decimals", "min_notional", "no_liquidity", "open"]);
    expect(out[2].message).toContain("USDT");
    expect(out[0].message).not.toMatch(/[a-z]{4}/); // Chinese, not the English text
    expect(await balance(u.id, USDT)).toEqual([units("9900"), units("100")]);
  });

  it("returns the first result for a replayed client id and refuses the same id with other fields", async () => {
    await clearBook();
    const u = await trader();
    const first = await batch(u.token, [{ side: "buy", price: "10", num: "1", client_oid: "bot-1" }]);
    const again = await batch(u.token, [
      { side: "buy", price: "10", num: "1", client_oid: "bot-1" },
      { side: "buy", price: "11", num: "1", client_oid: "bot-2" },
    ]);
    expect(again.body.message.orders[0]).toMatchObject({ order_id: first.body.message.orders[0].order_id, replayed: true });
    expect(again.body.message.orders[1]).toMatchObject({ status: "open" });
    // The single-order endpoint and the batch share client ids.
    const single = await buy(u.token, { price: "11", num: "1", client_oid: "bot-2" });
    expect(single.body.message).toMatchObject({ order_id: again.body.message.orders[1].order_id, replayed: true });
    const changed = await batch(u.token, [{ side: "buy", price: "12", num: "1", client_oid: "bot-1" }]);
    expect(changed.body.message.orders[0].code).toBe("duplicate_client_id");
    expect(await balance(u.id, USDT)).toEqual([units("10000") - units("21"), units("21")]);
  });

  it.each([
    ["an empty batch", { orders: [] }, "batch_size"],
    ["more orders than allowed", { orders: Array.from({ length: MAX_BATCH_ORDERS + 1 }, () => ({ side: "buy", mode: 2, price: "10", num: "1" })) }, "batch_size"],
    ["an order without a side", { orders: [{ mode: 2, price: "10", num: "1" }] }, "missing_field"],
    ["a side that is not buy or sell", { orders: [{ side: "hold", mode: 2, price: "10", num: "1" }] }, "invalid_field"],
    ["a quantity that is not a number", { orders: [{ side: "buy", mode: 2, price: "10", num: "1e3" }] }, "invalid_amount"],
    ["the same client id twice", { orders: [{ side: "buy", mode: 2, price: "10", num: "1", client_oid: "a" }, { side: "buy", mode: 2, price: "11", num: "1", client_oid: "a" }] }, "batch_duplicate_client_id"],
    ["orders that are not a list", { orders: "buy" }, "invalid_field"],
  ])("refuses %s whole, with a clear error, and changes nothing", async (_, body, code) => {
    const u = await trader();
    const before = await dbFingerprint();
    const r = await api("/transaction/batch", { token: u.token, body: { currency_id: BTC, legal_id: USDT, ...body } });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe(code);
    if (code === "batch_size") expect(r.body.message).toBe(`Send between 1 and ${MAX_BATCH_ORDERS} orders in one batch`);
    expect(await dbFingerprint()).toBe(before);
  });

  it("asks an unverified user to verify first (998) and a logged-out one to log in (999)", async () => {
    const r = await api("/transaction/batch", { body: { currency_id: BTC, orders: [{ side: "buy", mode: 2, price: "10", num: "1" }] } });
    expect(r.body.type).toBe("999");
  });
});

describe("cancelling a batch", () => {
  it("cancels the caller's open orders, returns their funds, and reports ids it could not cancel", async () => {
    await clearBook();
    const u = await trader();
    const other = await trader();
    const mine = (await batch(u.token, [
      { side: "buy", price: "100", num: "1" },
      { side: "sell", price: "105", num: "0.5" },
    ])).body.message.orders.map((o: { order_id: string }) => o.order_id);
    const theirs = (await buy(other.token, { price: "100", num: "1" })).body.message.order_id;
    const r = await api("/transaction_del/batch", { token: u.token, body: { ids: [...mine, theirs, "123"] } });
    expect(r.body.message).toEqual({ cancelled: mine, not_found: [theirs, "123"] });
    await drainPair(PAIR);
    expect(await balance(u.id, USDT)).toEqual([units("10000"), 0n]);
    expect(await balance(u.id, BTC)).toEqual([units("1"), 0n]);
    // The other user's order is untouched.
    expect(await balance(other.id, USDT)).toEqual([units("9900"), units("100")]);
    const again = await api("/transaction_del/batch", { token: u.token, body: { ids: mine } });
    expect(again.body.message).toEqual({ cancelled: [], not_found: mine });
    expect((await reconcileNow()).differences).toEqual([]);
  });
});
