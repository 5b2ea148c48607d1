#!/usr/bin/env node
/**
 * End-to-end order load: the real Worker (Hono → D1 freeze → pair Durable Object → outbox → D1)
 * under `unstable_startWorker` on 127.0.0.1, a fresh temporary state, the seeded accounts, and a
 * bounded closed-loop client (fixed order counts and a time cap per phase; it stops by itself).
 *
 *   node bench/e2e-load.mjs [--concurrency 16] [--sweep 1,16,64] [--scale 1] [--no-profile]
 *                           [--batch 10,20] [--batch-concurrency 2] [--batch-orders 8000] [--only-batch]
 *                           [--subscribers 200] [--pair-phases 1,2,4] [--phase-seconds 15] [--cpu-profile]
 *                           [--root DIR] [--json FILE] [--seed 7] [--total-seconds 240] [--rest-stops 10000]
 *                           [--accounts objects]   (balances in the account objects, issue #28: users opened first)
 *
 * Phases: an endpoint profile (what one HTTP hop, one D1 read and one DO call cost), a concurrency
 * sweep on one pair, then 1, 2 and 4 pairs at once, then one pair again with 200 extra plain depth
 * subscribers (the WebSocket fan-out cost). Per phase it reports sustained orders/s,
 * submit→ack p50/p99, submit→depth-update p50/p99 (see "Matching depth updates to orders"
 * below), how long the ledger (D1) takes to catch up afterwards, and the CPU time of each process.
 *
 * Matching depth updates to orders: one WebSocket per (pair, account) subscribes to market_depth,
 * beside that account's private channel (/ws/user), both feeding one handler. The depth message
 * that precedes the first private event of order X (in arrival order) is taken as X's update. Since
 * the user channel (issue #9 §2) order events leave only after the outbox drain has applied them
 * to D1, and depth is conflated to 100 ms, that pairing is approximate: it is the latest depth
 * the client saw before hearing of X, not necessarily X's own update. An order whose
 * first event is "cancelled" (self-trade expiry) changed no depth and is not counted. Depth `seq`
 * gaps on a socket are counted too (there should be none).
 *
 * Order stream per pair (seeded PRNG): accounts cycle mm, demo1, mm, demo2, mm. mm places
 * non-crossing makers at mid ± 1..20 steps; demo1/demo2 place crossing limits at mid ± 25 steps
 * with the makers' size, so most take exactly one maker (a trade), and if the other side is empty
 * they rest (and the next maker trades with them). Funding: the seeded balances plus a bench
 * deposit for demo1/demo2 (balanced ledger movements, see lib/server.mjs).
 */
import { pathToFileURL } from "node:url";
import path from "node:path";
import fs from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { ROOT, WRANGLER_ENV, d1, freePort, groupCpu, log, openAccountObjects, prepareState, randomPepper, snapshotTree, startServer, tempDir } from "./lib/server.mjs";
import { depthSocket, fmt, httpClient, login, now, summary } from "./lib/client.mjs";
import { ACCOUNTS, PAIRS, batchRequest, batchStream, orderRequest, orderStream, warmupOrders } from "./lib/orders.mjs";
import { profileServer } from "./lib/cpu-profile.mjs";

export const DEFAULTS = {
  concurrency: 16, // orders in flight per pair in the 1/2/4-pair phases
  sweep: [1, 16, 64], // concurrency levels tried on one pair
  sweepOrders: 800,
  batch: [10, 20], // orders per request of the batch phases (POST /api/transaction/batch); [] = skip them
  batchConcurrency: 2, // batches in flight per pair
  batchOrders: 8000, // orders per batch phase on one pair
  phaseOrders: { 1: 6000, 2: 6000, 4: 8000 }, // orders per phase (split evenly over its pairs)
  pairPhases: [1, 2, 4], // the "k pairs at once" phases to run ([] = none)
  phaseSeconds: 15, // time cap of each phase
  subscribers: 200, // extra depth-only WebSockets on pair 1 for the fan-out phase (0 = skip it)
  totalSeconds: 240, // the load stops starting phases after this (from the start, preparation included; raise it on a loaded machine)
  profile: true,
  profileRequests: 1000,
  seed: 7,
  root: null, // project tree to run (default: a snapshot of this one)
  json: null,
  quiet: false,
  cpuProfile: false, // sample the runtime's workers (exchange Worker + DOs, D1 simulator) during the 1-pair phase
  restStops: 0, // conditional stop-limit sells mm rests on pair 1 before the phases, far below the market (never fire): the trigger check's cost per trade
};

