/**
 * Spot order ids across pairs, with the balances in the account objects (found by
 * `bench/crash.mjs --accounts objects --seed 61`: two users' batches on pairs 1 and 2 drew the same
 * ids in one millisecond, both were booked, and D1's `spot_orders` kept one row for each pair of
 * them, so clients were answered with another user's order). A pair now draws only ids of its slot
 * (worker/lib/ids.ts `spotOrderId`), and an order of a batch that meets another user's order on the
 * same pair (ID_TAKEN) is drawn again instead of being answered "try again".
 *
 * The draws are forced to coincide: the Worker runs in the test's isolate, so a fixed clock
 * (`vi.setSystemTime`) and a fixed `crypto.getRandomValues` for the request's one draw give two
 * requests the same millisecond and the same random bits.
 */
import { env } from "cloudflare:test";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { BATCH_STEP, PAIR_SLOTS, spotOrderId } from "../../worker/lib/ids.ts";
import { accountStub } from "../../worker/lib/accounts.ts";
import { api, seedSpotPair, units } from "../api/helpers.ts";
import { BTC, USDT, objectTrader } from "./fixtures.ts";

const ETH = 2;
/** The random value every forced draw gets. */
const BITS = 37;

beforeAll(async () => {
  await seedSpotPair();
  await seedSpotPair({ pairId: 2, currencyId: ETH });
});
afterEach(() => {
  vi.restoreAllMocks();
  vi.useRealTimers();
});

/** From now on the clock stands at one millisecond (the same for every request until real timers come back). */
function oneMillisecond() {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(Date.now());
}

/** The next random draw (a request's id: its one draw) gets BITS; later ones are random again. */
function sameBits() {
  const spy = vi.isMockFunction(crypto.getRandomValues) ? vi.mocked(crypto.getRandomValues) : vi.spyOn(crypto, "getRandomValues");
  spy.mockImplementationOnce(<T extends ArrayBufferView | null>(buf: T): T => {
    if (buf instanceof Uint32Array) buf.fill(BITS);
    return buf;
  });
}

/** Two requests, one after the other, in one millisecond, each drawing its id with the same random bits. */
async function coinciding<A, B>(first: () => Promise<A>, second: () => Promise<B>): Promise<[A, B]> {
  oneMillisecond();
  sameBits();
  const a = await first();
  sameBits();
  const b = await second();
  vi.useRealTimers();
  return [a, b];
}

/** Rows [id, user, pair] of `table` with these ids, in id order. */
async function rowsOf(table: "spot_orders" | "spot_conditional_orders", ids: string[]) {
  const { results } = await env.DB.prepare(`SELECT id, user_id, pair_id FROM ${table} WHERE id IN (${ids.map(() => "?").join(", ")}) ORDER BY id`)
    .bind(...ids.map(Number))
    .all<{ id: number; user_id: number; pair_id: number }>();
  return results.map((r) => [String(r.id), r.user_id, r.pair_id]);
}
const byId = (rows: (string | number)[][]) => rows.sort((a, b) => Number(a[0]) - Number(b[0]));

const buy = (token: string, coin: number, body: Record<string, unknown>) => api("/transaction/walletIn", { token, body: { currency_id: coin, legal_id: USDT, mode: 2, ...body } });
const batch = (token: string, orders: Record<string, unknown>[]) =>
  api("/transaction/batch", { token, body: { currency_id: BTC, legal_id: USDT, orders: orders.map((o) => ({ side: "buy", mode: 2, ...o })) } });

const drainPairs = (...pairs: number[]) => Promise.all(pairs.map((p) => env.PAIR.get(env.PAIR.idFromName(`pair:${p}`)).drain()));

