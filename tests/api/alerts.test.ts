/**
 * Price alerts (issue #30): an alert on a pair fires once, as a notification in its owner's inbox
 * (and a push on the owner's channel), when a trade reaches its level (`above`, `below`) or moves
 * the price by its percent against the window's first price (`move`); at most 50 active per user;
 * scoped to the user; kept across a restart of the pair's object and fired exactly once across one.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { MAX_ACTIVE_ALERTS } from "../../schemas/alert.ts";
import { api, drainPair, makeUser, seedSpotPair, units, type TestUser } from "./helpers.ts";
import { USDT } from "./spot-fixtures.ts";
import { userSocket } from "./seconds-fixtures.ts";

type Item = { id: number; kind: string; title: string; body: string; link: string };

let nextPair = 300;

/** A fresh pair of its own (coin ALn / USDT, price 2 decimals), two funded traders and an alert owner. */
async function market() {
  const n = nextPair++;
  const pairId = await seedSpotPair({ pairId: n, currencyId: n, name: `AL${n}` });
  const fund = () => makeUser({ verified: 2, balances: [{ currencyId: USDT, units: units("100000") }, { currencyId: n, units: units("100") }] });
  const [maker, taker, owner] = await Promise.all([fund(), fund(), makeUser()]);
  const order = (user: TestUser, side: "buy" | "sell", price: string, num = "0.1") =>
    api(side === "buy" ? "/transaction/walletIn" : "/transaction/walletOut", { token: user.token, body: { currency_id: n, legal_id: USDT, mode: 2, price, num } });
  /** One trade at `price` (the maker rests, the taker takes it) and the drain that brings it to D1. */
  const trade = async (price: string) => {
    expect((await order(maker, "sell", price)).body.type).toBe("ok");
    expect((await order(taker, "buy", price)).body.type).toBe("ok");
    await drainPair(pairId);
  };
  const alert = (user: TestUser, body: Record<string, unknown>, lang = "en") => api("/alerts", { token: user.token, lang, body: { currency_id: n, legal_id: USDT, ...body } });
  const stub = () => env.PAIR.get(env.PAIR.idFromName(`pair:${pairId}`));
  return { pairId, currencyId: n, symbol: `AL${n}/USDT`, maker, taker, owner, trade, alert, stub };
}

async function inbox(user: TestUser, lang = "en"): Promise<Item[]> {
  return ((await api("/notifications?limit=50", { token: user.token, lang })).body.message as { data: Item[] }).data;
}
const alertItems = async (user: TestUser, lang = "en") => (await inbox(user, lang)).filter((i) => i.kind.startsWith("price_alert"));
const myAlerts = async (user: TestUser) => (await api("/alerts", { token: user.token })).body.message as any[];

describe("an alert above a price", () => {
  it("fires once when a trade reaches it, tells its owner on the channel and in the inbox, and never again", async () => {
    const m = await market();
    await m.trade("100");
    const created = await m.alert(m.owner, { kind: "above", price: "110" });
    expect(created.body.type).toBe("ok");
    expect(created.body.message).toMatchObject({ kind: "above", price: "110.00", status: "active", symbol: m.symbol });
    const socket = await userSocket(m.owner);

    await m.trade("105");
    expect(await alertItems(m.owner)).toEqual([]);
    await m.trade("110");
    await expect.poll(() => socket.messages.some((x) => x.type === "notification")).toBe(true);
    const items = await alertItems(m.owner);
    expect(items).toEqual([
      expect.objectContaining({ kind: "price_alert_above", title: `Price alert: ${m.symbol} at or above 110.00`, body: expect.stringContaining("traded at 110.00"), link: "/alerts" }),
    ]);
    expect(await myAlerts(m.owner)).toEqual([expect.objectContaining({ id: created.body.message.id, status: "fired", fired_price: "110.00" })]);

    await m.trade("111");
    await m.trade("112");
    expect(await alertItems(m.owner)).toHaveLength(1);
    expect(await m.stub().alertCount(m.pairId)).toBe(0);
  });

  it("is refused when the last trade is already at or above it, and the refused alert is not kept", async () => {
    const m = await market();
    await m.trade("100");
    const r = await m.alert(m.owner, { kind: "above", price: "100" });
    expect(r.status).toBe(409);
    expect(r.body.message).toBe("The last price 100.00 is already there: choose a level the price has yet to reach");
    expect(await myAlerts(m.owner)).toEqual([]);
    expect(await m.stub().alertCount(m.pairId)).toBe(0);
  });
});