/**
 * Rests `n` stop-limit sells of mm on `pair` at 50–60% of mid (the load trades at mid ± 25 steps,
 * so none fires): every trade of the phases then runs the trigger check against them. Trees
 * without conditional orders (an older main) answer 404: reported, and the run goes on without.
 */
export async function restStops(client, tokens, pair, n, concurrency = 16) {
  let next = 0;
  let ok = 0;
  let refused = null;
  const one = async () => {
    for (let i = next++; i < n && refused === null; i = next++) {
      const stop = Math.round(pair.mid * (0.5 + (0.1 * i) / n));
      const r = await client.request("POST", "/api/transaction/conditional", {
        token: tokens.mm,
        body: { currency_id: pair.currencyId, legal_id: 3, side: "sell", type: "stop_limit", num: fmt(pair.qty, pair.qd), stop_price: fmt(stop, pair.pd), price: fmt(stop - pair.step, pair.pd) },
      });
      if (r.status === 200 && r.body?.type === "ok") ok++;
      else refused = `${r.status} ${r.body?.message ?? r.error?.message ?? ""}`;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, one));
  return { rested: ok, refused };
}

/** Sends one order; resolves with what the client saw. */
async function submit(client, tokens, pair, o) {
  const req = orderRequest(pair, o);
  const r = await client.request("POST", req.path, { token: tokens[o.who], body: req.body });
  const ok = r.status === 200 && r.body?.type === "ok";
  return {
    pair: pair.pairId,
    who: o.who,
    taker: o.taker,
    t0: r.t0,
    t1: r.t1,
    ok,
    http: r.status,
    code: ok ? null : (r.body?.code ?? r.error?.message ?? r.text?.slice(0, 80) ?? "?"),
    orderId: ok ? r.body.message.order_id : null,
    status: ok ? r.body.message.status : null,
    filled: ok ? r.body.message.filled : null,
  };
}

/** Sends one batch of one account's orders; resolves with one result per order (all share the request's timing). */
async function submitBatch(client, tokens, pair, b) {
  const req = batchRequest(pair, b.orders);
  const r = await client.request("POST", req.path, { token: tokens[b.who], body: req.body });
  const ok = r.status === 200 && r.body?.type === "ok";
  return b.orders.map((o, k) => {
    const item = ok ? r.body.message.orders[k] : null;
    const placed = Boolean(item?.order_id);
    return {
      pair: pair.pairId,
      who: o.who,
      taker: o.taker,
      t0: r.t0,
      t1: r.t1,
      ok: placed,
      http: r.status,
      code: placed ? null : (item?.code ?? r.body?.code ?? r.error?.message ?? r.text?.slice(0, 80) ?? "?"),
      orderId: placed ? item.order_id : null,
      status: placed ? item.status : null,
      filled: placed ? item.filled : null,
    };
  });
}

/** Per-socket bookkeeping of depth messages and first private events (see the header). */
function makeTracker() {
  const first = new Map(); // orderId -> { t, status, tDepth }
  let gaps = 0;
  let depthMsgs = 0;
  const attach = (sock) => {
    let lastDepth = null;
    let runDepth = null;
    let prevSeq = null;
    return (msg, t) => {
      if (msg.type === "market_depth") {
        depthMsgs++;
        if (prevSeq === null) prevSeq = sock.snapshotSeq;
        if (prevSeq !== null && msg.seq !== prevSeq + 1) gaps++;
        prevSeq = msg.seq;
        lastDepth = { t, used: false };
      } else if (msg.type === "order") {
        const id = String(msg.order_id);
        if (!first.has(id)) {
          // The depth message that opened this run of order events is the book after this order's
          // command (one command, or the whole batch it came in).
          const usable = runDepth && msg.status !== "cancelled";
          first.set(id, { t, status: msg.status, tDepth: usable ? runDepth.t : null });
        }
      }
      if (msg.type === "market_depth") runDepth = lastDepth;
      else if (msg.type !== "order") runDepth = null;
    };
  };
  return { first, attach, stats: () => ({ gaps, depthMsgs }) };
}