describe("spot order ids drawn by two pairs", () => {
  it("are never the same, for any random bits in any millisecond", () => {
    const now = Date.UTC(2026, 10, 30, 3, 0, 0);
    for (const ms of [now, now + 1, now + 977]) {
      const seen = new Map<number, number>();
      // Every pair id of one 64 (the seeded pairs are 1, 2, 5, 6, 10, 11) and every random draw.
      for (let pairId = 1; pairId <= PAIR_SLOTS; pairId++)
        for (let r = 0; r < PAIR_SLOTS; r++) {
          const id = spotOrderId(pairId, ms, () => r);
          expect(seen.get(id) ?? pairId).toBe(pairId);
          seen.set(id, pairId);
          expect(Number.isSafeInteger(id)).toBe(true);
        }
      expect(seen.size).toBe(PAIR_SLOTS * PAIR_SLOTS);
    }
    // A batch's orders (first + k × BATCH_STEP) stay in their pair's slot.
    const first = spotOrderId(11, now, () => 63);
    for (let k = 0; k < 20; k++) expect((first + k * BATCH_STEP) % PAIR_SLOTS).toBe(spotOrderId(11, now, () => 0) % PAIR_SLOTS);
    expect(spotOrderId(1, now, () => 5)).not.toBe(spotOrderId(2, now, () => 5));
  });

  it("books two users' orders on two pairs in one millisecond with the same random bits as two orders, each its own row in D1", async () => {
    const x = await objectTrader("1000", "0");
    const y = await objectTrader("1000", "0");
    const [onBtc, onEth] = await coinciding(
      () => buy(x.token, BTC, { price: "100", num: "0.1", client_oid: "x-btc" }),
      () => buy(y.token, ETH, { price: "50", num: "0.2", client_oid: "y-eth" }),
    );
    expect([onBtc.body.message.status, onEth.body.message.status]).toEqual(["open", "open"]);
    const [xId, yId] = [onBtc.body.message.order_id as string, onEth.body.message.order_id as string];
    expect(xId).not.toBe(yId);

    await drainPairs(1, 2);
    await expect.poll(() => rowsOf("spot_orders", [xId, yId])).toEqual(byId([[xId, x.id, 1], [yId, y.id, 2]]));
    // Each client id answers its own order.
    const again = await buy(y.token, ETH, { price: "50", num: "0.2", client_oid: "y-eth" });
    expect(again.body.message).toMatchObject({ order_id: yId, status: "open", replayed: true });
  });
});

describe("a spot order whose id another user's order has on the same pair", () => {
  it("draws a batch's taken orders again and books them under new ids (no try_again), each client id answering its own order", async () => {
    const a = await objectTrader("1000", "0");
    const b = await objectTrader("1000", "0");
    const three = (who: string) => [0, 1, 2].map((k) => ({ price: String(90 + k), num: "0.1", client_oid: `${who}-${k}` }));
    // b's batch draws the same first id: the pair refuses all three as a's; the next draw is random.
    const [first, second] = await coinciding(
      () => batch(a.token, three("a")),
      () => batch(b.token, three("b")),
    );

    const aIds = (first.body.message.orders as { order_id: string }[]).map((o) => o.order_id);
    expect(second.body.message.orders).toEqual([0, 1, 2].map(() => expect.objectContaining({ status: "open" })));
    const bIds = (second.body.message.orders as { order_id: string }[]).map((o) => o.order_id);
    expect(new Set([...aIds, ...bIds]).size).toBe(6);
    // b's funds are in three open holds under the new ids, the first draws' holds given back.
    const holds = await accountStub(env, b.id).accountOpenHolds(b.id);
    expect(holds.map((h) => h.hold).sort()).toEqual(bIds.map((id) => `spot_order:${id}`).sort());

    await drainPairs(1);
    await expect.poll(() => rowsOf("spot_orders", [...aIds, ...bIds])).toHaveLength(6);
    for (const [id, userId] of await rowsOf("spot_orders", [...aIds, ...bIds])) expect(userId).toBe(aIds.includes(id as string) ? a.id : b.id);
    // Sent again, b's batch is answered with the orders booked under the new ids.
    const again = await batch(b.token, three("b"));
    expect(again.body.message.orders).toEqual(bIds.map((id) => expect.objectContaining({ order_id: id, replayed: true })));
  });

  it("draws a single order with a client id again and answers its client id with the order booked under the new id", async () => {
    const a = await objectTrader("1000", "0");
    const b = await objectTrader("1000", "0");
    const [mine, theirs] = await coinciding(
      () => buy(a.token, BTC, { price: "80", num: "0.1" }),
      () => buy(b.token, BTC, { price: "81", num: "0.1", client_oid: "b-single" }),
    );
    expect(theirs.body.message).toMatchObject({ status: "open" });
    expect(theirs.body.message.order_id).not.toBe(mine.body.message.order_id);
    const again = await buy(b.token, BTC, { price: "81", num: "0.1", client_oid: "b-single" });
    expect(again.body.message).toMatchObject({ order_id: theirs.body.message.order_id, status: "open", replayed: true });
    expect((await accountStub(env, b.id).accountOpenHolds(b.id)).map((h) => h.hold)).toEqual([`spot_order:${theirs.body.message.order_id}`]);
  });
});

