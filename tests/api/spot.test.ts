import { env, runInDurableObject, SELF } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import type { PairDurableObject } from "../../durable/pair.ts";
import { reconcileSpotOrders } from "../../worker/jobs/spot-reconcile.ts";
import { movementStatements } from "../../worker/lib/ledger.ts";
import { api, balance, dbFingerprint, drainPair, makeUser, seedSpotPair, units } from "./helpers.ts";

const BTC = 1;
const USDT = 3;
let pair = 1;

beforeAll(async () => {
  pair = await seedSpotPair();
});

const trader = (usdt = "10000", btc = "1") =>
  makeUser({ verified: 2, balances: [{ currencyId: USDT, units: units(usdt) }, { currencyId: BTC, units: units(btc) }] });

const buy = (token: string, body: Record<string, unknown>) => api("/transaction/walletIn", { token, body: { currency_id: BTC, legal_id: USDT, mode: 2, ...body } });
const sell = (token: string, body: Record<string, unknown>) => api("/transaction/walletOut", { token, body: { currency_id: BTC, legal_id: USDT, mode: 2, ...body } });
const pairStub = () => env.PAIR.get(env.PAIR.idFromName(`pair:${pair}`));

/** Cancels every open order so each test starts from an empty book. */
async function clearBook() {
  await drainPair(pair);
  const { results } = await env.DB.prepare("SELECT id, user_id FROM spot_orders WHERE status IN (0, 1)").all<{ id: number; user_id: number }>();
  for (const o of results) await pairStub().cancel(pair, o.id, o.user_id);
  await drainPair(pair);
}