function cpuSnapshot(server) {
  const m = new Map();
  for (const p of groupCpu(server.pid)) m.set(p.pid, { ...p, io: p.cmd.includes("runtime") ? writesOf(p.pid) : null });
  return { procs: m, client: process.cpuUsage(), wall: now() };
}

/**
 * What a process has written so far (/proc/PID/io, no privileges needed): write system calls and
 * bytes sent to storage. SQLite's commits are most of the runtime's (each page of a commit is a
 * write to its WAL, each commit a sync), and D1 and the objects alike write through them.
 */
function writesOf(pid) {
  try {
    const f = Object.fromEntries(fs.readFileSync(`/proc/${pid}/io`, "utf8").trim().split("\n").map((l) => l.split(": ")).map(([k, v]) => [k, Number(v)]));
    return { calls: f.syscw, bytes: f.write_bytes };
  } catch {
    return null;
  }
}

/** The runtime's write calls and KB written per order between two snapshots (null where /proc/PID/io is not readable). */
function writesPerUnit(a, b, n) {
  let calls = 0;
  let bytes = 0;
  for (const [pid, p] of b.procs) {
    const before = a.procs.get(pid)?.io;
    if (!p.io || !before) continue;
    calls += p.io.calls - before.calls;
    bytes += p.io.bytes - before.bytes;
  }
  if (calls === 0) return { runtimeWritesPerRequest: null, runtimeWriteKbPerRequest: null };
  return { runtimeWritesPerRequest: +(calls / Math.max(1, n)).toFixed(2), runtimeWriteKbPerRequest: +(bytes / 1024 / Math.max(1, n)).toFixed(1) };
}

function cpuDelta(a, b) {
  const wall = (b.wall - a.wall) / 1000;
  const rows = [];
  for (const [pid, p] of b.procs) {
    const before = a.procs.get(pid)?.cpu ?? 0;
    const used = p.cpu - before;
    if (used > 0.005) rows.push({ process: p.cmd, pid, cpuSeconds: +used.toFixed(2), cores: +(used / wall).toFixed(2) });
  }
  const clientUsed = (b.client.user - a.client.user + b.client.system - a.client.system) / 1e6;
  rows.push({ process: "node (load client, this process)", pid: process.pid, cpuSeconds: +clientUsed.toFixed(2), cores: +(clientUsed / wall).toFixed(2) });
  return rows.sort((x, y) => y.cpuSeconds - x.cpuSeconds);
}

/** Waits until no account lists a submitted (status 0) order: the outbox has reached D1. */
async function ledgerCatchUp(client, tokens, capMs = 60_000) {
  const t0 = now();
  while (now() - t0 < capMs) {
    let pending = 0;
    for (const who of Object.keys(tokens)) {
      const r = await client.request("GET", "/api/new/transaction/index", { token: tokens[who] });
      pending += (r.body?.data?.lists ?? []).filter((o) => o.status === 0).length;
    }
    if (pending === 0) return now() - t0;
    await sleep(50);
  }
  return null;
}

