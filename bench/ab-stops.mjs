#!/usr/bin/env node
/**
 * Issue #30's acceptance measurement: the order path of this tree with N resting stop orders (and
 * many waiting price alerts) on BTC/USDT against an older tree without conditional orders (the
 * "previous main"), on the same seeded order mix, INTERLEAVED: both servers are up for the whole
 * run and the load alternates between them in short chunks (ABBA order per round), so whatever
 * else the machine does hits both alike. The metric is the workerd runtime's CPU time per order
 * (Worker + pair objects + D1 simulator: /proc, user + system), never wall time; each chunk is
 * measured until its server is idle again (its outbox drain included). Per round and kind the
 * ratio this-tree / base is taken; the report gives their median, quartiles and range, the pooled
 * ratio (sum over sum), and the load average seen at each chunk.
 *
 *   node bench/ab-stops.mjs --base DIR [--rest-stops 10000] [--alerts 50] [--rounds 12]
 *                           [--chunk 150] [--batch-chunk 1000] [--batch 20] [--concurrency 16]
 *                           [--batch-concurrency 2] [--json FILE]
 *
 * --base: a checkout of the older tree with node_modules (and dist/web, which wrangler wants).
 * Stops: N stop-limit sells of mm at 50–60 % of mid (the mix trades at mid ± 25 steps, so none
 * fires); alerts: --alerts per account (mm, demo1, demo2; 50 is the per-user limit) of every kind
 * (above at 2× mid and more, below at 40 % of mid and less, move of 50 %+ over 1 h / 24 h), none
 * reached. Both are counted in this tree's D1 (and the stops again at the end: still open, none
 * fired). The base gets the same warm-up book and order streams and nothing else. The first round
 * warms both servers up and is left out of the statistics.
 */
import fs from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { d1, freePort, groupCpu, log, prepareState, randomPepper, snapshotTree, startServer, tempDir } from "./lib/server.mjs";
import { depthSocket, fmt, httpClient, login, now } from "./lib/client.mjs";
import { ACCOUNTS, PAIRS, batchRequest, batchStream, orderRequest, orderStream, warmupOrders } from "./lib/orders.mjs";
import { restStops } from "./e2e-load.mjs";
import { runWhenMain } from "./lib/cli.mjs";

export const DEFAULTS = { base: null, restStops: 10_000, alerts: 50, rounds: 12, chunk: 150, batchChunk: 1000, batch: 20, concurrency: 16, batchConcurrency: 2, json: null };

const loadAvg = () => Number(fs.readFileSync("/proc/loadavg", "utf8").split(" ")[0]);
const runtimeCpu = (s) => groupCpu(s.pid).filter((p) => p.cmd.includes("runtime")).reduce((a, p) => a + p.cpu, 0);

/** Waits until the server's runtime used no CPU for 250 ms (at most 6 s): the chunk's drains are done. */
async function settled(server) {
  await sleep(300);
  let prev = runtimeCpu(server);
  for (let i = 0; i < 24; i++) {
    await sleep(250);
    const cur = runtimeCpu(server);
    if (cur - prev < 0.005) return cur;
    prev = cur;
  }
  return prev;
}

/** `per` alerts for each account on BTC/USDT, none of which the mix reaches. Returns how many were taken. */
async function restAlerts(client, tokens, pair, per) {
  let ok = 0;
  const refused = {};
  for (const who of Object.keys(tokens)) {
    for (let i = 0; i < per; i++) {
      const k = i % 4;
      const body =
        k === 0
          ? { kind: "above", price: fmt(pair.mid * 2 + i * pair.step, pair.pd) }
          : k === 1
            ? { kind: "below", price: fmt(Math.round(pair.mid * 0.4) - i * pair.step, pair.pd) }
            : { kind: "move", percent: String(50 + (i % 40)), window: k === 2 ? "1h" : "24h" };
      const r = await client.request("POST", "/api/alerts", { token: tokens[who], body: { currency_id: pair.currencyId, legal_id: 3, ...body } });
      if (r.status === 200 && r.body?.type === "ok") ok++;
      else refused[`${r.status} ${r.body?.code ?? ""}`] = (refused[`${r.status} ${r.body?.code ?? ""}`] ?? 0) + 1;
    }
  }
  return { ok, refused };
}