describe("placing orders", () => {
  it("asks an unverified user to verify their identity first (998)", async () => {
    const u = await makeUser({ verified: 0, balances: [{ currencyId: USDT, units: units("100") }] });
    const r = await buy(u.token, { price: "100", num: "0.1" });
    expect(r.status).toBe(403);
    expect(r.body.type).toBe("998");
  });

  it("freezes exactly price × quantity of USDT for a limit buy and lists the open order", async () => {
    await clearBook();
    const u = await trader();
    const r = await buy(u.token, { price: "60000.5", num: "0.01" });
    expect(r.body.type).toBe("ok");
    expect(r.body.message.status).toBe("open");
    expect(await balance(u.id, USDT)).toEqual([units("10000") - units("600.005"), units("600.005")]);
    await drainPair(pair);
    const open = await api("/new/transaction/index", { token: u.token });
    expect(open.body.data.lists).toEqual([expect.objectContaining({ direction: "buy", price: "60000.50", number: "0.010000", filled: "0.000000", status: 1 })]);
  });

  it("fills at the maker's price, charges each side its fee and leaves balances exact", async () => {
    await clearBook();
    const maker = await trader();
    const taker = await trader();
    await sell(maker.token, { price: "50000", num: "0.1" });
    // The taker bids higher than the ask: it pays the maker's 50000, and the difference comes back.
    const r = await buy(taker.token, { price: "50100", num: "0.1" });
    expect(r.body.message).toMatchObject({ status: "filled", filled: "0.100000" });
    await drainPair(pair);
    // Maker sold 0.1 BTC for 5000 USDT, maker fee 10 bps = 5 USDT.
    expect(await balance(maker.id, BTC)).toEqual([units("0.9"), 0n]);
    expect(await balance(maker.id, USDT)).toEqual([units("14995"), 0n]);
    // Taker bought 0.1 BTC, taker fee 20 bps in BTC = 0.0002; paid exactly 5000 USDT.
    expect(await balance(taker.id, BTC)).toEqual([units("1.0998"), 0n]);
    expect(await balance(taker.id, USDT)).toEqual([units("5000"), 0n]);
    const fees = await env.DB.prepare("SELECT currency_id, available FROM balances WHERE user_id = 0 ORDER BY currency_id").all<{ currency_id: number; available: number }>();
    expect(fees.results).toEqual(expect.arrayContaining([{ currency_id: BTC, available: Number(units("0.0002")) }]));
    const history = await api("/new/transaction/lists", { token: taker.token });
    expect(history.body.data.lists[0]).toMatchObject({ way: 2, direction: "buy", price: "50000.00", number: "0.100000", currency_name: "BTC", legal_name: "USDT" });
    const deals = await api("/currency/new_tradehistory?currency_id=1&legal_id=3");
    expect(deals.body.message[0]).toMatchObject({ direction: "buy", price: "50000.00", amount: "0.100000" });
  });

  it("publishes the real last price to the quotation table and a candle for the trade", async () => {
    const ticker = await env.DB.prepare("SELECT last_price FROM tickers WHERE pair_id = ?").bind(pair).first<{ last_price: string }>();
    expect(ticker?.last_price).toBe("50000.00");
    const bars = await api("/currency/new_timeshar?symbol=BTC/USDT&period=1min");
    expect(bars.body.code).toBe(1);
    expect(bars.body.data.at(-1)).toMatchObject({ open: "50000.00", close: "50000.00", volume: "0.100000" });
  });

  it("refuses an order the balance cannot cover and changes nothing", async () => {
    const u = await trader("10", "0");
    const before = await dbFingerprint();
    const r = await buy(u.token, { price: "100", num: "1" });
    expect(r.status).toBe(409);
    expect(r.body.code).toBe("insufficient_balance");
    expect(await dbFingerprint()).toBe(before);
  });

  it.each([
    ["a zero quantity for a buy", { price: "100", num: "0" }, "buy_qty_positive"],
    ["a zero price", { price: "0", num: "1" }, "price_positive"],
    ["more quantity decimals than the pair allows", { price: "100", num: "0.0000001" }, "too_many_decimals"],
    ["more price decimals than the pair allows", { price: "100.001", num: "1" }, "too_many_decimals"],
    ["an order worth less than the minimum", { price: "1", num: "1" }, "min_notional"],
    ["a negative quantity", { price: "100", num: "-1" }, "invalid_amount"],
    ["a price in exponent notation", { price: "1e5", num: "1" }, "invalid_amount"],
    ["a quantity of the wrong type", { price: "100", num: { x: 1 } }, "invalid_amount"],
    ["an SQL-like currency id", { currency_id: "1; DROP TABLE spot_orders", price: "100", num: "1" }, "invalid_param"],
    ["a pair that does not exist", { currency_id: 999, price: "100", num: "1" }, "pair_closed"],
  ])("refuses %s with a clear error and changes nothing", async (_n, body, code) => {
    const u = await trader();
    const before = await dbFingerprint();
    const r = await buy(u.token, body);
    expect(r.status).toBe(400);
    expect(r.body.code).toBe(code);
    expect(await dbFingerprint()).toBe(before);
  });

  it("refuses a market buy when nobody sells", async () => {
    await clearBook();
    const u = await trader();
    const r = await buy(u.token, { mode: 1, num: "0.1" });
    expect(r.body.code).toBe("no_liquidity");
  });

  it("fills a market buy at the best asks and releases what it did not spend", async () => {
    await clearBook();
    const maker = await trader();
    const taker = await trader();
    await sell(maker.token, { price: "40000", num: "0.05" });
    const r = await buy(taker.token, { mode: 1, num: "0.1" });
    expect(r.body.message).toMatchObject({ filled: "0.050000", status: "cancelled" });
    await drainPair(pair);
    expect(await balance(taker.id, USDT)).toEqual([units("10000") - units("2000"), 0n]);
  });

  it("replays a repeated client order id without freezing twice, and refuses it for a different order", async () => {
    await clearBook();
    const u = await trader();
    const first = await buy(u.token, { price: "1000", num: "0.01", client_oid: "abc-1" });
    const again = await buy(u.token, { price: "1000", num: "0.01", client_oid: "abc-1" });
    expect(again.body.message.order_id).toBe(first.body.message.order_id);
    expect(await balance(u.id, USDT)).toEqual([units("9990"), units("10")]);
    const other = await buy(u.token, { price: "1001", num: "0.01", client_oid: "abc-1" });
    expect(other.status).toBe(409);
    expect(other.body.code).toBe("duplicate_client_id");
  });
});

