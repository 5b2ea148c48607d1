/**
 * A seconds contract's and a lever open's acceptance reach D1 with the pair object's drain batch,
 * not in a status update of the submit's own (issue #17 §2): the answer comes from the object, and
 * D1's held row (status 0) learns its entry once the drain runs. Whatever happens between the
 * acceptance and the drain (D1 unreachable, the reconciler getting there first), every held row is
 * resolved exactly once and the money is exact. The pair object keeps the house's holds of open
 * contracts in memory: after a restart they are read again, and a settled contract frees its share.
 * A lever open may be priced on the index the object told the Worker a moment ago: moved beyond the
 * tolerance since, the object refuses it and the open is priced again on a fresh quote.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { TREASURY } from "../../worker/lib/guarded.ts";
import { reconcileHeldContracts } from "../../worker/domain/seconds/orders.ts";
import { noteIndex, reconcileHeldPositions } from "../../worker/domain/lever/positions.ts";
import { api, d1Only, drainPair, makeUser, onObjects, reconcileNow, seedSpotPair, units } from "./helpers.ts";
import { BTC, USDT } from "./spot-fixtures.ts";
import { bettor, expireNow, fundHouse, micro, orderRow, settled, stubOf, submit, twoSidedBook } from "./seconds-fixtures.ts";
import { lever, leverUser, open, positionRow, setIndex } from "./lever-fixtures.ts";

const PAIR = 1;
/** A payable coin with small exposure limits: the house holds at most 20 per user and 30 on the pair. */
const LIMITED = 9;

const movements = async (prefix: string) =>
  (await env.DB.prepare("SELECT key FROM movements WHERE key LIKE ? ORDER BY key").bind(`${prefix}%`).all<{ key: string }>()).results.map((r) => r.key);

/** Restarts the pair object as a crash would (its memory is gone; storage stays). */
async function restart() {
  await runInDurableObject(stubOf(PAIR), async (_obj, state) => state.abort("test restart")).catch(() => undefined);
}

/**
 * The held row: in D1 mode the submit writes the contract or position held (status 0) and the
 * pair's drain or the reconciler confirms it. In objects mode the record first reaches D1 with the
 * pair's drain (tests/objects/seconds-objects.test.ts, lever-objects.test.ts): no held row to keep.
 */
const HELD_ROW = d1Only("D1's held row of an acceptance");

beforeAll(async () => {
  await seedSpotPair();
  await env.DB.prepare("INSERT INTO currencies (id, name, scale) VALUES (?, 'TST', 8) ON CONFLICT DO NOTHING").bind(LIMITED).run();
  await fundHouse(USDT, units("1000000"));
  await fundHouse(LIMITED, units("1000000"));
  const op = await makeUser({ role: "operator" });
  const r = await api("/admin/seconds/currencies", {
    token: op.token,
    body: { currency_id: LIMITED, micro_numbers: ["10"], min_number: "1", max_number: "100", fee_percent: "2", pair_exposure: "30", user_exposure: "20", status: 1, reason: "test coin" },
  });
  expect(r.body.type).toBe("ok");
  await twoSidedBook();
});

describe.skipIf(HELD_ROW)("a seconds contract accepted while D1 cannot take its acceptance yet", () => {
  it("is answered at once, stays held in D1, and is confirmed exactly once by whichever comes first, the reconciler or the drain", async () => {
    const u = await bettor("100");
    const house = await micro(TREASURY);
    await drainPair(PAIR);
    await env.DB.prepare("CREATE TRIGGER test_d1_down BEFORE UPDATE OF status ON micro_orders BEGIN SELECT RAISE(ABORT, 'd1 down'); END").run();
    let mine: Record<string, unknown>;
    try {
      const r = await submit(u.token, { number: "10", seconds: 30 });
      expect(r.body.type).toBe("ok");
      mine = r.body.message;
      expect(mine).toMatchObject({ status: 1, number: "10.00000000" });
      expect(mine.open_price).not.toBeNull();
      // The drain cannot apply the acceptance: D1 still shows the contract held, its money held once.
      await drainPair(PAIR).catch(() => undefined);
      expect(Number((await orderRow(Number(mine.id)))!.status)).toBe(0);
      // Listed as running meanwhile.
      expect((await api("/microtrade/lists", { token: u.token })).body.message.map((o: { id: number }) => o.id)).toContain(mine.id);
    } finally {
      await env.DB.prepare("DROP TRIGGER test_d1_down").run();
    }
    // D1 is back: the reconciler asks the object (known) and notes the entry, or the drain did first.
    await reconcileHeldContracts(env, Date.now() + 1, 0);
    await drainPair(PAIR);
    await reconcileHeldContracts(env, Date.now() + 1, 0);
    const row = (await orderRow(Number(mine.id)))!;
    expect(row).toMatchObject({ status: 1, open_tick_id: mine.open_tick_id, end_at: mine.end_at });
    const listed = (await api("/microtrade/lists", { token: u.token })).body.message.find((o: { id: number }) => o.id === mine.id);
    expect(listed.open_price).toBe(mine.open_price);
    expect(await movements(`micro:${mine.id}:`)).toEqual([`micro:${mine.id}:open`]);
    expect(await micro(u.id)).toEqual([units("100") - units("10.2"), units("10")]);
    expect(await micro(TREASURY)).toEqual([house[0] - units("8"), house[1] + units("8")]);
    expect((await reconcileNow()).differences).toEqual([]);
  });
});

