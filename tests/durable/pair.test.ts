import { env, runDurableObjectAlarm, runInDurableObject, SELF } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import type { PairDurableObject } from "../../durable/pair/object.ts";
import { reconcileSpotOrders } from "../../worker/jobs/spot-reconcile.ts";
import { movementStatements } from "../../worker/lib/ledger.ts";
import { api, balance, drainPair, seedSpotPair, units } from "../api/helpers.ts";
import { BTC, PAIR, USDT, buy, clearBook, pairStub, sell, trader } from "../api/spot-fixtures.ts";

const pair = PAIR;

beforeAll(async () => {
  await seedSpotPair();
});

describe("alarms", () => {
  it("drains the outbox when its alarm fires, and a second firing applies nothing again", async () => {
    await clearBook();
    const maker = await trader();
    const taker = await trader();
    await sell(maker.token, { price: "47000", num: "0.01" });
    await buy(taker.token, { price: "47000", num: "0.01" });
    // No explicit drain: the alarm the command set must bring the fill into D1 by itself.
    let after = await balance(taker.id, BTC);
    for (let i = 0; i < 100 && after[0] !== units("1.00998"); i++) {
      await runDurableObjectAlarm(pairStub());
      after = await balance(taker.id, BTC);
    }
    expect(after).toEqual([units("1.00998"), 0n]);
    const ledger = (await env.DB.prepare("SELECT count(*) n FROM ledger").first<{ n: number }>())!.n;
    // At-least-once delivery: the runtime may fire the same alarm again.
    await runInDurableObject(pairStub(), (obj: PairDurableObject) => obj.alarm());
    expect(await balance(taker.id, BTC)).toEqual(after);
    expect((await env.DB.prepare("SELECT count(*) n FROM ledger").first<{ n: number }>())!.n).toBe(ledger);
  });
});

