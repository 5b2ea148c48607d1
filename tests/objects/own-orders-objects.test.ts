/**
 * Read-your-own-writes of one's spot orders in objects mode (issue #28, found by the browser suite
 * run with E2E_ACCOUNTS=objects): an order's D1 row arrives by its pair's drain, so the lists of
 * one's orders drain the pairs of one's open and recent orders before they read.
 */
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { api, seedSpotPair } from "../api/helpers.ts";
import { accountStub } from "../../worker/lib/accounts.ts";
import { BTC, USDT, inPair, legsDelivered, objectTrader } from "./fixtures.ts";

const place = (token: string, price: string) => api("/transaction/walletIn", { token, body: { currency_id: BTC, legal_id: USDT, mode: 2, price, num: "0.01" } });

/** Places a resting buy and keeps the pair from draining it on its own (its alarm removed): the row is not in D1 yet. */
async function placedUndrained(token: string, price: string): Promise<string> {
  const placed = await place(token, price);
  expect(placed.body.message).toMatchObject({ status: "open" });
  const id = placed.body.message.order_id as string;
  await inPair((_instance, state) => state.storage.deleteAlarm());
  const row = await env.DB.prepare("SELECT count(*) AS n FROM spot_orders WHERE id = ?").bind(id).first<{ n: number }>();
  expect(row?.n).toBe(0);
  return id;
}

beforeAll(async () => {
  await seedSpotPair();
});

describe("one's own spot orders right after placing them, in objects mode", () => {
  it("lists a just-placed order among one's recent orders for a support ticket", async () => {
    const a = await objectTrader("10000", "0");
    const id = await placedUndrained(a.token, "30000");
    const listed = await api("/support/orders?kind=spot", { token: a.token, method: "GET" });
    expect(listed.body.message).toEqual([expect.objectContaining({ id: Number(id), side: "buy" })]);
  });

  it("shows a just-placed order in one's open orders and order history", async () => {
    const a = await objectTrader("10000", "0");
    const id = await placedUndrained(a.token, "30001");
    const open = await api(`/new/transaction/index?currency_id=${BTC}`, { token: a.token, method: "GET" });
    expect(open.body.data.lists).toEqual([expect.objectContaining({ id })]);
    const history = await api("/new/transaction/orders", { token: a.token, method: "GET" });
    expect(history.body.data.lists).toEqual([expect.objectContaining({ id, state: "open" })]);
  });

  it("names a just-placed order's pair in one's held funds before its row reaches D1", async () => {
    const a = await objectTrader("10000", "0");
    const id = await placedUndrained(a.token, "29990");
    const groups = (await api("/wallet/holds", { token: a.token, method: "GET" })).body.message.groups as { currency_id: number; holds: unknown[] }[];
    expect(groups.find((g) => g.currency_id === USDT)?.holds).toEqual([expect.objectContaining({ purpose: "spot_order", ref: { type: "spot_order", id: Number(id) }, label: "BTC/USDT" })]);
  });

  it("shows a just-filled order (its hold already resolved) in one's order history", async () => {
    const maker = await objectTrader("0", "1");
    const taker = await objectTrader("10000", "0");
    const sold = await api("/transaction/walletOut", { token: maker.token, body: { currency_id: BTC, legal_id: USDT, mode: 2, price: "30002", num: "0.01" } });
    expect(sold.body.message).toMatchObject({ status: "open" });
    // Let the maker's row in first, so only the taker's fill waits.
    await inPair((instance) => (instance as { drain(): Promise<number> }).drain());
    const bought = await place(taker.token, "30002");
    expect(bought.body.message).toMatchObject({ status: "filled" });
    const id = bought.body.message.order_id as string;
    await inPair((_instance, state) => state.storage.deleteAlarm());
    await legsDelivered();
    expect(await accountStub(env, taker.id).accountHold(taker.id, `spot_order:${id}`)).toMatchObject({ open: false });
    expect((await env.DB.prepare("SELECT count(*) AS n FROM spot_orders WHERE id = ?").bind(id).first<{ n: number }>())?.n).toBe(0);
    const history = await api("/new/transaction/orders", { token: taker.token, method: "GET" });
    expect(history.body.data.lists).toEqual([expect.objectContaining({ id, state: "filled" })]);
  });
});