async function variant({ name, root, pepper, pair, o, used, say, vars = null }) {
  const dir = tempDir(`exchange-abstops-${name}-`);
  say(`${name}: preparing state (migrations, seed, bench funding) from ${root}`);
  await prepareState({ root, dir, pepper });
  const port = await freePort(used);
  used.push(port);
  const server = await startServer({ root, dir, port, pepper, vars });
  const client = httpClient(server.url);
  const tokens = {};
  for (const [k, a] of Object.entries(ACCOUNTS)) tokens[k] = await login(client, a.account, a.password);
  const socks = Object.keys(tokens).map((who) => depthSocket(server.url, { pairId: pair.pairId, currencyId: pair.currencyId, token: tokens[who], countOnly: true }));
  await Promise.all(socks.map((s) => s.ready));
  for (const w of warmupOrders(pair)) {
    const r = orderRequest(pair, w);
    const a = await client.request("POST", r.path, { token: tokens[w.who], body: r.body });
    if (a.status !== 200) throw new Error(`${name}: warm-up order refused ${a.status} ${JSON.stringify(a.body)}`);
  }
  say(`${name} up on ${server.url}`);
  return { name, root, dir, server, client, tokens, socks, next: orderStream(pair, 42), nextBatch: batchStream(pair, 42, o.batch), chunks: [], errors: {} };
}

/** One chunk of `n` orders on variant x: one order per request (kind "single") or batches; returns runtime CPU ms per order placed. */
async function chunk(x, pair, kind, o) {
  const n = kind === "single" ? o.chunk : o.batchChunk;
  const load = loadAvg();
  const c0 = runtimeCpu(x.server);
  const t0 = now();
  let issued = 0;
  let placed = 0;
  const err = (k) => (x.errors[k] = (x.errors[k] ?? 0) + 1);
  await Promise.all(
    Array.from({ length: kind === "single" ? o.concurrency : o.batchConcurrency }, async () => {
      while (issued < n) {
        if (kind === "batch") {
          issued += o.batch;
          const b = x.nextBatch();
          const q = batchRequest(pair, b.orders);
          const r = await x.client.request("POST", q.path, { token: x.tokens[b.who], body: q.body });
          const items = r.status === 200 ? (r.body?.message?.orders ?? []) : [];
          placed += items.filter((i) => i.order_id).length;
          if (items.length !== o.batch) err(`${r.status} ${r.body?.code ?? r.error?.message ?? ""}`);
          for (const i of items) if (!i.order_id) err(i.code);
          continue;
        }
        issued++;
        const ord = x.next();
        const q = orderRequest(pair, ord);
        const r = await x.client.request("POST", q.path, { token: x.tokens[ord.who], body: q.body });
        if (r.status === 200 && r.body?.type === "ok") placed++;
        else err(`${r.status} ${r.body?.code ?? r.error?.message ?? ""}`);
      }
    }),
  );
  const wall = (now() - t0) / 1000;
  const c1 = await settled(x.server);
  return { kind, n: issued, placed, cpuMs: (c1 - c0) * 1000, wall, load };
}

