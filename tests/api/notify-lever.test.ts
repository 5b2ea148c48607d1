/**
 * A closed leveraged position's notification (issue #16 §1): by hand, take-profit, stop-loss,
 * liquidation or the gain cap, written by the pair's drain in the close's own D1 batch (keyed
 * `lever:{id}:close`) with the reason, the net P/L (every fee counted: what the balance really did) and the close price, pushed to the owner after the
 * batch; never doubled by a repeated close, sweep or drain, never seen by another user.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { api, drainPair, seedSpotPair, units, type TestUser } from "./helpers.ts";
import { fundHouse, userSocket } from "./seconds-fixtures.ts";
import { lever, leverUser, open, positionRow, setIndex, stubOf, sweepNow } from "./lever-fixtures.ts";
import { signedMoney } from "../../worker/domain/notifications/events.ts";

type Item = { id: number; kind: string; title: string; body: string; link: string };

async function inbox(user: TestUser, lang = "en"): Promise<{ total: number; data: Item[] }> {
  return (await api("/notifications?limit=50", { token: user.token, lang })).body.message;
}

/** What the user's positions did to their lever balance (each test's user starts with 100 USDT there and nothing held). */
async function balanceChange(u: TestUser): Promise<string> {
  const [available, frozen] = await lever(u.id);
  return signedMoney(available + frozen - units("100"), 8);
}

const count = async (key: string) => (await env.DB.prepare("SELECT count(*) AS n FROM notifications WHERE event_key = ?").bind(key).first<{ n: number }>())!.n;

beforeAll(async () => {
  await seedSpotPair();
  await fundHouse(3, units("100000"));
  await setIndex("101.00");
});

