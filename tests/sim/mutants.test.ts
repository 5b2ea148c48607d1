/**
 * The mutation check in every CI run: each known bug, switched on alone, must make the
 * simulator fail a schedule within a bounded number of seeds (`npm run sim:mutants` prints the
 * table; bench/README.md records it).
 */
import { describe, expect, it } from "vitest";
import { MUTANTS, hunt } from "../../sim/mutants.ts";

/**
 * Each mutant is caught within this many schedules of 20 steps from seed 1 (deterministic: the
 * slowest, sendBeforeCommit, needed 93 when bench/README.md's table was made).
 */
const BOUND = 1_000;

describe("the simulator catches every known money bug", () => {
  it.each(MUTANTS)("catches $name: $bug", ({ name, bug }) => {
    const caught = hunt(name, bug, 20, BOUND);
    expect(caught.seed, `${name} survived ${BOUND} schedules`).toBeDefined();
  }, 120_000);
});
