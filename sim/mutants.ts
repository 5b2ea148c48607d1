/**
 * `npm run sim:mutants`: switches on each known bug in turn (durable/money/ports.ts `Mutations`)
 * and runs seeded schedules until the simulator fails one, up to a bound per mutant. Prints a
 * table (mutant, schedules needed, first failing seed, what broke) and exits 1 if any survives.
 */
import type { Mutations } from "../durable/money/ports.ts";
import { runSchedule } from "./world.ts";

export const MUTANTS: { name: keyof Mutations; bug: string }[] = [
  { name: "noKeyCheck", bug: "no key check (a leg seen before is applied again)" },
  { name: "sendBeforeCommit", bug: "apply before commit (legs leave inside the event's transaction)" },
  { name: "releaseTwice", bug: "a hold released twice (a resolved hold's release applied again)" },
  { name: "legsInMemory", bug: "a leg dropped at a crash (legs buffered in memory until sent)" },
  { name: "wrongAccount", bug: "a leg applied to the wrong account (credits land on spot)" },
  { name: "deleteBeforeAck", bug: "outbox row deleted before acknowledgement" },
  { name: "skipFeeLeg", bug: "the fee leg skipped" },
  { name: "overspendHold", bug: "a hold spent past its amount (the buyer's fee taken from its hold on top)" },
];

export interface Caught {
  name: string;
  bug: string;
  /** Schedules run until the first failure (the bound when none failed). */
  schedules: number;
  seed?: number;
  failure?: string;
}

/** Runs seeds from `from` until the mutant is caught or `bound` schedules have passed. */
export function hunt(name: keyof Mutations, bug: string, steps: number, bound: number, from = 1): Caught {
  for (let i = 0; i < bound; i++) {
    const r = runSchedule({ seed: from + i, steps, mutations: { [name]: true } });
    if (!r.ok) return { name, bug, schedules: i + 1, seed: r.seed, failure: `step ${r.step}: ${r.failure}` };
  }
  return { name, bug, schedules: bound };
}

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}

if (import.meta.main) {
  const steps = arg("steps", 24);
  const bound = arg("bound", 2_000);
  const from = arg("seed", 1);
  console.log(`| mutant | bug | schedules to catch | first failing seed | what broke |\n| --- | --- | ---: | ---: | --- |`);
  let survived = 0;
  for (const m of MUTANTS) {
    const c = hunt(m.name, m.bug, steps, bound, from);
    if (c.seed === undefined) survived++;
    console.log(`| ${c.name} | ${c.bug} | ${c.seed === undefined ? `not caught in ${bound}` : c.schedules} | ${c.seed ?? "—"} | ${c.failure ?? "—"} |`);
  }
  process.exit(survived ? 1 : 0);
}