describe("a client id whose first request was cut before the pair booked it, its id since taken by another user's order", () => {
  /** b's hold made by a request cut before the pair (`spot_order:{id}`, with the client id and its terms: a buy of 0.1 at `price` on pair 1). */
  const cutHold = (userId: number, id: string, clientId: string, price: number) =>
    accountStub(env, userId).accountReserve(userId, {
      forKind: "spot_order",
      forId: id,
      account: "change",
      currencyId: USDT,
      amount: units("0.1") * BigInt(price),
      owner: "pair:1",
      clientId,
      terms: JSON.stringify({ id: Number(id), side: "buy", kind: "limit", price: price * 100, qty: 100_000, pair_id: 1, reserved_units: Number(units("0.1") * BigInt(price)), budget: null }),
    });

  it("is booked anew under a new id when sent again, alone or in a batch, and answered with that order from then on", async () => {
    const a = await objectTrader("1000", "0");
    const b = await objectTrader("1000", "0");
    const taken = (await buy(a.token, BTC, { price: "70", num: "0.1" })).body.message.order_id as string;
    const takenInBatch = (await buy(a.token, BTC, { price: "71", num: "0.1" })).body.message.order_id as string;
    expect((await cutHold(b.id, taken, "b-cut", 72)).result).toBe("reserved");
    expect((await cutHold(b.id, takenInBatch, "b-cut-batch", 73)).result).toBe("reserved");

    const single = await buy(b.token, BTC, { price: "72", num: "0.1", client_oid: "b-cut" });
    expect(single.body.message).toMatchObject({ status: "open" });
    const [inBatch] = (await batch(b.token, [{ price: "73", num: "0.1", client_oid: "b-cut-batch" }])).body.message.orders as { order_id: string; status: string }[];
    expect(inBatch).toMatchObject({ status: "open" });
    const ids = [single.body.message.order_id as string, inBatch!.order_id];
    expect(ids).not.toContain(taken);
    expect(ids).not.toContain(takenInBatch);
    // The cut requests' holds went back; b's funds are in the two new orders' holds.
    expect((await accountStub(env, b.id).accountOpenHolds(b.id)).map((h) => h.hold).sort()).toEqual(ids.map((id) => `spot_order:${id}`).sort());
    expect((await buy(b.token, BTC, { price: "72", num: "0.1", client_oid: "b-cut" })).body.message).toMatchObject({ order_id: ids[0], replayed: true });
    expect((await batch(b.token, [{ price: "73", num: "0.1", client_oid: "b-cut-batch" }])).body.message.orders).toEqual([expect.objectContaining({ order_id: ids[1], replayed: true })]);
    await drainPairs(1);
    await expect.poll(() => rowsOf("spot_orders", [taken, takenInBatch, ...ids])).toEqual(byId([[taken, a.id, 1], [takenInBatch, a.id, 1], ...ids.map((id) => [id, b.id, 1])]));
  });
});

