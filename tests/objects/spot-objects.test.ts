/**
 * Spot with balances in the account objects (ACCOUNTS=objects, issue #28): an order's funds are a
 * hold in its trader's object, the pair commits each trade's legs with the trade and delivers them
 * to both traders and a fee shard exactly once, cancels and refusals release the hold, and D1 gets
 * the orders, trades and movements afterwards as the read model (no balance row on the way).
 */
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { accountStub, SYSTEM_SHARDS, SYSTEM_USERS, systemStub } from "../../worker/lib/accounts.ts";
import type { PairLegs } from "../../durable/pair/legs.ts";
import { api, seedSpotPair, units } from "../api/helpers.ts";
import { BTC, PAIR, USDT, d1LedgerRows, drainObject, feeTotals, inPair, legsDelivered, objectBalances, objectTrader, pairStub, readModel } from "./fixtures.ts";

const spot = (token: string, side: "buy" | "sell", body: Record<string, unknown>) =>
  api(side === "buy" ? "/transaction/walletIn" : "/transaction/walletOut", { token, body: { currency_id: BTC, legal_id: USDT, mode: 2, ...body } });
const cancel = (token: string, id: string) => api("/transaction_del", { token, body: { id } });
const history = (token: string) => api("/new/transaction/orders", { token });

beforeAll(async () => {
  await seedSpotPair();
});

