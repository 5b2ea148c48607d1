/**
 * The pair object's drain stays cheap with notifications (issue #16 §1): a batch of settled
 * contracts of several owners reaches D1 in ONE D1 batch (no extra round trip) holding ONE
 * notifications statement for all of them, and each owner's `notification` push leaves only once
 * that batch is in D1.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import type { PairDurableObject } from "../../durable/pair/object.ts";
import { api, seedSpotPair, units } from "../api/helpers.ts";
import { bettor, fundHouse, stubOf, submit, twoSidedBook, userSocket } from "../api/seconds-fixtures.ts";
import { PAIR, USDT } from "../api/spot-fixtures.ts";

beforeAll(async () => {
  await seedSpotPair();
  await fundHouse(USDT, units("100000"));
  await twoSidedBook();
});

describe("the drain of settled contracts", () => {
  it("writes every owner's item with one statement in the batch's one D1 call, and pushes each owner after it", async () => {
    const a = await bettor("100");
    const b = await bettor("100");
    const ids: number[] = [];
    for (const u of [a, a, a, b, b]) ids.push((await submit(u.token, { type: 2, seconds: 30, number: "5" })).body.message.id);
    const sockets = [await userSocket(a), await userSocket(b)];
    type Watch = { batches: string[][]; pushedBefore: number[]; undo: () => void };
    await runInDurableObject(stubOf(PAIR), async (obj: PairDurableObject, state) => {
      // Watch what the object sends to D1: the SQL of each prepared statement, per batch call.
      const db = (obj as unknown as { env: Env }).env.DB;
      const sqlOf = new WeakMap<object, string>();
      const prepare = db.prepare.bind(db);
      const batch = db.batch.bind(db);
      const watch: Watch = { batches: [], pushedBefore: [], undo: () => Object.assign(db, { prepare, batch }) };
      (obj as unknown as { watch: Watch }).watch = watch;
      db.prepare = (sql: string) => {
        const s = prepare(sql);
        const bind = s.bind.bind(s);
        s.bind = (...values: unknown[]) => {
          const bound = bind(...values);
          sqlOf.set(bound, sql);
          return bound;
        };
        sqlOf.set(s, sql);
        return s;
      };
      db.batch = (async (stmts: D1PreparedStatement[]) => {
        watch.batches.push(stmts.map((s) => sqlOf.get(s) ?? "?"));
        watch.pushedBefore.push(sockets.reduce((n, s) => n + s.messages.length, 0));
        return batch(stmts);
      }) as typeof db.batch;
      // All five have run out: the drain's first step settles them, then applies them as one batch.
      state.storage.sql.exec("UPDATE contracts SET end_at = ? WHERE id IN (SELECT value FROM json_each(?)) AND status = 1", Date.now() - 1, JSON.stringify(ids));
    });
    await stubOf(PAIR).drain();
    const seen = await runInDurableObject(stubOf(PAIR), async (obj: PairDurableObject) => {
      const watch = (obj as unknown as { watch: Watch }).watch;
      watch.undo();
      return { batches: watch.batches, pushedBefore: watch.pushedBefore };
    });
    expect(seen.batches).toHaveLength(1);
    expect(seen.batches[0]!.filter((sql) => /INSERT INTO notifications/.test(sql))).toHaveLength(1);
    // Nothing was pushed before the batch was sent.
    expect(seen.pushedBefore).toEqual([0]);
    const items = async (token: string) => (await api("/notifications", { token })).body.message;
    expect((await items(a.token)).total).toBe(3);
    expect((await items(b.token)).total).toBe(2);
    for (const [i, s] of sockets.entries()) {
      for (let k = 0; k < 500 && !s.messages.some((m) => m.type === "notification"); k++) await new Promise((r) => setTimeout(r, 10));
      // One push per owner and batch: their closed contracts and one "read your inbox again".
      expect(s.messages.filter((m) => m.type === "notification"), `owner ${i}`).toHaveLength(1);
      expect(s.messages.filter((m) => m.type === "closed_microorder")).toHaveLength(i === 0 ? 3 : 2);
      s.ws.close();
    }
    const keys = await env.DB.prepare("SELECT event_key FROM notifications WHERE event_key IN (SELECT 'micro:' || value || ':settle' FROM json_each(?))").bind(JSON.stringify(ids)).all();
    expect(keys.results).toHaveLength(5);
  });
});
