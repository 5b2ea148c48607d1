/**
 * Conditional spot orders through the API (issue #30): a stop-limit, an OCO and a trailing stop
 * each hold their funds like a limit order, fire on a trade and place an ordinary limit order that
 * trades; cancelling one (or all of a pair's orders in one call) gives the funds back; bad input is
 * refused with a translated message and changes nothing. After every scenario the reconciler finds
 * the frozen funds equal to what the open orders and conditional orders hold.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { api, balance, d1Only, dbFingerprint, drainPair, makeUser, onObjects, reconcileNow, seedCurrencies, seedSpotPair, type TestUser, units } from "./helpers.ts";
import { placeConditional } from "../../worker/domain/spot/conditional.ts";
import { reconcileConditionalOrders, reconcileSpotOrders } from "../../worker/domain/spot/orphans.ts";
import { movementStatements } from "../../worker/lib/ledger.ts";

const USDT = 3;
let nextPair = 40;

/** A fresh pair of its own (no trades, empty book) and a maker of trades on it. */
async function freshPair() {
  const n = nextPair++;
  await seedSpotPair({ pairId: n, currencyId: n, name: `C${n}` });
  const coin = n;
  const make = (usdt = "100000", coins = "10") => makeUser({ verified: 2, balances: [{ currencyId: USDT, units: units(usdt) }, { currencyId: coin, units: units(coins) }] });
  const order = (u: TestUser, side: "buy" | "sell", price: string, num: string) =>
    api(side === "buy" ? "/transaction/walletIn" : "/transaction/walletOut", { token: u.token, body: { currency_id: coin, legal_id: USDT, mode: 2, price, num } });
  const cond = (u: TestUser, body: Record<string, unknown>, lang = "en") => api("/transaction/conditional", { token: u.token, lang, body: { currency_id: coin, legal_id: USDT, ...body } });
  const list = async (u: TestUser, status: "open" | "done") => (await api(`/transaction/conditional?status=${status}`, { token: u.token })).body.message.lists as Record<string, unknown>[];
  const a = await make();
  const b = await make();
  /** Two other traders print a trade at `price`. */
  const trade = async (price: string) => {
    expect((await order(a, "sell", price, "0.1")).body.message).toMatchObject({ status: "open" });
    expect((await order(b, "buy", price, "0.1")).body.message.status).toBe("filled");
    await drainPair(n);
  };
  return { pairId: n, coin, make, order, cond, list, trade };
}

const noDifferences = async () => expect((await reconcileNow()).differences).toEqual([]);

beforeAll(async () => {
  await seedCurrencies();
});

describe("a stop-limit order", () => {
  it("holds its coins, fires when a trade reaches the stop, and places a limit sell that trades like any other", async () => {
    const p = await freshPair();
    await p.trade("100");
    const me = await p.make("0", "1");
    const placed = await p.cond(me, { side: "sell", type: "stop_limit", num: "0.5", stop_price: "95", price: "94" });
    expect(placed.body).toMatchObject({ type: "ok", message: { type: "stop_limit", side: "sell", status: "open", stop_price: "95.00", price: "94.00", num: "0.500000" } });
    await drainPair(p.pairId);
    expect(await balance(me.id, p.coin)).toEqual([units("0.5"), units("0.5")]);
    expect(await p.list(me, "open")).toEqual([expect.objectContaining({ id: placed.body.message.id, status: "open" })]);
    await noDifferences();

    // A trade at 96 does not reach it; one at 95 does.
    await p.trade("96");
    expect((await p.list(me, "open")).length).toBe(1);
    const buyer = await p.make();
    expect((await p.order(buyer, "buy", "94", "0.2")).body.message.status).toBe("open");
    await p.trade("95");
    const done = await p.list(me, "done");
    expect(done).toEqual([expect.objectContaining({ id: placed.body.message.id, status: "triggered", trigger_price: "95.00" })]);
    const childId = done[0]!.order_id as string;
    // The child is an ordinary order: it took the resting bid at 94 and rests with the rest.
    const open = (await api("/new/transaction/index", { token: me.token })).body.data.lists as { id: string }[];
    expect(open.map((o) => o.id)).toEqual([childId]);
    expect(await balance(me.id, p.coin)).toEqual([units("0.5"), units("0.3")]);
    expect((await balance(me.id, USDT))[0]).toBeGreaterThan(0n);
    // Its owner was told, once.
    const items = (await api("/notifications?limit=50", { token: me.token })).body.message.data as { kind: string; body: string }[];
    expect(items.filter((i) => i.kind === "spot_triggered")).toEqual([expect.objectContaining({ body: expect.stringContaining("reached 95.00") })]);
    await noDifferences();
  });

  it("refuses a stop the last price has already passed, with a translated message, and holds nothing", async () => {
    const p = await freshPair();
    await p.trade("100");
    const me = await p.make("1000", "1");
    const before = await dbFingerprint();
    const r = await p.cond(me, { side: "sell", type: "stop_limit", num: "0.5", stop_price: "101", price: "100" }, "zh");
    expect(r.status).toBe(409);
    expect(r.body).toMatchObject({ type: "error", message: "触发价已到达（最新价 100.00），订单会立即触发。未下单" });
    expect(await dbFingerprint()).toBe(before);
  });
});

