/**
 * Conditional orders and cancel_all with balances in the account objects (ACCOUNTS=objects, issue
 * #28): a conditional order's funds are one hold `spot_cond:{id}` in its trader's object, owned by
 * the pair; its OCO leg and, once it fires, its child spend that hold; a cancel or an OCO's filled
 * leg gives the rest back once; cancel_all finds the orders placed a moment before from the
 * trader's holds; a hold whose order never reached the pair is swept once.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { accountStub } from "../../worker/lib/accounts.ts";
import type { PairDurableObject } from "../../durable/pair/object.ts";
import { api, seedCurrencies, seedSpotPair, units, type TestUser } from "../api/helpers.ts";
import { drainObject, objectBalances, objectTrader, readModel } from "./fixtures.ts";

const USDT = 3;
let nextPair = 70;

/** A fresh pair of its own (no trades, empty book), its traders opened in their objects, and its calls. */
async function freshPair() {
  const n = nextPair++;
  await seedSpotPair({ pairId: n, currencyId: n, name: `K${n}` });
  const coin = n;
  const stub = env.PAIR.get(env.PAIR.idFromName(`pair:${n}`));
  const make = (usdt = "100000", coins = "10") => objectTrader(usdt, coins, coin);
  const order = (u: TestUser, side: "buy" | "sell", price: string, num: string) =>
    api(side === "buy" ? "/transaction/walletIn" : "/transaction/walletOut", { token: u.token, body: { currency_id: coin, legal_id: USDT, mode: 2, price, num } });
  const cond = (u: TestUser, body: Record<string, unknown>) => api("/transaction/conditional", { token: u.token, body: { currency_id: coin, legal_id: USDT, ...body } });
  const list = async (u: TestUser, status: "open" | "done") => {
    // A state the pair changed by a trade reaches D1 with its drain (the D1 path's tests drain too); a placement is listed at once.
    if (status === "done") await stub.drain();
    return (await api(`/transaction/conditional?status=${status}`, { token: u.token })).body.message.lists as Record<string, unknown>[];
  };
  const delivered = () => expect.poll(() => stub.deliverLegs()).toBe(false);
  const a = await make();
  const b = await make();
  /** Two other traders print a trade at `price`. */
  const trade = async (price: string) => {
    expect((await order(a, "sell", price, "0.1")).body.message).toMatchObject({ status: "open" });
    expect((await order(b, "buy", price, "0.1")).body.message.status).toBe("filled");
    await delivered();
  };
  /** One's balances of this pair's two currencies: [currency, available, frozen]. */
  const money = async (u: TestUser) => (await objectBalances(u.id)).map(([, cur, available, frozen]) => [cur, available, frozen]);
  return { pairId: n, coin, stub, make, order, cond, list, trade, delivered, money };
}

beforeAll(async () => {
  await seedCurrencies();
});

