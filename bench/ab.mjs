#!/usr/bin/env node
/**
 * A/B of the order path: the working tree ("base") against the same tree with prototype patches
 * applied (bench/prototypes/*.patch), all running AT THE SAME TIME on different ports, with the
 * load alternating between them in small chunks. On a shared machine the background load then
 * hits every variant alike, and the comparison (CPU milliseconds of the workerd runtime per order)
 * stays meaningful even when absolute figures drift.
 *
 *   node bench/ab.mjs --variant paircache=bench/prototypes/paircache.patch \
 *                     --variant both=bench/prototypes/paircache.patch+bench/prototypes/sesscache.patch
 *                     [--chunks 6] [--chunk 250]
 *                     [--concurrency 16] [--viewers 0] [--no-sockets] [--json FILE]
 *                     [--batch 20]   # batches of 20 orders per request (POST /api/transaction/batch,
 *                                    # bench/e2e-load.mjs's batch mix); --chunk counts orders,
 *                                    # --concurrency batches in flight (e2e-load uses 2)
 *                     [--objects base,name]   # these variants run with ACCOUNTS=objects, after the
 *                                    # cut-over on their copy of the state (bench/lib/server.mjs
 *                                    # openAccountObjects: every user's balances and the treasury
 *                                    # opened in their account objects, as `ACCOUNTS=objects npm start`)
 *                     [--warmup-chunks 1]   # rounds run first and not counted (JIT, caches, pages).
 *                                    # Whatever the warm-up, the first variant (the working tree) ran
 *                                    # 5-15 % above the same tree in a later slot (session 21, cause
 *                                    # unknown): compare against `same=bench/prototypes/noop.patch` too
 *                     [--settle-ms 300]   # the wait after a chunk before its CPU is read (objects
 *                                    # mode: 1500, so the drains that wait 500 ms are counted)
 *
 *   node bench/ab.mjs --objects base --variant d1base=/work/wt/base12   # a variant may be another
 *                                    # checkout (a folder, with its node_modules): its own migrations
 *                                    # and seed script prepare its own copy of the state
 *
 * Besides the totals, each variant's CPU per order of every chunk is printed (and kept in --json),
 * with the median and range of its ratio to the first variant's chunk of the same round: the
 * spread of those ratios is the noise. `--variant same=bench/prototypes/noop.patch` (the working
 * tree again) measures the noise floor of a run.
 *
 * Each variant has its own fresh state (a copy of one prepared state), 3 logged-in depth sockets
 * on BTC/USDT like bench/e2e-load.mjs (unless --no-sockets) plus --viewers plain subscribers, and
 * the same seeded maker/taker order stream. A variant named `do-only*` is driven through the
 * route its patch adds (POST /api/bench/place: straight into the pair object, no auth, no D1).
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { pathToFileURL } from "node:url";
import { ROOT, freePort, groupCpu, log, openAccountObjects, prepareState, randomPepper, snapshotTree, startServer, tempDir } from "./lib/server.mjs";
import { depthSocket, httpClient, login, now, summary } from "./lib/client.mjs";
import { ACCOUNTS, PAIRS, batchRequest, batchStream, orderRequest, orderStream, warmupOrders } from "./lib/orders.mjs";

export const DEFAULTS = { variants: [], chunks: 6, chunk: 250, concurrency: 16, viewers: 0, sockets: true, json: null, quiet: false, batch: 0, objects: [], settleMs: 300, warmupChunks: 1 };

/** A copy of `src` (a snapshot) with the patches (`a.patch+b.patch`) applied by `git apply`. */
function patchedTree(src, patches) {
  const dst = tempDir("exchange-ab-src-");
  for (const item of fs.readdirSync(src)) {
    if (item === "node_modules") continue;
    fs.cpSync(path.join(src, item), path.join(dst, item), { recursive: true });
  }
  fs.symlinkSync(fs.realpathSync(path.join(src, "node_modules")), path.join(dst, "node_modules"), "dir");
  for (const patch of patches.split("+")) {
    try {
      execFileSync("git", ["apply", "--whitespace=nowarn", path.resolve(patch)], { cwd: dst, stdio: "pipe" });
    } catch (err) {
      throw new Error(`${patch} does not apply to the working tree (or to the patches before it): ${String(err.stderr ?? err.message).trim()}`, { cause: err });
    }
  }
  return dst;
}

