import { env, SELF } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { USER_CHANNEL_PROTOCOL, type UserEvent } from "../../schemas/realtime.ts";
import { notifyUser } from "../../worker/lib/notify.ts";
import { api, drainPair, makeUser, seedSpotPair, units, type TestUser } from "../api/helpers.ts";

/** This file's own pair (a currency of its own, so no other test's orders share its book). */
const PAIR = 61;
const COIN = 61;
const USDT = 3;

beforeAll(async () => {
  await seedSpotPair({ pairId: PAIR, currencyId: COIN, name: "UCH" });
});

const trader = () => makeUser({ verified: 2, balances: [{ currencyId: USDT, units: units("10000") }, { currencyId: COIN, units: units("10") }] });
const order = (u: TestUser, side: "buy" | "sell", price: string, num: string) =>
  api(side === "buy" ? "/transaction/walletIn" : "/transaction/walletOut", { token: u.token, body: { currency_id: COIN, legal_id: USDT, mode: 2, price, num } });

/** A C2C-style event: the simplest private event to push by hand. */
const c2c = (id: number): UserEvent => ({ type: "c2c_order", id, is_sure: 3 });

/**
 * A socket on /ws/user, offering the channel's protocol and the token the way the web client does.
 * Messages are kept in arrival order; `next` waits for the first one matching (no fixed sleeps).
 */
async function userSocket(token: string | null, protocols = [USER_CHANNEL_PROTOCOL, ...(token === null ? [] : [`bearer.${token}`])]) {
  const res = await SELF.fetch("http://exchange.test/ws/user", { headers: { upgrade: "websocket", "sec-websocket-protocol": protocols.join(", ") } });
  expect(res.status).toBe(101);
  const ws = res.webSocket!;
  const messages: any[] = [];
  let wake = () => {};
  let closeCode: number | null = null;
  const closed = new Promise<number>((resolve) =>
    ws.addEventListener("close", (e) => {
      closeCode = e.code;
      resolve(e.code);
      wake();
    }),
  );
  ws.addEventListener("message", (e) => {
    messages.push(JSON.parse(String(e.data)));
    wake();
  });
  ws.accept();
  const next = async (pred: (m: any) => boolean) => {
    for (;;) {
      const idx = messages.findIndex(pred);
      if (idx >= 0) return messages.splice(idx, 1)[0];
      if (closeCode !== null) throw new Error(`socket closed (${closeCode}) before the message arrived`);
      await new Promise<void>((r) => (wake = r));
    }
  };
  return { ws, res, messages, next, closed };
}