describe("cancelling", () => {
  it("releases the frozen funds of a cancelled order", async () => {
    await clearBook();
    const u = await trader();
    const r = await buy(u.token, { price: "30000", num: "0.02" });
    const id = r.body.message.order_id;
    expect((await api("/transaction_del", { token: u.token, body: { id, type: "in" } })).body.type).toBe("ok");
    await drainPair(pair);
    expect(await balance(u.id, USDT)).toEqual([units("10000"), 0n]);
    const order = await env.DB.prepare("SELECT status FROM spot_orders WHERE id = ?").bind(id).first<{ status: number }>();
    expect(order!.status).toBe(3);
  });

  it("cannot cancel another user's order", async () => {
    await clearBook();
    const owner = await trader();
    const other = await trader();
    const r = await buy(owner.token, { price: "30000", num: "0.02" });
    await drainPair(pair);
    const before = await dbFingerprint();
    const attempt = await api("/transaction_del", { token: other.token, body: { id: r.body.message.order_id } });
    expect(attempt.status).toBe(404);
    expect(attempt.body.code).toBe("order_not_found");
    expect(await dbFingerprint()).toBe(before);
    expect((await api("/new/transaction/index", { token: other.token })).body.data.lists).toEqual([]);
  });
});

describe("crash safety", () => {
  it("applies an outbox row once even when a drain is repeated after D1 already committed it", async () => {
    await clearBook();
    const maker = await trader();
    const taker = await trader();
    await sell(maker.token, { price: "45000", num: "0.01" });
    await buy(taker.token, { price: "45000", num: "0.01" });
    // Keep a copy of the pending outbox rows, drain, then put them back as if the delete was lost.
    const copies = await runInDurableObject(pairStub(), async (_obj: PairDurableObject, state) =>
      state.storage.sql.exec("SELECT id, payload FROM outbox").toArray(),
    );
    expect(copies.length).toBeGreaterThan(0);
    await drainPair(pair);
    const ledgerBefore = await env.DB.prepare("SELECT count(*) n FROM ledger").first<{ n: number }>();
    const takerBefore = await balance(taker.id, BTC);
    await runInDurableObject(pairStub(), async (_obj: PairDurableObject, state) => {
      for (const row of copies) state.storage.sql.exec("INSERT INTO outbox (id, payload) VALUES (?, ?)", row.id, row.payload);
    });
    await drainPair(pair);
    expect((await env.DB.prepare("SELECT count(*) n FROM ledger").first<{ n: number }>())!.n).toBe(ledgerBefore!.n);
    expect(await balance(taker.id, BTC)).toEqual(takerBefore);
  });

  it("releases the hold of an order that never reached the book, and the book refuses it afterwards", async () => {
    const u = await trader();
    const orderId = 999_000_001;
    const frozen = units("100");
    // What a Worker that died right after the freeze leaves behind.
    await env.DB.batch([
      ...movementStatements(env.DB, `spot-freeze:${orderId}`, "spot_freeze", [{ userId: u.id, currencyId: USDT, account: "change", dAvailable: -frozen, dFrozen: frozen }]),
      env.DB.prepare(
        "INSERT INTO spot_orders (id, user_id, pair_id, side, kind, price, qty, reserved_units, reserved_currency, status, created_at, updated_at) VALUES (?, ?, ?, 'buy', 'limit', 1000000, 10000, ?, 3, 0, ?, ?)",
      ).bind(orderId, u.id, pair, frozen.toString(), Date.now() - 120_000, Date.now() - 120_000),
    ]);
    const r = await reconcileSpotOrders(env, Date.now());
    expect(r.released).toBeGreaterThanOrEqual(1);
    expect(await balance(u.id, USDT)).toEqual([units("10000"), 0n]);
    // The late request arrives after all: it must not trade on funds that were given back.
    const late = await pairStub().place({ pairId: pair, orderId, userId: u.id, side: "buy", price: 1000000, qty: 10000, tif: "GTC", reservedUnits: frozen.toString() });
    expect(late).toMatchObject({ ok: false, code: "TOMBSTONED" });
    // Running the reconciler again changes nothing.
    await reconcileSpotOrders(env, Date.now());
    expect(await balance(u.id, USDT)).toEqual([units("10000"), 0n]);
  });

  it("rebuilds the same book from its storage after a restart", async () => {
    await clearBook();
    const a = await trader();
    const b = await trader();
    await buy(a.token, { price: "100", num: "0.1" });
    await buy(a.token, { price: "101", num: "0.1" });
    await sell(b.token, { price: "200", num: "0.2" });
    await sell(b.token, { price: "200", num: "0.3" });
    await runInDurableObject(pairStub(), async (obj: PairDurableObject) => {
      const before = obj.book!.stateHash();
      (obj as unknown as { load(i: unknown): void }).load(obj.pairInfo);
      expect(obj.book!.stateHash()).toBe(before);
      expect(obj.book!.depth(6).asks).toEqual([[20000, 500000]]);
    });
  });
});

