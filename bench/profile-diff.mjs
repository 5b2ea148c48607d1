#!/usr/bin/env node
/**
 * Two CPU profiles side by side by function: what grew. Take them with
 * `CPU_PROFILE_DIR=<dir> node bench/e2e-load.mjs --cpu-profile --cpu-profile-phase "1 pair, concurrency 16" ...`
 * (once with `--root <base tree>`, once on this tree), then
 *
 *   node bench/profile-diff.mjs <base.cpuprofile> <new.cpuprofile> [--total] [--top 40]
 *
 * Self time (default) or total time (the function and what it called) per function name and file,
 * in ms of samples, largest change first. The sampler counts wall time while a function is on the
 * stack: on a loaded machine every figure grows with the load, so compare shares, not sums.
 */
import fs from "node:fs";

function byFunction(file, total) {
  const p = JSON.parse(fs.readFileSync(file, "utf8"));
  const nodes = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const name = (n) => `${n.callFrame.functionName || "(anonymous)"} ${(n.callFrame.url || "").split("/").pop()}`;
  const ms = new Map();
  let busy = 0;
  for (let i = 0; i < p.samples.length; i++) {
    const dt = (p.timeDeltas[i + 1] ?? p.timeDeltas[i] ?? 0) / 1000;
    const leaf = nodes.get(p.samples[i]);
    if (leaf.callFrame.functionName === "(idle)") continue;
    busy += dt;
    const names = new Set([name(leaf)]);
    if (total) for (let id = parent.get(leaf.id); id !== undefined; id = parent.get(id)) names.add(name(nodes.get(id)));
    for (const k of names) ms.set(k, (ms.get(k) ?? 0) + dt);
  }
  return { ms, busy };
}

const args = process.argv.slice(2);
const total = args.includes("--total");
const top = Number(args[args.indexOf("--top") + 1]) || 40;
const [a, b] = args.filter((x) => x.endsWith(".cpuprofile"));
if (!a || !b) {
  console.error("usage: node bench/profile-diff.mjs <base.cpuprofile> <new.cpuprofile> [--total] [--top 40]");
  process.exit(2);
}
const A = byFunction(a, total);
const B = byFunction(b, total);
console.log(`busy: base ${A.busy.toFixed(0)} ms, new ${B.busy.toFixed(0)} ms (${total ? "total" : "self"} time per function, ms; share of busy in brackets)`);
const rows = [...new Set([...A.ms.keys(), ...B.ms.keys()])].map((k) => ({ k, a: A.ms.get(k) ?? 0, b: B.ms.get(k) ?? 0 }));
rows.sort((x, y) => Math.abs(y.b - y.a) - Math.abs(x.b - x.a));
const pct = (v, busy) => `${((100 * v) / busy).toFixed(1)}%`.padStart(6);
for (const r of rows.slice(0, top)) console.log(`${r.a.toFixed(0).padStart(7)} (${pct(r.a, A.busy)}) ${r.b.toFixed(0).padStart(7)} (${pct(r.b, B.busy)})  ${r.k}`);