describe("user channel: who gets what", () => {
  it("delivers a user's events to that user's socket and never to another user's", async () => {
    const alice = await makeUser();
    const bob = await makeUser();
    const a = await userSocket(alice.token);
    const b = await userSocket(bob.token);
    expect(a.res.headers.get("sec-websocket-protocol")).toBe(USER_CHANNEL_PROTOCOL);
    await notifyUser(env, alice.id, c2c(1));
    // Alice's push has been handed to her sockets; were Bob's socket among them, it would have
    // got hers before his own (one socket's messages keep their order).
    await notifyUser(env, bob.id, c2c(2));
    expect(await b.next((m) => m.type === "c2c_order")).toEqual(c2c(2));
    expect(await a.next((m) => m.type === "c2c_order")).toEqual(c2c(1));
    expect(b.messages).toEqual([]);
    expect(a.messages).toEqual([]);
    a.ws.close();
    b.ws.close();
  });

  it("delivers to every open tab of the user, each event in order", async () => {
    const u = await makeUser();
    const tab1 = await userSocket(u.token);
    const tab2 = await userSocket(u.token);
    // Another device: a second session of the same user.
    const phone = await userSocket((await api("/user/login", { body: { user_string: u.account, password: u.password, type: 1 } })).body.message.token);
    await notifyUser(env, u.id, [c2c(1), { type: "c2c_message", order_id: 1 }, c2c(2)]);
    for (const s of [tab1, tab2, phone]) {
      expect(await s.next(() => true)).toEqual(c2c(1));
      expect(await s.next(() => true)).toEqual({ type: "c2c_message", order_id: 1 });
      expect(await s.next(() => true)).toEqual(c2c(2));
      s.ws.close();
    }
  });

  it("keeps the newest 16 sockets of a user: the oldest gives way to a new one", async () => {
    const u = await makeUser();
    const first = await userSocket(u.token);
    const rest = [];
    for (let i = 0; i < 16; i++) rest.push(await userSocket(u.token));
    expect(await first.closed).toBe(4008);
    await notifyUser(env, u.id, c2c(5));
    for (const s of rest) {
      expect(await s.next(() => true)).toEqual(c2c(5));
      s.ws.close();
    }
  });

  it("answers its pings without waking anyone", async () => {
    const u = await makeUser();
    const s = await userSocket(u.token);
    s.ws.send(JSON.stringify({ type: "ping" }));
    expect(await s.next(() => true)).toEqual({ type: "pong" });
    s.ws.close();
  });

  it("never lets an event outside the protocol out, and notifyUser does not throw for it", async () => {
    const u = await makeUser();
    const s = await userSocket(u.token);
    await expect(notifyUser(env, u.id, { type: "c2c_order", id: 1, is_sure: 9 } as unknown as UserEvent)).resolves.toBeUndefined();
    await notifyUser(env, u.id, c2c(3));
    expect(await s.next(() => true)).toEqual(c2c(3));
    s.ws.close();
  });
});

describe("user channel: sessions", () => {
  it("closes a socket offering an unknown token, or none, and delivers nothing", async () => {
    const u = await makeUser();
    const forged = await userSocket("x".repeat(43));
    expect(await forged.closed).toBe(4001);
    const anonymous = await userSocket(null);
    expect(await anonymous.closed).toBe(4001);
    // The token in the URL is not a way in either.
    const inUrl = await SELF.fetch(`http://exchange.test/ws/user?token=${u.token}`, { headers: { upgrade: "websocket" } });
    const ws = inUrl.webSocket!;
    const code = new Promise((r) => ws.addEventListener("close", (e) => r(e.code)));
    ws.accept();
    expect(await code).toBe(4001);
    await notifyUser(env, u.id, c2c(1));
    expect(forged.messages).toEqual([]);
    expect(anonymous.messages).toEqual([]);
  });

  it("closes a socket whose session has expired", async () => {
    const u = await makeUser();
    await env.DB.prepare("UPDATE sessions SET expires_at = ? WHERE user_id = ?").bind(Date.now() - 1, u.id).run();
    const s = await userSocket(u.token);
    expect(await s.closed).toBe(4001);
  });

  it("sends nothing more to a session ended by logout: its socket is closed at the next event, the user's other session still gets it", async () => {
    const u = await makeUser();
    const other = (await api("/user/login", { body: { user_string: u.account, password: u.password, type: 1 } })).body.message.token as string;
    const leaving = await userSocket(u.token);
    const staying = await userSocket(other);
    await notifyUser(env, u.id, c2c(1));
    await leaving.next((m) => m.type === "c2c_order");
    await staying.next((m) => m.type === "c2c_order");
    expect((await api("/user/logout", { token: u.token, body: {} })).body.type).toBe("ok");
    await notifyUser(env, u.id, c2c(2));
    expect(await leaving.closed).toBe(4001);
    expect(leaving.messages).toEqual([]);
    expect(await staying.next((m) => m.type === "c2c_order")).toEqual(c2c(2));
    staying.ws.close();
  });

  it("sends nothing more after a password change ends every session", async () => {
    const u = await makeUser();
    const s = await userSocket(u.token);
    const r = await api("/new/users/update-password", { token: u.token, body: { oldpwd: u.password, newpwd: "N3w-Passw0rd!x", repwd: "N3w-Passw0rd!x" } });
    expect(r.body.status).toBe(1);
    await notifyUser(env, u.id, c2c(1));
    expect(await s.closed).toBe(4001);
    expect(s.messages).toEqual([]);
  });

  it("sends nothing more to a locked account", async () => {
    const u = await makeUser();
    const s = await userSocket(u.token);
    await env.DB.prepare("UPDATE users SET locked = 1 WHERE id = ?").bind(u.id).run();
    await notifyUser(env, u.id, c2c(1));
    expect(await s.closed).toBe(4001);
    expect(s.messages).toEqual([]);
  });
});