export async function main(options = {}) {
  const o = { ...DEFAULTS, ...options };
  const say = o.quiet ? () => {} : log;
  const base = snapshotTree(ROOT);
  const trees = [{ name: "base", root: base }];
  for (const v of o.variants) {
    const [name, patch] = v.split("=");
    // A folder: another checkout (its own migrations and seed: its own state); else patches of the working tree.
    const other = fs.existsSync(patch) && fs.statSync(patch).isDirectory();
    trees.push({ name, root: other ? snapshotTree(path.resolve(patch)) : patchedTree(base, patch), seedRoot: other ? path.resolve(patch) : null });
  }
  for (const t of trees) t.objects = o.objects.includes(t.name);
  const template = tempDir("exchange-ab-state-");
  const pepper = randomPepper();
  say("preparing one state for all variants");
  await prepareState({ root: base, dir: template, pepper });
  for (const t of trees) {
    if (!t.seedRoot) continue;
    t.template = tempDir("exchange-ab-state-");
    say(`preparing ${t.name}'s own state (${t.seedRoot})`);
    await prepareState({ root: t.root, dir: t.template, pepper, seedRoot: t.seedRoot });
  }
  const pair = PAIRS[0];
  const ids = { demo1: 1, demo2: 2, mm: 4 };
  const units = (s, d) => {
    const [i, f = ""] = s.split(".");
    return Number(i) * 10 ** d + Number((f + "0".repeat(d)).slice(0, d) || "0");
  };
  const V = [];
  const used = [];
  try {
    for (const t of trees) {
      const dir = tempDir("exchange-ab-run-");
      fs.cpSync(t.template ?? template, dir, { recursive: true });
      if (t.objects) {
        say(`${t.name}: cut-over to the account objects`);
        await openAccountObjects({ root: t.root, dir, pepper });
      }
      const port = await freePort(used);
      used.push(port);
      const server = await startServer({ root: t.root, dir, port, pepper, vars: t.objects ? { ACCOUNTS: "objects" } : null });
      const client = httpClient(server.url);
      const tokens = {};
      for (const [k, a] of Object.entries(ACCOUNTS)) tokens[k] = await login(client, a.account, a.password);
      const socks = [];
      if (o.sockets) for (const who of Object.keys(tokens)) socks.push(depthSocket(server.url, { pairId: pair.pairId, currencyId: pair.currencyId, token: tokens[who], countOnly: true }));
      for (let i = 0; i < o.viewers; i++) socks.push(depthSocket(server.url, { pairId: pair.pairId, currencyId: pair.currencyId, countOnly: true }));
      await Promise.all(socks.map((s) => s.ready));
      const direct = t.name.startsWith("do-only");
      const send = (x) => {
        if (direct) return client.request("POST", "/api/bench/place", { body: { pair: pair.pairId, user: ids[x.who], side: x.side, price: units(x.price, pair.pd), qty: units(x.num, pair.qd) } });
        const r = orderRequest(pair, x);
        return client.request("POST", r.path, { token: tokens[x.who], body: r.body });
      };
      for (const w of warmupOrders(pair)) {
        const r = await send(w);
        if (r.status !== 200) throw new Error(`${t.name}: warm-up order refused ${r.status} ${JSON.stringify(r.body)}`);
      }
      // A batch request answers 200 with one result per order: each refused order counts as an error.
      const sendBatch = async (b) => {
        const q = batchRequest(pair, b.orders);
        const r = await client.request("POST", q.path, { token: tokens[b.who], body: q.body });
        const items = r.status === 200 ? (r.body?.message?.orders ?? []) : [];
        return { ...r, placed: items.filter((i) => i.order_id).length, codes: items.filter((i) => !i.order_id).map((i) => i.code) };
      };
      V.push({ ...t, server, client, socks, send, sendBatch, next: orderStream(pair, 42), nextBatch: batchStream(pair, 42, o.batch || 1), lat: [], cpu: 0, proxy: 0, secs: 0, n: 0, errors: {}, chunkCpu: [] });
      say(`${t.name} up on ${server.url}`);
    }
    await sleep(1000);
    const cpuOf = (s, m) => groupCpu(s.pid).filter((p) => p.cmd.includes(m)).reduce((a, p) => a + p.cpu, 0);
    for (let k = -o.warmupChunks; k < o.chunks; k++) {
      const counted = k >= 0;
      for (const x of k % 2 ? [...V].reverse() : V) {
        const c0 = cpuOf(x.server, "runtime");
        const p0 = cpuOf(x.server, "proxy");
        const t0 = now();
        let issued = 0;
        await Promise.all(
          Array.from({ length: o.concurrency }, async () => {
            while (issued < o.chunk) {
              if (o.batch > 0) {
                issued += o.batch;
                const r = await x.sendBatch(x.nextBatch());
                for (let k = 0; k < r.placed; k++) x.lat.push(r.ms);
                for (const c of r.placed + r.codes.length === o.batch ? r.codes : [`${r.status} ${r.body?.code ?? r.error?.message ?? ""}`]) x.errors[c] = (x.errors[c] ?? 0) + 1;
                continue;
              }
              issued++;
              const r = await x.send(x.next());
              if (r.status === 200) x.lat.push(r.ms);
              else {
                const key = `${r.status} ${r.body?.code ?? r.error?.message ?? ""}`;
                x.errors[key] = (x.errors[key] ?? 0) + 1;
              }
            }
          }),
        );
        // The chunk's outbox drain runs on this server before its CPU is read (objects mode: the
        // accounts' and collectors' drains wait 500 ms after a write: --settle-ms 1500 counts them too).
        const secs = (now() - t0) / 1000;
        await sleep(o.settleMs);
        // A warm-up chunk's errors still count; its latencies and CPU do not.
        if (!counted) {
          x.lat = [];
          continue;
        }
        x.secs += secs;
        const dc = cpuOf(x.server, "runtime") - c0;
        x.cpu += dc;
        x.chunkCpu.push((dc * 1000) / issued);
        x.proxy += cpuOf(x.server, "proxy") - p0;
        x.n += issued;
      }
    }
    const rows = V.map((x) => {
      const s = summary(x.lat);
      return {
        variant: x.name,
        orders: x.n,
        ordersPerSecond: Math.round(x.lat.length / x.secs),
        ackP50: +s.p50.toFixed(1),
        ackP99: +s.p99.toFixed(1),
        runtimeCpuMsPerOrder: +((x.cpu * 1000) / x.n).toFixed(2),
        proxyCpuMsPerOrder: +((x.proxy * 1000) / x.n).toFixed(2),
        errors: x.errors,
        // Runtime CPU ms per order of each chunk, and its ratio to the first variant's chunk of the same round (median, min, max).
        chunkCpuMsPerOrder: x.chunkCpu.map((v) => +v.toFixed(2)),
        ...ratioSpread(x.chunkCpu, V[0].chunkCpu),
      };
    });
    if (!o.quiet) {
      if (o.objects.length) console.log(`\nACCOUNTS=objects: ${o.objects.join(", ")}`);
      console.log(`\nA/B, ${o.chunks} alternating chunks of ${o.chunk} orders${o.batch ? ` in batches of ${o.batch}` : ""}, ${o.concurrency} ${o.batch ? "batches" : "orders"} in flight, ${o.sockets ? 3 : 0} logged-in sockets + ${o.viewers} viewers; load average ${fs.readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")}`);
      console.table(rows.map(({ chunkCpuMsPerOrder: _, ...r }) => r));
      for (const r of rows) console.log(`${r.variant}: runtime CPU ms per order by chunk ${r.chunkCpuMsPerOrder.join(" ")}`);
    }
    if (o.json) fs.writeFileSync(o.json, JSON.stringify(rows, null, 2));
    return rows;
  } finally {
    for (const x of V) {
      await Promise.all(x.socks.map((s) => s.close()));
      x.client.close();
      await x.server.stop();
    }
  }
}