describe("an OCO order", () => {
  it("cancels its stop when the limit leg fills, and never leaves both alive", async () => {
    const p = await freshPair();
    await p.trade("100");
    const me = await p.make("0", "1");
    const placed = await p.cond(me, { side: "sell", type: "oco", num: "0.4", price: "105", stop_price: "95", limit_price: "94" });
    expect(placed.body.message).toMatchObject({ status: "open", leg_order_id: placed.body.message.id });
    await drainPair(p.pairId);
    // One hold for both legs: 0.4 coins.
    expect(await balance(me.id, p.coin)).toEqual([units("0.6"), units("0.4")]);
    await noDifferences();
    const taker = await p.make();
    expect((await p.order(taker, "buy", "105", "0.1")).body.message.status).toBe("filled");
    await drainPair(p.pairId);
    expect(await p.list(me, "done")).toEqual([expect.objectContaining({ status: "cancelled", reason: "oco_filled" })]);
    // A later fall through the stop fires nothing; the leg keeps trading as an ordinary order.
    await p.trade("95");
    expect(await p.list(me, "done")).toEqual([expect.objectContaining({ status: "cancelled", order_id: null })]);
    expect(await balance(me.id, p.coin)).toEqual([units("0.6"), units("0.3")]);
    await noDifferences();
  });

  it("cancels the limit leg when the stop fires, and the buy's hold follows the larger price", async () => {
    const p = await freshPair();
    await p.trade("100");
    const me = await p.make("1000", "0");
    const placed = await p.cond(me, { side: "buy", type: "oco", num: "1", price: "95", stop_price: "104", limit_price: "106" });
    expect(placed.body.type).toBe("ok");
    await drainPair(p.pairId);
    expect(await balance(me.id, USDT)).toEqual([units("894"), units("106")]);
    await noDifferences();
    await p.trade("104");
    const [done] = await p.list(me, "done");
    expect(done).toMatchObject({ status: "triggered", trigger_price: "104.00" });
    const open = (await api("/new/transaction/index", { token: me.token })).body.data.lists as { id: string; price: string }[];
    expect(open).toEqual([expect.objectContaining({ id: done!.order_id })]);
    expect(await balance(me.id, USDT)).toEqual([units("894"), units("106")]);
    await noDifferences();
  });
});