describe("crash safety", () => {
  it("applies an outbox row once even when a drain is repeated after D1 already committed it", async () => {
    await clearBook();
    const maker = await trader();
    const taker = await trader();
    await sell(maker.token, { price: "45000", num: "0.01" });
    await buy(taker.token, { price: "45000", num: "0.01" });
    await drainPair(pair);
    const ledgerBefore = await env.DB.prepare("SELECT count(*) n FROM ledger").first<{ n: number }>();
    const takerBefore = await balance(taker.id, BTC);
    // As if the object had lost the note that these rows were drained (D1 committed, the mark did not).
    const replayed = await runInDurableObject(pairStub(), async (_obj: PairDurableObject, state) => {
      const n = state.storage.sql.exec("SELECT count(*) AS n FROM outbox WHERE drained_at IS NOT NULL").one().n;
      state.storage.sql.exec("UPDATE outbox SET drained_at = NULL");
      return Number(n);
    });
    expect(replayed).toBeGreaterThan(0);
    await drainPair(pair);
    expect((await env.DB.prepare("SELECT count(*) n FROM ledger").first<{ n: number }>())!.n).toBe(ledgerBefore!.n);
    expect(await balance(taker.id, BTC)).toEqual(takerBefore);
  });

  it("drains waiting outbox rows as one movement whose ledger rows net each account", async () => {
    await drainPair(pair);
    const a = await trader("0", "0");
    const b = await trader("0", "0");
    await env.DB.batch(movementStatements(env.DB, `fund:${a.id}`, "test", [
      { userId: a.id, currencyId: USDT, account: "change", dAvailable: units("5"), dFrozen: 0n },
      { userId: -1, currencyId: USDT, account: "change", dAvailable: -units("5"), dFrozen: 0n },
    ]));
    const before = (await env.DB.prepare("SELECT count(*) n FROM movements WHERE key LIKE 'spot:%'").first<{ n: number }>())!.n;
    // Three commands' rows waiting together (written in one callback: no alarm runs in between).
    await runInDurableObject(pairStub(), async (_obj: PairDurableObject, state) => {
      const move = (from: number, to: number, n: string) =>
        state.storage.sql.exec("INSERT INTO outbox (payload) VALUES (?)", JSON.stringify({ at: Date.now(), entries: [[from, USDT, `-${units(n)}`, "0"], [to, USDT, `${units(n)}`, "0"]], orders: [], trades: [] }));
      move(a.id, b.id, "1");
      move(a.id, b.id, "2");
      move(b.id, a.id, "0.5");
    });
    await drainPair(pair);
    const movements = await env.DB.prepare("SELECT key FROM movements WHERE key LIKE 'spot:%' ORDER BY rowid DESC").all<{ key: string }>();
    expect(movements.results.length).toBe(before + 1);
    const rows = await env.DB.prepare("SELECT user_id, d_available FROM ledger WHERE movement_key = ? ORDER BY user_id").bind(movements.results[0]!.key).all<{ user_id: number; d_available: number }>();
    expect(rows.results).toEqual([
      { user_id: a.id, d_available: -Number(units("2.5")) },
      { user_id: b.id, d_available: Number(units("2.5")) },
    ]);
    expect(await balance(a.id, USDT)).toEqual([units("2.5"), 0n]);
    expect(await balance(b.id, USDT)).toEqual([units("2.5"), 0n]);
  });

  it("does not apply again an outbox row that a drain from before drain batches had already applied", async () => {
    const from = await trader("0", "0");
    const to = await trader("0", "0");
    await env.DB.batch(movementStatements(env.DB, `fund:${from.id}`, "test", [
      { userId: from.id, currencyId: USDT, account: "change", dAvailable: units("5"), dFrozen: 0n },
      { userId: -1, currencyId: USDT, account: "change", dAvailable: -units("5"), dFrozen: 0n },
    ]));
    const ids = await runInDurableObject(pairStub(), async (_obj: PairDurableObject, state) => {
      const sql = state.storage.sql;
      const payload = (n: string) => JSON.stringify({ at: Date.now(), entries: [[from.id, USDT, `-${n}`, "0"], [to.id, USDT, n, "0"]], orders: [], trades: [] });
      const a = Number(sql.exec("INSERT INTO outbox (payload) VALUES (?) RETURNING id", payload(units("1").toString())).one().id);
      const b = Number(sql.exec("INSERT INTO outbox (payload) VALUES (?) RETURNING id", payload(units("2").toString())).one().id);
      sql.exec("INSERT OR REPLACE INTO meta (key, value) VALUES ('legacy_outbox_max', ?)", String(b));
      return [a, b];
    });
    // A per-row drain applied row a (its key is in D1) and died before noting it.
    await env.DB.batch(movementStatements(env.DB, `spot:${pair}:${ids[0]}`, "spot", [
      { userId: from.id, currencyId: USDT, account: "change", dAvailable: -units("1"), dFrozen: 0n },
      { userId: to.id, currencyId: USDT, account: "change", dAvailable: units("1"), dFrozen: 0n },
    ]));
    await drainPair(pair);
    expect(await balance(to.id, USDT)).toEqual([units("3"), 0n]); // 1 once, then 2
    expect(await balance(from.id, USDT)).toEqual([units("2"), 0n]);
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

  it("books a never-booked order when its client order id is sent again, instead of claiming it is open", async () => {
    await clearBook();
    const u = await trader();
    const orderId = 999_000_002;
    const frozen = units("10");
    // The first request froze the funds and died before reaching the book.
    await env.DB.batch([
      ...movementStatements(env.DB, `spot-freeze:${orderId}`, "spot_freeze", [{ userId: u.id, currencyId: USDT, account: "change", dAvailable: -frozen, dFrozen: frozen }]),
      env.DB.prepare(
        "INSERT INTO spot_orders (id, user_id, pair_id, side, kind, price, qty, reserved_units, reserved_currency, status, client_oid, created_at, updated_at) VALUES (?, ?, ?, 'buy', 'limit', 100000, 10000, ?, 3, 0, 'retry-1', ?, ?)",
      ).bind(orderId, u.id, pair, frozen.toString(), Date.now(), Date.now()),
    ]);
    const again = await buy(u.token, { price: "1000", num: "0.01", client_oid: "retry-1" });
    expect(again.body.message).toMatchObject({ order_id: String(orderId), status: "open", replayed: true });
    expect((await api("/currency/depth?currency_id=1&legal_id=3")).body.message.bids[0]).toEqual(["1000.00", "0.010000"]);
    expect(await balance(u.id, USDT)).toEqual([units("9990"), units("10")]);
  });

  it("releases the hold of an order the book refuses, through the alarm and without another command", async () => {
    const u = await trader();
    const orderId = 999_000_003;
    const frozen = units("0.01");
    await env.DB.batch([
      ...movementStatements(env.DB, `spot-freeze:${orderId}`, "spot_freeze", [{ userId: u.id, currencyId: USDT, account: "change", dAvailable: -frozen, dFrozen: frozen }]),
      env.DB.prepare(
        "INSERT INTO spot_orders (id, user_id, pair_id, side, kind, price, qty, reserved_units, reserved_currency, status, created_at, updated_at) VALUES (?, ?, ?, 'buy', 'limit', 1, 1, ?, 3, 0, ?, ?)",
      ).bind(orderId, u.id, pair, frozen.toString(), Date.now(), Date.now()),
    ]);
    // Worth far less than the minimum order value: the engine refuses it.
    const r = await pairStub().place({ pairId: pair, orderId, userId: u.id, side: "buy", price: 1, qty: 1, tif: "GTC", reservedUnits: frozen.toString() });
    expect(r).toMatchObject({ ok: false, status: "rejected" });
    let after = await balance(u.id, USDT);
    for (let i = 0; i < 100 && after[1] !== 0n; i++) {
      await runDurableObjectAlarm(pairStub());
      after = await balance(u.id, USDT);
    }
    expect(after).toEqual([units("10000"), 0n]);
    expect((await env.DB.prepare("SELECT status FROM spot_orders WHERE id = ?").bind(orderId).first<{ status: number }>())!.status).toBe(4);
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
    ws.addEventListener("message", (e) => {
      messages.push(JSON.parse(String(e.data)));
    });
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

  it("has no login: order events never travel on the pair socket", async () => {
    await clearBook();
    const u = await trader();
    const s = await socket();
    s.ws.send(JSON.stringify({ type: "login", token: u.token }));
    expect((await s.next((m) => m.type === "error")).message).toBe("bad message");
    s.ws.send(JSON.stringify({ type: "sub", topic: "market_depth_1_3" }));
    await s.next((m) => m.type === "market_depth" && m.snapshot);
    await buy(u.token, { price: "111", num: "0.5" });
    expect((await s.next((m) => m.type === "market_depth" && !m.snapshot)).bids[0]).toEqual(["111.00", "0.500000"]);
    await drainPair(pair);
    // The socket's own ping is answered after everything the order and its drain sent it.
    s.ws.send(JSON.stringify({ type: "ping" }));
    await s.next((m) => m.type === "pong");
    expect(s.messages.filter((m) => m.type === "order")).toEqual([]);
    s.ws.close();
  });

  it("publishes a batch as one depth update with the next sequence number", async () => {
    await clearBook();
    const u = await trader();
    const s = await socket();
    s.ws.send(JSON.stringify({ type: "sub", topic: "market_depth_1_3" }));
    const snapshot = await s.next((m) => m.type === "market_depth" && m.snapshot);
    const r = await api("/transaction/batch", {
      token: u.token,
      body: { currency_id: BTC, legal_id: USDT, orders: [
        { side: "buy", mode: 2, price: "120", num: "0.1" },
        { side: "buy", mode: 2, price: "121", num: "0.2" },
        { side: "sell", mode: 2, price: "90000", num: "0.3" },
      ] },
    });
    expect(r.body.type).toBe("ok");
    const update = await s.next((m) => m.type === "market_depth" && !m.snapshot);
    expect(update.seq).toBe(snapshot.seq + 1);
    expect(update.bids.slice(0, 2)).toEqual([["121.00", "0.200000"], ["120.00", "0.100000"]]);
    expect(update.asks[0]).toEqual(["90000.00", "0.300000"]);
    await new Promise((res) => setTimeout(res, 50));
    // next() took the update off the list: no second depth update followed for the same batch.
    expect(s.messages.filter((m) => m.type === "market_depth" && !m.snapshot)).toEqual([]);
    s.ws.close();
  });

  it("stops sending a topic to a socket that unsubscribed from it", async () => {
    await clearBook();
    const u = await trader();
    const a = await socket();
    const b = await socket();
    a.ws.send(JSON.stringify({ type: "sub", topic: "market_depth_1_3" }));
    await a.next((m) => m.type === "market_depth" && m.snapshot);
    b.ws.send(JSON.stringify({ type: "sub", topic: "market_depth_1_3" }));
    const snapshot = await b.next((m) => m.type === "market_depth" && m.snapshot);
    a.ws.send(JSON.stringify({ type: "unsub", topic: "market_depth_1_3" }));
    a.ws.send(JSON.stringify({ type: "ping" }));
    await a.next((m) => m.type === "pong");
    const r = await api("/transaction/batch", { token: u.token, body: { currency_id: BTC, legal_id: USDT, orders: [{ side: "buy", mode: 2, price: "120", num: "0.1" }] } });
    expect(r.body.type).toBe("ok");
    expect((await b.next((m) => m.type === "market_depth" && !m.snapshot)).seq).toBe(snapshot.seq + 1);
    // Anything sent to a with that update arrives before the answer to this ping.
    a.ws.send(JSON.stringify({ type: "ping" }));
    await a.next((m) => m.type === "pong");
    expect(a.messages.filter((m) => m.type === "market_depth")).toEqual([]);
    a.ws.close();
    b.ws.close();
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
