/**
 * The deterministic simulator in every CI run: 10,000 seeded schedules of the money core under
 * crashes, duplicates, reordering, delays, alarm retries, rollbacks and refused calls, every
 * invariant checked after every step and again once the world is quiet. A failure names the
 * seed and the command that replays it (`npm run sim -- --seed S --seeds 1 --steps K --trace`).
 */
import { describe, expect, it } from "vitest";
import { replayCommand, runSeeds } from "../../sim/run.ts";
import { FAULT_KINDS, runSchedule } from "../../sim/world.ts";

const SCHEDULES = 10_000;
const STEPS = 20;
/** A bound on a hung run, not a speed check (10,000 schedules take about 20 s of CPU). */
const HUNG = 600_000;

/**
 * A seed that ever fails becomes a regression test here (`it("replays seed S …")`); none has
 * failed with the correct core so far. Pinned instead: one schedule that reaches every fault.
 */
// Seed 805 until session 19: the open fee's legs at a contract's and a position's acceptance changed the draws after them.
const EVERY_FAULT = { seed: 33, steps: 40 };

describe("the money protocol under seeded faults", () => {
  it(`holds every invariant over ${SCHEDULES.toLocaleString("en")} schedules, each fault kind and each product's money happening`, () => {
    const run = runSeeds(1, SCHEDULES, STEPS, false);
    const shares = Object.entries(run.hits).map(([k, n]) => `${k} ${((100 * n) / run.schedules).toFixed(1)}%`);
    console.log(`${run.schedules} schedules in ${(run.cpuMs / 1000).toFixed(1)} s of CPU; schedules per fault kind: ${shares.join(", ")}`);
    expect(run.failures.map((f) => (f.ok ? "" : `seed ${f.seed} step ${f.step}: ${f.failure} (replay: ${replayCommand(f.seed, STEPS)})`))).toEqual([]);
    expect(run.schedules).toBe(SCHEDULES);
    const missed = FAULT_KINDS.filter((k) => !(run.hits[k]! > 0));
    expect(missed, "every fault kind is hit by some schedule").toEqual([]);
    for (const event of ["order trades", "order cancel", "seconds settle", "position end", "escrow release", "escrow return", "transfer", "subscription day", "subscription end", "deposit", "orphan hold released", "refused command"])
      expect(run.events[event], event).toBeGreaterThan(0);
  }, HUNG);

  it(`holds every invariant in seed ${EVERY_FAULT.seed}, one schedule that hits every fault kind and trades`, () => {
    const r = runSchedule(EVERY_FAULT);
    expect(r.ok ? "" : r.failure).toBe("");
    expect([...r.faults].sort()).toEqual([...FAULT_KINDS].sort());
    expect(r.events["order trades"]).toBeGreaterThan(0);
  });

  it("replays a seed exactly: the same faults and the same events", () => {
    const a = runSchedule({ seed: 4242, steps: 40 });
    const b = runSchedule({ seed: 4242, steps: 40 });
    expect([...b.faults]).toEqual([...a.faults]);
    expect(b.events).toEqual(a.events);
  });
});
