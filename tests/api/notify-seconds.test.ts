/**
 * A settled seconds contract's notification (issue #16 §1): written by the pair's drain in the
 * settlement's own D1 batch (one statement for the whole batch), keyed like the settlement, with
 * the result, the net after the fee and the entry and exit ticks; pushed to the owner only after
 * the batch is in D1; never doubled by a drain that runs again, never seen by another user.
 */
import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { api, drainPair, seedSpotPair, units, type TestUser } from "./helpers.ts";
import { PAIR, USDT } from "./spot-fixtures.ts";
import { bettor, expireNow, fundHouse, settled, stubOf, submit, twoSidedBook, userSocket } from "./seconds-fixtures.ts";

type Item = { id: number; kind: string; title: string; body: string; link: string };

async function inbox(user: TestUser, lang = "en"): Promise<{ total: number; data: Item[] }> {
  return (await api("/notifications?limit=50", { token: user.token, lang })).body.message;
}

const count = async (key: string) => (await env.DB.prepare("SELECT count(*) AS n FROM notifications WHERE event_key = ?").bind(key).first<{ n: number }>())!.n;

beforeAll(async () => {
  await seedSpotPair();
  // A one-second duration, so the alarm settles without a fake clock.
  await env.DB.prepare("INSERT INTO seconds_options (seconds, profit_ratio_bps, status) VALUES (1, 8000, 1)").run();
  await fundHouse(USDT, units("1000000"));
  await twoSidedBook();
});

describe("a settled seconds contract", () => {
  it("leaves its owner one item with the outcome, the net after the fee and the entry and exit ticks, and pushes it after the batch", async () => {
    const u = await bettor("100");
    const other = await bettor("100");
    const mine = await userSocket(u);
    const theirs = await userSocket(other);
    // A tie pays a down contract: +8 on a stake of 10 with a fee of 0.2.
    const o = (await submit(u.token, { type: 2, seconds: 1, number: "10" })).body.message;
    const row = await settled(PAIR, o.id);
    for (let i = 0; i < 500 && mine.messages.length < 2; i++) await new Promise((r) => setTimeout(r, 10));
    expect(mine.messages.map((m) => m.type)).toEqual(["closed_microorder", "notification"]);
    expect(theirs.messages).toEqual([]);
    mine.ws.close();
    theirs.ws.close();
    const items = await inbox(u);
    expect(items.total).toBe(1);
    expect(items.data[0]).toMatchObject({ kind: "seconds_settled", link: `/trade/verify?id=${o.id}` });
    expect(items.data[0]!.title).toMatch(/^Contract settled: won$/i);
    expect(items.data[0]!.body).toBe(
      `BTC/USDT Down #${o.id}: entry ${o.open_price} (tick #${row.open_tick_id}), exit ${o.open_price} (tick #${row.end_tick_id}). Net +7.80 USDT.`,
    );
    expect((await inbox(u, "zh")).data[0]!.title).toBe("合约已结算：盈利");
    expect((await inbox(other)).total).toBe(0);
  });

  it("counts the fee in a loss: the net is the stake and the fee", async () => {
    const u = await bettor("100");
    // A tie loses an up contract.
    const o = (await submit(u.token, { type: 1, seconds: 1, number: "10" })).body.message;
    const row = await settled(PAIR, o.id);
    const item = (await inbox(u)).data[0]!;
    expect(item.title).toMatch(/^Contract settled: lost$/i);
    expect(item.body).toContain(`BTC/USDT Up #${o.id}:`);
    expect(item.body).toContain(`(tick #${row.open_tick_id})`);
    expect(item.body).toContain(`(tick #${row.end_tick_id})`);
    expect(item.body).toContain("Net -10.20 USDT.");
  });

  it("gives each owner their own items when many contracts settle in one drain batch", async () => {
    const a = await bettor("100");
    const b = await bettor("100");
    const ids: [TestUser, number][] = [];
    for (const [user, n] of [
      [a, 3],
      [b, 2],
    ] as const) {
      for (let i = 0; i < n; i++) ids.push([user, (await submit(user.token, { type: 2, seconds: 30, number: "5" })).body.message.id]);
    }
    // All of them expire at once, so one expiry settles them together and one drain batch applies them.
    const list = JSON.stringify(ids.map(([, id]) => id));
    const now = await runInDurableObject(stubOf(PAIR), async (_obj, state) => {
      const t = Date.now();
      state.storage.sql.exec("UPDATE contracts SET end_at = ? WHERE id IN (SELECT value FROM json_each(?)) AND status = 1", t, list);
      state.storage.sql.exec("INSERT INTO schedule (kind, due, rev) VALUES ('expiry', ?1, 0) ON CONFLICT (kind) DO UPDATE SET due = ?1, rev = rev + 1", t);
      return t;
    });
    await env.DB.prepare("UPDATE micro_orders SET end_at = ? WHERE id IN (SELECT value FROM json_each(?))").bind(now, list).run();
    for (const [, id] of ids) await settled(PAIR, id);
    const mineA = await inbox(a);
    const mineB = await inbox(b);
    expect(mineA.total).toBe(3);
    expect(mineB.total).toBe(2);
    const bodyIds = (items: Item[]) => items.map((n) => Number(/#(\d+):/.exec(n.body)![1])).sort((x, y) => x - y);
    expect(bodyIds(mineA.data)).toEqual(ids.filter(([u]) => u === a).map(([, id]) => id));
    expect(bodyIds(mineB.data)).toEqual(ids.filter(([u]) => u === b).map(([, id]) => id));
    for (const n of [...mineA.data, ...mineB.data]) expect(n.body).toContain("Net +3.90 USDT.");
  });

  it("keeps one item when the drain runs the settlement again", async () => {
    const u = await bettor("100");
    const o = (await submit(u.token, { type: 2, seconds: 30, number: "10" })).body.message;
    await expireNow(PAIR, o.id);
    await settled(PAIR, o.id);
    expect(await count(`micro:${o.id}:settle`)).toBe(1);
    // As if the object had lost its note that the settlement reached D1, then fired twice.
    const reset = await runInDurableObject(stubOf(PAIR), async (_obj, state) => {
      // The settlement's entry (its acceptance's entry names the contract too).
      const settlement = `%"settlement":{"orderId":${o.id},%`;
      const n = Number(state.storage.sql.exec("SELECT count(*) AS n FROM outbox WHERE payload LIKE ?", settlement).one().n);
      state.storage.sql.exec("UPDATE outbox SET drained_at = NULL WHERE payload LIKE ?", settlement);
      state.storage.sql.exec("UPDATE contracts SET status = 2 WHERE id = ?", o.id);
      return n;
    });
    expect(reset).toBe(1);
    await Promise.all([runDurableObjectAlarm(stubOf(PAIR)), drainPair(PAIR), drainPair(PAIR)]);
    await drainPair(PAIR);
    expect(await count(`micro:${o.id}:settle`)).toBe(1);
    expect((await inbox(u)).total).toBe(1);
  });
});