describe("user channel: spot orders", () => {
  it("sends a fill's order events to the maker and the taker only, once the fill is in D1", async () => {
    const maker = await trader();
    const taker = await trader();
    const bystander = await trader();
    const m = await userSocket(maker.token);
    const t = await userSocket(taker.token);
    const b = await userSocket(bystander.token);
    const sold = await order(maker, "sell", "50", "1");
    const bought = await order(taker, "buy", "50", "0.4");
    expect([sold.body.type, bought.body.type]).toEqual(["ok", "ok"]);
    await drainPair(PAIR);
    const sellId = Number(sold.body.message.order_id);
    const buyId = Number(bought.body.message.order_id);
    expect(await m.next((x) => x.type === "order")).toEqual({ type: "order", pair_id: PAIR, order_id: sellId, status: "open", filled: "0.000000", price: "50.00" });
    expect(await m.next((x) => x.type === "order")).toEqual({ type: "order", pair_id: PAIR, order_id: sellId, status: "partial", filled: "0.400000", price: "50.00" });
    const fill = await t.next((x) => x.type === "order");
    expect(fill).toEqual({ type: "order", pair_id: PAIR, order_id: buyId, status: "filled", filled: "0.400000", price: "50.00" });
    // Sent after the drain: what the client refetches on this event already shows the fill.
    const row = await env.DB.prepare("SELECT status, filled FROM spot_orders WHERE id = ?").bind(buyId).first<{ status: number; filled: number }>();
    expect(row?.status).toBe(2);
    // Each user's events leave the pair in order: had the bystander's (or the taker's) channel been
    // sent anything of the trade, it would come before their own order's "open" below.
    // (bids inside the 10 % price band around the index, 50)
    const own = await order(bystander, "buy", "46", "0.5");
    const takerOwn = await order(taker, "buy", "47", "0.5");
    const cancelled = await api("/transaction_del", { token: maker.token, body: { id: String(sellId) } });
    expect([own.body.type, takerOwn.body.type, cancelled.body.type]).toEqual(["ok", "ok", "ok"]);
    await drainPair(PAIR);
    expect(await b.next(() => true)).toMatchObject({ type: "order", order_id: Number(own.body.message.order_id), status: "open" });
    // The two parties are also told of their fill in the inbox (a "notification" event), which says
    // nothing of the other side; the bystander gets nothing but their own order.
    expect(await t.next((x) => x.type !== "notification")).toMatchObject({ type: "order", order_id: Number(takerOwn.body.message.order_id), status: "open" });
    expect(await m.next((x) => x.type !== "notification")).toMatchObject({ type: "order", order_id: sellId, status: "cancelled", filled: "0.000000" });
    for (const s of [m, t, b]) s.ws.close();
  });

  it("sends a batch's order events in the order the orders were given", async () => {
    const u = await trader();
    const s = await userSocket(u.token);
    const r = await api("/transaction/batch", {
      token: u.token,
      body: { currency_id: COIN, legal_id: USDT, orders: [
        { side: "buy", mode: 2, price: "20", num: "0.5" },
        { side: "buy", mode: 2, price: "21", num: "0.5" },
        { side: "sell", mode: 2, price: "900", num: "0.5" },
      ] },
    });
    expect(r.body.type).toBe("ok");
    await drainPair(PAIR);
    const ids = r.body.message.orders.map((o: { order_id: string }) => Number(o.order_id));
    for (const id of ids) expect(await s.next((x) => x.type === "order")).toMatchObject({ order_id: id, status: "open" });
    s.ws.close();
  });
});
