/**
 * `npm run sim:capacity -- [--pairs 100] [--accounts 100000] [--makers 1] [--shards 4] [--shard-by pair|id]
 *   [--seconds 10] [--actions 100] [--round-ms 100] [--seed 1] [--resident 3000] [--json FILE]`:
 * runs the object protocol at scale (sim/capacity.ts), checks conservation and exactly-once, and
 * prints the calls per object per action, the calls per object class, and the capacity model's
 * ceilings from those counts (sim/capacity-model.ts). Exits 1 when a check fails.
 * `--from FILE` prints the report of a run saved with `--json FILE` without running it again.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { CapacityViolation, DEFAULTS, runCapacity, type CapacityOptions, type CapacityResult } from "./capacity.ts";
import { LIMIT, ceiling, measured, report } from "./capacity-model.ts";

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
}
const num = (name: string, fallback: number) => (arg(name) === undefined ? fallback : Number(arg(name)));

if (import.meta.main) {
  const o: CapacityOptions = {
    ...DEFAULTS,
    seed: num("seed", DEFAULTS.seed),
    pairs: num("pairs", DEFAULTS.pairs),
    accounts: num("accounts", DEFAULTS.accounts),
    makers: num("makers", DEFAULTS.makers),
    shards: num("shards", DEFAULTS.shards),
    shardBy: arg("shard-by") === "id" ? "id" : "pair",
    seconds: num("seconds", DEFAULTS.seconds),
    actionsPerPair: num("actions", DEFAULTS.actionsPerPair),
    roundMs: num("round-ms", DEFAULTS.roundMs),
    duplicates: num("duplicates", DEFAULTS.duplicates),
    resident: num("resident", DEFAULTS.resident),
  };
  let r: CapacityResult;
  try {
    const from = arg("from");
    r = from ? (JSON.parse(readFileSync(from, "utf8")) as CapacityResult) : runCapacity(o);
  } catch (e) {
    if (e instanceof CapacityViolation) {
      console.log(`FAILED: ${e.message}`);
      process.exit(1);
    }
    throw e;
  }
  for (const line of report(r)) console.log(line);
  console.log("");
  for (const line of r.checks) console.log(`checked: ${line}`);
  const m = measured(r);
  console.log("");
  console.log(`Ceilings from these counts (no object past ${LIMIT} calls/s), users' actions/s over all pairs:`);
  console.log("");
  console.log("| P pairs | M makers | round | users' actions/s (per pair) | orders/s | trades/s | binds first | fee shards | treasury shards | with one delivery step per round: actions/s (binds) |");
  console.log("| ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: |");
  for (const [pairs, makers, roundMs] of [
    [10, 1, 100],
    [100, 1, 100],
    [100, 1, 200],
    [100, 2, 100],
    [100, 4, 100],
    [1000, 10, 100],
    [1000, 20, 100],
  ] as const) {
    const c = ceiling({ pairs, users: r.options.accounts, makers, rounds: 1000 / roundMs }, m);
    // If deliverDue grouped a whole round's legs per destination (not 64 legs per step over all of them).
    const one = ceiling({ pairs, users: r.options.accounts, makers, rounds: 1000 / roundMs }, { ...m, stepsPerRound: 1, legsPerAction: 0 });
    const n = (v: number) => Math.round(v).toLocaleString("en");
    console.log(
      `| ${pairs} | ${makers} | ${roundMs} ms | ${n(c.actionsPerSecond)} (${n(c.a)}) | ${n(c.actionsPerSecond * m.ordersPerAction)} | ${n(c.actionsPerSecond * m.tradesPerAction)} | ${c.binds} | ${c.shards.fees} | ${c.shards.treasury} | ${n(one.actionsPerSecond)} (${one.binds}) |`,
    );
  }
  const file = arg("json");
  if (file) writeFileSync(file, JSON.stringify({ ...r, options: { ...r.options, mutations: undefined } }, null, 1));
}
