/**
 * The capacity simulator (sim/capacity.ts) in a small shape: its counts are the model's formulas
 * (sim/capacity-model.ts: what each action calls at once, legs grouped per delivery round), and
 * the money it moves is conserved and applied exactly once, with accounts evicted and loaded back
 * and some deliveries sent twice. The 100-pair, 100,000-account run is `npm run sim:capacity`.
 */
import { describe, expect, it } from "vitest";
import { CapacityViolation, countCollectors, runCapacity, type ActionKind, type CapacityOptions, type ObjectClass } from "../../sim/capacity.ts";
import { ACTION_CALLS, LIMIT, ceiling, measured, predicted } from "../../sim/capacity-model.ts";

const SMALL: Partial<CapacityOptions> = { seed: 7, pairs: 6, accounts: 600, makers: 2, shards: 3, shardBy: "pair", seconds: 3, actionsPerPair: 40, roundMs: 100, duplicates: 0.05, resident: 60 };

describe("the object protocol at scale (capacity simulator)", () => {
  const r = runCapacity(SMALL);

  it("conserves every currency, applies every leg exactly once and keeps the read model equal to the objects, with accounts evicted and legs sent twice", () => {
    expect(r.checks.join("\n")).toMatch(/conservation/);
    expect(r.checks.join("\n")).toMatch(/exactly once/);
    expect(r.resident.evictions).toBeGreaterThan(100);
    expect(r.resident.restores).toBeGreaterThan(50);
    const again = Object.values(r.calls).reduce((n, c) => n + (c["legs (again)"] ?? 0), 0);
    expect(again).toBeGreaterThan(5);
    expect(r.trades).toBeGreaterThan(500);
    expect(r.insufficient).toBe(0);
  });

  it("writes the accounts' drains through collector objects in far fewer D1 statements, and more collectors spread their calls", () => {
    const one = r.collectors!.find((c) => c.k === 1)!;
    const eight = r.collectors!.find((c) => c.k === 8)!;
    // Without collectors every drain window is a D1 batch of its own (two statements or more).
    expect(one.statements * 10).toBeLessThan(r.drains.batches);
    expect(eight.peakCallsPerSecond).toBeLessThan(one.peakCallsPerSecond);
    expect(eight.statements).toBeGreaterThanOrEqual(one.statements);
  });

  it("counts a collector's window as one batch for every hand-over within it, and cuts a window past its rows", () => {
    const user = (at: number, rows = 3) => ({ at, name: `user:${at}`, system: false, rows });
    // Three users and a fee shard within 500 ms: one batch of one statement (migrations/0054); one later: another batch.
    expect(countCollectors([user(0), user(100), user(499), { at: 200, name: "fees:1", system: true, rows: 2 }, user(600)], 1)).toMatchObject({ batches: 2, statements: 2 });
    expect(countCollectors([user(0, 3_000), user(10, 3_000)], 1)).toMatchObject({ batches: 2, statements: 2 });
  });

  it("makes exactly the calls the model's table says for each action", () => {
    for (const [kind, calls] of Object.entries(ACTION_CALLS) as [ActionKind, Partial<Record<ObjectClass, number>>][]) {
      const n = r.actions[kind] ?? 0;
      expect(n, kind).toBeGreaterThan(0);
      const expected = Object.fromEntries(Object.entries(calls).map(([cls, k]) => [cls, k * n]));
      expect(r.callsPerAction[kind], kind).toEqual(expected);
    }
  });

  it("delivers legs grouped per round: a maker and a fee shard take at most one call per round of each of their pairs, not one per trade", () => {
    const { pairs, makers, shards, roundMs } = r.options;
    const rounds = 1000 / roundMs;
    // In any second: a maker quotes pairs/M pairs, a fee shard takes pairs/N (p mod N = k); each pair
    // runs `rounds` rounds, each giving a destination all its due legs in one call.
    expect(r.maxDestCalls).toBe(1);
    expect(r.peakDeliveries.maker).toBeGreaterThan(0);
    expect(r.peakDeliveries.maker).toBeLessThanOrEqual((pairs / makers) * rounds);
    expect(r.peakDeliveries.fees).toBeLessThanOrEqual(Math.ceil(pairs / shards) * rounds);
    // Many legs per call: trades far outnumber the calls that carried them.
    expect(r.legs.maker / r.calls.maker.legs!).toBeGreaterThan(3);
    expect(r.legs.fees / r.calls.fees.legs!).toBeGreaterThan(3);
    // The model's bound (its steps per round from the load) holds for the busiest second's deliveries.
    const p = predicted({ pairs, users: r.options.accounts, makers, shards, shardBy: "pair", rounds, a: r.options.actionsPerPair }, measured(r));
    expect(r.peakDeliveries.fees).toBeLessThanOrEqual(Math.ceil(p.fees));
  });

  it("gives a hot destination one call per round even when the round needs several steps for its many receivers", () => {
    // One round a second at 150 actions per pair: a round carries legs to most of the pair's 100 users, more receivers than one step calls.
    const slow = runCapacity({ ...SMALL, seconds: 2, roundMs: 1_000, actionsPerPair: 150 });
    expect(slow.maxSteps).toBeGreaterThan(1);
    expect(slow.maxDestCalls).toBe(1);
    expect(slow.legs.maker / slow.calls.maker.legs!).toBeGreaterThan(20);
  }, 120_000);

  it("sharding fees by trade id spreads no load: every busy round reaches every shard, unlike sharding by pair", () => {
    const byId = runCapacity({ ...SMALL, shardBy: "id" });
    expect(byId.calls.fees.legs!).toBeGreaterThan(r.calls.fees.legs! * 1.5);
  }, 120_000);

  it("fails a run whose core applies a leg twice or spends a hold past its amount", () => {
    expect(() => runCapacity({ ...SMALL, seconds: 1, mutations: { noKeyCheck: true } })).toThrow(CapacityViolation);
    expect(() => runCapacity({ ...SMALL, seconds: 1, mutations: { overspendHold: true } })).toThrow(CapacityViolation);
  }, 120_000);

  it("pays every pair's settlement when several pairs settle into one treasury shard in the same second", () => {
    // One shard: every pair's settlement of a second lands in treasury:0 (each leg is checked applied
    // on its first delivery, and the shard's balance against the events: a shared key would throw).
    const one = runCapacity({ ...SMALL, seconds: 2, shards: 1 });
    expect(one.actions.seconds).toBeGreaterThan(SMALL.pairs!);
    expect(one.legs.treasury).toBeGreaterThan(SMALL.pairs!);
    expect(one.checks.join("\n")).toMatch(/conservation/);
  }, 120_000);

  it("puts the market maker first at 100 pairs with one maker account and 100 ms rounds, and lifts the ceiling with more maker accounts", () => {
    const m = measured(r);
    const one = ceiling({ pairs: 100, users: 100_000, makers: 1, rounds: 10 }, m);
    expect(one).toMatchObject({ a: 0, binds: "maker" });
    const four = ceiling({ pairs: 100, users: 100_000, makers: 4, rounds: 10 }, m);
    expect(four.a).toBeGreaterThan(100);
    const p = predicted({ pairs: 100, users: 100_000, makers: 4, shards: Math.max(four.shards.fees, four.shards.treasury), shardBy: "pair", rounds: 10, a: four.a }, m);
    for (const v of Object.values(p)) expect(v).toBeLessThanOrEqual(LIMIT + 1e-6);
  });
});
