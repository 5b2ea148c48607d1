// Shared by bench/e2e-load.mjs and bench/crash.mjs: a private copy of the Worker's sources, a fresh
// local D1 + Durable Object state in a temporary --persist-to folder (migrations, seed, bench
// funding), and the Worker itself started as a separate process group so it can be killed -9.
//
// Why a copy of the sources: `wrangler dev` / `unstable_startWorker` keep an esbuild watcher on
// the sources and a watcher on the assets folder even with watch off, and rebuild + restart the
// runtime when anything changes. Other people edit and build in this tree while a benchmark runs,
// so the benchmark bundles from a snapshot taken at its start (the code under test is the code of
// that moment), with node_modules linked, not copied.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath, pathToFileURL } from "node:url";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
/** Ports this benchmark may use (other engineers use others). */
export const PORT_RANGE = [8780, 8789];
const SNAPSHOT_ITEMS = ["wrangler.toml", "package.json", "tsconfig.json", "tsconfig.base.json", "worker", "durable", "schemas", "migrations"];

/**
 * Offline-friendly environment for every wrangler call. Wrangler ≥ 4.1xx attaches a local trace
 * collector (a streaming tail worker) to the Worker and every Durable Object unless
 * X_LOCAL_OBSERVABILITY is false: every request, RPC call and D1 call then emits spans that another
 * worker of the same runtime thread receives, which cost more runtime CPU per order than most of our
 * own order path (bench/README.md, issue #17). It is a dev tool (the local dashboard), not part of
 * a deployed Worker, so the benchmarks turn it off; BENCH_LOCAL_OBSERVABILITY=on keeps it.
 */
export const WRANGLER_ENV = {
  ...process.env,
  WRANGLER_SEND_METRICS: "false",
  CLOUDFLARE_CF_FETCH_ENABLED: "false",
  ...(process.env.BENCH_LOCAL_OBSERVABILITY === "on" ? {} : { X_LOCAL_OBSERVABILITY: "false" }),
};

export const log = (...a) => console.log(`[bench ${new Date().toISOString().slice(11, 23)}]`, ...a);

/** A temporary directory removed at exit unless `keep` (or BENCH_KEEP=1). */
export function tempDir(prefix, keep = process.env.BENCH_KEEP === "1") {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  if (!keep) process.on("exit", () => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * Copies what the Worker bundle needs from `root` into a temporary project folder and links
 * node_modules. Returns the new project root.
 */
export function snapshotTree(root = ROOT) {
  const dst = tempDir("exchange-bench-src-");
  for (const item of SNAPSHOT_ITEMS) {
    const from = path.join(root, item);
    if (fs.existsSync(from)) fs.cpSync(from, path.join(dst, item), { recursive: true });
  }
  fs.symlinkSync(path.join(root, "node_modules"), path.join(dst, "node_modules"), "dir");
  // wrangler refuses to start without the [assets] folder; the API does not need the SPA.
  fs.mkdirSync(path.join(dst, "dist", "web"), { recursive: true });
  fs.writeFileSync(path.join(dst, "dist", "web", "index.html"), "<!doctype html><title>bench</title>");
  return dst;
}

/**
 * Ports handed out by freePort(), one file per port under the system's temp folder holding the
 * owner's pid, created exclusively: a crash run kills its server and restarts it on the same port,
 * and while the port is unbound another process's check by binding alone would take it (session 11
 * saw one run's load go to another run's server). A claim lasts until its process exits; a claim
 * whose process is gone is stale and taken over.
 */
const PORT_CLAIMS = path.join(os.tmpdir(), "exchange-bench-ports");

function processAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === "EPERM";
  }
}

/** Claims `port` for this process (true), or false when a live process holds it. */
export function claimPort(port) {
  fs.mkdirSync(PORT_CLAIMS, { recursive: true });
  const file = path.join(PORT_CLAIMS, `${port}.pid`);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(file, String(process.pid), { flag: "wx" });
      process.on("exit", () => releasePort(port));
      return true;
    } catch (err) {
      if (err.code !== "EEXIST") throw err;
      const owner = Number(fs.readFileSync(file, "utf8")) || 0;
      if (owner === process.pid) return true;
      if (owner && processAlive(owner)) return false;
      // Stale (its process is gone): move it aside under a name of our own, so two processes
      // taking it over at once cannot both delete a fresh claim.
      try {
        fs.renameSync(file, `${file}.stale.${process.pid}`);
        fs.rmSync(`${file}.stale.${process.pid}`, { force: true });
      } catch {}
    }
  }
  return false;
}

