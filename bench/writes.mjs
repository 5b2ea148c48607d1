#!/usr/bin/env node
/**
 * Who writes, during one phase of bench/e2e-load.mjs: the runtime's commits (fsync) and WAL writes
 * (pwrite64) per SQLite file, counted with the kernel's syscall tracepoints (`perf record`; needs
 * perf and perf_event_paranoid <= 1, or root). Each call is mapped to its file through
 * /proc/PID/fd and the files are grouped by object class (a pair, an account, D1, the alarms'
 * metadata), per order of the phase.
 *
 *   node bench/writes.mjs [--phase "1 pair, batches of 20"] [--seconds 3] -- <bench/e2e-load.mjs options>
 *   node bench/writes.mjs -- --accounts objects --batch 20 --only-batch --pair-phases 1
 *   node bench/writes.mjs -- --root <checkout of 12d3242> --batch 20 --only-batch --pair-phases 1
 *
 * Session 22 used it to show that D1 mode and objects mode do the same durable work per order on
 * the local runtime (docs/architecture/account-objects.md, "The batch path's durable work, counted").
 */
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { ROOT, isRuntimeCmd } from "./lib/server.mjs";

const argv = process.argv.slice(2);
const dash = argv.indexOf("--");
const own = dash < 0 ? argv : argv.slice(0, dash);
const loadArgs = dash < 0 ? [] : argv.slice(dash + 1);
const opt = (name, fallback) => (own.includes(name) ? own[own.indexOf(name) + 1] : fallback);
const phase = opt("--phase", "1 pair, batches of 20");
const seconds = Number(opt("--seconds", "3"));

if (spawnSync("perf", ["--version"]).status !== 0) {
  console.error("perf is not installed: this script counts with perf's syscall tracepoints");
  process.exit(2);
}

/** The runtime workerd processes now running (not wrangler's proxy). */
function runtimePids() {
  const out = [];
  for (const pid of fs.readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      if (isRuntimeCmd(fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" "))) out.push(Number(pid));
    } catch {}
  }
  return out;
}

const before = new Set(runtimePids());
const child = spawn(process.execPath, [path.join(ROOT, "bench", "e2e-load.mjs"), ...loadArgs], { stdio: ["ignore", "pipe", "inherit"] });
let log = "";
child.stdout.on("data", (d) => {
  log += d;
  process.stdout.write(d);
});
const exited = new Promise((res) => child.on("exit", res));

while (!log.includes(`phase: ${phase}`)) {
  if (child.exitCode !== null) throw new Error(`bench/e2e-load.mjs ended before the phase "${phase}"`);
  await sleep(20);
}
const pid = runtimePids().find((p) => !before.has(p));
if (!pid) throw new Error("no runtime workerd of this run found");
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "exchange-writes-"));
const data = path.join(dir, "perf.data");
const rec = spawnSync("perf", ["record", "-q", "-e", "syscalls:sys_enter_fsync,syscalls:sys_enter_pwrite64", "-p", String(pid), "-o", data, "--", "sleep", String(seconds)], { encoding: "utf8" });
if (rec.status !== 0) throw new Error(`perf record failed (perf_event_paranoid?): ${rec.stderr}`);
const fds = new Map();
for (const fd of fs.readdirSync(`/proc/${pid}/fd`)) {
  try {
    fds.set(fd, fs.readlinkSync(`/proc/${pid}/fd/${fd}`));
  } catch {}
}
const script = spawnSync("perf", ["script", "-i", data, "-F", "event,trace"], { encoding: "utf8", maxBuffer: 1 << 30 });
await exited;
const rate = Number(/acked in [\d.]+ s = (\d+)\/s/.exec(log.slice(log.indexOf(`phase: ${phase}`)))?.[1] ?? NaN);
const orders = rate * seconds;

/** The object class of a file: its Durable Object namespace (or D1), and what the file is to SQLite. */
function classOf(file) {
  if (!file) return "closed before the count ended";
  // SQLite's temporary files (a statement journal spilled to disk), unlinked while open.
  if (file.includes("(deleted)") || path.basename(file).startsWith("etilqs_")) return "SQLite temporary files";
  const ns = /\/(?:do|d1)\/([^/]+)\//.exec(file)?.[1] ?? path.basename(path.dirname(file));
  const kind = file.endsWith("-wal") ? "WAL" : file.endsWith(".sqlite") ? "database (checkpoints)" : path.extname(file) || "other";
  return `${ns.replace(/^[a-z-]+-(?=[A-Z])/, "")} ${path.basename(file).startsWith("metadata") ? "alarms " : ""}${kind}`;
}
const per = new Map();
for (const line of script.stdout.split("\n")) {
  const m = /sys_enter_(fsync|pwrite64):\s*fd: 0x([0-9a-f]+)/.exec(line);
  if (!m) continue;
  const k = classOf(fds.get(String(parseInt(m[2], 16))));
  const e = per.get(k) ?? { files: new Set(), fsync: 0, pwrite: 0 };
  e.files.add(fds.get(String(parseInt(m[2], 16))) ?? m[2]);
  e[m[1] === "fsync" ? "fsync" : "pwrite"]++;
  per.set(k, e);
}
fs.rmSync(dir, { recursive: true, force: true });
const total = [...per.values()].reduce((a, e) => ({ fsync: a.fsync + e.fsync, pwrite: a.pwrite + e.pwrite }), { fsync: 0, pwrite: 0 });
console.log(`\nWrites of the runtime during ${seconds} s of "${phase}" (${rate} orders/s, about ${orders} orders):`);
console.log(`  all files: ${(total.fsync / orders).toFixed(3)} syncs and ${(total.pwrite / orders).toFixed(2)} write calls an order`);
for (const [k, e] of [...per].sort((a, b) => b[1].fsync - a[1].fsync)) {
  console.log(`  ${k.padEnd(48)} ${String(e.files.size).padStart(3)} files  ${(e.fsync / orders).toFixed(3)} syncs  ${(e.pwrite / orders).toFixed(2)} writes an order`);
}