describe("the house's holds of open contracts, kept by the pair object", () => {
  it("count every open contract against the exposure limits after the object restarts, and a settled contract frees its share", async () => {
    const a = await bettor("1000", LIMITED);
    const b = await bettor("1000", LIMITED);
    const first = (await submit(a.token, { currency_id: LIMITED, number: "25" })).body; // holds 20: a's limit
    expect(first.type).toBe("ok");
    await restart();
    expect((await submit(a.token, { currency_id: LIMITED, number: "1" })).body).toMatchObject({ code: "exposure_user" });
    expect((await submit(b.token, { currency_id: LIMITED, number: "12.5" })).body.type).toBe("ok"); // holds 10: the pair at 30
    await restart();
    expect((await submit(b.token, { currency_id: LIMITED, number: "1" })).body).toMatchObject({ code: "exposure_pair" });
    // a's contract runs out and is paid: its 20 no longer count, for a or for the pair.
    await drainPair(PAIR);
    await expireNow(PAIR, first.message.id);
    await settled(PAIR, first.message.id);
    expect((await submit(a.token, { currency_id: LIMITED, number: "5" })).body.type).toBe("ok"); // a at 4, the pair at 14
    expect((await submit(b.token, { currency_id: LIMITED, number: "15" })).body).toMatchObject({ code: "exposure_user" }); // b would hold 22
    expect((await submit(b.token, { currency_id: LIMITED, number: "10" })).body.type).toBe("ok"); // b at 18, the pair at 22
    expect((await submit(a.token, { currency_id: LIMITED, number: "12.5" })).body).toMatchObject({ code: "exposure_pair" }); // the pair would hold 32
    // Refused contracts returned everything; the house holds exactly the open ones' payouts.
    await drainPair(PAIR);
    expect((await micro(TREASURY, LIMITED))[1]).toBe(units("22"));
    expect((await reconcileNow()).differences).toEqual([]);
  });
});

describe.skipIf(HELD_ROW)("a leveraged open accepted while D1 cannot take its acceptance yet", () => {
  it("is answered at once, stays held in D1, and is confirmed exactly once by whichever comes first, the reconciler or the drain", async () => {
    await setIndex("101.00");
    const u = await leverUser("100");
    await drainPair(PAIR);
    await env.DB.prepare("CREATE TRIGGER test_d1_down BEFORE UPDATE OF status ON lever_positions BEGIN SELECT RAISE(ABORT, 'd1 down'); END").run();
    let mine: Record<string, unknown>;
    try {
      const r = await open(u.token, {});
      expect(r.body.type).toBe("ok");
      mine = r.body.message;
      expect(mine).toMatchObject({ status: 2, open_price: "101.00" });
      await drainPair(PAIR).catch(() => undefined);
      expect(Number((await positionRow(Number(mine.id)))!.status)).toBe(0);
      // Listed as trading meanwhile (its open price shows once D1 has it).
      const trading = (await api(`/lever/my_trade?status=2&legal_id=${USDT}&currency_id=${BTC}`, { token: u.token, method: "POST" })).body.message.message.data;
      expect(trading.map((x: { id: number }) => x.id)).toEqual([mine.id]);
    } finally {
      await env.DB.prepare("DROP TRIGGER test_d1_down").run();
    }
    await reconcileHeldPositions(env, Date.now() + 1, 0);
    await drainPair(PAIR);
    await reconcileHeldPositions(env, Date.now() + 1, 0);
    expect(await positionRow(Number(mine.id))).toMatchObject({ status: 2, open_price: 10100 });
    expect(await movements(`lever:${mine.id}:`)).toEqual([`lever:${mine.id}:open`]);
    expect(await lever(u.id)).toEqual([units("100") - units("1.01") - units("0.00505"), units("1.01")]);
    expect((await reconcileNow()).differences).toEqual([]);
  });
});

describe("a leveraged open priced on an index the Worker remembered", () => {
  it("is refused by the object when the index has moved beyond the tolerance since, refunded once, and opened at a fresh quote", async () => {
    await setIndex("101.00");
    const u = await leverUser("100");
    const house = await lever(TREASURY);
    // The Worker remembers an index of 90.00 from a moment ago; the index is 101.00.
    noteIndex(PAIR, { tickId: 1, price: 9000 });
    const r = await api("/lever/submit", { token: u.token, body: { currency_id: BTC, legal_id: USDT, type: 1, share: 10, multiple: 10 } });
    expect(r.body.type).toBe("ok");
    const mine = r.body.message;
    // Held and paid at 101.00, as a fresh quote prices it.
    expect(mine).toMatchObject({ status: 2, open_price: "101.00", margin: "1.01000000", trade_fee: "0.00505000" });
    await drainPair(PAIR);
    const revoked = await env.DB.prepare("SELECT id, status, CAST(margin AS TEXT) AS margin FROM lever_positions WHERE user_id = ? AND id != ?").bind(u.id, mine.id).all<{ id: number; status: number; margin: string }>();
    expect(revoked.results).toEqual([{ id: expect.any(Number), status: 5, margin: String(units("0.9")) }]);
    const other = revoked.results[0]!.id;
    // D1's two movements of the refused open (in objects mode its hold is given back in the account object; the balances below hold in both).
    if (!onObjects()) expect(await movements(`lever:${other}:`)).toEqual([`lever:${other}:open`, `lever:${other}:refund`]);
    expect(await lever(u.id)).toEqual([units("100") - units("1.01") - units("0.00505"), units("1.01")]);
    expect((await lever(TREASURY))[1] - house[1]).toBe(units(mine.gain_cap));
    expect((await reconcileNow()).differences).toEqual([]);
  });
});
