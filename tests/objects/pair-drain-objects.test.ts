/**
 * The pair's drain of spot orders and trades through the collector objects (durable/pair/read-model.ts,
 * session 16): in objects mode the pair's background drain hands each batch to a collector, which
 * writes it in the same one-statement D1 batch as the accounts' movements. What a user would
 * notice: every order and trade shows in the read model exactly once, with its fills counted once,
 * also when the collector dies after D1 committed the batch (the pair sends it again; D1 applies
 * it once) and while D1 fails (the pair keeps its rows); and one's own order list still shows a
 * just-placed order at once while a collector holds the pair's batch.
 */
import { env, runInDurableObject, SELF } from "cloudflare:test";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { USER_CHANNEL_PROTOCOL } from "../../schemas/realtime.ts";
import { collectorCount, collectorName, collectorStatements, DrainCollector, type HandOver } from "../../durable/account/collector.ts";
import { api, seedSpotPair } from "../api/helpers.ts";
import { BTC, PAIR, USDT, objectTrader } from "./fixtures.ts";

const spot = (token: string, side: "buy" | "sell", price: string, num: string) =>
  api(side === "buy" ? "/transaction/walletIn" : "/transaction/walletOut", { token, body: { currency_id: BTC, legal_id: USDT, mode: 2, price, num } });

/** The collector the pair hands over to (the test Worker's DRAIN_COLLECTORS). */
const pairCollector = () => env.USER.get(env.USER.idFromName(collectorName({ kind: "pair", pairId: PAIR }, collectorCount(env))));

type Gatherer = { collector: DrainCollector | undefined };

/** Replaces the collector's gatherer with one whose D1 write is `write` and whose window is `windowMs`. */
async function collectorWriting(write: (handOvers: HandOver[], state: DurableObjectState) => Promise<unknown>, windowMs?: number) {
  await runInDurableObject(pairCollector(), (instance, state) => {
    const g = instance as unknown as Gatherer;
    g.collector?.hurry();
    g.collector = new DrainCollector((handOvers) => write(handOvers, state), Date.now, windowMs);
  });
}

const writeD1 = (handOvers: HandOver[]) => env.DB.batch(collectorStatements(env.DB, handOvers));

/** Whether the collector's open window holds a hand-over of the pair. */
const holdsPairBatch = () =>
  runInDurableObject(pairCollector(), (instance) => {
    const waiting = (instance as unknown as { collector?: { waiting: { handOver: HandOver }[] } }).collector?.waiting ?? [];
    return waiting.some((w) => w.handOver.source.kind === "pair");
  });

/** An order's row in the read model (status 2 = filled), or null before the pair's drain brought it. */
const orderRow = (id: string) => env.DB.prepare("SELECT status, filled FROM spot_orders WHERE id = ?").bind(id).first<{ status: number; filled: number }>();

/** The trades of an order in the read model. */
async function tradesOf(id: string) {
  const r = await env.DB.prepare("SELECT count(*) AS n FROM spot_trades WHERE buy_order_id = ?1 OR sell_order_id = ?1").bind(id).first<{ n: number }>();
  return r?.n ?? 0;
}

/** A seller's resting order of 0.01 BTC at `price` and a buyer's order that fills it whole: both ids. */
async function oneTrade(price: string) {
  const seller = await objectTrader("0", "1");
  const buyer = await objectTrader("10000", "0");
  const sold = await spot(seller.token, "sell", price, "0.01");
  expect(sold.body.message).toMatchObject({ status: "open" });
  const bought = await spot(buyer.token, "buy", price, "0.01");
  expect(bought.body.message).toMatchObject({ status: "filled", filled: "0.010000" });
  return { maker: sold.body.message.order_id as string, taker: bought.body.message.order_id as string, seller, buyer };
}

/** Both orders filled once in the read model (0.01 BTC = 10,000 units: a fill counted twice would show 20,000) and their one trade. */
async function expectFilledOnce(ids: { maker: string; taker: string }) {
  for (const id of [ids.maker, ids.taker]) {
    await expect.poll(() => orderRow(id)).toEqual({ status: 2, filled: 10_000 });
    expect(await tradesOf(id)).toBe(1);
  }
}

/** The user's private socket; `events` collects what arrives, `closed` its close code. */
async function privateSocket(token: string) {
  const res = await SELF.fetch("http://exchange.test/ws/user", { headers: { upgrade: "websocket", "sec-websocket-protocol": `${USER_CHANNEL_PROTOCOL}, bearer.${token}` } });
  expect(res.status).toBe(101);
  const ws = res.webSocket!;
  const events: { type: string; order_id?: number; status?: string }[] = [];
  let code: number | null = null;
  ws.addEventListener("message", (e) => events.push(JSON.parse(String(e.data))));
  ws.addEventListener("close", (e) => void (code = e.code));
  ws.accept();
  return { ws, events, closed: () => code };
}

beforeAll(async () => {
  await seedSpotPair();
});

afterEach(async () => {
  await collectorWriting(writeD1);
});