describe("an alert below a price", () => {
  it("fires on a trade at or below its level, not before, in the owner's language", async () => {
    const m = await market();
    await m.trade("100");
    expect((await m.alert(m.owner, { kind: "below", price: "95.5" })).body.type).toBe("ok");
    await m.trade("96");
    expect(await alertItems(m.owner)).toEqual([]);
    await m.trade("95");
    const [item] = await alertItems(m.owner, "zh");
    expect(item).toMatchObject({ kind: "price_alert_below", title: `价格提醒：${m.symbol} 达到或低于 95.50` });
    expect(item!.body).toContain("成交价 95.00");
  });
});

describe("an alert on a move", () => {
  it("fires when the price has moved by its percent against the window's first price, up or down", async () => {
    const m = await market();
    await m.trade("100");
    const five = await m.alert(m.owner, { kind: "move", percent: "5", window: "1h" });
    expect(five.body.message).toMatchObject({ kind: "move", percent: "5", window: "1h", price: null });
    expect((await m.alert(m.owner, { kind: "move", percent: "8.5", window: "24h" })).body.type).toBe("ok");
    await m.trade("104");
    expect(await alertItems(m.owner)).toEqual([]);
    await m.trade("106");
    let items = await alertItems(m.owner);
    expect(items).toEqual([expect.objectContaining({ kind: "price_alert_move", title: `Price alert: ${m.symbol} moved +6.00 %` })]);
    expect(items[0]!.body).toContain("against 100.00");
    // Down from the window's first price by more than 8.5 %.
    await m.trade("91");
    items = await alertItems(m.owner);
    expect(items.map((i) => i.title)).toContain(`Price alert: ${m.symbol} moved -9.00 %`);
    expect(items).toHaveLength(2);
    expect((await myAlerts(m.owner)).every((a) => a.status === "fired")).toBe(true);
  });
});

describe("the limit of active alerts", () => {
  it(`takes ${MAX_ACTIVE_ALERTS} active alerts per user and refuses one more with a clear message, until one is deleted`, async () => {
    const m = await market();
    const ids: number[] = [];
    for (let i = 0; i < MAX_ACTIVE_ALERTS; i++) {
      const r = await m.alert(m.owner, { kind: "move", percent: String(10 + i), window: "24h" });
      expect(r.body.type).toBe("ok");
      ids.push(r.body.message.id);
    }
    const over = await m.alert(m.owner, { kind: "above", price: "1000" });
    expect(over.status).toBe(409);
    expect(over.body.message).toBe(`You already have ${MAX_ACTIVE_ALERTS} active alerts: delete one before adding another`);
    const zh = await m.alert(m.owner, { kind: "above", price: "1000" }, "zh");
    expect(zh.body.message).toBe(`您已有 ${MAX_ACTIVE_ALERTS} 个生效中的提醒，请先删除一个再添加`);
    expect(await myAlerts(m.owner)).toHaveLength(MAX_ACTIVE_ALERTS);
    // Another user is not held back by this one's alerts.
    expect((await m.alert(m.taker, { kind: "above", price: "1000" })).body.type).toBe("ok");

    expect((await api(`/alerts/${ids[0]}/delete`, { token: m.owner.token, body: {} })).body.message).toBe("deleted");
    expect((await m.alert(m.owner, { kind: "above", price: "1000" })).body.type).toBe("ok");
    expect(await m.stub().alertCount(m.pairId)).toBe(MAX_ACTIVE_ALERTS + 1);
  });
});

describe("alerts are the user's own", () => {
  it("are listed, deleted and notified only for their owner", async () => {
    const m = await market();
    await m.trade("100");
    const mine = (await m.alert(m.owner, { kind: "above", price: "101" })).body.message;
    const other = await makeUser();
    expect(await myAlerts(other)).toEqual([]);
    const theirs = await api(`/alerts/${mine.id}/delete`, { token: other.token, body: {} });
    expect(theirs.status).toBe(404);
    expect(await myAlerts(m.owner)).toHaveLength(1);

    await m.trade("101");
    expect(await alertItems(m.owner)).toHaveLength(1);
    expect(await alertItems(other)).toEqual([]);
    expect(await alertItems(m.maker)).toEqual([]);
    // Without a session there is nothing to read or write.
    expect((await api("/alerts")).body.type).toBe("999");
    expect((await api("/alerts", { body: { currency_id: m.currencyId, kind: "above", price: "1" } })).body.type).toBe("999");
  });

  it("a deleted alert never fires", async () => {
    const m = await market();
    await m.trade("100");
    const a = (await m.alert(m.owner, { kind: "above", price: "102" })).body.message;
    expect((await api(`/alerts/${a.id}/delete`, { token: m.owner.token, body: {} })).body.message).toBe("deleted");
    expect(await myAlerts(m.owner)).toEqual([]);
    await m.trade("103");
    expect(await alertItems(m.owner)).toEqual([]);
    expect((await api(`/alerts/${a.id}/delete`, { token: m.owner.token, body: {} })).status).toBe(404);
  });
});

