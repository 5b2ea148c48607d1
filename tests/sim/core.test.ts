/**
 * The money core's rules, one at a time, over node:sqlite (the simulator checks them together
 * under faults; these say what each rule is). Each test owns a fresh in-memory database.
 */
import { describe, expect, it } from "vitest";
import { MoneyCore, migrateMoney, type Leg, type Mutations } from "../../durable/money/index.ts";
import { SYSTEM, secondsSettleLegs, type Covered } from "../../durable/money/legs.ts";
import { NodeSql, RolledBack } from "../../sim/sqlite.ts";

function makeCore(opts: { name?: string; mutations?: Mutations; funded?: number } = {}) {
  const sql = new NodeSql();
  migrateMoney(sql);
  const clock = { t: 1_000 };
  const sent: { to: string; legs: Leg[] }[] = [];
  const core = new MoneyCore(opts.name ?? "u1", {
    sql,
    clock: { now: () => clock.t },
    random: { next: () => 0 },
    transport: { send: (_from, to, legs) => void sent.push({ to, legs }) },
    mutations: opts.mutations,
  });
  if (opts.funded !== 0) core.open("opening", "spot", "USDT", opts.funded ?? 1_000);
  return { core, sql, clock, sent };
}

const spot = (core: MoneyCore) => core.balances().find((b) => b.kind === "spot" && b.currency === "USDT");
const hold = (amt: number, key = "order:1") => ({ key, kind: "spot", cur: "USDT", amt, forKind: "order", forId: key.split(":")[1]! });