describe("a trailing stop", () => {
  it("tracks the low after its activation price and buys when the price comes back by the callback", async () => {
    const p = await freshPair();
    await p.trade("100");
    const me = await p.make("1000", "0");
    const placed = await p.cond(me, { side: "buy", type: "trailing", num: "1", price: "99", callback_bps: 200, activation_price: "97" });
    expect(placed.body.message).toMatchObject({ status: "open", callback_bps: 200, activation_price: "97.00" });
    await p.trade("98"); // not active yet
    await p.trade("96"); // active, low 96
    await p.trade("95"); // low 95: fires at 95 × 1.02 = 96.90
    await p.trade("96.80");
    expect((await p.list(me, "open")).length).toBe(1);
    await p.trade("96.90");
    expect(await p.list(me, "done")).toEqual([expect.objectContaining({ status: "triggered", trigger_price: "96.90" })]);
    await noDifferences();
  });

  it("needs a price to start from on a pair without trades", async () => {
    const p = await freshPair();
    const me = await p.make();
    const r = await p.cond(me, { side: "sell", type: "trailing", num: "1", price: "90", callback_bps: 100 });
    expect(r.body).toMatchObject({ type: "error", message: "This pair has no trade yet: give an activation price for a trailing stop" });
  });
});

describe("after the pair object restarts", () => {
  it("still watches its orders, and a trailing stop remembers the high it saw before", async () => {
    const p = await freshPair();
    await p.trade("100");
    const me = await p.make("0", "2");
    expect((await p.cond(me, { side: "sell", type: "trailing", num: "1", price: "100", callback_bps: 500 })).body.type).toBe("ok");
    expect((await p.cond(me, { side: "sell", type: "stop_limit", num: "1", price: "90", stop_price: "91" })).body.type).toBe("ok");
    await p.trade("110");
    await p.trade("106"); // the last price at the restart is not the high
    const stub = env.PAIR.get(env.PAIR.idFromName(`pair:${p.pairId}`));
    await runInDurableObject(stub, async (_obj, state) => state.abort("test restart")).catch(() => undefined);
    await p.trade("105"); // 110 × 0.95 = 104.50: not yet
    expect((await p.list(me, "open")).length).toBe(2);
    await p.trade("104.50");
    expect(await p.list(me, "done")).toEqual([expect.objectContaining({ type: "trailing", status: "triggered", trigger_price: "104.50" })]);
    expect(await p.list(me, "open")).toEqual([expect.objectContaining({ type: "stop_limit", status: "open" })]);
    await noDifferences();
  });
});

describe("conditional order input", () => {
  it("is strict: missing and unexpected fields, bad callbacks, too little money, each a translated refusal that changes nothing", async () => {
    const p = await freshPair();
    await p.trade("100");
    const me = await p.make("10", "0");
    const before = await dbFingerprint();
    const cases: [Record<string, unknown>, number, string][] = [
      [{ side: "sell", type: "stop_limit", num: "1", price: "90" }, 400, "此订单类型必须填写 stop_price"],
      [{ side: "sell", type: "stop_limit", num: "1", price: "90", stop_price: "91", callback_bps: 100 }, 400, "callback_bps 不适用于此订单类型"],
      [{ side: "buy", type: "trailing", num: "1", price: "90", callback_bps: 5 }, 400, "回调幅度须在 10 至 2000 个基点之间"],
      [{ side: "buy", type: "oco", num: "1", price: "110", stop_price: "105", limit_price: "106" }, 400, "OCO 买单的限价须低于最新价、触发价须高于最新价；OCO 卖单相反"],
      [{ side: "buy", type: "stop_limit", num: "1", price: "106", stop_price: "105" }, 409, "余额不足"],
      [{ side: "up", type: "stop_limit", num: "1", price: "106", stop_price: "105" }, 400, "参数无效：side"],
      [{ side: "buy", type: "stop_limit", num: "1.0000001", price: "106", stop_price: "105" }, 400, "小数位过多（最多 6 位）"],
    ];
    for (const [body, status, message] of cases) {
      const r = await p.cond(me, body, "zh");
      expect([r.status, r.body.message]).toEqual([status, message]);
    }
    expect(await dbFingerprint()).toBe(before);
  });
});

