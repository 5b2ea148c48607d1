/**
 * `npm run sim -- --seeds N [--seed S] [--steps K]`: runs N seeded schedules from seed S (default
 * 1) of K steps each (default 40), prints the share of schedules that hit each fault kind, and for
 * a failure the command that replays it. Exits 1 on a failure. `--keep-going` runs past failures
 * (a night's run lists them all); `--trace` prints every step, fault, commit and delivery.
 */
import { FAULT_KINDS, runSchedule, type ScheduleResult } from "./world.ts";

export interface Run {
  schedules: number;
  failures: ScheduleResult[];
  hits: Record<string, number>;
  events: Record<string, number>;
  ms: number;
  /** CPU time of this process (on a shared machine, wall time says more about the neighbours). */
  cpuMs: number;
}

/** Runs seeds [from, from + count) and stops at the first failure when asked. */
export function runSeeds(from: number, count: number, steps: number, stopAtFirst = true, mutations = {}, trace?: (line: string) => void): Run {
  const hits: Record<string, number> = Object.fromEntries(FAULT_KINDS.map((k) => [k, 0]));
  const failures: ScheduleResult[] = [];
  const events: Record<string, number> = {};
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  let schedules = 0;
  for (let seed = from; seed < from + count; seed++) {
    const r = runSchedule({ seed, steps, mutations, trace });
    schedules++;
    for (const k of r.faults) hits[k]!++;
    for (const [k, n] of Object.entries(r.events)) events[k] = (events[k] ?? 0) + n;
    if (!r.ok) {
      failures.push(r);
      if (stopAtFirst) break;
    }
  }
  const cpu = process.cpuUsage(c0);
  return { schedules, failures, hits, events, ms: performance.now() - t0, cpuMs: (cpu.user + cpu.system) / 1000 };
}

export const replayCommand = (seed: number, steps: number) => `npm run sim -- --seed ${seed} --seeds 1 --steps ${steps} --trace`;

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}

if (import.meta.main) {
  const seeds = arg("seeds", 1_000);
  const from = arg("seed", 1);
  const steps = arg("steps", 40);
  const trace = process.argv.includes("--trace") ? (line: string) => console.log(line) : undefined;
  const run = runSeeds(from, seeds, steps, !process.argv.includes("--keep-going"), {}, trace);
  console.log(`${run.schedules} schedules of ${steps} steps from seed ${from} in ${(run.ms / 1000).toFixed(1)} s, ${(run.cpuMs / 1000).toFixed(1)} s of CPU (${((run.cpuMs * 1000) / run.schedules).toFixed(0)} µs each)`);
  console.log("fault kind           schedules that hit it");
  for (const [k, n] of Object.entries(run.hits)) console.log(`${k.padEnd(20)} ${((100 * n) / run.schedules).toFixed(1).padStart(5)} %`);
  console.log("\nevents committed (all schedules)");
  for (const [k, n] of Object.entries(run.events).sort()) console.log(`${k.padEnd(28)} ${String(n).padStart(8)}`);
  for (const f of run.failures) if (!f.ok) console.log(`\nFAILED seed ${f.seed} at step ${f.step}: ${f.failure}\nreplay: ${replayCommand(f.seed, steps)}`);
  process.exit(run.failures.length ? 1 : 0);
}