describe("conditional orders on the account objects", () => {
  it("holds a stop's coins in the trader's object, fires at the trigger, fills with exact fees, and cancel_all gives the rest back", async () => {
    const p = await freshPair();
    await p.trade("100");
    const me = await p.make("0", "1");
    const placed = await p.cond(me, { side: "sell", type: "stop_limit", num: "0.5", stop_price: "95", price: "94" });
    expect(placed.body).toMatchObject({ type: "ok", message: { type: "stop_limit", side: "sell", status: "open", stop_price: "95.00", price: "94.00", num: "0.500000" } });
    const id = placed.body.message.id as string;
    // Frozen at once, as one hold owned by the pair; listed right away (its D1 row comes with the pair's drain).
    expect(await p.money(me)).toEqual([[p.coin, units("0.5"), units("0.5")]]);
    expect(await accountStub(env, me.id).accountHold(me.id, `spot_cond:${id}`)).toMatchObject({ amount: units("0.5"), open: true, owner: `pair:${p.pairId}` });
    expect(await p.list(me, "open")).toEqual([expect.objectContaining({ id, status: "open", stop_price: "95.00" })]);
    const holds = (await api("/wallet/holds", { token: me.token })).body.message;
    expect(JSON.stringify(holds)).toContain(`"purpose":"spot_order"`);

    // A trade at 96 does not reach it; a bid rests at 94; a trade at 95 fires it.
    await p.trade("96");
    expect(await p.list(me, "open")).toHaveLength(1);
    const bidder = await p.make("1000", "0");
    expect((await p.order(bidder, "buy", "94", "0.2")).body.message.status).toBe("open");
    await p.trade("95");
    const done = await p.list(me, "done");
    expect(done).toEqual([expect.objectContaining({ id, status: "triggered", trigger_price: "95.00" })]);
    const childId = done[0]!.order_id as string;
    // The child sold 0.2 at 94 as the taker (0.2 % of 18.80 USDT), and rests with 0.3 from the same hold.
    expect(await p.money(me)).toEqual([
      [USDT, units("18.7624"), 0n],
      [p.coin, units("0.5"), units("0.3")],
    ]);
    // The bidder got 0.2 less the maker's 0.1 %.
    expect(await p.money(bidder)).toEqual([
      [USDT, units("981.2"), 0n],
      [p.coin, units("0.1998"), 0n],
    ]);
    const open = (await api("/new/transaction/index", { token: me.token })).body.data.lists as { id: string }[];
    expect(open.map((o) => o.id)).toEqual([childId]);

    // cancel_all finds the child by the conditional order's hold and gives the 0.3 back.
    const all = await api("/transaction/cancel_all", { token: me.token, body: { currency_id: p.coin, legal_id: USDT } });
    expect(all.body.message).toEqual({ orders: 1, conditionals: 0 });
    await p.delivered();
    expect(await p.money(me)).toEqual([
      [USDT, units("18.7624"), 0n],
      [p.coin, units("0.8"), 0n],
    ]);
    expect(await accountStub(env, me.id).accountHold(me.id, `spot_cond:${id}`)).toMatchObject({ open: false, spent: units("0.2"), released: units("0.3") });
    await drainObject(accountStub(env, me.id));
    expect(await readModel(me.id)).toEqual(await objectBalances(me.id));
  });

  it("OCO: the stop fires and the limit leg goes, the buy's hold follows the larger price and pays the child's fill exactly", async () => {
    const p = await freshPair();
    await p.trade("100");
    const me = await p.make("1000", "0");
    const placed = await p.cond(me, { side: "buy", type: "oco", num: "1", price: "95", stop_price: "104", limit_price: "106" });
    expect(placed.body.message).toMatchObject({ status: "open", leg_order_id: placed.body.message.id });
    // One hold for both: the larger of 95 and 106.
    expect(await p.money(me)).toEqual([[USDT, units("894"), units("106")]]);
    await p.trade("104");
    const [done] = await p.list(me, "done");
    expect(done).toMatchObject({ status: "triggered", trigger_price: "104.00" });
    await p.delivered();
    // The leg at 95 is cancelled; the child at 106 holds the 106 without a release and a new hold in between.
    expect(await p.money(me)).toEqual([[USDT, units("894"), units("106")]]);
    const open = (await api("/new/transaction/index", { token: me.token })).body.data.lists as { id: string }[];
    expect(open.map((o) => o.id)).toEqual([done!.order_id]);
    // A seller takes the child at 106: it pays 106 and gets 1 less the maker's 0.1 %.
    const seller = await p.make("0", "1");
    expect((await p.order(seller, "sell", "106", "1")).body.message.status).toBe("filled");
    await p.delivered();
    expect(await p.money(me)).toEqual([
      [USDT, units("894"), 0n],
      [p.coin, units("0.999"), 0n],
    ]);
    expect(await p.money(seller)).toEqual([[USDT, units("105.788"), 0n]]);
  });

  it("OCO: the limit leg fills, the stop goes and its own part is released once", async () => {
    const p = await freshPair();
    await p.trade("100");
    const me = await p.make("1000", "0");
    const placed = await p.cond(me, { side: "buy", type: "oco", num: "1", price: "95", stop_price: "104", limit_price: "106" });
    const id = placed.body.message.id as string;
    const seller = await p.make("0", "1");
    expect((await p.order(seller, "sell", "95", "1")).body.message.status).toBe("filled");
    await p.delivered();
    expect(await p.list(me, "done")).toEqual([expect.objectContaining({ id, status: "cancelled", reason: "oco_filled" })]);
    // The leg paid 95 from the hold; the stop's 11 came back; nothing frozen.
    expect(await p.money(me)).toEqual([
      [USDT, units("905"), 0n],
      [p.coin, units("0.999"), 0n],
    ]);
    // A later rise through the stop fires nothing and moves nothing.
    await p.trade("104");
    await p.trade("106");
    expect(await p.money(me)).toEqual([
      [USDT, units("905"), 0n],
      [p.coin, units("0.999"), 0n],
    ]);
    expect(await accountStub(env, me.id).accountHold(me.id, `spot_cond:${id}`)).toMatchObject({ open: false, spent: units("95"), released: units("11") });
  });

  it("a trailing stop buys from its hold when the price comes back by the callback", async () => {
    const p = await freshPair();
    await p.trade("100");
    const me = await p.make("1000", "0");
    const placed = await p.cond(me, { side: "buy", type: "trailing", num: "1", price: "99", callback_bps: 200, activation_price: "97" });
    expect(placed.body.message).toMatchObject({ status: "open", callback_bps: 200, activation_price: "97.00" });
    expect(await p.money(me)).toEqual([[USDT, units("901"), units("99")]]);
    await p.trade("96"); // active, low 96
    await p.trade("95"); // low 95: fires at 95 × 1.02 = 96.90
    await p.trade("96.80");
    expect(await p.list(me, "open")).toHaveLength(1);
    await p.trade("96.90");
    const [done] = await p.list(me, "done");
    expect(done).toMatchObject({ status: "triggered", trigger_price: "96.90" });
    // The child bids 99 with the same 99 held; a seller at 98 fills it at the resting bid's 99: the coin less the maker's 0.1 %.
    expect(await p.money(me)).toEqual([[USDT, units("901"), units("99")]]);
    const seller = await p.make("0", "1");
    expect((await p.order(seller, "sell", "98", "1")).body.message.status).toBe("filled");
    await p.delivered();
    expect(await p.money(me)).toEqual([
      [USDT, units("901"), 0n],
      [p.coin, units("0.999"), 0n],
    ]);
  });

  it("one client order id sent twice at once makes one conditional order and one hold", async () => {
    const p = await freshPair();
    await p.trade("100");
    const me = await p.make("1000", "0");
    const body = { side: "buy", type: "stop_limit", num: "1", stop_price: "105", price: "106", client_oid: "cond-twice" };
    const [first, second] = await Promise.all([p.cond(me, body), p.cond(me, body)]);
    expect(first.body.type).toBe("ok");
    expect(second.body.type).toBe("ok");
    expect(second.body.message.id).toBe(first.body.message.id);
    expect(await p.money(me)).toEqual([[USDT, units("894"), units("106")]]);
    expect(await p.list(me, "open")).toEqual([expect.objectContaining({ id: first.body.message.id, status: "open" })]);
    // Other terms under the same client id are refused and hold nothing.
    expect((await p.cond(me, { ...body, price: "107" })).status).toBe(409);
    expect(await p.money(me)).toEqual([[USDT, units("894"), units("106")]]);
  });

  it("takes at most 100 open over all pairs, placed a moment ago (before D1 has their rows), and refuses the next with nothing held; a fired one no longer counts", async () => {
    const pairs = [await freshPair(), await freshPair(), await freshPair(), await freshPair(), await freshPair(), await freshPair()];
    const me = await objectTrader("1000000", "0");
    const stop = (p: (typeof pairs)[number], k: number) => p.cond(me, { side: "buy", type: "stop_limit", num: "0.1", stop_price: String(105 + k), price: String(106 + k) });
    for (const p of pairs) await p.trade("100");
    // The pairs' drains wait (their alarms do nothing): D1 has none of these orders' rows when the 101st comes.
    for (const p of pairs)
      await runInDurableObject(p.stub, (obj: PairDurableObject) => {
        (obj as unknown as { scheduler: { handle(kind: string, h: () => Promise<null>): void } }).scheduler.handle("drain", () => Promise.resolve(null));
      });
    for (const p of pairs.slice(0, 5)) {
      const r = await Promise.all(Array.from({ length: 20 }, (_, k) => stop(p, k)));
      expect(r.map((x) => x.body.type)).toEqual(Array(20).fill("ok"));
    }
    const balances = await objectBalances(me.id);
    const sixth = await stop(pairs[5]!, 0);
    expect([sixth.status, sixth.body.code]).toEqual([409, "cond_limit_total"]);
    expect(await objectBalances(me.id)).toEqual(balances);
    // One of them fires (its child rests with the same hold): 99 open, so one more is taken.
    await pairs[0]!.trade("105");
    expect((await stop(pairs[5]!, 0)).body.type).toBe("ok");
    expect((await stop(pairs[5]!, 1)).body.code).toBe("cond_limit_total");
  });

  it("a cancel gives the funds back once, and a second cancel finds nothing", async () => {
    const p = await freshPair();
    await p.trade("100");
    const me = await p.make("1000", "0");
    const placed = await p.cond(me, { side: "buy", type: "stop_limit", num: "2", stop_price: "105", price: "106" });
    const id = placed.body.message.id as string;
    expect(await p.money(me)).toEqual([[USDT, units("788"), units("212")]]);
    const cancel = () => api("/transaction/conditional/cancel", { token: me.token, body: { id } });
    expect((await cancel()).body.type).toBe("ok");
    expect(await p.money(me)).toEqual([[USDT, units("1000"), 0n]]);
    expect((await cancel()).status).toBe(404);
    await p.trade("105");
    expect(await p.money(me)).toEqual([[USDT, units("1000"), 0n]]);
    expect(await accountStub(env, me.id).accountHold(me.id, `spot_cond:${id}`)).toMatchObject({ open: false, spent: 0n, released: units("212") });
    expect(await p.list(me, "done")).toEqual([expect.objectContaining({ id, status: "cancelled", reason: "user" })]);
  });

  it("two cancels in the same millisecond on one pair give both orders' funds back", async () => {
    const p = await freshPair();
    await p.trade("100");
    const me = await p.make("1000", "0");
    const ids: string[] = [];
    for (const price of ["106", "107"]) ids.push((await p.cond(me, { side: "buy", type: "stop_limit", num: "1", stop_price: "105", price })).body.message.id as string);
    expect(await p.money(me)).toEqual([[USDT, units("1000") - units("213"), units("213")]]);
    // The pair's clock stands still between the two cancels (as two requests in one millisecond).
    vi.useFakeTimers({ now: Date.now(), toFake: ["Date"] });
    try {
      for (const id of ids) expect((await api("/transaction/conditional/cancel", { token: me.token, body: { id } })).body.type).toBe("ok");
    } finally {
      vi.useRealTimers();
    }
    await p.delivered();
    expect(await p.money(me)).toEqual([[USDT, units("1000"), 0n]]);
  });

  it("cancel_all right after placing cancels the orders placed a moment before, before D1 has their rows", async () => {
    const p = await freshPair();
    await p.trade("100");
    const me = await p.make("1000", "1");
    expect((await p.order(me, "buy", "90", "1")).body.message.status).toBe("open");
    expect((await p.cond(me, { side: "sell", type: "stop_limit", num: "0.5", stop_price: "95", price: "94" })).body.type).toBe("ok");
    expect((await p.cond(me, { side: "sell", type: "oco", num: "0.5", price: "110", stop_price: "95", limit_price: "94" })).body.type).toBe("ok");
    expect(await p.money(me)).toEqual([
      [USDT, units("910"), units("90")],
      [p.coin, 0n, units("1")],
    ]);
    const all = await api("/transaction/cancel_all", { token: me.token, body: { currency_id: p.coin, legal_id: USDT } });
    // The limit order and the OCO's leg, then both conditional orders.
    expect(all.body.message).toEqual({ orders: 2, conditionals: 2 });
    await p.delivered();
    expect(await p.money(me)).toEqual([
      [USDT, units("1000"), 0n],
      [p.coin, units("1"), 0n],
    ]);
    expect(await accountStub(env, me.id).accountOpenHolds(me.id)).toEqual([]);
    expect(await p.list(me, "open")).toEqual([]);
  });

  it("releases a conditional hold whose order never reached the pair once, and the order can never be watched after", async () => {
    const p = await freshPair();
    await p.trade("100");
    const me = await p.make("1000", "0");
    const account = accountStub(env, me.id);
    // The Worker held and died before the pair heard of the order.
    const lost = Date.now() * 4096;
    await account.accountReserve(me.id, { forKind: "spot_cond", forId: String(lost), account: "change", currencyId: USDT, amount: units("106"), owner: `pair:${p.pairId}` });
    const watched = await p.cond(me, { side: "buy", type: "stop_limit", num: "1", stop_price: "105", price: "106" });
    expect(await p.money(me)).toEqual([[USDT, units("788"), units("212")]]);
    expect(await account.accountSweep(0)).toMatchObject({ known: 1, released: 1 });
    expect(await p.money(me)).toEqual([[USDT, units("894"), units("106")]]);
    expect(await account.accountSweep(0)).toMatchObject({ known: 0, released: 0 });
    // The late placement is refused and moves nothing.
    const late = await p.stub.placeConditional({ pairId: p.pairId, id: lost, userId: me.id, side: "buy", type: "stop_limit", qty: 1_000_000, price: 10_600, stop: 10_500, limitPrice: null, callbackBps: null, activation: null });
    expect(late).toMatchObject({ ok: false, status: "rejected" });
    await p.delivered();
    expect(await p.money(me)).toEqual([[USDT, units("894"), units("106")]]);
    // The watched one still fires from its own hold.
    await p.trade("105");
    expect(await p.list(me, "done")).toEqual([expect.objectContaining({ id: watched.body.message.id, status: "triggered" })]);
  });
});