describe("realtime", () => {
  async function socket() {
    const res = await SELF.fetch(`http://exchange.test/ws?pair=${pair}`, { headers: { upgrade: "websocket" } });
    expect(res.status).toBe(101);
    const ws = res.webSocket!;
    ws.accept();
    const messages: any[] = [];
    ws.addEventListener("message", (e) => messages.push(JSON.parse(String(e.data))));
    const next = async (pred: (m: any) => boolean) => {
      for (let i = 0; i < 100; i++) {
        const idx = messages.findIndex(pred);
        if (idx >= 0) return messages.splice(idx, 1)[0];
        await new Promise((r) => setTimeout(r, 10));
      }
      throw new Error("no message");
    };
    return { ws, messages, next };
  }

  it("sends a depth snapshot, then sequenced updates when the book changes", async () => {
    await clearBook();
    const s = await socket();
    s.ws.send(JSON.stringify({ type: "sub", topic: "market_depth_1_3" }));
    const snap = await s.next((m) => m.type === "market_depth" && m.snapshot);
    const u = await trader();
    await buy(u.token, { price: "123.45", num: "0.5" });
    const update = await s.next((m) => m.type === "market_depth" && !m.snapshot);
    expect(update.seq).toBe(snap.seq + 1);
    expect(update.bids[0]).toEqual(["123.45", "0.500000"]);
    s.ws.close();
  });

  it("sends a user's order events only to that user's logged-in sockets", async () => {
    await clearBook();
    const owner = await trader();
    const other = await trader();
    const mine = await socket();
    const theirs = await socket();
    mine.ws.send(JSON.stringify({ type: "login", token: owner.token }));
    theirs.ws.send(JSON.stringify({ type: "login", token: other.token }));
    await mine.next((m) => m.type === "logged_in");
    await theirs.next((m) => m.type === "logged_in");
    await buy(owner.token, { price: "150", num: "0.1" });
    const ev = await mine.next((m) => m.type === "order");
    expect(ev).toMatchObject({ status: "open", price: "150.00" });
    await new Promise((r) => setTimeout(r, 50));
    expect(theirs.messages.filter((m) => m.type === "order")).toEqual([]);
    mine.ws.close();
    theirs.ws.close();
  });

  it("answers a malformed message with an error and keeps the socket open", async () => {
    const s = await socket();
    s.ws.send("{nope");
    expect((await s.next((m) => m.type === "error")).message).toBe("bad json");
    s.ws.send(JSON.stringify({ type: "sub", topic: "market_depth_1_3; drop" }));
    expect((await s.next((m) => m.type === "error")).message).toBe("bad message");
    s.ws.send(JSON.stringify({ type: "ping" }));
    await s.next((m) => m.type === "pong");
    s.ws.close();
  });
});