async function runPhase({ name, client, tokens, pairs, concurrency, orders, capMs, seed, tracker, server, batch = 0 }) {
  const perPair = Math.ceil(orders / pairs.length);
  const results = [];
  const deadline = now() + capMs;
  const cpu0 = cpuSnapshot(server);
  const tStart = now();
  await Promise.all(
    pairs.map(async (pair, pi) => {
      let issued = 0;
      if (batch > 0) {
        const nextBatch = batchStream(pair, seed * 1000 + pi, batch);
        await Promise.all(
          Array.from({ length: concurrency }, async () => {
            while (issued < perPair && now() < deadline) {
              issued += batch;
              results.push(...(await submitBatch(client, tokens, pair, nextBatch())));
            }
          }),
        );
        return;
      }
      const next = orderStream(pair, seed * 1000 + pi);
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (issued < perPair && now() < deadline) {
            issued++;
            results.push(await submit(client, tokens, pair, next()));
          }
        }),
      );
    }),
  );
  const tEnd = now();
  const cpu1 = cpuSnapshot(server);
  // Let the last WebSocket messages arrive before reading them.
  await sleep(300);
  const catchUpMs = await ledgerCatchUp(client, tokens);

  const acked = results.filter((r) => r.ok);
  const errors = {};
  for (const r of results.filter((x) => !x.ok)) errors[`${r.http} ${r.code}`] = (errors[`${r.http} ${r.code}`] ?? 0) + 1;
  const firstT0 = Math.min(...results.map((r) => r.t0));
  const lastT1 = Math.max(...results.map((r) => r.t1));
  const depthLat = [];
  let noDepth = 0;
  for (const r of acked) {
    const f = tracker.first.get(r.orderId);
    if (f?.tDepth != null) depthLat.push(f.tDepth - r.t0);
    else noDepth++;
  }
  const ack = summary(acked.map((r) => r.t1 - r.t0));
  const dep = summary(depthLat);
  const outcomes = {};
  for (const r of acked) {
    const k = r.status === "open" && Number(r.filled) > 0 ? "partial+rest" : r.status;
    outcomes[k] = (outcomes[k] ?? 0) + 1;
  }
  return {
    phase: name,
    pairs: pairs.map((p) => p.name).join(" + "),
    ordersPerRequest: batch || 1,
    concurrencyPerPair: concurrency,
    concurrencyTotal: concurrency * pairs.length,
    submitted: results.length,
    acked: acked.length,
    errors,
    seconds: +((lastT1 - firstT0) / 1000).toFixed(2),
    ordersPerSecond: Math.round(acked.length / ((lastT1 - firstT0) / 1000)),
    ackMs: { p50: round(ack.p50), p90: round(ack.p90), p99: round(ack.p99), max: round(ack.max) },
    depthMs: { n: dep.n, p50: round(dep.p50), p90: round(dep.p90), p99: round(dep.p99), max: round(dep.max) },
    ordersWithoutDepthUpdate: noDepth,
    outcomes,
    ledgerCatchUpMs: catchUpMs === null ? null : Math.round(catchUpMs),
    ...cpuPerUnit(cpuDelta(cpu0, cpu1), acked.length),
    ...writesPerUnit(cpu0, cpu1, acked.length),
    cpu: cpuDelta(cpu0, cpu1),
    wallSeconds: +((tEnd - tStart) / 1000).toFixed(2),
  };
}

const round = (x) => (x == null ? null : +x.toFixed(1));

/** CPU milliseconds per request of the runtime (Worker + DOs + D1 simulator, one thread) and of the proxy. */
function cpuPerUnit(rows, n) {
  const ms = (match) => +((rows.filter((r) => r.process.includes(match)).reduce((a, r) => a + r.cpuSeconds, 0) * 1000) / Math.max(1, n)).toFixed(2);
  return { runtimeCpuMsPerRequest: ms("runtime"), proxyCpuMsPerRequest: ms("proxy"), clientCpuMsPerRequest: ms("load client") };
}

/** Latency of one request type alone (sequential) and its throughput at concurrency 16. */
async function profileEndpoint(server, client, label, fn, n) {
  const seq = [];
  for (let i = 0; i < Math.min(200, n); i++) {
    const r = await fn();
    if (r.status >= 500 || r.status === 0) throw new Error(`${label}: ${r.status}`);
    seq.push(r.ms);
  }
  const C = 16;
  let issued = 0;
  const lat = [];
  const cpu0 = cpuSnapshot(server);
  const t0 = now();
  await Promise.all(
    Array.from({ length: C }, async () => {
      while (issued < n) {
        issued++;
        lat.push((await fn()).ms);
      }
    }),
  );
  const secs = (now() - t0) / 1000;
  const cpu = cpuPerUnit(cpuDelta(cpu0, cpuSnapshot(server)), n);
  const s = summary(seq);
  const c = summary(lat);
  return { endpoint: label, sequentialP50: round(s.p50), sequentialP99: round(s.p99), rpsAtC16: Math.round(n / secs), c16P50: round(c.p50), c16P99: round(c.p99), ...cpu };
}