/** Gives up this process's claim on `port` (nothing when another process holds it). */
export function releasePort(port) {
  const file = path.join(PORT_CLAIMS, `${port}.pid`);
  try {
    if (fs.readFileSync(file, "utf8") === String(process.pid)) fs.rmSync(file, { force: true });
  } catch {}
}

const portBindable = (p) =>
  new Promise((res) => {
    const s = net.createServer();
    s.once("error", () => res(false));
    s.listen(p, "127.0.0.1", () => s.close(() => res(true)));
  });

/**
 * The first port of the bench range that no other bench process has claimed and nobody listens
 * on; claimed for this process until it exits (so a server killed and restarted on it keeps it).
 */
export async function freePort(exclude = []) {
  for (let p = PORT_RANGE[0]; p <= PORT_RANGE[1]; p++) {
    if (exclude.includes(p) || !claimPort(p)) continue;
    if (await portBindable(p)) return p;
    releasePort(p);
  }
  throw new Error(`no free port in ${PORT_RANGE.join("-")}`);
}

/** Runs a node script (wrangler or ours) and collects its output. */
export function runNode(args, { cwd = ROOT, env = WRANGLER_ENV } = {}) {
  return new Promise((res, rej) => {
    const child = spawn(process.execPath, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    const out = [];
    const err = [];
    child.stdout.on("data", (d) => out.push(d));
    child.stderr.on("data", (d) => err.push(d));
    child.on("error", rej);
    child.on("exit", (code, signal) => res({ code: code ?? (signal ? 1 : 0), stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString() }));
  });
}

const wranglerBin = (root) => path.join(root, "node_modules", "wrangler", "bin", "wrangler.js");

/** Runs SQL against the local D1 of `dir` with `wrangler d1 execute --json`; returns one result array per statement. */
export async function d1(root, dir, sql) {
  const file = path.join(tempDir("exchange-bench-sql-"), "q.sql");
  fs.writeFileSync(file, sql);
  const r = await runNode([wranglerBin(root), "d1", "execute", "DB", "--local", "--persist-to", dir, "--json", "--file", file], { cwd: root });
  fs.rmSync(path.dirname(file), { recursive: true, force: true });
  if (r.code !== 0) throw new Error(`wrangler d1 execute failed (${r.code}): ${r.stderr || r.stdout}`.slice(0, 4000));
  const parsed = JSON.parse(r.stdout.slice(r.stdout.indexOf("[")));
  return parsed.map((x) => x.results ?? []);
}

/** Bench funding: extra balances for the two demo accounts, as ordinary balanced deposit movements. */
export const BENCH_FUNDING = { USDT: "1000000", BTC: "100", ETH: "1000", LTC: "10000", DOGE: "10000000", XRP: "1000000", BCH: "1000" };

export function fundingSql(currencies, accounts, now) {
  const out = [];
  const units = (amount, scale) => {
    const [i, f = ""] = amount.split(".");
    return BigInt(i) * 10n ** BigInt(scale) + BigInt((f + "0".repeat(scale)).slice(0, scale) || "0");
  };
  for (const account of accounts) {
    for (const [symbol, amount] of Object.entries(BENCH_FUNDING)) {
      const c = currencies.find((x) => x.name === symbol);
      if (!c) continue;
      const key = `bench-fund:${account}:${symbol}`;
      const u = units(amount, c.scale);
      const user = `(SELECT id FROM users WHERE account = '${account}')`;
      out.push(`INSERT INTO movements (key, kind, created_at) VALUES ('${key}', 'deposit', ${now}) ON CONFLICT(key) DO NOTHING;`);
      out.push(
        `INSERT INTO ledger (movement_key, user_id, currency_id, account, d_available, d_frozen, kind, memo, created_at) ` +
          `SELECT column1, column2, column3, column4, column5, column6, column7, column8, column9 FROM (VALUES ` +
          `('${key}', ${user}, ${c.id}, 'change', ${u}, 0, 'deposit', 'bench funding', ${now}), ` +
          `('${key}', -1, ${c.id}, 'change', ${-u}, 0, 'deposit', 'bench funding', ${now})) ` +
          `WHERE NOT EXISTS (SELECT 1 FROM ledger WHERE movement_key = '${key}');`,
      );
    }
  }
  return out.join("\n");
}

/**
 * A fresh local state in `dir`: D1 migrations, the project's seed (currencies, pairs, demo
 * accounts), and bench funding of demo1/demo2 (deposit movements balanced by the system
 * deposits account, exactly like the seed's own credits).
 */
export async function prepareState({ root, dir, pepper, fund = true, seedRoot = ROOT }) {
  let r = await runNode([wranglerBin(root), "d1", "migrations", "apply", "DB", "--local", "--persist-to", dir], { cwd: root });
  if (r.code !== 0) throw new Error(`migrations failed: ${r.stderr || r.stdout}`);
  // The seed script lives in the real tree (it is not part of the bundle); it writes into `dir`. Another
  // tree of other migrations (bench/ab.mjs's `name=DIR` variant) seeds with its own script.
  r = await runNode([path.join(seedRoot, "scripts", "seed.mjs"), "--persist-to", dir, "--pepper", pepper], { cwd: seedRoot });
  if (r.code !== 0) throw new Error(`seed failed: ${r.stderr || r.stdout}`);
  if (fund) {
    const { currencies } = await import(pathToFileURL(path.join(ROOT, "scripts", "seed-data", "reference.mjs")).href);
    await d1(root, dir, fundingSql(currencies, ["demo1@exchange.test", "demo2@exchange.test"], Date.now()));
  }
}

export const randomPepper = () => randomBytes(16).toString("hex");

const started = new Set();
function killAll() {
  for (const s of started) {
    try {
      process.kill(-s.pid, "SIGKILL");
    } catch {}
  }
}
process.on("exit", killAll);
for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(sig, () => {
    killAll();
    process.exit(128 + (sig === "SIGINT" ? 2 : sig === "SIGTERM" ? 15 : 1));
  });
}