describe("cancelling", () => {
  it("gives a conditional order's funds back to its owner only", async () => {
    const p = await freshPair();
    await p.trade("100");
    const me = await p.make("1000", "0");
    const other = await p.make();
    const placed = await p.cond(me, { side: "buy", type: "stop_limit", num: "1", price: "106", stop_price: "105" });
    const id = placed.body.message.id;
    expect((await api("/transaction/conditional/cancel", { token: other.token, body: { id } })).status).toBe(404);
    expect((await api("/transaction/conditional/cancel", { token: me.token, body: { id } })).body).toEqual({ type: "ok", message: "cancelled" });
    expect(await balance(me.id, USDT)).toEqual([units("1000"), 0n]);
    expect(await p.list(me, "done")).toEqual([expect.objectContaining({ id, status: "cancelled", reason: "user" })]);
    expect((await api("/transaction/conditional/cancel", { token: me.token, body: { id } })).status).toBe(404);
    // Cancelled means never watched again: a rise through the stop fires nothing.
    await p.trade("105");
    expect((await p.list(me, "done"))[0]).toMatchObject({ status: "cancelled", order_id: null });
    await noDifferences();
  });

  it("cancels all of a pair's open orders and conditional orders in one call, and nothing on other pairs", async () => {
    const p = await freshPair();
    const q = await freshPair();
    await p.trade("100");
    const me = await makeUser({ verified: 2, balances: [{ currencyId: USDT, units: units("5000") }, { currencyId: p.coin, units: units("5") }, { currencyId: q.coin, units: units("5") }] });
    expect((await p.order(me, "buy", "99", "1")).body.type).toBe("ok");
    expect((await p.order(me, "sell", "101", "1")).body.type).toBe("ok");
    expect((await p.cond(me, { side: "sell", type: "stop_limit", num: "1", price: "94", stop_price: "95" })).body.type).toBe("ok");
    expect((await p.cond(me, { side: "sell", type: "oco", num: "1", price: "103", stop_price: "96", limit_price: "95" })).body.type).toBe("ok");
    expect((await q.order(me, "sell", "50", "1")).body.type).toBe("ok");
    const r = await api("/transaction/cancel_all", { token: me.token, body: { currency_id: p.coin, legal_id: USDT } });
    expect(r.body).toEqual({ type: "ok", message: { orders: 3, conditionals: 2 } });
    await drainPair(p.pairId);
    expect(await balance(me.id, p.coin)).toEqual([units("5"), 0n]);
    expect(await balance(me.id, USDT)).toEqual([units("5000"), 0n]);
    expect(await p.list(me, "open")).toEqual([]);
    expect(await balance(me.id, q.coin)).toEqual([units("4"), units("1")]);
    await noDifferences();
  });
});

