#!/usr/bin/env node
// `npm run bench`: the project's benchmarks. Each benchmark is a section (a function) so more can
// be added; run all, or pick with --only.
//
//   npm run bench                                  # every section with defaults
//   npm run bench -- --only engine --ops 1000000 --runs 3
//   npm run bench -- --only engine --full          # also the full SpotEngine.execute path
//   npm run bench -- --only web [--size-only]      # SPA first load, Lighthouse, axe (bench/web.mjs)
//
// Options for the engine section (passed through to the shared harness):
//   --ops N --runs N --warmup N --seed N --heap MB --json FILE   (harness defaults: 1M / 3 / 1M / 42)
//   --engines a,b      peer engines run in the same invocation (default nodejs-order-book)
//   --full             add bench/orderbook-adapter-full.mjs (events, fees, depth changes per op)
//   --harness PATH     harness bench.mjs (default ../shared/bench/orderbook/bench.mjs from the repo root,
//                      or $ORDERBOOK_BENCH)
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import path from "node:path";
import fs from "node:fs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** Parses `--key value` / `--flag` arguments into an object (repeated keys keep the last). */
export function parseArgs(argv) {
  const out = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (!a.startsWith("--")) throw new Error(`unexpected argument ${a}`);
    const key = a.slice(2);
    const next = argv[i + 1];
    if (next === undefined || next.startsWith("--")) out[key] = true;
    else {
      out[key] = next;
      i++;
    }
  }
  return out;
}

/**
 * Matching engine: our engine and peer engines through the shared order-book harness, in one
 * invocation so the ratios are comparable. Returns the harness exit status.
 */
export function engineBench(opts = {}) {
  const harness = path.resolve(ROOT, opts.harness ?? process.env.ORDERBOOK_BENCH ?? "../shared/bench/orderbook/bench.mjs");
  if (!fs.existsSync(harness)) {
    console.log(`## Matching engine: skipped (harness not found at ${harness}; pass --harness or set ORDERBOOK_BENCH)`);
    return 0;
  }
  const args = [harness, "--adapter", path.join("bench", "orderbook-adapter.mjs")];
  if (opts.full) args.push("--adapter", path.join("bench", "orderbook-adapter-full.mjs"));
  args.push("--engines", opts.engines ?? "nodejs-order-book");
  for (const k of ["ops", "runs", "warmup", "seed", "heap", "json"]) if (opts[k] !== undefined) args.push(`--${k}`, String(opts[k]));
  console.log(`## Matching engine\n$ node ${args.map((a) => path.relative(ROOT, a) || a).join(" ")}`);
  const r = spawnSync(process.execPath, args, { cwd: ROOT, stdio: "inherit" });
  return r.status ?? 1;
}

/** End to end: orders/s and latencies against a local Worker on loopback (bench/e2e-load.mjs). */
async function e2eBench() {
  console.log("## End to end");
  const { main: run } = await import("./e2e-load.mjs");
  await run({});
  return 0;
}

/** Crash safety: kill -9 at random moments under load, then check every invariant (bench/crash.mjs). */
async function crashBench() {
  console.log("## Crash safety");
  const { main: run } = await import("./crash.mjs");
  const result = await run({});
  return result?.passed ? 0 : 1;
}

/** Web: first-load size, Lighthouse and axe against a local Worker (bench/web.mjs). */
async function webSection(opts) {
  const { webBench } = await import("./web.mjs");
  return webBench(opts);
}

/** Benchmark sections by name, in run order. */
export const sections = { engine: engineBench, e2e: e2eBench, crash: crashBench, web: webSection };

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const only = typeof opts.only === "string" ? opts.only.split(",") : Object.keys(sections);
  let status = 0;
  for (const name of only) {
    const run = sections[name];
    if (!run) throw new Error(`unknown section ${name}; known: ${Object.keys(sections).join(", ")}`);
    const s = await run(opts);
    if (s && !status) status = s;
  }
  process.exitCode = status;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