describe("the money core", () => {
  it("reserves only what is available, once per hold key", () => {
    const { core } = makeCore();
    expect(core.reserve(hold(1_200))).toBe("insufficient");
    expect(core.reserve(hold(300))).toBe("reserved");
    expect(core.reserve(hold(300))).toBe("exists");
    expect(spot(core)).toMatchObject({ available: 700, frozen: 300 });
  });

  it("acknowledges a leg whose key it has seen without applying it again", () => {
    const { core } = makeCore();
    const leg: Leg = { key: "trade:1:seller", to: "u1", ops: [{ t: "credit", kind: "spot", cur: "USDT", amt: 50 }] };
    expect(core.receive([leg])).toEqual(["applied"]);
    expect(core.receive([leg, leg])).toEqual(["seen", "seen"]);
    expect(spot(core)?.available).toBe(1_050);
  });

  it("spends a hold in parts and releases the rest, never past its amount", () => {
    const { core } = makeCore();
    core.reserve(hold(300));
    const results = core.receive([
      { key: "fill:1", to: "u1", ops: [{ t: "spend", hold: "order:1", cur: "USDT", amt: 100 }] },
      { key: "fill:2", to: "u1", ops: [{ t: "spend", hold: "order:1", cur: "USDT", amt: 250 }] },
      { key: "end", to: "u1", ops: [{ t: "release", hold: "order:1", cur: "USDT", amt: 200 }] },
    ]);
    expect(results).toEqual(["applied", "refused", "applied"]);
    expect(core.hold("order:1")).toMatchObject({ spent: 100, released: 200, state: "resolved" });
    expect(spot(core)).toMatchObject({ available: 900, frozen: 0 });
    expect(core.refused()).toEqual([{ key: "fill:2", reason: "hold order:1 has 200 left, asked for 250" }]);
  });

  it("answers a second release of a resolved hold without moving anything (a second void)", () => {
    const { core } = makeCore();
    core.reserve(hold(300));
    expect(core.releaseRest("sweep:order:1", "order:1")).toBe("released");
    expect(core.receive([{ key: "order:1:refused", to: "u1", ops: [{ t: "release", hold: "order:1", cur: "USDT", amt: 300 }] }])).toEqual(["applied"]);
    expect(spot(core)).toMatchObject({ available: 1_000, frozen: 0 });
  });

  it("refuses an event whose legs do not balance, and writes nothing", () => {
    const { core } = makeCore({ name: "pair" });
    const unbalanced = { key: "trade:9", legs: [{ key: "trade:9:buyer", to: "u1", ops: [{ t: "credit" as const, kind: "spot", cur: "BTC", amt: 5 }] }] };
    expect(() => core.commit(unbalanced)).toThrow(/does not balance in BTC/);
    expect(core.outbox()).toEqual([]);
  });

  it("keeps an event's legs until they are acknowledged, retrying later each time", () => {
    const { core, clock, sent } = makeCore({ name: "deposits0", funded: 0 });
    core.open("opening", "system", "USDT", 500);
    const ev = { key: "deposit:1", local: [{ t: "debit" as const, kind: "system", cur: "USDT", amt: 200 }], legs: [{ key: "deposit:1:user", to: "u1", ops: [{ t: "credit" as const, kind: "spot", cur: "USDT", amt: 200 }] }] };
    expect(core.commit(ev)).toBe("committed");
    expect(core.commit(ev)).toBe("exists");
    expect(core.deliverDue()).toEqual({ sent: 1, retries: 0 });
    expect(core.deliverDue()).toEqual({ sent: 0, retries: 0 });
    clock.t += 100;
    expect(core.deliverDue()).toEqual({ sent: 1, retries: 1 });
    expect(sent.map((s) => s.to)).toEqual(["u1", "u1"]);
    core.acknowledge(["deposit:1:user"]);
    clock.t += 60_000;
    expect(core.deliverDue().sent).toBe(0);
    expect(core.balances()).toEqual([{ kind: "system", currency: "USDT", available: 300, frozen: 0 }].map((b) => expect.objectContaining(b)));
  });

  it("sends a leg without writing, and deletes an answered leg's row with its next commit (a restart before that sends it once more)", () => {
    const { core, sql, clock, sent } = makeCore({ name: "deposits0", funded: 0 });
    core.open("opening", "system", "USDT", 500);
    const deposit = (n: number) => ({ key: `deposit:${n}`, local: [{ t: "debit" as const, kind: "system", cur: "USDT", amt: 100 }], legs: [{ key: `deposit:${n}:user`, to: "u1", ops: [{ t: "credit" as const, kind: "spot", cur: "USDT", amt: 100 }] }] });
    const rows = () => sql.query<{ key: string; attempts: number; next_at: number }>("SELECT key, attempts, next_at FROM money_outbox ORDER BY seq");
    core.commit(deposit(1));
    const committed = rows();
    expect(core.deliverDue()).toEqual({ sent: 1, retries: 0 });
    // The first send changed no row: its retry is in memory.
    expect(rows()).toEqual(committed);
    expect(core.outbox()).toEqual([expect.objectContaining({ key: "deposit:1:user", attempts: 1, next_at: 1_100 })]);
    core.acknowledge(["deposit:1:user"]);
    // Answered: owed no more and never sent again, though its row waits for the next write.
    expect(rows().map((r) => r.key)).toEqual(["deposit:1:user"]);
    expect(core.outbox()).toEqual([]);
    expect(core.nextDue()).toBeNull();
    clock.t += 60_000;
    expect(core.deliverDue().sent).toBe(0);
    // A restart forgets the answer: the leg goes once more (its receiver answers "seen").
    const restarted = new MoneyCore("deposits0", { sql, clock: { now: () => clock.t }, random: { next: () => 0 }, transport: { send: (_from, to, legs) => void sent.push({ to, legs }) } });
    expect(restarted.outbox().map((r) => r.key)).toEqual(["deposit:1:user"]);
    // The next commit deletes the answered row in its own transaction.
    core.commit(deposit(2));
    expect(rows().map((r) => r.key)).toEqual(["deposit:2:user"]);
    // A retry is written: a leg its receiver does not answer leaves the window until its next try.
    expect(core.deliverDue()).toEqual({ sent: 1, retries: 0 });
    clock.t += 100;
    expect(core.deliverDue()).toEqual({ sent: 1, retries: 1 });
    expect(rows()).toEqual([{ key: "deposit:2:user", attempts: 2, next_at: clock.t + 200 }]);
    expect(sent.map((s) => s.legs[0]!.key)).toEqual(["deposit:1:user", "deposit:2:user", "deposit:2:user"]);
  });

  it("leaves nothing behind when the event's transaction rolls back", () => {
    const { core, sql } = makeCore({ name: "pair" });
    sql.failNextCommit = true;
    const ev = { key: "escrow:1:release", legs: [] };
    expect(() => core.commit(ev, () => sql.run("CREATE TABLE desk_rows (id TEXT)"))).toThrow(RolledBack);
    expect(core.hasKey("escrow:1:release")).toBe(false);
    expect(core.commit(ev)).toBe("committed");
  });

  it("moves funds between one's own accounts once per key, or not at all when short", () => {
    const { core } = makeCore();
    expect(core.transfer("t1", "spot", "lever", "USDT", 2_000)).toBe("insufficient");
    expect(core.transfer("t1", "spot", "lever", "USDT", 400)).toBe("moved");
    expect(core.transfer("t1", "spot", "lever", "USDT", 400)).toBe("seen");
    expect(core.balances().map((b) => [b.kind, b.available])).toEqual([
      ["lever", 400],
      ["spot", 600],
    ]);
  });

  it("refuses amounts that are not non-negative safe integers (money is never a float)", () => {
    const { core } = makeCore();
    expect(() => core.reserve(hold(0.5))).toThrow(/not a non-negative integer/);
    expect(() => core.transfer("t", "spot", "lever", "USDT", 2 ** 53)).toThrow(/not a non-negative integer/);
  });

  it("runs its migrations once (a restarted object keeps its tables and rows)", () => {
    const { core, sql } = makeCore();
    migrateMoney(sql);
    expect(spot(core)?.available).toBe(1_000);
  });

  it("pays both pairs' seconds settlements when two pairs settle into one treasury shard in the same second", () => {
    // One treasury shard covers a contract on each of two pairs, both lost in second 42: the
    // shard must take both stakes (a key without the pair would answer the second one `seen`).
    const { core: treasury } = makeCore({ name: "treasury:0", funded: 0 });
    treasury.open("opening", SYSTEM, "USDT", 1_000);
    const contract = (id: string): Covered => ({ id, cur: "USDT", user: `user:${id}`, kind: "micro", hold: `seconds:${id}`, amt: 100, treasury: "treasury:0", treasuryHold: `seconds:${id}`, treasuryAmt: 85 });
    for (const id of ["7", "8"]) treasury.reserve({ key: `seconds:${id}`, kind: SYSTEM, cur: "USDT", amt: 85, forKind: "seconds", forId: id });
    const legsOf = (pair: string, id: string) => secondsSettleLegs(pair, 42, [{ c: contract(id), won: false }]).filter((l) => l.to === "treasury:0");
    const [a, b] = [legsOf("pair:1", "7"), legsOf("pair:2", "8")];
    expect(a[0]!.key).toBe("seconds:pair:1:42:7:treasury:0");
    expect(treasury.receive([...a, ...b])).toEqual(["applied", "applied"]);
    expect(treasury.balances()).toEqual([{ kind: SYSTEM, currency: "USDT", available: 1_200, frozen: 0 }]);
  });

  it("delivers a round as one call per receiver with all its due legs, however many other receivers the round has", () => {
    const { core, sent } = makeCore({ name: "pair", funded: 0 });
    core.open("opening", "system", "USDT", 1_000_000);
    const credit = (key: string, to: string): Leg => ({ key, to, ops: [{ t: "credit", kind: "spot", cur: "USDT", amt: 1 }] });
    // 150 trades: each pays the market maker and a distinct taker, 300 legs to 151 receivers.
    for (let i = 0; i < 150; i++)
      core.commit({ key: `trade:${i}`, local: [{ t: "debit", kind: "system", cur: "USDT", amt: 2 }], legs: [credit(`trade:${i}:maker`, "mm"), credit(`trade:${i}:taker`, `user:${i}`)] });
    let steps = 0;
    while (core.deliverDue().sent > 0) steps++;
    expect(steps).toBe(3);
    const toMaker = sent.filter((s) => s.to === "mm");
    expect(toMaker).toHaveLength(1);
    expect(toMaker[0]!.legs).toHaveLength(150);
    expect(new Set(sent.map((s) => s.to)).size).toBe(sent.length);
  });

  it("bounds a call's legs: a receiver with more due legs than one call carries gets the rest in the next step", () => {
    const { core, sent } = makeCore({ name: "pair", funded: 0 });
    core.open("opening", "system", "USDT", 1_000_000);
    const legs: Leg[] = Array.from({ length: 300 }, (_, i) => ({ key: `fee:${i}`, to: "fees:0", ops: [{ t: "credit", kind: "system", cur: "USDT", amt: 1 }] }));
    core.commit({ key: "fees", local: [{ t: "debit", kind: "system", cur: "USDT", amt: 300 }], legs });
    expect(core.deliverDue().sent).toBe(256);
    expect(core.deliverDue().sent).toBe(44);
    expect(sent.map((s) => s.legs.length)).toEqual([256, 44]);
    expect(sent.flatMap((s) => s.legs.map((l) => l.key))).toEqual(legs.map((l) => l.key));
  });

  it("applies a leg over many holds exactly: each hold resolved, each balance moved once by the net, one movement row per account and currency", () => {
    const { core } = makeCore({ funded: 1_000 });
    for (let i = 1; i <= 5; i++) core.reserve(hold(100, `seconds:${i}`));
    // A settled chunk's user leg: each contract's hold spent in part and released for the rest, the wins summed into one credit.
    const ops: Leg["ops"] = [];
    for (let i = 1; i <= 5; i++) ops.push({ t: "spend", hold: `seconds:${i}`, cur: "USDT", amt: 10 * i }, { t: "release", hold: `seconds:${i}`, cur: "USDT", amt: 100 - 10 * i });
    ops.push({ t: "credit", kind: "spot", cur: "USDT", amt: 70 });
    expect(core.receive([{ key: "chunk:1:user", to: "u1", ops }])).toEqual(["applied"]);
    // 500 held; 150 spent, 350 released, 70 won.
    expect(spot(core)).toMatchObject({ available: 500 + 350 + 70, frozen: 0 });
    for (let i = 1; i <= 5; i++) expect(core.hold(`seconds:${i}`)).toMatchObject({ spent: 10 * i, released: 100 - 10 * i, state: "resolved" });
    const moves = core.undrained().filter((m) => m.ref.startsWith("chunk:1:user#"));
    expect(moves.map((m) => m.ref)).toEqual(["chunk:1:user#0"]);
    expect(moves.reduce((a, m) => a + m.d_available, 0)).toBe(420);
    expect(moves.reduce((a, m) => a + m.d_frozen, 0)).toBe(-500);
  });

  it("refuses a leg over many holds whole when one of its ops asks too much, writing nothing of it", () => {
    const { core } = makeCore({ funded: 1_000 });
    for (let i = 1; i <= 3; i++) core.reserve(hold(100, `seconds:${i}`));
    const before = core.undrained().length;
    const ops: Leg["ops"] = [
      { t: "release", hold: "seconds:1", cur: "USDT", amt: 100 },
      { t: "spend", hold: "seconds:2", cur: "USDT", amt: 60 },
      { t: "spend", hold: "seconds:2", cur: "USDT", amt: 60 },
      { t: "release", hold: "seconds:3", cur: "USDT", amt: 100 },
      { t: "credit", kind: "spot", cur: "USDT", amt: 5 },
    ];
    expect(core.receive([{ key: "chunk:2:user", to: "u1", ops }])).toEqual(["refused"]);
    expect(spot(core)).toMatchObject({ available: 700, frozen: 300 });
    for (let i = 1; i <= 3; i++) expect(core.hold(`seconds:${i}`)).toMatchObject({ spent: 0, released: 0, state: "open" });
    expect(core.undrained().length).toBe(before);
    expect(core.refused()).toEqual([{ key: "chunk:2:user", reason: "hold seconds:2 has 40 left, asked for 60" }]);
  });

  it("applies a grouped call whose first leg was already applied: that one is seen, the others apply once", () => {
    const { core } = makeCore({ funded: 1_000 });
    for (let i = 1; i <= 4; i++) core.reserve(hold(100, `seconds:${i}`));
    const chunk = (n: number, holds: number[]): Leg => ({
      key: `seconds:1:100:${n}:user:1`,
      to: "u1",
      ops: [...holds.map((i) => ({ t: "release" as const, hold: `seconds:${i}`, cur: "USDT", amt: 90 })), ...holds.map((i) => ({ t: "spend" as const, hold: `seconds:${i}`, cur: "USDT", amt: 10 })), { t: "credit", kind: "spot", cur: "USDT", amt: 1 }],
    });
    const first = chunk(1, [1, 2]);
    const second = chunk(3, [3, 4]);
    expect(core.receive([first])).toEqual(["applied"]);
    // The sender never heard the answer (a lost acknowledgement) and sends both chunks in one call.
    expect(core.receive([first, second])).toEqual(["seen", "applied"]);
    expect(core.receive([first, second])).toEqual(["seen", "seen"]);
    expect(spot(core)).toMatchObject({ available: 600 + 4 * 90 + 2, frozen: 0 });
    for (let i = 1; i <= 4; i++) expect(core.hold(`seconds:${i}`)).toMatchObject({ spent: 10, released: 90, state: "resolved" });
  });

  it("passes over a receiver with a call still out and sends the others their due legs", () => {
    const { core, sent } = makeCore({ name: "pair", funded: 0 });
    const release = (key: string, to: string) => ({ key, to, ops: [{ t: "release" as const, hold: `h:${key}`, cur: "USDT", amt: 1 }] });
    core.commit({ key: "chunk:1", legs: [release("chunk:1:a", "user:a"), release("chunk:1:b", "user:b")] });
    expect(core.deliverDue(new Set(["user:a"]))).toEqual({ sent: 1, retries: 0 });
    expect(sent.map((s) => [s.to, s.legs.map((l) => l.key)])).toEqual([["user:b", ["chunk:1:b"]]]);
    // user:a's leg is still due: it leaves with the next step once nothing is out to user:a.
    expect(core.deliverDue()).toEqual({ sent: 1, retries: 0 });
    expect(sent.at(-1)).toMatchObject({ to: "user:a", legs: [{ key: "chunk:1:a" }] });
  });

  it("applies a call's legs as one after another: a later leg sees what an earlier one locked, spent or used up", () => {
    const { core } = makeCore({ funded: 1_000 });
    core.reserve(hold(300));
    const results = core.receive([
      // Brings 200 in, straight into a new hold (a lock credits frozen funds).
      { key: "lock:1", to: "u1", ops: [{ t: "lock", hold: "margin:1", kind: "spot", cur: "USDT", amt: 200, forKind: "margin", forId: "1" }] },
      // Spends the hold the leg before made, and all of order:1.
      { key: "spend:1", to: "u1", ops: [{ t: "spend", hold: "margin:1", cur: "USDT", amt: 50 }, { t: "spend", hold: "order:1", cur: "USDT", amt: 300 }] },
      // order:1 was used up by the leg before: a release of it is a second void (answered, nothing moved), a spend is refused.
      { key: "void:1", to: "u1", ops: [{ t: "release", hold: "order:1", cur: "USDT", amt: 10 }] },
      { key: "spend:2", to: "u1", ops: [{ t: "spend", hold: "order:1", cur: "USDT", amt: 1 }, { t: "credit", kind: "spot", cur: "USDT", amt: 999 }] },
      // The same key twice in one call: applied once.
      { key: "credit:1", to: "u1", ops: [{ t: "credit", kind: "spot", cur: "USDT", amt: 7 }] },
      { key: "credit:1", to: "u1", ops: [{ t: "credit", kind: "spot", cur: "USDT", amt: 7 }] },
      { key: "release:1", to: "u1", ops: [{ t: "release", hold: "margin:1", cur: "USDT", amt: 150 }] },
    ]);
    expect(results).toEqual(["applied", "applied", "applied", "refused", "applied", "seen", "applied"]);
    expect(core.refused()).toEqual([{ key: "spend:2", reason: "hold order:1 is already resolved" }]);
    expect(core.hold("order:1")).toMatchObject({ spent: 300, released: 0, state: "resolved" });
    expect(core.hold("margin:1")).toMatchObject({ amount: 200, spent: 50, released: 150, state: "resolved" });
    // 1,000 - 300 (order:1's reserve) + 150 (margin:1's release) + 7 (the credit once); nothing frozen; the refused leg's credit not there.
    expect(spot(core)).toMatchObject({ available: 857, frozen: 0 });
  });

  it("writes a call of many legs in a few statements, not several per leg", () => {
    const { core, sql } = makeCore({ funded: 10_000 });
    for (let i = 1; i <= 50; i++) core.reserve(hold(100, `order:${i}`));
    let statements = 0;
    const run = sql.run.bind(sql);
    const query = sql.query.bind(sql);
    sql.run = (q, ...p) => (statements++, run(q, ...p));
    sql.query = (q, ...p) => (statements++, query(q, ...p));
    const legs: Leg[] = Array.from({ length: 50 }, (_, k) => ({
      key: `trade:${k}:buyer`,
      to: "u1",
      ops: [
        { t: "spend", hold: `order:${k + 1}`, cur: "USDT", amt: 90 },
        { t: "release", hold: `order:${k + 1}`, cur: "USDT", amt: 10 },
        { t: "credit", kind: "spot", cur: "BTC", amt: 1 },
      ],
    }));
    expect(core.receive(legs).every((r) => r === "applied")).toBe(true);
    // Keys, holds read, holds updated, two balances, movements: one statement each for the 50 legs.
    expect(statements).toBeLessThanOrEqual(6);
    expect(spot(core)).toMatchObject({ available: 10_000 - 50 * 90, frozen: 0 });
    expect(core.balances().find((b) => b.currency === "BTC")).toMatchObject({ available: 50 });
    expect(core.hold("order:50")).toMatchObject({ spent: 90, released: 10, state: "resolved" });
  });
});