/** D1 work per order, from the rows the run left in D1. */
async function d1Accounting(root, dir) {
  const [orders, movements, ledger, trades] = await d1(
    root,
    dir,
    `SELECT count(*) AS n, sum(status = 0) AS submitted FROM spot_orders;
     SELECT sum(key LIKE 'spot-freeze:%') AS freeze, sum(key LIKE 'spot:%') AS drain FROM movements;
     SELECT sum(movement_key LIKE 'spot-freeze:%') AS freeze, sum(movement_key LIKE 'spot:%') AS drain FROM ledger;
     SELECT count(*) AS n FROM spot_trades;`,
  );
  const n = orders[0].n;
  const t = trades[0].n;
  const drainRows = movements[0].drain;
  const drainLedger = ledger[0].drain;
  // Worker per order: one batch [movement, ledger(+2 trigger statements), order] (the pair row is cached per isolate;
  // the session is read only for a token's first order in an isolate, then checked inside that batch: worker/lib/auth.ts).
  // Drain per outbox row: movement + ledger rows (+2 trigger statements each) + one UPDATE per touched
  // order (the order itself + one maker per trade) + one INSERT per trade; one ticker upsert per drain batch.
  const drainStatements = drainRows + drainLedger + (n + t) + t;
  return {
    orders: n,
    stillSubmitted: orders[0].submitted,
    trades: t,
    outboxRowsApplied: drainRows,
    ledgerRowsPerOrder: +((ledger[0].freeze + drainLedger) / n).toFixed(2),
    workerRoundTripsPerOrder: 1,
    workerStatementsPerOrder: 3, // 3 batched writes; the ledger trigger adds 2 more inside SQLite
    drainStatementsPerOrder: +(drainStatements / n).toFixed(2),
    totalTopLevelStatementsPerOrder: +(3 + drainStatements / n).toFixed(2),
    triggerStatementsPerOrder: +((2 * (ledger[0].freeze + drainLedger)) / n).toFixed(2),
  };
}