describe("alerts across a restart of the pair's object", () => {
  const restart = (m: Awaited<ReturnType<typeof market>>) => runInDurableObject(m.stub(), async (_obj, state) => state.abort("test restart")).catch(() => undefined);

  it("are kept, and one that fired just before a crash is notified exactly once", async () => {
    const m = await market();
    await m.trade("100");
    expect((await m.alert(m.owner, { kind: "above", price: "108" })).body.type).toBe("ok");
    expect((await m.alert(m.owner, { kind: "move", percent: "20", window: "1h" })).body.type).toBe("ok");
    await restart(m);
    expect(await m.stub().alertCount(m.pairId)).toBe(2);

    // The fill that reaches the level, then a crash before anything else happens.
    expect((await api("/transaction/walletOut", { token: m.maker.token, body: { currency_id: m.currencyId, legal_id: USDT, mode: 2, price: "108", num: "0.1" } })).body.type).toBe("ok");
    expect((await api("/transaction/walletIn", { token: m.taker.token, body: { currency_id: m.currencyId, legal_id: USDT, mode: 2, price: "108", num: "0.1" } })).body.type).toBe("ok");
    await restart(m);
    expect(await m.stub().alertCount(m.pairId)).toBe(1);
    await drainPair(m.pairId);
    expect(await alertItems(m.owner)).toHaveLength(1);

    // As if the object had lost the note that its rows were drained: the drain runs again.
    await runInDurableObject(m.stub(), async (_obj, state) => {
      state.storage.sql.exec("UPDATE outbox SET drained_at = NULL");
    });
    await drainPair(m.pairId);
    await restart(m);
    await m.trade("109");
    expect(await alertItems(m.owner)).toHaveLength(1);
    const fired = await env.DB.prepare("SELECT count(*) AS n FROM price_alerts WHERE user_id = ? AND status = 1").bind(m.owner.id).first<{ n: number }>();
    expect(fired!.n).toBe(1);
    expect(await m.stub().alertCount(m.pairId)).toBe(1);
  });
});

describe("bad input", () => {
  it("is refused with a translated message naming the field, and creates nothing", async () => {
    const m = await market();
    const cases: [Record<string, unknown>, number, string][] = [
      [{ kind: "above" }, 400, "The price must be greater than 0"],
      [{ kind: "sideways", price: "1" }, 400, "Choose an alert type: above, below or move"],
      [{ kind: "move", percent: "5" }, 400, "Choose a window: 1h or 24h"],
      [{ kind: "move", percent: "5", window: "2h" }, 400, "Choose a window: 1h or 24h"],
      [{ kind: "move", window: "1h" }, 400, "Enter a move of more than 0 and at most 100 % (at most two decimals)"],
      [{ kind: "move", percent: "0", window: "1h" }, 400, "Enter a move of more than 0 and at most 100 % (at most two decimals)"],
      [{ kind: "move", percent: "100.5", window: "1h" }, 400, "Enter a move of more than 0 and at most 100 % (at most two decimals)"],
      [{ kind: "move", percent: "1.234", window: "1h" }, 400, "Enter a move of more than 0 and at most 100 % (at most two decimals)"],
      [{ kind: "move", percent: "5", window: "1h", price: "1" }, 400, "This field does not belong to this alert type: price"],
      [{ kind: "above", price: "1", window: "1h" }, 400, "This field does not belong to this alert type: window"],
      [{ kind: "above", price: "1.001" }, 400, "Too many decimal places (at most 2)"],
      [{ kind: "above", price: "0" }, 400, "The price must be greater than 0"],
      [{ kind: "above", price: "-1" }, 400, "Please enter a valid price"],
      [{ kind: "above", price: "1e3" }, 400, "Please enter a valid price"],
      [{ kind: "above", price: "1", extra: 1 }, 400, ""],
      [{ kind: "above", price: "1", currency_id: 999_999 }, 400, "This trading pair is not open"],
    ];
    for (const [body, status, message] of cases) {
      const r = await m.alert(m.owner, body);
      expect(r.status, JSON.stringify(body)).toBe(status);
      expect(r.body.type).toBe("error");
      if (message) expect(r.body.message, JSON.stringify(body)).toBe(message);
    }
    const es = await m.alert(m.owner, { kind: "move", percent: "5" }, "es");
    expect(es.body.message).toBe("Elija un periodo: 1 h o 24 h");
    expect((await api("/alerts/abc/delete", { token: m.owner.token, body: {} })).status).toBe(400);
    expect(await myAlerts(m.owner)).toEqual([]);
  });
});