/**
 * Starts the Worker (bench/lib/serve-child.mjs) in its own process group and waits until the API
 * answers. Returns { url, port, pid, kill9(), stop(), exited }. `vars`: extra plain-text bindings.
 */
export async function startServer({ root, dir, port, pepper, inspector = null, timeoutMs = 900_000, vars = null }) {
  const args = [path.join(ROOT, "bench", "lib", "serve-child.mjs"), "--root", root, "--dir", dir, "--port", String(port), "--pepper", pepper];
  if (inspector) args.push("--inspector", String(inspector));
  // Extra plain-text bindings, e.g. { DEV_CLOCK: "on" } for bench/crash-products.mjs. Balances in D1
  // unless the run asks for the objects (`--accounts objects`): wrangler.toml deploys with "objects".
  args.push("--vars", JSON.stringify({ ACCOUNTS: "d1", ...vars }));
  const child = spawn(process.execPath, args, { cwd: root, env: WRANGLER_ENV, stdio: ["ignore", "pipe", "pipe"], detached: true });
  // The server must never keep the benchmark alive: its pipes are unref'd, stop() or exit ends it.
  child.unref();
  child.stdout.unref?.();
  child.stderr.unref?.();
  const handle = { pid: child.pid, port, url: `http://127.0.0.1:${port}`, output: [] };
  started.add(handle);
  handle.exited = new Promise((res) => child.on("exit", (code, signal) => res({ code, signal })));
  handle.exited.then(() => started.delete(handle));
  handle.kill9 = () => {
    try {
      process.kill(-handle.pid, "SIGKILL");
    } catch {}
  };
  handle.stop = async () => {
    try {
      process.kill(handle.pid, "SIGTERM");
    } catch {}
    await Promise.race([handle.exited, sleep(5000)]);
    // Whatever the host left behind (workerd children) goes too: only our own process group.
    handle.kill9();
    await handle.exited;
  };
  const ready = new Promise((res, rej) => {
    let buf = "";
    child.stdout.on("data", (d) => {
      buf += d;
      handle.output.push(String(d));
      if (buf.includes("READY ")) res();
    });
    child.stderr.on("data", (d) => handle.output.push(String(d)));
    handle.exited.then(({ code, signal }) => rej(new Error(`server exited (${code ?? signal}) before ready:\n${handle.output.join("").slice(-3000)}`)));
  });
  const timer = sleep(timeoutMs).then(() => {
    throw new Error(`server not ready after ${timeoutMs} ms:\n${handle.output.join("").slice(-3000)}`);
  });
  try {
    await Promise.race([ready, timer]);
  } catch (err) {
    handle.kill9();
    throw err;
  }
  // READY means the runtime answered; make sure the API does too.
  for (let i = 0; i < 100; i++) {
    try {
      const r = await fetch(`${handle.url}/api/currency/depth?currency_id=1&legal_id=3`, { signal: AbortSignal.timeout(5000) });
      await r.arrayBuffer();
      if (r.status < 500) break;
    } catch {}
    await sleep(100);
  }
  return handle;
}

