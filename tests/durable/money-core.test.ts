/**
 * The money core inside a real Durable Object: the same code the simulator proves, over the
 * object's SQLite storage (`ctx.storage.sql` + `transactionSync`) through durable/money/do-sql.ts.
 * A fresh pair object lends its storage (the core's tables sit beside the pair's own).
 */
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { MoneyCore, doSqlPort, migrateMoney, type Leg } from "../../durable/money/index.ts";

let n = 0;
const freshObject = () => env.PAIR.get(env.PAIR.idFromName(`money-core-test:${Date.now()}:${++n}`));

function coreOver(storage: DurableObjectStorage, name: string, sent: Leg[][] = []) {
  const sql = doSqlPort(storage);
  migrateMoney(sql);
  return new MoneyCore(name, { sql, clock: { now: () => Date.now() }, random: { next: Math.random }, transport: { send: (_f, _t, legs) => void sent.push(legs) } });
}

describe("the money core in a Durable Object", () => {
  it("applies a leg once by its key, spends a hold in part and releases the rest", async () => {
    await runInDurableObject(freshObject(), async (_obj, state) => {
      const core = coreOver(state.storage, "u1");
      core.open("opening", "spot", "USDT", 1_000);
      expect(core.reserve({ key: "order:1", kind: "spot", cur: "USDT", amt: 300, forKind: "order", forId: "1" })).toBe("reserved");
      const fill: Leg = { key: "trade:1:buyer", to: "u1", ops: [{ t: "spend", hold: "order:1", cur: "USDT", amt: 120 }, { t: "credit", kind: "spot", cur: "BTC", amt: 12 }] };
      expect(core.receive([fill])).toEqual(["applied"]);
      expect(core.receive([fill])).toEqual(["seen"]);
      expect(core.receive([{ key: "order:1:cancel", to: "u1", ops: [{ t: "release", hold: "order:1", cur: "USDT", amt: 180 }] }])).toEqual(["applied"]);
      expect(core.balances().map((b) => [b.kind, b.currency, b.available, b.frozen])).toEqual([
        ["spot", "BTC", 12, 0],
        ["spot", "USDT", 880, 0],
      ]);
      expect(core.hold("order:1")).toMatchObject({ spent: 120, released: 180, state: "resolved" });
    });
  });

  it("writes a leg's movement as one row per account and currency, however many ops and holds it has", async () => {
    await runInDurableObject(freshObject(), async (_obj, state) => {
      const core = coreOver(state.storage, "u1");
      core.open("opening", "spot", "USDT", 1_000);
      for (const id of [1, 2, 3]) expect(core.reserve({ key: `order:${id}`, kind: "spot", cur: "USDT", amt: 100, forKind: "order", forId: String(id) })).toBe("reserved");
      const before = core.undrained().length;
      // A commit's three fills for this account in one leg: each spends its order's hold, gets its price improvement back and its coins.
      const ops = [1, 2, 3].flatMap((id) => [
        { t: "spend" as const, hold: `order:${id}`, cur: "USDT", amt: 90 },
        { t: "release" as const, hold: `order:${id}`, cur: "USDT", amt: 10 },
        { t: "credit" as const, kind: "spot", cur: "BTC", amt: id },
      ]);
      expect(core.receive([{ key: "trade:1:c7:u1", to: "u1", ops }])).toEqual(["applied"]);
      const rows = core.undrained().slice(before);
      expect(rows.map((m) => [m.ref, m.kind, m.currency, m.d_available, m.d_frozen])).toEqual([
        ["trade:1:c7:u1#0", "spot", "USDT", 30, -300],
        ["trade:1:c7:u1#2", "spot", "BTC", 6, 0],
      ]);
      // The rows add up to the balances, and every hold is resolved.
      expect(core.balances().map((b) => [b.currency, b.available, b.frozen])).toEqual([
        ["BTC", 6, 0],
        ["USDT", 730, 0],
      ]);
      for (const id of [1, 2, 3]) expect(core.hold(`order:${id}`)).toMatchObject({ spent: 90, released: 10, state: "resolved" });
    });
  });

  it("reserves a batch's holds with one movement per account and currency, named after the first hold", async () => {
    await runInDurableObject(freshObject(), async (_obj, state) => {
      const core = coreOver(state.storage, "u1");
      core.open("opening", "spot", "USDT", 1_000);
      core.open("opening:btc", "spot", "BTC", 5);
      const before = core.undrained().length;
      const hold = (id: number, cur: string, amt: number) => ({ key: `order:${id}`, kind: "spot", cur, amt, forKind: "order", forId: String(id) });
      const made = core.reserveMany([hold(1, "USDT", 300), hold(2, "BTC", 2), hold(3, "USDT", 400), hold(4, "USDT", 400)]);
      expect(made.map((m) => m.result)).toEqual(["reserved", "reserved", "reserved", "insufficient"]);
      expect(core.undrained().slice(before).map((m) => [m.ref, m.currency, m.d_available, m.d_frozen])).toEqual([
        ["order:1:reserve", "USDT", -700, 700],
        ["order:2:reserve", "BTC", -2, 2],
      ]);
      expect(core.balances().map((b) => [b.currency, b.available, b.frozen])).toEqual([
        ["BTC", 3, 2],
        ["USDT", 300, 700],
      ]);
    });
  });

  it("locks a credit straight into a new hold (frozen until released), once, never onto a hold already there", async () => {
    await runInDurableObject(freshObject(), async (_obj, state) => {
      const core = coreOver(state.storage, "u1");
      const lock: Leg = { key: "launch:1:2:allocate", to: "u1", ops: [{ t: "lock", hold: "launch_locked:1", kind: "change", cur: "TK", amt: 500, forKind: "launch_locked", forId: "1" }] };
      expect(core.receive([lock])).toEqual(["applied"]);
      expect(core.receive([lock])).toEqual(["seen"]);
      expect(core.balances().map((b) => [b.kind, b.currency, b.available, b.frozen])).toEqual([["change", "TK", 0, 500]]);
      expect(core.hold("launch_locked:1")).toMatchObject({ amount: 500, spent: 0, released: 0, state: "open", for_kind: "launch_locked", for_id: "1" });
      // Another lock under the same hold's name, and a lock resolved in its own leg: refused whole, nothing moved.
      expect(core.receive([{ ...lock, key: "again" }])).toEqual(["refused"]);
      const both: Leg = { key: "both", to: "u1", ops: [{ t: "lock", hold: "h2", kind: "change", cur: "TK", amt: 5, forKind: "x", forId: "2" }, { t: "release", hold: "h2", cur: "TK", amt: 5 }] };
      expect(core.receive([both])).toEqual(["refused"]);
      expect(core.hold("h2")).toBeUndefined();
      expect(core.receive([{ key: "claim", to: "u1", ops: [{ t: "release", hold: "launch_locked:1", cur: "TK", amt: 200 }] }])).toEqual(["applied"]);
      expect(core.balances().map((b) => [b.kind, b.currency, b.available, b.frozen])).toEqual([["change", "TK", 200, 300]]);
    });
  });

  it("commits an event with its legs in one transaction and keeps them until acknowledged", async () => {
    await runInDurableObject(freshObject(), async (_obj, state) => {
      const sent: Leg[][] = [];
      const core = coreOver(state.storage, "deposits0", sent);
      core.open("opening", "system", "USDT", 500);
      const ev = { key: "deposit:1", local: [{ t: "debit" as const, kind: "system", cur: "USDT", amt: 200 }], legs: [{ key: "deposit:1:user", to: "u1", ops: [{ t: "credit" as const, kind: "spot", cur: "USDT", amt: 200 }] }] };
      expect(core.commit(ev)).toBe("committed");
      expect(core.commit(ev)).toBe("exists");
      expect(core.deliverDue().sent).toBe(1);
      expect(sent.flat().map((l) => l.key)).toEqual(["deposit:1:user"]);
      expect(core.outbox()).toHaveLength(1);
      core.acknowledge(["deposit:1:user"]);
      expect(core.outbox()).toEqual([]);
      expect(core.balances()[0]).toMatchObject({ kind: "system", available: 300 });
    });
  });

  it("leaves nothing behind when an event's writes throw, and refuses an overdraft in storage", async () => {
    await runInDurableObject(freshObject(), async (_obj, state) => {
      const core = coreOver(state.storage, "pair");
      expect(() => core.commit({ key: "escrow:1:release", legs: [] }, () => state.storage.sql.exec("SELECT * FROM no_such_table"))).toThrow();
      expect(core.hasKey("escrow:1:release")).toBe(false);
      core.open("opening", "spot", "USDT", 10);
      expect(() => state.storage.sql.exec("UPDATE money_balances SET available = available - 11")).toThrow(/CHECK/);
      expect(core.balances()[0]?.available).toBe(10);
    });
  });
});
