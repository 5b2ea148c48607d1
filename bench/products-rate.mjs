#!/usr/bin/env node
/**
 * Products through HTTP, side by side (issue #17 §2's third target): spot single orders, seconds
 * contracts and leveraged opens, each as one request per action with the same number in flight,
 * on BTC/USDT of ONE server (local workerd, fresh --persist-to state), phase after phase. Per phase
 * it reports actions/s, submit→answer p50/p99 and the runtime CPU per action (the workerd runtime
 * thread that runs the Worker, the pair objects and the D1 simulator, divided by the accepted
 * actions), so the three rates compare within one run on the shared machine.
 *
 *   node bench/products-rate.mjs [--ops 600] [--concurrency 16] [--rounds 1] [--phase-seconds 60]
 *                                [--phases spot,seconds,lever] [--root DIR] [--json FILE]
 *
 * Phases (each `--ops` actions, capped at `--phase-seconds`; `--rounds 2` runs the three again
 * on the same server, so drift shows):
 *   - spot:    POST /api/transaction/walletIn|walletOut, the maker/taker stream of bench/e2e-load.mjs
 *              (accounts mm, demo1, demo2; about 40% of the orders trade)
 *   - seconds: POST /api/microtrade/submit, 1 USDT up or down for 600 s (an option added in this
 *              run's state, so no contract settles during the run), demo1 and demo2 alternately
 *   - lever:   POST /api/lever/submit, one lot at 10×, long or short at the index the sender
 *              confirmed (GET /api/lever/deal before the phase), demo1 and demo2 alternately
 * After each phase the script waits until D1 has caught up (no spot order still submitted, no
 * contract or position still held) before the next starts, so a phase's drain is its own.
 *
 * The run widens the settings it needs in its own throw-away state only: the 600 s option, the
 * seconds exposure limits, lever positions per user and house exposure, and the treasury's USDT
 * (the house's holds). `--root DIR` runs another tree's Worker (for example a checkout of main)
 * with this script, so two trees compare by interleaved runs (base, branch, base, branch).
 */
import fs from "node:fs";
import path from "node:path";
import os from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import { pathToFileURL } from "node:url";
import { ROOT, d1, freePort, groupCpu, log, prepareState, randomPepper, snapshotTree, startServer, tempDir } from "./lib/server.mjs";
import { httpClient, login, now, summary } from "./lib/client.mjs";
import { ACCOUNTS, PAIRS, orderRequest, orderStream, warmupOrders } from "./lib/orders.mjs";

export const DEFAULTS = { ops: 600, concurrency: 16, rounds: 1, phaseSeconds: 60, phases: ["spot", "seconds", "lever"], root: null, json: null, quiet: false, seed: 7 };

const PLAYERS = ["demo1", "demo2"];

function parseArgs(argv) {
  const o = {};
  for (let i = 0; i < argv.length; i += 2) {
    const k = argv[i].replace(/^--/, "").replace(/-([a-z])/g, (_, c) => c.toUpperCase());
    const v = argv[i + 1];
    if (k === "json" || k === "root") o[k] = v;
    else if (k === "phases") o[k] = v.split(",").filter(Boolean);
    else o[k] = Number(v);
  }
  return o;
}

const runtimeCpu = (server) => groupCpu(server.pid).filter((p) => p.cmd.includes("runtime")).reduce((a, p) => a + p.cpu, 0);
const proxyCpu = (server) => groupCpu(server.pid).filter((p) => p.cmd.includes("proxy")).reduce((a, p) => a + p.cpu, 0);

/** A closed loop: `concurrency` senders, `ops` actions in all, each `send(i)` resolving { ok, code }. */
async function runPhase({ name, server, ops, concurrency, capMs, send }) {
  const results = [];
  let issued = 0;
  const deadline = now() + capMs;
  const cpu0 = runtimeCpu(server);
  const px0 = proxyCpu(server);
  const t0 = now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (issued < ops && now() < deadline) {
        const i = issued++;
        const s = now();
        const r = await send(i);
        results.push({ ...r, ms: now() - s });
      }
    }),
  );
  const seconds = (now() - t0) / 1000;
  const cpu = runtimeCpu(server) - cpu0;
  const px = proxyCpu(server) - px0;
  const ok = results.filter((r) => r.ok);
  const refused = {};
  for (const r of results.filter((x) => !x.ok)) refused[r.code] = (refused[r.code] ?? 0) + 1;
  const lat = summary(ok.map((r) => r.ms));
  const round1 = (x) => (x == null ? null : +x.toFixed(1));
  return {
    phase: name,
    concurrency,
    sent: results.length,
    accepted: ok.length,
    refused,
    seconds: +seconds.toFixed(2),
    perSecond: Math.round(ok.length / seconds),
    ackMs: { p50: round1(lat.p50), p99: round1(lat.p99) },
    runtimeCpuMsPerRequest: +((cpu * 1000) / Math.max(1, ok.length)).toFixed(2),
    proxyCpuMsPerRequest: +((px * 1000) / Math.max(1, ok.length)).toFixed(2),
    runtimeCores: +(cpu / seconds).toFixed(2),
  };
}