describe("spot on the account objects", () => {
  it("holds a resting order's funds in the trader's object, writes no D1 balance, and a cancel gives them back", async () => {
    const a = await objectTrader("10000", "0");
    const placed = await spot(a.token, "buy", { price: "40000", num: "0.01" });
    expect(placed.body.message).toMatchObject({ status: "open", filled: "0.000000" });
    const id = placed.body.message.order_id as string;
    expect(await objectBalances(a.id)).toEqual([["change", USDT, units("9600"), units("400")]]);
    expect(await accountStub(env, a.id).accountHold(a.id, `spot_order:${id}`)).toMatchObject({ amount: units("400"), open: true, owner: `pair:${PAIR}` });
    expect(await d1LedgerRows(a.id)).toBe(0);

    expect((await cancel(a.token, id)).body.type).toBe("ok");
    await expect.poll(() => objectBalances(a.id)).toEqual([["change", USDT, units("10000"), 0n]]);
    // Another cancel of the same order: not open any more.
    expect((await cancel(a.token, id)).status).toBe(404);

    // The order reaches D1's history through the pair's drain; the movements through the object's.
    await pairStub().drain();
    expect((await history(a.token)).body.data.lists).toEqual([expect.objectContaining({ id, state: "cancelled", direction: "buy", price: "40000.00", number: "0.010000" })]);
    await drainObject(accountStub(env, a.id));
    expect(await readModel(a.id)).toEqual(await objectBalances(a.id));
    expect(await d1LedgerRows(a.id)).toBe(0);
  });

  it("fills two users from their holds and pays the fee to a fee shard, exactly, in the objects and then in D1", async () => {
    const feesBefore = await feeTotals();
    const seller = await objectTrader("10000", "1");
    const buyer = await objectTrader("10000", "1");
    const maker = await spot(seller.token, "sell", { price: "50000", num: "0.01" });
    const taker = await spot(buyer.token, "buy", { price: "50100", num: "0.01" });
    expect(taker.body.message).toMatchObject({ status: "filled", filled: "0.010000" });
    await legsDelivered();
    // Buyer: froze 501 at their limit, paid 500 (1 back at the fill), got 0.01 BTC less the taker's 0.2 % in BTC.
    expect(await objectBalances(buyer.id)).toEqual([
      ["change", BTC, units("1.00998"), 0n],
      ["change", USDT, units("9500"), 0n],
    ]);
    // Seller: 0.01 BTC spent from the hold, 500 USDT less the maker's 0.1 %.
    expect(await objectBalances(seller.id)).toEqual([
      ["change", BTC, units("0.99"), 0n],
      ["change", USDT, units("10499.5"), 0n],
    ]);
    const fees = await feeTotals();
    expect((fees.get(BTC) ?? 0n) - (feesBefore.get(BTC) ?? 0n)).toBe(units("0.00002"));
    expect((fees.get(USDT) ?? 0n) - (feesBefore.get(USDT) ?? 0n)).toBe(units("0.5"));

    // The read model: both users, the fee shards (summed), the trade and both orders.
    for (const u of [buyer, seller]) {
      await drainObject(accountStub(env, u.id));
      expect(await readModel(u.id)).toEqual(await objectBalances(u.id));
    }
    for (let k = 0; k < SYSTEM_SHARDS; k++) await drainObject(systemStub(env, SYSTEM_USERS.fees, k));
    const shards = await env.DB.prepare("SELECT currency_id, sum(available) AS a FROM system_balances WHERE user_id = 0 GROUP BY currency_id ORDER BY currency_id").all<{ currency_id: number; a: number }>();
    expect(shards.results.map((r) => [r.currency_id, BigInt(r.a)])).toEqual([...fees].sort((x, y) => x[0] - y[0]));
    await pairStub().drain();
    const trade = await env.DB.prepare("SELECT buyer_id, seller_id, buyer_fee, seller_fee FROM spot_trades WHERE buy_order_id = ?").bind(taker.body.message.order_id).first();
    expect(trade).toEqual({ buyer_id: buyer.id, seller_id: seller.id, buyer_fee: 2000, seller_fee: 50_000_000 });
    expect((await history(seller.token)).body.data.lists).toEqual([expect.objectContaining({ id: maker.body.message.order_id, state: "filled", filled: "0.010000", avg_price: "50000.00" })]);
    expect(await d1LedgerRows(buyer.id)).toBe(0);
  });

  it("holds a batch of 20 in one call, refuses what the balance no longer covers, and cancels them in one request", async () => {
    const c = await objectTrader("100", "0");
    const orders = Array.from({ length: 3 }, (_, k) => ({ side: "buy", mode: 2, price: String(40000 - k), num: "0.001" }));
    const placed = await api("/transaction/batch", { token: c.token, body: { currency_id: BTC, legal_id: USDT, orders } });
    const out = placed.body.message.orders as { order_id?: string; code?: string }[];
    expect(out.map((o) => o.code ?? "placed")).toEqual(["placed", "placed", "insufficient_balance"]);
    expect(await objectBalances(c.id)).toEqual([["change", USDT, units("100") - units("40") - units("39.999"), units("79.999")]]);

    const rich = await objectTrader("10000", "0");
    const twenty = Array.from({ length: 20 }, (_, k) => ({ side: "buy", mode: 2, price: String(39000 - k), num: "0.001" }));
    const batch = await api("/transaction/batch", { token: rich.token, body: { currency_id: BTC, legal_id: USDT, orders: twenty } });
    const ids = (batch.body.message.orders as { order_id: string }[]).map((o) => o.order_id);
    expect(ids).toHaveLength(20);
    expect(await accountStub(env, rich.id).accountOpenHolds(rich.id)).toHaveLength(20);
    const done = await api("/transaction_del/batch", { token: rich.token, body: { ids: [...ids.slice(0, 19), "123"] } });
    expect(done.body.message).toEqual({ cancelled: ids.slice(0, 19), not_found: ["123"] });
    expect((await cancel(rich.token, ids[19]!)).body.type).toBe("ok");
    const own = await api("/transaction_del/batch", { token: c.token, body: { ids: out.slice(0, 2).map((o) => o.order_id) } });
    expect(own.body.message.cancelled).toHaveLength(2);
    await expect.poll(() => objectBalances(rich.id)).toEqual([["change", USDT, units("10000"), 0n]]);
    await expect.poll(() => objectBalances(c.id)).toEqual([["change", USDT, units("100"), 0n]]);
  });

  it("settles a batch filled against five resting orders exactly, one leg per account, one statement line per currency for the batch", async () => {
    const feesBefore = await feeTotals();
    const seller = await objectTrader("0", "1");
    const buyer = await objectTrader("10000", "0");
    for (let k = 0; k < 5; k++) expect((await spot(seller.token, "sell", { price: String(50000 + k), num: "0.01" })).body.message).toMatchObject({ status: "open" });
    const orders = Array.from({ length: 5 }, () => ({ side: "buy", mode: 2, price: "50010", num: "0.01" }));
    const batch = await api("/transaction/batch", { token: buyer.token, body: { currency_id: BTC, legal_id: USDT, orders } });
    expect((batch.body.message.orders as { status?: string }[]).map((o) => o.status)).toEqual(["filled", "filled", "filled", "filled", "filled"]);
    await legsDelivered();
    // The buyer paid 50000 + 50001 + ... + 50004 per 0.01 (2500.10), got 0.05 BTC less the taker's 0.2 %; the rest of each hold came back.
    expect(await objectBalances(buyer.id)).toEqual([
      ["change", BTC, units("0.0499"), 0n],
      ["change", USDT, units("10000") - units("2500.1"), 0n],
    ]);
    // The seller: 0.05 BTC spent, 2500.10 less the maker's 0.1 %.
    expect(await objectBalances(seller.id)).toEqual([
      ["change", BTC, units("0.95"), 0n],
      ["change", USDT, units("2500.1") - units("2.5001"), 0n],
    ]);
    const fees = await feeTotals();
    expect((fees.get(BTC) ?? 0n) - (feesBefore.get(BTC) ?? 0n)).toBe(units("0.0001"));
    expect((fees.get(USDT) ?? 0n) - (feesBefore.get(USDT) ?? 0n)).toBe(units("2.5001"));
    // The batch's five fills are one movement for the buyer: one spot line per currency (D1's ledger
    // shows a drain batch's fills the same way); the trade history keeps each fill.
    await drainObject(accountStub(env, buyer.id));
    const lines = async (currency: number) =>
      ((await api(`/wallet/statement?currency_id=${currency}`, { token: buyer.token })).body.message.lines as { kind: string; amount: string }[]).filter((l) => l.kind === "spot" || l.kind === "spot_freeze");
    expect((await lines(BTC)).map((l) => [l.kind, l.amount])).toEqual([["spot", "0.04990000"]]);
    // The batch's freeze is one line too, and its fills' cost with the price improvement given back another.
    expect((await lines(USDT)).map((l) => [l.kind, l.amount])).toEqual([
      ["spot", "-2500.10000000"],
      ["spot_freeze", "0.00000000"],
    ]);
    expect(await readModel(buyer.id)).toEqual(await objectBalances(buyer.id));
  });

  it("gives the whole hold back before answering an order the pair refuses (outside the price band)", async () => {
    const e = await objectTrader("10000", "1");
    const bid = await spot(e.token, "buy", { price: "49000", num: "0.001" });
    const ask = await spot(e.token, "sell", { price: "51000", num: "0.001" });
    const f = await objectTrader("10000", "0");
    const refused = await spot(f.token, "buy", { price: "90000", num: "0.01" });
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe("price_out_of_band");
    expect(await objectBalances(f.id)).toEqual([["change", USDT, units("10000"), 0n]]);
    expect(await accountStub(env, f.id).accountOpenHolds(f.id)).toEqual([]);
    await pairStub().drain();
    expect((await history(f.token)).body.data.lists).toEqual([expect.objectContaining({ state: "rejected" })]);
    for (const o of [bid, ask]) expect((await cancel(e.token, o.body.message.order_id)).body.type).toBe("ok");
  });

  it("releases a hold whose order never reached the pair (the orphan sweep), once, and never books that order after", async () => {
    const u = await objectTrader("1000", "0");
    const account = accountStub(env, u.id);
    // The Worker reserved and died before the pair heard of the order.
    const lost = Date.now() * 4096;
    await account.accountReserve(u.id, { forKind: "spot_order", forId: String(lost), account: "change", currencyId: USDT, amount: units("100"), owner: `pair:${PAIR}` });
    const resting = await spot(u.token, "buy", { price: "30000", num: "0.01" });
    expect(await objectBalances(u.id)).toEqual([["change", USDT, units("600"), units("400")]]);
    expect(await account.accountSweep(0)).toMatchObject({ known: 1, released: 1 });
    expect(await objectBalances(u.id)).toEqual([["change", USDT, units("700"), units("300")]]);
    // Asked once each: a second sweep asks nobody and releases nothing.
    expect(await account.accountSweep(0)).toMatchObject({ known: 0, released: 0 });
    const late = await pairStub().place({ pairId: PAIR, orderId: lost, userId: u.id, side: "buy", price: 3_000_000, qty: 10_000, tif: "GTC", reservedUnits: String(units("100")) });
    expect(late).toMatchObject({ ok: false, code: "TOMBSTONED" });
    await legsDelivered();
    expect(await objectBalances(u.id)).toEqual([["change", USDT, units("700"), units("300")]]);
    expect((await cancel(u.token, resting.body.message.order_id)).body.type).toBe("ok");
    await expect.poll(() => objectBalances(u.id)).toEqual([["change", USDT, units("1000"), 0n]]);
  });

  it("spends a market buy's budget only for what it bought and gives the rest of the hold back", async () => {
    const seller = await objectTrader("0", "1");
    const buyer = await objectTrader("1000", "0");
    await spot(seller.token, "sell", { price: "50000", num: "0.01" });
    // 600 USDT to spend, but only 0.01 BTC (500 USDT) is offered within the band.
    const bought = await spot(buyer.token, "buy", { mode: 1, total: "600" });
    expect(bought.body.message).toMatchObject({ filled: "0.010000" });
    await legsDelivered();
    expect(await objectBalances(buyer.id)).toEqual([
      ["change", BTC, units("0.01") - units("0.00002"), 0n],
      ["change", USDT, units("500"), 0n],
    ]);
    expect(await accountStub(env, buyer.id).accountOpenHolds(buyer.id)).toEqual([]);
  });

  it("applies each leg once when the pair delivers it again and again (acknowledgements lost)", async () => {
    const seller = await objectTrader("0", "1");
    const buyer = await objectTrader("10000", "0");
    // Every answer is lost on its way back: the pair's outbox keeps the legs and sends them again with backoff.
    await inPair((instance) => {
      const core = (instance as unknown as { legs: PairLegs }).legs.core as unknown as Record<string, unknown>;
      core.acknowledge = () => {};
    });
    await spot(seller.token, "sell", { price: "50000", num: "0.02" });
    expect((await spot(buyer.token, "buy", { price: "50000", num: "0.02" })).body.message.status).toBe("filled");
    const attempts = () => inPair((_i, state) => Number(state.storage.sql.exec("SELECT coalesce(min(attempts), 0) AS n FROM money_outbox").one().n));
    await expect.poll(attempts).toBeGreaterThanOrEqual(3);
    const once = [
      ["change", BTC, units("0.02") - units("0.00004"), 0n],
      ["change", USDT, units("9000"), 0n],
    ];
    expect(await objectBalances(buyer.id)).toEqual(once);
    expect(await objectBalances(seller.id)).toEqual([
      ["change", BTC, units("0.98"), 0n],
      ["change", USDT, units("999"), 0n],
    ]);
    await inPair((instance) => {
      delete ((instance as unknown as { legs: PairLegs }).legs.core as unknown as Record<string, unknown>).acknowledge;
    });
    await legsDelivered();
    expect(await objectBalances(buyer.id)).toEqual(once);
  });
});
