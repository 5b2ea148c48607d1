#!/usr/bin/env node
/**
 * Issue #17 (a): the floor. What the local runtime charges, in runtime CPU per request, for the
 * hops an order makes, with none of the exchange's work in them: a throw-away Worker
 * (bench/prototypes/floor/) on the same wrangler, started the same way as the exchange's benchmarks
 * (bench/lib/server.mjs: its own process group, wrangler's local trace collector off), driven with
 * 16 requests in flight. The endpoints alternate in chunks on the one server, so background load
 * hits them alike.
 *
 *   npm exec -- node bench/floor.mjs [--chunks 6] [--chunk 400] [--concurrency 16] [--json FILE]
 *
 * Rows: raw (a 404 without Hono), hono (a 404 through Hono with our middleware shape), d1 (Hono +
 * one D1 batch of 3 small statements), rpc (Hono + one RPC into a Durable Object running one SQLite
 * transaction), call (the same RPC writing nothing: rpc − call is one small commit), both (Hono +
 * the D1 batch + the RPC: the least an order does).
 */
import fs from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { pathToFileURL } from "node:url";
import { ROOT, freePort, groupCpu, log, randomPepper, startServer, tempDir } from "./lib/server.mjs";
import { httpClient, now, summary } from "./lib/client.mjs";

export const DEFAULTS = { chunks: 6, chunk: 400, concurrency: 16, json: null };
export const ENDPOINTS = [
  { name: "raw: HTTP, a 404 without Hono", path: "/raw" },
  { name: "hono: HTTP + Hono + middleware, a 404", path: "/api/none" },
  { name: "d1: Hono + one D1 batch of 3 statements", path: "/api/d1" },
  { name: "rpc: Hono + one object RPC (one SQLite transaction)", path: "/api/rpc" },
  { name: "call: Hono + one object RPC writing nothing", path: "/api/call" },
  { name: "both: Hono + D1 batch + RPC (an order's minimum)", path: "/api/both" },
];

/** The prototype in a temporary folder (nobody's edits reach it while it runs), node_modules linked. */
function snapshotPrototype() {
  const dst = tempDir("exchange-floor-src-");
  fs.cpSync(path.join(ROOT, "bench", "prototypes", "floor"), dst, { recursive: true });
  fs.symlinkSync(path.join(ROOT, "node_modules"), path.join(dst, "node_modules"), "dir");
  return dst;
}

export async function main(options = {}) {
  const o = { ...DEFAULTS, ...options };
  const root = snapshotPrototype();
  const dir = tempDir("exchange-floor-state-");
  // The prototype starts in seconds on a quiet machine; on a loaded one wrangler may need minutes.
  const server = await startServer({ root, dir, port: await freePort(), pepper: randomPepper(), timeoutMs: 900_000 });
  const client = httpClient(server.url);
  const loadavg = () => fs.readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
  const loadStart = loadavg();
  try {
    const setup = await client.request("POST", "/setup");
    if (setup.status !== 200) throw new Error(`setup failed: ${setup.status} ${setup.text ?? JSON.stringify(setup.body)}`);
    const body = { price: 100, num: 1 };
    const expect = (e) => (e.path === "/raw" || e.path === "/api/none" ? 404 : 200);
    for (const e of ENDPOINTS) {
      for (let i = 0; i < 50; i++) {
        const r = await client.request("POST", e.path, { body });
        if (r.status !== expect(e)) throw new Error(`${e.path}: ${r.status} ${r.text ?? JSON.stringify(r.body)}`);
      }
    }
    const cpuOf = (m) => groupCpu(server.pid).filter((p) => p.cmd.includes(m)).reduce((a, p) => a + p.cpu, 0);
    const acc = ENDPOINTS.map((e) => ({ ...e, lat: [], cpu: 0, proxy: 0, secs: 0, n: 0, errors: 0 }));
    for (let k = 0; k < o.chunks; k++) {
      for (const x of k % 2 ? [...acc].reverse() : acc) {
        await sleep(200);
        const c0 = cpuOf("runtime");
        const p0 = cpuOf("proxy");
        const t0 = now();
        let issued = 0;
        await Promise.all(
          Array.from({ length: o.concurrency }, async () => {
            while (issued < o.chunk) {
              issued++;
              const r = await client.request("POST", x.path, { body });
              if (r.status === expect(x)) x.lat.push(r.ms);
              else x.errors++;
            }
          }),
        );
        x.secs += (now() - t0) / 1000;
        x.cpu += cpuOf("runtime") - c0;
        x.proxy += cpuOf("proxy") - p0;
        x.n += o.chunk;
      }
      log(`chunk ${k + 1}/${o.chunks} done (load ${loadavg()})`);
    }
    const rows = acc.map((x) => {
      const s = summary(x.lat);
      return {
        endpoint: x.name,
        requests: x.n,
        requestsPerSecond: Math.round(x.lat.length / x.secs),
        p50: +s.p50.toFixed(1),
        runtimeCpuMsPerRequest: +((x.cpu * 1000) / x.n).toFixed(2),
        proxyCpuMsPerRequest: +((x.proxy * 1000) / x.n).toFixed(2),
        errors: x.errors,
      };
    });
    const report = { chunks: o.chunks, chunk: o.chunk, concurrency: o.concurrency, loadStart, loadEnd: loadavg(), rows };
    console.log(`\nFloor: ${o.chunks} alternating chunks of ${o.chunk} requests, ${o.concurrency} in flight; load average ${loadStart} → ${report.loadEnd}`);
    console.table(rows);
    if (o.json) fs.writeFileSync(o.json, JSON.stringify(report, null, 2));
    return report;
  } finally {
    client.close();
    await server.stop();
  }
}

function parseArgs(argv) {
  const o = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--chunks") o.chunks = Number(argv[++i]);
    else if (a === "--chunk") o.chunk = Number(argv[++i]);
    else if (a === "--concurrency") o.concurrency = Number(argv[++i]);
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