/** Per-round ratios of `a` to `b` (chunk k of each ran in the same round): their median and range. */
export function ratioSpread(a, b) {
  const r = a.map((v, k) => v / b[k]).sort((x, y) => x - y);
  const mid = r.length % 2 ? r[(r.length - 1) / 2] : (r[r.length / 2 - 1] + r[r.length / 2]) / 2;
  return { ratioMedian: +mid.toFixed(3), ratioMin: +r[0].toFixed(3), ratioMax: +r[r.length - 1].toFixed(3) };
}

function parseArgs(argv) {
  const o = { variants: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--variant") o.variants.push(argv[++i]);
    else if (a === "--chunks") o.chunks = Number(argv[++i]);
    else if (a === "--chunk") o.chunk = Number(argv[++i]);
    else if (a === "--concurrency") o.concurrency = Number(argv[++i]);
    else if (a === "--viewers") o.viewers = Number(argv[++i]);
    else if (a === "--no-sockets") o.sockets = false;
    else if (a === "--batch") o.batch = Number(argv[++i]);
    else if (a === "--objects") o.objects = argv[++i].split(",");
    else if (a === "--settle-ms") o.settleMs = Number(argv[++i]);
    else if (a === "--warmup-chunks") o.warmupChunks = Number(argv[++i]);
    else if (a === "--json") o.json = path.resolve(argv[++i]);
    else throw new Error(`unknown option ${a}`);
  }
  return o;
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  main(parseArgs(process.argv.slice(2))).then(
    () => process.exit(0),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