/** Process ids of a process group (the server's node process, its workerd children). */
export function groupPids(pgid) {
  const out = [];
  for (const name of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[2]) === pgid) out.push(Number(name));
    } catch {}
  }
  return out;
}

/** CPU seconds (user + system) used so far by each process of a group, with the command line. */
export function groupCpu(pgid) {
  const hz = 100; // USER_HZ on Linux
  const out = [];
  for (const pid of groupPids(pgid)) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean);
      out.push({ pid, cmd: describeCmd(cmd), cpu: (Number(fields[11]) + Number(fields[12])) / hz });
    } catch {}
  }
  return out;
}

/** Whether a command line is the runtime workerd (Worker, objects, D1), not wrangler's proxy: it serves on an ephemeral entry socket. */
export const isRuntimeCmd = (joined) => joined.includes("workerd") && joined.includes("entry=127.0.0.1:0");

function describeCmd(cmd) {
  const joined = cmd.join(" ");
  if (joined.includes("workerd")) return isRuntimeCmd(joined) ? "workerd (runtime: Worker, DO, D1)" : "workerd (wrangler proxy)";
  if (joined.includes("serve-child")) return "node (wrangler host)";
  if (joined.includes("esbuild")) return "esbuild";
  return path.basename(cmd[0] ?? "?");
}

/**
 * The cut-over for a run with balances in the account objects (`ACCOUNTS=objects`, issue #28):
 * every user's D1 balances (and their open orders' holds) opened in their account object, and the
 * treasury's balance over its shard objects, through the local-only migration routes, on a server of its own (the route needs DEV_CLOCK, which a
 * measured server must not run with); the state directory keeps the objects for the next server.
 */
export async function openAccountObjects({ root, dir, pepper }) {
  const server = await startServer({ root, dir, port: await freePort(), pepper, vars: { ACCOUNTS: "objects", DEV_CLOCK: "on" } });
  try {
    for (let step = 0; step < 10_000; step++) {
      const res = await fetch(`${server.url}/api/dev/accounts/migrate`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ limit: 100 }) });
      const body = await res.json();
      const m = body?.message ?? body?.data;
      if (!m || m.failed?.length) throw new Error(`account objects: migration refused: ${JSON.stringify(body).slice(0, 500)}`);
      if (m.done) break;
      if (step === 9_999) throw new Error("account objects: migration never ended");
    }
    // The system accounts' shards (the treasury, where seconds contracts and lever positions hold their
    // cover; the fees; ...), from D1's system balances at or above zero.
    const res = await fetch(`${server.url}/api/dev/accounts/system`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    const body = await res.json();
    const m = body?.message ?? body?.data;
    if (body?.type !== "ok" || m?.mismatched?.length) throw new Error(`account objects: system accounts' opening refused: ${JSON.stringify(body).slice(0, 500)}`);
    // Recorded in D1: until then a Worker with ACCOUNTS=objects refuses money routes (worker/lib/maintenance.ts).
    // A tree from before that guard (bench/ab.mjs's base) has no such route: 404, nothing to record.
    const cut = await fetch(`${server.url}/api/dev/accounts/cut-over`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    if (cut.status !== 404 && (await cut.json())?.type !== "ok") throw new Error(`account objects: cut-over not recorded (HTTP ${cut.status})`);
  } finally {
    await server.stop();
  }
}