describe("conditional order ids (their OCO legs and children are spot orders under them)", () => {
  const stop = (token: string, coin: number, body: Record<string, unknown>) =>
    api("/transaction/conditional", { token, body: { currency_id: coin, legal_id: USDT, side: "buy", type: "stop_limit", num: "0.1", stop_price: "120", price: "121", ...body } });

  it("are never the same on two pairs in one millisecond with the same random bits", async () => {
    const x = await objectTrader("1000", "0");
    const y = await objectTrader("1000", "0");
    const [onBtc, onEth] = await coinciding(
      () => stop(x.token, BTC, {}),
      () => stop(y.token, ETH, {}),
    );
    expect([onBtc.body.message.status, onEth.body.message.status]).toEqual(["open", "open"]);
    const [xId, yId] = [onBtc.body.message.id as string, onEth.body.message.id as string];
    expect(xId).not.toBe(yId);
    await drainPairs(1, 2);
    await expect.poll(() => rowsOf("spot_conditional_orders", [xId, yId])).toEqual(byId([[xId, x.id, 1], [yId, y.id, 2]]));
  });

  it("draws one taken on the same pair again and answers its client id with the order under the new id", async () => {
    const a = await objectTrader("1000", "0");
    const b = await objectTrader("1000", "0");
    const [mine, theirs] = await coinciding(
      () => stop(a.token, BTC, {}),
      () => stop(b.token, BTC, { client_oid: "b-stop" }),
    );
    expect(theirs.body.message).toMatchObject({ status: "open" });
    expect(theirs.body.message.id).not.toBe(mine.body.message.id);
    const again = await stop(b.token, BTC, { client_oid: "b-stop" });
    expect(again.body.message).toMatchObject({ id: theirs.body.message.id, status: "open", replayed: true });
  });

  it("places anew, under a new id, one whose first request was cut before the pair and whose id another user's order has since", async () => {
    const a = await objectTrader("1000", "0");
    const b = await objectTrader("1000", "0");
    const taken = (await stop(a.token, BTC, {})).body.message.id as string;
    const terms = { id: Number(taken), pair_id: 1, side: "buy", type: "stop_limit", qty: 100_000, price: 12_100, stop_price: 12_000, limit_price: null, callback_bps: null, activation_price: null, reserved_units: Number(units("12.1")), created_at: Date.now() };
    const cut = await accountStub(env, b.id).accountReserve(b.id, { forKind: "spot_cond", forId: taken, account: "change", currencyId: USDT, amount: units("12.1"), owner: "pair:1", clientId: "b-cut-stop", terms: JSON.stringify(terms) });
    expect(cut.result).toBe("reserved");

    const sent = await stop(b.token, BTC, { client_oid: "b-cut-stop" });
    expect(sent.body.message).toMatchObject({ status: "open" });
    expect(sent.body.message.id).not.toBe(taken);
    expect((await accountStub(env, b.id).accountOpenHolds(b.id)).map((h) => h.hold)).toEqual([`spot_cond:${sent.body.message.id}`]);
    expect((await stop(b.token, BTC, { client_oid: "b-cut-stop" })).body.message).toMatchObject({ id: sent.body.message.id, replayed: true });
  });

  it("keeps one user's spot order and OCO drawn with one id on one pair apart, whichever comes first", async () => {
    const u = await objectTrader("1000", "0");
    const oco = (low: string) => stop(u.token, BTC, { type: "oco", price: low, stop_price: "120", limit_price: "121" });
    const holdsOf = async () => (await accountStub(env, u.id).accountOpenHolds(u.id)).map((h) => h.hold).sort();
    // The spot order first: the OCO's leg would be taken for its replay.
    const [spotFirst, ocoAfter] = await coinciding(
      () => buy(u.token, BTC, { price: "80", num: "0.1" }),
      () => oco("90"),
    );
    expect([spotFirst.body.message.status, ocoAfter.body.message.status]).toEqual(["open", "open"]);
    expect(ocoAfter.body.message.id).not.toBe(spotFirst.body.message.order_id);
    // The OCO first: the spot order would be answered as its leg.
    const [ocoFirst, spotAfter] = await coinciding(
      () => oco("91"),
      () => buy(u.token, BTC, { price: "81", num: "0.1" }),
    );
    expect([ocoFirst.body.message.status, spotAfter.body.message.status]).toEqual(["open", "open"]);
    expect(spotAfter.body.message.order_id).not.toBe(ocoFirst.body.message.id);
    expect(await holdsOf()).toEqual(
      [`spot_order:${spotFirst.body.message.order_id}`, `spot_cond:${ocoAfter.body.message.id}`, `spot_cond:${ocoFirst.body.message.id}`, `spot_order:${spotAfter.body.message.order_id}`].sort(),
    );
    // Four orders on the book: two spot orders and the two OCOs' legs.
    await drainPairs(1);
    const ids = [spotFirst.body.message.order_id, ocoAfter.body.message.id, ocoFirst.body.message.id, spotAfter.body.message.order_id] as string[];
    await expect.poll(() => rowsOf("spot_orders", ids)).toEqual(byId(ids.map((id) => [id, u.id, 1])));
  });
});
