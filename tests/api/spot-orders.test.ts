// GET /api/new/transaction/orders: every order of the caller with its final state, so cancelled
// and partly filled orders do not vanish from the history (issue #8 §6.3).
import { beforeAll, describe, expect, it } from "vitest";
import { api, drainPair, seedSpotPair } from "./helpers.ts";
import { PAIR, buy, clearBook, sell, trader } from "./spot-fixtures.ts";

beforeAll(async () => {
  await seedSpotPair();
});

const orders = (token: string, query = "") => api(`/new/transaction/orders${query}`, { token });

describe("order history", () => {
  it("lists filled, partly filled then cancelled, cancelled and open orders, each with its state, only to their owner", async () => {
    await clearBook();
    const seller = await trader("0", "1");
    const buyer = await trader("10000", "0");
    const partial = await sell(seller.token, { price: "50000", num: "0.1" });
    const taken = await buy(buyer.token, { price: "50000", num: "0.04" });
    expect(taken.body.message.status).toBe("filled");
    await drainPair(PAIR);
    expect((await api("/transaction_del", { token: seller.token, body: { id: partial.body.message.order_id } })).body.type).toBe("ok");
    const untouched = await sell(seller.token, { price: "70000", num: "0.1" });
    expect((await api("/transaction_del", { token: seller.token, body: { id: untouched.body.message.order_id } })).body.type).toBe("ok");
    const open = await sell(seller.token, { price: "71000", num: "0.2" });
    await drainPair(PAIR);

    const all = await orders(seller.token);
    expect(all.body.status).toBe(1);
    expect(all.body.data.total).toBe(3);
    expect(all.body.data.lists).toEqual([
      expect.objectContaining({ id: open.body.message.order_id, state: "open", direction: "sell", mode: 2, price: "71000.00", number: "0.200000", filled: "0.000000", avg_price: null }),
      expect.objectContaining({ id: untouched.body.message.order_id, state: "cancelled", filled: "0.000000" }),
      expect.objectContaining({ id: partial.body.message.order_id, state: "partial", number: "0.100000", filled: "0.040000", avg_price: "50000.00", currency_name: "BTC", legal_name: "USDT" }),
    ]);
    const mineOnly = await orders(buyer.token);
    expect(mineOnly.body.data.lists).toEqual([expect.objectContaining({ id: taken.body.message.order_id, state: "filled", direction: "buy", filled: "0.040000" })]);

    const partOnly = await orders(seller.token, "?status=partial");
    expect(partOnly.body.data).toMatchObject({ total: 1, lists: [{ id: partial.body.message.order_id }] });
    const otherPair = await orders(seller.token, "?currency_id=2");
    expect(otherPair.body.data).toEqual({ total: 0, lists: [] });
    const page2 = await orders(seller.token, "?page=2&limit=2");
    expect(page2.body.data.lists.map((o: { id: string }) => o.id)).toEqual([partial.body.message.order_id]);
  });

  it("refuses an unknown state with a translated message, and anonymous callers", async () => {
    const u = await trader();
    const bad = await api("/new/transaction/orders?status=lost", { token: u.token, lang: "zh" });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ status: 0, message: "参数无效：status" });
    const anon = await api("/new/transaction/orders");
    expect(anon.body.type).toBe("999");
  });
});
