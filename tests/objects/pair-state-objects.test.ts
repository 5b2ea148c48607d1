/**
 * The spot pair's state in its pair object (ACCOUNTS=objects): an order and a batch read no `pairs`
 * row from D1 on their way; a pair closed, reopened or given a new minimum (`setPairState`: D1's row,
 * then the object) refuses or accepts orders at once, decided by the object at `place` even while an
 * isolate still believes the old state, and every hold made on the old state goes back.
 */
import { env } from "cloudflare:test";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { accountStub } from "../../worker/lib/accounts.ts";
import { orderPair, PAIR_CACHE_MS, setPairState } from "../../worker/domain/spot/pairs.ts";
import { api, seedSpotPair, units } from "../api/helpers.ts";
import { BTC, PAIR, USDT, objectBalances, objectTrader } from "./fixtures.ts";
import { onPath, statementsOf, stopRecording } from "./d1-statements.ts";

const spot = (token: string, body: Record<string, unknown> = {}) => api("/transaction/walletIn", { token, body: { currency_id: BTC, legal_id: USDT, mode: 2, price: "99", num: "0.1", ...body } });
const batch = (token: string) => api("/transaction/batch", { token, body: { currency_id: BTC, legal_id: USDT, orders: [1, 2].map(() => ({ side: "buy", mode: 2, price: "99", num: "0.1" })) } });
/** Any route that resolves the session in D1: the isolate then holds the session's hint, as a client's first screen does. */
const warm = async (token: string) => expect((await api("/user/info", { token })).body.type).toBe("ok");
const PAIRS_READ = /FROM pairs/i;
/** The seeded minimum, 5 USDT (tests/api/helpers.ts `seedSpotPair`). */
const MIN = units("5");

beforeAll(async () => {
  await seedSpotPair();
});

afterEach(async () => {
  stopRecording();
  await setPairState(env, PAIR, { open: true, minNotional: MIN });
});

describe("the pair's state in the pair object", () => {
  it("an order and a batch read no pair row from D1, and the isolate asks the object (not D1) once its copy is old", async () => {
    const a = await objectTrader("10000", "0");
    await warm(a.token);
    expect((await spot(a.token)).body.type).toBe("ok");
    const path = await statementsOf(async () => {
      expect((await spot(a.token)).body.type).toBe("ok");
      expect((await batch(a.token)).body.message.orders.map((o: { status?: string }) => o.status)).toEqual(["open", "open"]);
      // Past PAIR_CACHE_MS the isolate's copy of the state is asked of the pair object again.
      expect(await orderPair(env, BTC, USDT, Date.now() + PAIR_CACHE_MS + 1_000)).toMatchObject({ id: PAIR, open: true, minNotional: MIN });
    });
    expect(onPath(path).filter((s) => PAIRS_READ.test(s))).toEqual([]);
  });

  it("a closed pair refuses an order and a batch at once though this isolate believed it open, gives every hold back, and a reopened one takes orders at once", async () => {
    const a = await objectTrader("10000", "0");
    await warm(a.token);
    expect((await spot(a.token)).body.type).toBe("ok");
    const before = await objectBalances(a.id);
    const holds = await accountStub(env, a.id).accountOpenHolds(a.id);

    await setPairState(env, PAIR, { open: false });
    const path = await statementsOf(async () => {
      expect((await spot(a.token)).body).toMatchObject({ type: "error", code: "pair_closed" });
      expect((await batch(a.token)).body).toMatchObject({ type: "error", code: "pair_closed" });
      expect((await spot(a.token)).body).toMatchObject({ type: "error", code: "pair_closed" });
    });
    expect(onPath(path).filter((s) => PAIRS_READ.test(s))).toEqual([]);
    // Nothing stays held: the same balances and open holds as before the refusals.
    expect(await objectBalances(a.id)).toEqual(before);
    expect(await accountStub(env, a.id).accountOpenHolds(a.id)).toEqual(holds);

    await setPairState(env, PAIR, { open: true });
    const reopened = await statementsOf(async () => {
      expect((await spot(a.token)).body.type).toBe("ok");
    });
    expect(onPath(reopened).filter((s) => PAIRS_READ.test(s))).toEqual([]);
  });

  it("a new minimum applies to the very next order and batch, with the new minimum in the refusal, and nothing stays held", async () => {
    const a = await objectTrader("10000", "0");
    await warm(a.token);
    expect((await spot(a.token)).body.type).toBe("ok");
    const before = await objectBalances(a.id);

    // 0.1 × 99 = 9.9 USDT: above the seeded 5, below a new 50.
    await setPairState(env, PAIR, { minNotional: units("50") });
    const path = await statementsOf(async () => {
      expect((await spot(a.token)).body).toMatchObject({ type: "error", code: "min_notional" });
      const refused = (await batch(a.token)).body.message.orders as { code?: string; message?: string }[];
      expect(refused.map((o) => o.code)).toEqual(["min_notional", "min_notional"]);
      expect(refused[0]!.message).toContain("50");
      expect((await spot(a.token, { num: "1" })).body.type).toBe("ok");
    });
    expect(onPath(path).filter((s) => PAIRS_READ.test(s))).toEqual([]);
    expect(await objectBalances(a.id)).toEqual([["change", USDT, before[0]![2]! - units("99"), before[0]![3]! + units("99")]]);
  });
});
