/**
 * Spot fills are notified (issue #26): an order that fills while its owner is elsewhere leaves one
 * item in the owner's inbox per drain batch (the batch's fills of the order summed: a market
 * maker's order taken by many takers at once is one item), written in the drain's own D1 batch with
 * the money and keyed by the order and its last trade, pushed to the owner's channel after it.
 */
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { api, drainPair, seedSpotPair, type TestUser } from "./helpers.ts";
import { BTC, buy, clearBook, PAIR, sell, trader, USDT } from "./spot-fixtures.ts";
import { userSocket } from "./seconds-fixtures.ts";

type Item = { id: number; kind: string; title: string; body: string; link: string };

async function inbox(user: TestUser, lang = "en"): Promise<Item[]> {
  return ((await api("/notifications?limit=50", { token: user.token, lang })).body.message as { data: Item[] }).data;
}

const fillItems = async (user: TestUser, lang = "en") => (await inbox(user, lang)).filter((i) => i.kind === "spot_filled" || i.kind === "spot_partial");

beforeAll(async () => {
  await seedSpotPair();
});

describe("a spot order that fills", () => {
  it("tells its owner of a partial fill and then of the rest, with the quantity and the price, and nobody else", async () => {
    await clearBook();
    const maker = await trader("0.01", "2");
    const bystander = await trader();
    const resting = await sell(maker.token, { price: "101", num: "1" });
    const orderId = Number(resting.body.message.order_id);
    await drainPair(PAIR);
    const socket = await userSocket(maker);
    const theirs = await userSocket(bystander);

    const taker = await trader();
    expect((await buy(taker.token, { price: "101", num: "0.3" })).body.type).toBe("ok");
    await drainPair(PAIR);
    await expect.poll(() => socket.messages.some((m) => m.type === "notification")).toBe(true);
    let items = await fillItems(maker);
    expect(items).toEqual([
      expect.objectContaining({ kind: "spot_partial", title: "Order partly filled", body: `BTC/USDT sell order #${orderId}: 0.300000 filled at an average of 101.00.`, link: "/exchange/lists" }),
    ]);
    // The taker's order filled whole at once.
    expect((await fillItems(taker)).map((i) => [i.kind, i.title])).toEqual([["spot_filled", "Order filled"]]);

    const second = await trader();
    expect((await buy(second.token, { price: "101", num: "0.7" })).body.type).toBe("ok");
    await drainPair(PAIR);
    items = await fillItems(maker);
    expect(items.map((i) => i.body)).toEqual([
      `BTC/USDT sell order #${orderId}: 0.700000 filled at an average of 101.00. Nothing is left to fill.`,
      `BTC/USDT sell order #${orderId}: 0.300000 filled at an average of 101.00.`,
    ]);
    expect((await fillItems(maker, "zh"))[0]!.title).toBe("订单已成交");
    expect(theirs.messages.filter((m) => m.type === "notification")).toEqual([]);
    expect(await fillItems(bystander)).toEqual([]);
    socket.ws.close();
    theirs.ws.close();
  });

  it("makes one item of many fills of one order in one drain batch, and none more when the batch is applied again", async () => {
    await clearBook();
    const maker = await trader("0.01", "2");
    const resting = await sell(maker.token, { price: "102", num: "1" });
    const orderId = Number(resting.body.message.order_id);
    await drainPair(PAIR);
    const taker = await trader();
    // One request, three orders: one command, so their fills reach D1 in one drain batch.
    const r = await api("/transaction/batch", {
      token: taker.token,
      body: { currency_id: BTC, legal_id: USDT, orders: [0.2, 0.3, 0.5].map((n) => ({ mode: 2, side: "buy", price: "102", num: String(n) })) },
    });
    expect(r.body.type, JSON.stringify(r.body)).toBe("ok");
    await drainPair(PAIR);
    const items = await fillItems(maker);
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ kind: "spot_filled", body: `BTC/USDT sell order #${orderId}: 1.000000 filled at an average of 102.00. Nothing is left to fill.` });
    // Each of the taker's three orders filled whole: one item each.
    expect((await fillItems(taker)).map((i) => i.kind)).toEqual(["spot_filled", "spot_filled", "spot_filled"]);
    const keys = await env.DB.prepare("SELECT event_key FROM notifications WHERE user_id = ? AND kind LIKE 'spot_%'").bind(maker.id).all<{ event_key: string }>();
    expect(keys.results.map((k) => k.event_key)).toEqual([expect.stringMatching(new RegExp(`^spot:${PAIR}:fill:${orderId}:\\d+$`))]);
    await drainPair(PAIR);
    expect(await fillItems(maker)).toHaveLength(1);
  });
});