describe("open conditional order limits", () => {
  it("takes at most 20 open on one pair, even sent at once: the rest are refused in the user's language and hold nothing", async () => {
    const p = await freshPair();
    const me = await p.make("100000", "0");
    const stop = (k: number) => p.cond(me, { side: "buy", type: "stop_limit", num: "0.1", stop_price: String(105 + k), price: String(106 + k) }, "zh");
    const all = await Promise.all(Array.from({ length: 25 }, (_, k) => stop(k)));
    const taken = all.filter((r) => r.body.type === "ok");
    expect(taken.length).toBe(20);
    for (const r of all.filter((x) => x.body.type !== "ok")) {
      expect(r.status).toBe(409);
      expect(r.body.message).toBe("您在此交易对已有 20 个未触发的条件单，请先撤销一个再下单");
    }
    await drainPair(p.pairId);
    // Only the 20 open ones hold anything: each 0.1 × its limit price.
    const held = taken.reduce((a, r) => a + units(r.body.message.price) / 10n, 0n);
    expect(await balance(me.id, USDT)).toEqual([units("100000") - held, held]);
    expect((await p.list(me, "open")).length).toBe(20);
    // The 21st is refused before anything is frozen; a cancel makes room for one more.
    const before = await dbFingerprint();
    expect((await stop(30)).body.message).toBe("您在此交易对已有 20 个未触发的条件单，请先撤销一个再下单");
    expect(await dbFingerprint()).toEqual(before);
    expect((await api("/transaction/conditional/cancel", { token: me.token, body: { id: taken[0]!.body.message.id } })).body.type).toBe("ok");
    expect((await stop(31)).body).toMatchObject({ type: "ok", message: { status: "open" } });
    expect((await stop(32)).status).toBe(409);
    await drainPair(p.pairId);
    await noDifferences();
  });

  it("takes at most 100 open over all pairs, and refuses the next one with nothing held", async () => {
    const pairs = [await freshPair(), await freshPair(), await freshPair(), await freshPair(), await freshPair(), await freshPair()];
    const me = await pairs[0]!.make("1000000", "0");
    const stop = (p: Awaited<ReturnType<typeof freshPair>>, k: number, lang = "en") => p.cond(me, { side: "buy", type: "stop_limit", num: "0.1", stop_price: String(105 + k), price: String(106 + k) }, lang);
    for (const p of pairs.slice(0, 5)) {
      const r = await Promise.all(Array.from({ length: 20 }, (_, k) => stop(p, k)));
      expect(r.map((x) => x.body.type)).toEqual(Array(20).fill("ok"));
    }
    const before = await dbFingerprint();
    const sixth = await stop(pairs[5]!, 0, "es");
    expect(sixth.status).toBe(409);
    expect(sixth.body.message).toBe("Ya tiene 100 órdenes condicionales abiertas en total: cancele una antes de colocar otra");
    expect(await dbFingerprint()).toEqual(before);
    await noDifferences();
  });
});

describe("a conditional order stuck at submitted", () => {
  /** What a Worker that died between the D1 freeze and the pair object leaves: the freeze and the row (and an OCO's leg row). */
  async function crashLeft(pairId: number, userId: number, id: number, type: "stop_limit" | "oco", own: bigint, leg = 0n) {
    const at = Date.now() - 120_000;
    await env.DB.batch([
      ...movementStatements(env.DB, `spot-freeze:${id}`, "spot_freeze", [{ userId, currencyId: USDT, account: "change", dAvailable: -(own + leg), dFrozen: own + leg }]),
      env.DB.prepare(
        `INSERT INTO spot_conditional_orders (id, user_id, pair_id, side, type, qty, price, stop_price, limit_price, reserved_units, reserved_currency, status, created_at, updated_at)
         VALUES (?, ?, ?, 'buy', ?, 100000, 9000, 11000, ?, ?, 3, 0, ?, ?)`,
      ).bind(id, userId, pairId, type, type === "oco" ? 11200 : null, own.toString(), at, at),
      ...(type === "oco"
        ? [
            env.DB.prepare(
              "INSERT INTO spot_orders (id, user_id, pair_id, side, kind, price, qty, reserved_units, reserved_currency, status, created_at, updated_at) VALUES (?, ?, ?, 'buy', 'limit', 9000, 100000, ?, 3, 0, ?, ?)",
            ).bind(id, userId, pairId, leg.toString(), at, at),
          ]
        : []),
    ]);
  }

  // D1 mode's crash between the freeze and the pair; in objects mode the hold is in the account
  // object (tests/objects/conditional-objects.test.ts: a hold whose order never reached the pair).
  it.skipIf(d1Only("a freeze in D1's ledger left by a crash"))("is refused and its funds released once by the reconciler when the pair never saw it, and a late placement is refused", async () => {
    const p = await freshPair();
    await p.trade("100");
    const me = await p.make("1000", "0");
    await crashLeft(p.pairId, me.id, 999_100_001, "stop_limit", units("10.6"));
    await crashLeft(p.pairId, me.id, 999_100_002, "oco", units("2.2"), units("9"));
    expect(await balance(me.id, USDT)).toEqual([units("978.2"), units("21.8")]);
    expect((await p.list(me, "open")).map((o) => o.status)).toEqual(["submitted", "submitted"]);

    expect(await reconcileConditionalOrders(env, Date.now())).toEqual({ checked: 2, released: 2 });
    await reconcileSpotOrders(env, Date.now()); // the OCO's limit leg
    expect(await balance(me.id, USDT)).toEqual([units("1000"), 0n]);
    expect(await p.list(me, "open")).toEqual([]);
    expect((await p.list(me, "done")).map((o) => [o.status, o.reason])).toEqual([
      ["rejected", "orphaned"],
      ["rejected", "orphaned"],
    ]);
    await noDifferences();

    // The request arrives after all: it must not be watched on funds that were given back.
    const stub = env.PAIR.get(env.PAIR.idFromName(`pair:${p.pairId}`));
    const late = await stub.placeConditional({ pairId: p.pairId, id: 999_100_001, userId: me.id, side: "buy", type: "stop_limit", qty: 100000, price: 10600, stop: 10500, limitPrice: null, callbackBps: null, activation: null });
    expect(late).toMatchObject({ ok: false, status: "rejected" });
    // Running the reconcilers again changes nothing.
    expect(await reconcileConditionalOrders(env, Date.now())).toEqual({ checked: 0, released: 0 });
    await reconcileSpotOrders(env, Date.now());
    await drainPair(p.pairId);
    expect(await balance(me.id, USDT)).toEqual([units("1000"), 0n]);
    await noDifferences();
  });

  it("is left alone when the pair watches it (only D1 has not heard yet), and still fires", async () => {
    const p = await freshPair();
    await p.trade("100");
    const me = await p.make("1000", "0");
    const placed = await p.cond(me, { side: "buy", type: "stop_limit", num: "0.1", stop_price: "105", price: "106" });
    await drainPair(p.pairId);
    // As if the object's answer had not reached D1 yet.
    await env.DB.prepare("UPDATE spot_conditional_orders SET status = 0, created_at = ? WHERE id = ?").bind(Date.now() - 120_000, placed.body.message.id).run();
    expect(await reconcileConditionalOrders(env, Date.now())).toEqual({ checked: 1, released: 0 });
    expect(await balance(me.id, USDT)).toEqual([units("989.4"), units("10.6")]);
    await p.trade("105");
    expect(await p.list(me, "done")).toEqual([expect.objectContaining({ id: placed.body.message.id, status: "triggered" })]);
    await noDifferences();
  });
});