export async function main(options = {}) {
  const o = { ...DEFAULTS, ...options };
  if (!o.base) throw new Error("--base DIR (the older tree) is required");
  const say = log;
  const pepper = randomPepper();
  const pair = PAIRS[0];
  const used = [];
  const V = [];
  const loads = [];
  const sampler = setInterval(() => loads.push(loadAvg()), 5000);
  try {
    // One account rests all the stops: the per-user limits (20 a pair, 100 in all) are raised for the bench (DEV_OUTBOX only).
    const limit = `${Math.max(o.restStops, 20)},${Math.max(o.restStops, 100)}`;
    V.push(await variant({ name: "this tree", root: snapshotTree(), pepper, pair, o, used, say, vars: { CONDITIONAL_OPEN_LIMIT: limit } }));
    V.push(await variant({ name: "base", root: o.base, pepper, pair, o, used, say }));
    const [main, base] = V;
    let rested = null;
    let alerts = null;
    if (o.restStops > 0) {
      const t0 = now();
      rested = await restStops(main.client, main.tokens, pair, o.restStops, 32);
      say(`rested ${rested.rested} stop orders in ${((now() - t0) / 1000).toFixed(0)} s${rested.refused ? ` (then refused: ${rested.refused})` : ""}`);
    }
    if (o.alerts > 0) {
      alerts = await restAlerts(main.client, main.tokens, pair, o.alerts);
      say(`alerts taken: ${alerts.ok} ${JSON.stringify(alerts.refused)}`);
    }
    // What really rests: the object's answers reached D1 (status 1 = the object watches it).
    const counted = async () => {
      for (let i = 0; i < 120; i++) {
        const [c, a] = await d1(main.root, main.dir, "SELECT status, count(*) AS n FROM spot_conditional_orders GROUP BY status; SELECT status, count(*) AS n FROM price_alerts GROUP BY status;");
        const open = c.find((r) => r.status === 1)?.n ?? 0;
        if (c.every((r) => r.status !== 0)) return { conditional: Object.fromEntries(c.map((r) => [r.status, r.n])), alerts: Object.fromEntries(a.map((r) => [r.status, r.n])), open };
        await sleep(500);
      }
      throw new Error("conditional orders still submitted in D1 after 60 s");
    };
    const before = await counted();
    say(`D1 before the load: conditional by status ${JSON.stringify(before.conditional)}, alerts by status ${JSON.stringify(before.alerts)}`);
    await sleep(1000);
    const rows = [];
    for (let r = 0; r < o.rounds; r++) {
      for (const kind of ["single", "batch"]) {
        const order = (r + (kind === "batch" ? 1 : 0)) % 2 ? [base, main] : [main, base];
        const got = {};
        for (const x of order) got[x.name] = await chunk(x, pair, kind, o);
        const m = got[main.name];
        const b = got[base.name];
        const row = { round: r, kind, first: order[0].name, mainMs: m.cpuMs / m.n, baseMs: b.cpuMs / b.n, ratio: m.cpuMs / m.n / (b.cpuMs / b.n), load: [m.load, b.load], mainCpu: m.cpuMs, baseCpu: b.cpuMs, n: m.n };
        rows.push(row);
        say(`round ${r} ${kind.padEnd(6)} this ${row.mainMs.toFixed(3)} ms/order, base ${row.baseMs.toFixed(3)} ms/order, ratio ${row.ratio.toFixed(3)} (load ${m.load.toFixed(1)}/${b.load.toFixed(1)}; wall ${m.wall.toFixed(1)}/${b.wall.toFixed(1)} s)`);
      }
    }
    const after = await counted();
    const report = { options: { ...o, base: o.base }, rested, alerts, before, after, rows, errors: Object.fromEntries(V.map((x) => [x.name, x.errors])), loads, stats: {} };
    for (const kind of ["single", "batch"]) {
      const rs = rows.filter((x) => x.kind === kind && x.round > 0);
      const ratios = rs.map((x) => x.ratio);
      const pooled = rs.reduce((a, x) => a + x.mainCpu, 0) / rs.reduce((a, x) => a + x.baseCpu, 0);
      report.stats[kind] = {
        chunks: rs.length,
        ordersPerChunk: rs[0]?.n,
        mainMsPerOrder: +(rs.reduce((a, x) => a + x.mainCpu, 0) / rs.reduce((a, x) => a + x.n, 0)).toFixed(3),
        baseMsPerOrder: +(rs.reduce((a, x) => a + x.baseCpu, 0) / rs.reduce((a, x) => a + x.n, 0)).toFixed(3),
        ratioMedian: +quantile(ratios, 0.5).toFixed(3),
        ratioP25: +quantile(ratios, 0.25).toFixed(3),
        ratioP75: +quantile(ratios, 0.75).toFixed(3),
        ratioMin: +Math.min(...ratios).toFixed(3),
        ratioMax: +Math.max(...ratios).toFixed(3),
        pooled: +pooled.toFixed(3),
      };
    }
    const ls = { min: Math.min(...loads), median: quantile(loads, 0.5), max: Math.max(...loads) };
    report.load = ls;
    console.log(`\nInterleaved A/B, ${o.rounds} rounds (the first left out), this tree with ${before.open} open stop orders and ${before.alerts[0] ?? 0} waiting alerts on ${pair.name} against ${o.base}`);
    console.log(`load average (1 min, every 5 s): min ${ls.min}, median ${ls.median}, max ${ls.max}`);
    console.table(report.stats);
    console.log(`errors: ${JSON.stringify(report.errors)}; D1 after: conditional ${JSON.stringify(after.conditional)}, alerts ${JSON.stringify(after.alerts)}`);
    if (o.json) fs.writeFileSync(o.json, JSON.stringify(report, null, 2));
    return report;
  } finally {
    clearInterval(sampler);
    for (const x of V) {
      await Promise.all(x.socks.map((s) => s.close()));
      x.client.close();
      await x.server.stop();
    }
  }
}

function quantile(values, q) {
  const s = [...values].sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  const i = (s.length - 1) * q;
  const lo = Math.floor(i);
  return s[lo] + (s[Math.min(lo + 1, s.length - 1)] - s[lo]) * (i - lo);
}

runWhenMain(import.meta.url, main, { "--rest-stops": "restStops", "--alerts": "alerts", "--rounds": "rounds", "--chunk": "chunk", "--batch-chunk": "batchChunk", "--batch": "batch", "--concurrency": "concurrency", "--batch-concurrency": "batchConcurrency" });