export async function main(options = {}) {
  const o = { ...DEFAULTS, ...options };
  const say = o.quiet ? () => {} : log;
  const tAll = now();
  const loadAtStart = machineInfo().loadAverage;
  // A snapshot of --root too: another checkout is never written to (and gets the SPA folder wrangler wants).
  const root = snapshotTree(o.root ?? ROOT);
  const dir = tempDir("exchange-bench-state-");
  const pepper = randomPepper();
  say(`preparing state in ${dir} (migrations, seed, bench funding)`);
  // --root another checkout: its own seed script too (its migrations may be older than this tree's seed).
  const seedRoot = o.root && fs.existsSync(path.join(o.root, "scripts", "seed.mjs")) ? o.root : ROOT;
  await prepareState({ root, dir, pepper, seedRoot });
  if (o.accounts === "objects") {
    say("opening every user's balances in their account object (ACCOUNTS=objects)");
    await openAccountObjects({ root, dir, pepper });
  }
  const port = await freePort();
  const inspector = o.cpuProfile ? await freePort([port]) : null;
  say(`starting the Worker on 127.0.0.1:${port}`);
  // One account rests all the stops: the per-user limits (20 a pair, 100 in all) are raised for the bench (DEV_OUTBOX only).
  const vars = {
    ...(o.accounts === "objects" ? { ACCOUNTS: "objects" } : {}),
    ...(o.restStops > 0 ? { CONDITIONAL_OPEN_LIMIT: `${Math.max(o.restStops, 20)},${Math.max(o.restStops, 100)}` } : {}),
  };
  const server = await startServer({ root, dir, port, pepper, inspector, vars: Object.keys(vars).length ? vars : null });
  const client = httpClient(server.url);
  const sockets = [];
  try {
    const tokens = {};
    for (const [k, a] of Object.entries(ACCOUNTS)) tokens[k] = await login(client, a.account, a.password);

    const tracker = makeTracker();
    for (const pair of PAIRS) {
      for (const who of Object.keys(tokens)) {
        let handler = null;
        const s = depthSocket(server.url, { pairId: pair.pairId, currencyId: pair.currencyId, token: tokens[who], onMessage: (m, t) => handler?.(m, t) });
        handler = tracker.attach(s);
        sockets.push(s);
      }
    }
    await Promise.all(sockets.map((s) => s.ready));

    // Warm-up: every pair gets a book of mm makers on both sides (and its object is loaded).
    for (const pair of PAIRS) {
      for (const w of warmupOrders(pair)) {
        const r = await submit(client, tokens, pair, w);
        if (!r.ok) throw new Error(`warm-up order refused: ${r.http} ${r.code}`);
      }
    }
    let stops = null;
    if (o.restStops > 0) {
      const t0 = now();
      stops = await restStops(client, tokens, PAIRS[0], o.restStops);
      say(`rested ${stops.rested} stop orders on ${PAIRS[0].name} in ${((now() - t0) / 1000).toFixed(1)} s${stops.refused ? ` (then refused: ${stops.refused})` : ""}`);
    }
    await ledgerCatchUp(client, tokens);

    const report = { loadAtStart, machine: machineInfo(), runtime: runtimeInfo(root), options: { ...o, root: o.root ? o.root : "snapshot of the working tree" }, stops, profile: [], phases: [] };
    if (o.profile) {
      say("profiling single endpoints");
      const n = o.profileRequests;
      report.profile.push(await profileEndpoint(server, client, "GET unknown path (HTTP + Hono only)", () => client.request("GET", "/api/nothing-here"), n));
      report.profile.push(await profileEndpoint(server, client, "GET /api/currency/depth (1 D1 read + 1 DO call)", () => client.request("GET", "/api/currency/depth?currency_id=1&legal_id=3"), n));
      report.profile.push(await profileEndpoint(server, client, "GET /api/new/transaction/index (2 D1 reads)", () => client.request("GET", "/api/new/transaction/index?currency_id=11", { token: tokens.demo1 }), n));
      report.profile.push(await profileEndpoint(server, client, "GET /api/transaction/balance (4 D1 reads)", () => client.request("GET", "/api/transaction/balance?currency_id=1&legal_id=3", { token: tokens.demo1 }), n));
    }

    const phases = [];
    for (const c of o.sweep) phases.push({ name: `1 pair, concurrency ${c}`, pairs: PAIRS.slice(0, 1), concurrency: c, orders: o.sweepOrders });
    for (const k of o.pairPhases) {
      phases.push({ name: `${k} pair${k > 1 ? "s" : ""} at once`, pairs: PAIRS.slice(0, k), concurrency: o.concurrency, orders: Math.round(o.phaseOrders[k] * (o.scale ?? 1)) });
    }
    if (o.scale && o.scale !== 1) for (const p of phases) p.orders = Math.max(50, Math.round(p.orders * (p.name.includes("concurrency") ? o.scale : 1)));
    for (const b of o.batch) {
      phases.push({ name: `1 pair, batches of ${b}`, pairs: PAIRS.slice(0, 1), concurrency: o.batchConcurrency, orders: Math.round(o.batchOrders * (o.scale ?? 1)), batch: b });
    }
    if (o.batch.length > 0) {
      const b = Math.max(...o.batch);
      for (const k of [2, 4]) {
        phases.push({ name: `${k} pairs, batches of ${b}`, pairs: PAIRS.slice(0, k), concurrency: o.batchConcurrency, orders: Math.round(o.batchOrders * (o.scale ?? 1)), batch: b });
      }
    }
    if (o.subscribers > 0) {
      phases.push({ name: `1 pair + ${o.subscribers} depth subscribers`, pairs: PAIRS.slice(0, 1), concurrency: o.concurrency, orders: Math.round(o.phaseOrders[1] * (o.scale ?? 1)), subscribers: o.subscribers });
    }
    let seed = o.seed;
    for (const ph of o.onlyBatch ? phases.filter((p) => p.batch) : phases) {
      if ((now() - tAll) / 1000 > o.totalSeconds) {
        say(`time budget used: skipping "${ph.name}"`);
        continue;
      }
      say(`phase: ${ph.name} (${ph.orders} orders, cap ${o.phaseSeconds} s)`);
      let stopProfile = null;
      if (o.cpuProfile && ph.name === (o.cpuProfilePhase ?? "1 pair at once")) stopProfile = await profileServer(server, inspector, say);
      // Viewers: plain depth subscribers (no login), all receiving every depth update of pair 1.
      const viewers = [];
      if (ph.subscribers) {
        for (let i = 0; i < ph.subscribers; i++) viewers.push(depthSocket(server.url, { pairId: PAIRS[0].pairId, currencyId: PAIRS[0].currencyId, countOnly: true, withTicker: true }));
        await Promise.all(viewers.map((v) => v.ready));
      }
      const r = await runPhase({ ...ph, client, tokens, capMs: o.phaseSeconds * 1000, seed: seed++, tracker, server });
      if (viewers.length) {
        const got = viewers.map((v) => v.count);
        r.viewerMessages = { min: Math.min(...got), max: Math.max(...got) };
        await Promise.all(viewers.map((v) => v.close()));
      }
      if (stopProfile) r.cpuProfile = await stopProfile();
      report.phases.push(r);
      say(`  ${r.acked}/${r.submitted} acked in ${r.seconds} s = ${r.ordersPerSecond}/s; ack p50 ${r.ackMs.p50} p99 ${r.ackMs.p99} ms; depth p50 ${r.depthMs.p50} p99 ${r.depthMs.p99} ms; ledger catch-up ${r.ledgerCatchUpMs} ms`);
    }
    report.websocket = tracker.stats();
    // The statement model below is D1 mode's (a freeze batch per request, the outbox drain); in objects
    // mode D1 is the read model only and bench/d1-count.mjs counts its statements.
    report.d1 =
      o.accounts === "objects"
        ? { note: "objects mode: D1 is the read model; count its statements with bench/d1-count.mjs --accounts objects" }
        : await d1Accounting(root, dir).catch((e) => ({ error: String(e.message ?? e) }));
    // Server-side errors behind any 5xx answers (the Worker logs them as JSON lines).
    report.serverErrors = server.output
      .join("")
      .split("\n")
      .filter((l) => l.includes('"level":"error"'))
      .map((l) => l.replace(/^.*?(\{"level")/, "$1").slice(0, 400))
      .slice(0, 10);
    report.totalSeconds = +((now() - tAll) / 1000).toFixed(1);
    report.machine = machineInfo();
    if (!o.quiet) printReport(report);
    if (o.json) fs.writeFileSync(o.json, JSON.stringify(report, null, 2));
    return report;
  } finally {
    await Promise.all(sockets.map((s) => s.close()));
    client.close();
    await server.stop();
  }
}

/** Which wrangler and workerd run the Worker, and whether wrangler's local trace collector is on (lib/server.mjs). */
function runtimeInfo(root) {
  const version = (pkg) => {
    for (const dir of [path.join(root, "node_modules", "wrangler", "node_modules", pkg), path.join(root, "node_modules", pkg)]) {
      try {
        return JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8")).version;
      } catch {}
    }
    return null;
  };
  return { wrangler: version("wrangler"), workerd: version("workerd"), localObservability: WRANGLER_ENV.X_LOCAL_OBSERVABILITY !== "false" };
}

function machineInfo() {
  const os = process.platform === "linux" ? fs.readFileSync("/proc/cpuinfo", "utf8") : "";
  const model = /model name\s*:\s*(.*)/.exec(os)?.[1] ?? "?";
  const cores = (os.match(/^processor\s*:/gm) ?? []).length;
  let load = null;
  try {
    load = fs.readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
  } catch {}
  return { cpu: model, cores, node: process.version, loadAverage: load };
}

function printReport(r) {
  const line = (cells, widths) => cells.map((c, i) => String(c ?? "").padEnd(widths[i])).join(" | ");
  console.log(`\nMachine: ${r.machine.cores} cores, ${r.machine.cpu}, node ${r.machine.node}; load average at start ${r.loadAtStart}, at end ${r.machine.loadAverage}`);
  console.log(`Runtime: wrangler ${r.runtime.wrangler}, workerd ${r.runtime.workerd}, local observability ${r.runtime.localObservability ? "on" : "off"}`);
  if (r.profile.length) {
    console.log("\nEndpoint profile (sequential latency; throughput at 16 in flight):");
    const w = [52, 8, 8, 9, 8, 8, 10, 10];
    console.log(line(["endpoint", "seq p50", "seq p99", "req/s C16", "C16 p50", "C16 p99", "rt CPU ms", "px CPU ms"], w));
    for (const p of r.profile) console.log(line([p.endpoint, p.sequentialP50, p.sequentialP99, p.rpsAtC16, p.c16P50, p.c16P99, p.runtimeCpuMsPerRequest, p.proxyCpuMsPerRequest], w));
  }
  console.log("\nOrder load (limit orders; ms from submit):");
  const w = [28, 6, 6, 8, 8, 8, 9, 9, 9, 8, 8, 10, 14];
  console.log(line(["phase", "in-flt", "acked", "orders/s", "ack p50", "ack p99", "depth p50", "depth p99", "rt CPU ms", "rt wr", "rt KB", "catch-up", "errors"], w));
  for (const p of r.phases) {
    console.log(line([p.phase, p.concurrencyTotal, p.acked, p.ordersPerSecond, p.ackMs.p50, p.ackMs.p99, p.depthMs.p50, p.depthMs.p99, p.runtimeCpuMsPerRequest, p.runtimeWritesPerRequest ?? "-", p.runtimeWriteKbPerRequest ?? "-", p.ledgerCatchUpMs, JSON.stringify(p.errors)], w));
  }
  console.log("(rt CPU ms = CPU time of the workerd runtime thread per order: Worker + pair DOs + D1 simulator; rt wr, rt KB = its write system calls and KB written to storage per order, /proc/PID/io; catch-up = ms after the phase until D1 shows no submitted order)");
  const last = r.phases[r.phases.length - 1];
  if (last) {
    console.log(`\nCPU during "${last.phase}" (${last.wallSeconds} s):`);
    for (const c of last.cpu) console.log(`  ${c.process.padEnd(40)} ${String(c.cpuSeconds).padStart(7)} s  ${c.cores} cores`);
  }
  for (const p of r.phases.filter((x) => x.cpuProfile)) {
    for (const [target, prof] of Object.entries(p.cpuProfile)) {
      console.log(`\nCPU profile of ${target} during "${p.phase}": busy ${prof.busyMs} ms of ${prof.sampledMs} ms sampled; top self time:`);
      for (const t of prof.top.slice(0, 20)) console.log(`  ${String(t.ms).padStart(8)} ms  ${t.fn}`);
    }
  }
  if (r.serverErrors?.length) console.log(`\nServer errors logged:\n  ${r.serverErrors.join("\n  ")}`);
  console.log(`\nWebSocket: ${r.websocket.depthMsgs} depth messages, ${r.websocket.gaps} seq gaps`);
  console.log(`D1 per order: ${JSON.stringify(r.d1)}`);
  console.log(`Total ${r.totalSeconds} s`);
}

function parseArgs(argv) {
  const o = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const v = () => argv[++i];
    if (a === "--concurrency") o.concurrency = Number(v());
    else if (a === "--sweep") o.sweep = v().split(",").filter(Boolean).map(Number);
    else if (a === "--batch") o.batch = v().split(",").filter(Boolean).map(Number);
    else if (a === "--batch-concurrency") o.batchConcurrency = Number(v());
    else if (a === "--batch-orders") o.batchOrders = Number(v());
    else if (a === "--only-batch") o.onlyBatch = true;
    else if (a === "--scale") o.scale = Number(v());
    else if (a === "--no-profile") o.profile = false;
    else if (a === "--root") o.root = path.resolve(v());
    else if (a === "--json") o.json = path.resolve(v());
    else if (a === "--seed") o.seed = Number(v());
    else if (a === "--phase-seconds") o.phaseSeconds = Number(v());
    else if (a === "--total-seconds") o.totalSeconds = Number(v());
    else if (a === "--cpu-profile") o.cpuProfile = true;
    else if (a === "--cpu-profile-phase") o.cpuProfilePhase = v();
    else if (a === "--subscribers") o.subscribers = Number(v());
    else if (a === "--rest-stops") o.restStops = Number(v());
    else if (a === "--pair-phases") o.pairPhases = v().split(",").filter(Boolean).map(Number);
    else if (a === "--accounts") o.accounts = v();
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