describe("ids drawn in one millisecond", () => {
  it("holds every conditional order placed in the same millisecond, each under its own id", async () => {
    // Conditional order ids are (ms since 2026) × 4096 + 12 random bits, drawn with the Worker's
    // clock: held at one millisecond, 300 orders draw a taken id almost surely; each must draw again.
    const p = await freshPair();
    await p.trade("100");
    const me = await p.make("0", "30");
    const t = { env: { ...env, CONDITIONAL_OPEN_LIMIT: "300,300" }, userId: me.id, locale: "en" as const };
    const input = { currency_id: p.coin, legal_id: USDT, side: "sell", type: "stop_limit", num: "0.1", stop_price: "95", price: "94" } as const;
    const clock = vi.spyOn(Date, "now").mockReturnValue(Date.now());
    const ids = new Set<string>();
    let placed = 0;
    try {
      for (let i = 0; i < 300; i++) {
        try {
          ids.add(String((await placeConditional(t, input)).id));
          placed++;
        } catch (err) {
          // In objects mode a pair draws at most 64 ids a millisecond (its slot in the id): past them
          // an order is answered try_again (a 503 the client sends again) and holds nothing.
          if (!(onObjects() && String(err).includes("try_again"))) throw err;
        }
      }
    } finally {
      clock.mockRestore();
    }
    expect(ids.size).toBe(placed);
    if (onObjects()) expect(ids.size).toBeGreaterThanOrEqual(32);
    else expect(ids.size).toBe(300);
    await drainPair(p.pairId);
    // Each held order keeps its 0.1 of the coin; what was not held keeps nothing.
    expect(await balance(me.id, p.coin)).toEqual([units("30") - units("0.1") * BigInt(ids.size), units("0.1") * BigInt(ids.size)]);
    await noDifferences();
  });
});