const outcome = (r) => (r.status === 200 && r.body?.type === "ok" ? { ok: true } : { ok: false, code: `${r.status} ${r.body?.code ?? r.error?.message ?? "?"}` });

export async function main(options = {}) {
  const o = { ...DEFAULTS, ...options };
  const say = o.quiet ? () => {} : log;
  const load0 = os.loadavg()[0];
  const root = snapshotTree(o.root ? path.resolve(o.root) : ROOT);
  const dir = tempDir("exchange-rates-state-");
  const pepper = randomPepper();
  const pair = PAIRS[0];
  say(`preparing state in ${dir} (tree ${o.root ?? ROOT})`);
  await prepareState({ root, dir, pepper });
  const at = Date.now();
  const treasury = 10_000_000n * 10n ** 8n;
  await d1(
    root,
    dir,
    `INSERT INTO seconds_options (seconds, profit_ratio_bps, status) VALUES (600, 8000, 1) ON CONFLICT (seconds) DO UPDATE SET status = 1;
     UPDATE micro_currencies SET pair_exposure = '100000000', user_exposure = '100000000' WHERE currency_id = 3;
     UPDATE lever_pairs SET max_positions = 1000, pair_exposure = '10000000000' WHERE pair_id = 1;
     INSERT INTO movements (key, kind, created_at) VALUES ('bench-rates-house', 'treasury_funding', ${at});
     INSERT INTO ledger (movement_key, user_id, currency_id, account, d_available, d_frozen, kind, memo, created_at) VALUES
       ('bench-rates-house', -3, 3, 'change', ${treasury}, 0, 'treasury_funding', 'bench', ${at}),
       ('bench-rates-house', -1, 3, 'change', ${-treasury}, 0, 'treasury_funding', 'bench', ${at});`,
  );
  const port = await freePort();
  say(`starting the Worker on 127.0.0.1:${port}`);
  const server = await startServer({ root, dir, port, pepper });
  const client = httpClient(server.url, { timeoutMs: 60_000 });
  const report = { loadAverage: { start: load0 }, options: { ...o, root: o.root ?? "this tree" }, phases: [] };
  try {
    const tokens = {};
    for (const [k, a] of Object.entries(ACCOUNTS)) tokens[k] = await login(client, a.account, a.password);
    for (const who of PLAYERS) {
      for (const [to, number] of [
        ["micro", "100000"],
        ["lever", "300000"],
      ]) {
        const r = await client.request("POST", "/api/wallet/change", { token: tokens[who], body: { number, from_field: "change", to_field: to, currency_id: 3 } });
        if (r.body?.type !== "ok") throw new Error(`transfer to ${to} failed: ${JSON.stringify(r.body)}`);
      }
    }
    for (const w of warmupOrders(pair)) {
      const req = orderRequest(pair, w);
      const r = await client.request("POST", req.path, { token: tokens.mm, body: req.body });
      if (r.body?.type !== "ok") throw new Error(`warm-up order refused: ${JSON.stringify(r.body)}`);
    }
    // One of each first (objects loaded, isolates warm, session hints made), then the phases.
    await client.request("POST", "/api/microtrade/submit", { token: tokens.demo1, body: { match_id: pair.pairId, currency_id: 3, type: 1, seconds: 600, number: "1" } });
    await client.request("POST", "/api/lever/submit", { token: tokens.demo1, body: { currency_id: 1, legal_id: 3, type: 1, share: 1, multiple: 10 } });

    /** D1 caught up: no spot order still submitted, no contract or position still held (status 0: listed without its entry price). */
    const quiet = async () => {
      const t0 = now();
      while (now() - t0 < 120_000) {
        let pending = 0;
        for (const who of Object.keys(tokens)) {
          const r = await client.request("GET", "/api/new/transaction/index", { token: tokens[who] });
          pending += (r.body?.data?.lists ?? []).filter((x) => x.status === 0).length;
        }
        // A contract or position whose acceptance has not reached D1 yet lists without its entry price.
        for (const who of PLAYERS) {
          const c = await client.request("GET", "/api/microtrade/lists", { token: tokens[who] });
          pending += (c.body?.message ?? []).filter((x) => x.status <= 2 && x.open_price === null).length;
          const l = await client.request("POST", "/api/lever/my_trade?status=2&legal_id=3&currency_id=1&page=1&limit=100", { token: tokens[who] });
          pending += (l.body?.message?.message?.data ?? []).filter((x) => x.open_price === null).length;
        }
        if (pending === 0) return Math.round(now() - t0);
        await sleep(50);
      }
      return null;
    };

    let seed = o.seed;
    const phases = {
      spot: () => {
        const next = orderStream(pair, seed++);
        return (_i) => {
          const w = next();
          const req = orderRequest(pair, w);
          return client.request("POST", req.path, { token: tokens[w.who], body: req.body }).then(outcome);
        };
      },
      seconds: () => (i) =>
        client
          .request("POST", "/api/microtrade/submit", { token: tokens[PLAYERS[i % 2]], body: { match_id: pair.pairId, currency_id: 3, type: 1 + (i % 4 < 2 ? 0 : 1), seconds: 600, number: "1" } })
          .then(outcome),
      lever: async () => {
        const deal = await client.request("GET", "/api/lever/deal?currency_id=1&legal_id=3", { token: tokens.demo1 });
        let confirmed = deal.body?.message?.index_price ?? undefined;
        return async (i) => {
          const r = await client.request("POST", "/api/lever/submit", { token: tokens[PLAYERS[i % 2]], body: { currency_id: 1, legal_id: 3, type: 1 + (i % 4 < 2 ? 0 : 1), share: 1, multiple: 10, index_price: confirmed } });
          // The index moved past the tolerance: the sender confirms the new one, as the app does.
          if (r.body?.code === "price_moved") confirmed = (await client.request("GET", "/api/lever/deal?currency_id=1&legal_id=3", { token: tokens.demo1 })).body?.message?.index_price;
          return outcome(r);
        };
      },
    };
    for (let round = 1; round <= o.rounds; round++) {
      for (const name of o.phases) {
        if (!phases[name]) throw new Error(`unknown phase ${name}`);
        say(`round ${round}: ${name} (${o.ops} actions, ${o.concurrency} in flight)`);
        const send = await phases[name]();
        const r = await runPhase({ name, server, ops: o.ops, concurrency: o.concurrency, capMs: o.phaseSeconds * 1000, send });
        r.round = round;
        r.catchUpMs = await quiet();
        say(`  ${r.perSecond}/s, runtime CPU ${r.runtimeCpuMsPerRequest} ms per action, p50 ${r.ackMs.p50} ms, refused ${JSON.stringify(r.refused)}`);
        report.phases.push(r);
      }
    }
    report.loadAverage.end = os.loadavg()[0];
  } finally {
    await server.stop();
  }
  const [[held], [heldLever], [unbalanced], [badBalances]] = await d1(
    root,
    dir,
    `SELECT count(*) AS n FROM micro_orders WHERE status = 0;
     SELECT count(*) AS n FROM lever_positions WHERE status = 0;
     SELECT count(*) AS n FROM (SELECT movement_key FROM ledger GROUP BY movement_key, currency_id HAVING SUM(d_available + d_frozen) != 0);
     SELECT count(*) AS n FROM balances WHERE user_id > 0 AND (available < 0 OR frozen < 0);`,
  );
  report.checks = { heldContracts: held.n, heldPositions: heldLever.n, unbalancedMovements: unbalanced.n, negativeUserBalances: badBalances.n };
  report.ok = held.n === 0 && heldLever.n === 0 && unbalanced.n === 0 && badBalances.n === 0;
  if (!o.quiet) printReport(report);
  if (o.json) fs.writeFileSync(o.json, JSON.stringify(report, null, 2));
  return report;
}

function printReport(r) {
  console.log(`\nload average ${r.loadAverage.start.toFixed(2)} → ${r.loadAverage.end?.toFixed(2)}`);
  console.log("| round | phase | accepted | per second | p50 / p99 ms | runtime CPU ms per action | refused |");
  console.log("| --- | --- | --- | --- | --- | --- | --- |");
  for (const p of r.phases) console.log(`| ${p.round} | ${p.phase} | ${p.accepted} | ${p.perSecond} | ${p.ackMs.p50} / ${p.ackMs.p99} | ${p.runtimeCpuMsPerRequest} | ${JSON.stringify(p.refused)} |`);
  console.log(`checks: ${JSON.stringify(r.checks)} → ${r.ok ? "ok" : "FAILED"}`);
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(parseArgs(process.argv.slice(2))).then(
    (r) => process.exit(r.ok ? 0 : 1),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