describe("the pair's drain through the collector objects", () => {
  it("brings a trade and both orders into the read model through the collector, once, with the accounts' movements", async () => {
    const before = (await pairCollector().collectorStats())?.pairBatches ?? 0;
    // Nobody drains by hand: the pair's alarm hands its batch to the collector.
    const ids = await oneTrade("50000");
    await expectFilledOnce(ids);
    expect((await pairCollector().collectorStats())!.pairBatches).toBeGreaterThan(before);
    // The batches' rows keep no body once applied.
    const left = await env.DB.prepare("SELECT count(*) AS n FROM pair_read_batches WHERE pair_id = ? AND body IS NOT NULL").bind(PAIR).first<{ n: number }>();
    expect(left?.n).toBe(0);
    // The seller's own history (which drains the pair first, directly) shows the same, once.
    const history = await api("/new/transaction/orders", { token: ids.seller.token, method: "GET" });
    expect(history.body.data.lists).toEqual([expect.objectContaining({ id: ids.maker, state: "filled", filled: "0.010000" })]);
  });

  it("counts each fill once after the collector dies having written the pair's batch (the pair sends it again)", async () => {
    let crashes = 0;
    await collectorWriting(async (handOvers, state) => {
      await writeD1(handOvers);
      if (crashes === 0 && handOvers.some((h) => h.source.kind === "pair")) {
        crashes += 1;
        state.abort("collector crash (test)");
      }
    });
    const ids = await oneTrade("50001");
    await expect.poll(() => crashes).toBe(1);
    // D1 has the batch already; the pair never heard so and hands it over again to a fresh collector.
    await expectFilledOnce(ids);
    await expect.poll(async () => (await pairCollector().collectorStats())?.pairBatches ?? 0).toBeGreaterThan(0);
    expect(await orderRow(ids.maker)).toEqual({ status: 2, filled: 10_000 });
    const notes = await env.DB.prepare("SELECT count(*) AS n FROM notifications WHERE user_id = ? AND kind = 'spot_filled'").bind(ids.seller.id).first<{ n: number }>();
    expect(notes?.n).toBe(1);
  });

  it("keeps the pair's orders and trades while D1 fails and writes each once when D1 answers again", async () => {
    let d1Down = true;
    let refused = 0;
    await collectorWriting(async (handOvers) => {
      if (d1Down) {
        if (handOvers.some((h) => h.source.kind === "pair")) refused += 1;
        throw new Error("D1_ERROR: the database is unreachable (test)");
      }
      return writeD1(handOvers);
    });
    const ids = await oneTrade("50002");
    await expect.poll(() => refused).toBeGreaterThanOrEqual(2);
    expect(await orderRow(ids.taker)).toBeNull();
    expect(await tradesOf(ids.taker)).toBe(0);
    d1Down = false;
    await expectFilledOnce(ids);
  });

  it("shows a just-placed order in one's open orders at once while the collector's window holds the pair's batch", async () => {
    // A window far longer than any wait: only a hurried collector writes the pair's batch in time.
    await collectorWriting(writeD1, 3_600_000);
    const a = await objectTrader("10000", "0");
    const placed = await spot(a.token, "buy", "30000", "0.01");
    expect(placed.body.message).toMatchObject({ status: "open" });
    const id = placed.body.message.order_id as string;
    await expect.poll(holdsPairBatch).toBe(true);
    expect(await orderRow(id)).toBeNull();
    const open = await api(`/new/transaction/index?currency_id=${BTC}`, { token: a.token, method: "GET" });
    expect(open.body.data.lists).toEqual([expect.objectContaining({ id })]);
    expect(await orderRow(id)).toEqual({ status: 1, filled: 0 });
  });

  it("sends the order events of the pair's drain to the user's live sockets only (the object checks the sessions)", async () => {
    const seller = await objectTrader("0", "1");
    const other = (await api("/user/login", { body: { user_string: seller.account, password: seller.password, type: 1 } })).body.message.token as string;
    const leaving = await privateSocket(seller.token);
    const staying = await privateSocket(other);
    const sold = await spot(seller.token, "sell", "50003", "0.01");
    const id = Number(sold.body.message.order_id);
    for (const s of [leaving, staying]) await expect.poll(() => s.events.filter((e) => e.type === "order")).toEqual([expect.objectContaining({ order_id: id, status: "open" })]);
    // One session logs out: at the next event its socket is closed and gets nothing; the other gets the fill.
    expect((await api("/user/logout", { token: seller.token, body: {} })).body.type).toBe("ok");
    const buyer = await objectTrader("10000", "0");
    expect((await spot(buyer.token, "buy", "50003", "0.01")).body.message).toMatchObject({ status: "filled" });
    await expect.poll(() => staying.events.filter((e) => e.type === "order").map((e) => e.status)).toEqual(["open", "filled"]);
    await expect.poll(leaving.closed).toBe(4001);
    expect(leaving.events.filter((e) => e.type === "order").map((e) => e.status)).toEqual(["open"]);
    staying.ws.close();
  });
});