describe("a closed leveraged position", () => {
  it("closed by hand: one item with the P/L and the price, pushed to its owner only, however often the close is sent at once", async () => {
    await setIndex("101.00");
    const u = await leverUser("100");
    const other = await leverUser("100");
    const p = (await open(u.token, {})).body.message;
    await setIndex("111.00");
    const mine = await userSocket(u);
    const theirs = await userSocket(other);
    const closes = await Promise.all([1, 2, 3].map(() => api("/lever/close", { token: u.token, body: { id: p.id } })));
    expect(closes.filter((r) => r.body.type === "ok")).toHaveLength(1);
    for (let i = 0; i < 500 && !mine.messages.some((m) => m.type === "notification"); i++) await new Promise((r) => setTimeout(r, 10));
    expect(mine.messages.filter((m) => m.type === "notification")).toHaveLength(1);
    expect(theirs.messages).toEqual([]);
    mine.ws.close();
    theirs.ws.close();
    const items = await inbox(u);
    expect(items.total).toBe(1);
    expect(items.data[0]).toMatchObject({ kind: "lever_closed", title: "Position closed: closed by you", link: `/lever/verify?id=${p.id}` });
    expect(items.data[0]!.body).toBe(`BTC/USDT position #${p.id} closed at 111.00. Net P/L after fees ${await balanceChange(u)} USDT.`);
    // P/L (111 − 101) × 0.1 = 1.00, less the open fee 0.00505 and the close fee 0.00555: the balance rose by 0.9894, and every place says so.
    expect(await balanceChange(u)).toBe("+0.9894");
    const shown = (await api(`/lever/position?id=${p.id}`, { token: u.token })).body.message;
    expect(shown).toMatchObject({ profit: "1.00000000", net_profit: "0.98940000" });
    expect((await inbox(u, "zh")).data[0]!.title).toBe("仓位已平仓：手动平仓");
    expect((await inbox(other)).total).toBe(0);
  });

  it("take-profit: one item with the reason and the P/L, however often the sweep runs", async () => {
    await setIndex("101.00");
    const u = await leverUser("100");
    const p = (await open(u.token, { type: 2, stop_profit: "95" })).body.message;
    await setIndex("95.00");
    await sweepNow();
    await sweepNow();
    expect((await positionRow(p.id))!.status).toBe(4);
    const items = await inbox(u);
    expect(items.total).toBe(1);
    expect(items.data[0]!.title).toBe("Position closed: take-profit");
    expect(items.data[0]!.body).toBe(`BTC/USDT position #${p.id} closed at 95.00. Net P/L after fees ${await balanceChange(u)} USDT.`);
  });

  it("stop-loss: a negative P/L", async () => {
    await setIndex("101.00");
    const u = await leverUser("100");
    const p = (await open(u.token, { stop_loss: "95" })).body.message;
    await setIndex("94.00");
    await sweepNow();
    expect((await positionRow(p.id))!.status).toBe(4);
    const item = (await inbox(u)).data[0]!;
    expect(item.title).toBe("Position closed: stop-loss");
    expect(item.body).toBe(`BTC/USDT position #${p.id} closed at 94.00. Net P/L after fees ${await balanceChange(u)} USDT.`);
  });

  it("liquidation: the loss stops at the margin", async () => {
    await setIndex("101.00");
    const u = await leverUser("100");
    const p = (await open(u.token, {})).body.message;
    await setIndex("50.00");
    await sweepNow();
    expect((await positionRow(p.id))!.status).toBe(4);
    const item = (await inbox(u)).data[0]!;
    expect(item.title).toBe("Position closed: liquidation");
    expect(item.body).toBe(`BTC/USDT position #${p.id} closed at 50.00. Net P/L after fees ${await balanceChange(u)} USDT.`);
  });

  it("gain cap: closed when the gain reaches what the house holds", async () => {
    await setIndex("101.00");
    const u = await leverUser("100");
    const p = (await open(u.token, {})).body.message;
    expect(p.cap_price).toBe("202.00");
    await setIndex("202.00");
    await sweepNow();
    expect(await positionRow(p.id)).toMatchObject({ status: 4, close_reason: "cap" });
    const item = (await inbox(u)).data[0]!;
    expect(item.title).toBe("Position closed: gain cap reached");
    expect(item.body).toBe(`BTC/USDT position #${p.id} closed at 202.00. Net P/L after fees ${await balanceChange(u)} USDT.`);
  });

  it("keeps one item when the drain runs the close again", async () => {
    await setIndex("101.00");
    const u = await leverUser("100");
    const p = (await open(u.token, {})).body.message;
    expect((await api("/lever/close", { token: u.token, body: { id: p.id } })).body.type).toBe("ok");
    expect(await count(`lever:${p.id}:close`)).toBe(1);
    // As if the object had lost its note that the close reached D1.
    const reset = await runInDurableObject(stubOf(1), async (_obj, state) => {
      const where = ["payload LIKE ? AND payload LIKE '%\"type\":\"close\"%'", `%"positionId":${p.id},%`] as const;
      const n = Number(state.storage.sql.exec(`SELECT count(*) AS n FROM outbox WHERE ${where[0]}`, where[1]).one().n);
      state.storage.sql.exec(`UPDATE outbox SET drained_at = NULL WHERE ${where[0]}`, where[1]);
      state.storage.sql.exec("UPDATE lever_positions SET status = 3 WHERE id = ?", p.id);
      return n;
    });
    expect(reset).toBe(1);
    await Promise.all([drainPair(1), drainPair(1)]);
    await drainPair(1);
    expect(await count(`lever:${p.id}:close`)).toBe(1);
    expect((await inbox(u)).total).toBe(1);
  });

  it("says nothing when a pending limit open is cancelled (nothing was closed)", async () => {
    await setIndex("101.00");
    const u = await leverUser("100");
    const p = (await open(u.token, { target_price: "90" })).body.message;
    expect(p.status).toBe(1);
    expect((await api("/lever/cancel", { token: u.token, body: { id: p.id } })).body.type).toBe("ok");
    await drainPair(1);
    expect((await inbox(u)).total).toBe(0);
  });
});
