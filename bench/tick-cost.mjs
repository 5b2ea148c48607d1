#!/usr/bin/env node
/**
 * The per-trade cost of issue #30's two hooks on the pair object's commit, alone, in this process
 * (no runtime, no storage): each trade is reported to the conditional orders' book (`noteFill`) and
 * settled (`settle`: the trigger heaps' heads), and handed to the price alerts' hook (`onCommit`:
 * the sorted lists' heads). Variants: nothing waiting (what a pair without conditional orders or
 * alerts does: one size check each) against 10,000 resting stop-limits, 10,000 stops plus 2,000
 * active trailing stops, and 10,000 waiting alerts of every kind. Trades walk around the mid
 * (± 25 steps, new highs and lows included, as bench/lib/orders.mjs trades), none reaching a stop or
 * an alert. The variants alternate in short runs; the report is the median CPU ns per trade.
 *
 *   node bench/tick-cost.mjs [--trades 200000] [--runs 15] [--stops 10000] [--trailing 2000] [--alerts 10000]
 */
import { createRequire } from "node:module";
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { ROOT } from "./build-engine.mjs";
import { runWhenMain } from "./lib/cli.mjs";

/** Bundles the two desks' pure parts (esbuild from node_modules) and imports them. */
async function bundle() {
  const esbuild = createRequire(path.join(ROOT, "package.json"))("esbuild");
  const dir = path.join(ROOT, "node_modules", ".cache");
  fs.mkdirSync(dir, { recursive: true });
  const out = path.join(dir, `tick-cost.${process.pid}.mjs`);
  esbuild.buildSync({
    stdin: { contents: 'export { ConditionalBook } from "./durable/engine/conditional.ts";\nexport { AlertsDesk } from "./durable/pair/desks/alerts.ts";', resolveDir: ROOT, loader: "ts" },
    bundle: true,
    format: "esm",
    platform: "node",
    target: "es2022",
    outfile: out,
    logLevel: "error",
  });
  try {
    return await import(pathToFileURL(out).href);
  } finally {
    fs.rmSync(out, { force: true });
  }
}

const MID = 6_000_000;
const STEP = 100;

function conditionalBook(m, stops, trailing) {
  const book = new m.ConditionalBook();
  for (let i = 0; i < stops; i++) {
    const stop = Math.round(MID * (0.5 + (0.1 * i) / stops));
    book.add({ id: i + 1, owner: 4, side: "sell", type: "stop_limit", qty: 200, price: stop - STEP, stop, limitPrice: null, callbackBps: null, activation: null }, MID);
  }
  // Trailing sells far behind (callback 20–60 %): they follow every new high and never fire here.
  for (let i = 0; i < trailing; i++) {
    book.add({ id: 1_000_000 + i, owner: 4, side: "sell", type: "trailing", qty: 200, price: MID / 4, stop: null, limitPrice: null, callbackBps: 2000 + (i % 4000), activation: null }, MID);
  }
  const ports = { cancelLeg() {}, triggered() {}, placeChild() {}, ocoFilled() {} };
  let fired = 0;
  ports.triggered = () => fired++;
  return { trade: (price, k) => (book.noteFill(price, k, k + 1), book.settle(ports)), fired: () => fired };
}

function alertsDesk(m, n) {
  const noRows = { toArray: () => [] };
  const store = { sql: { exec: () => noRows }, one: () => undefined, onRollback() {} };
  let fired = 0;
  const outbox = { append: (e) => (fired += e.alerts.length) };
  const market = { symbol: () => "BTC/USDT", price: (u) => String(u), last: () => MID, windowOpen: () => MID };
  const desk = new m.AlertsDesk(store, outbox, market);
  for (let i = 0; i < n; i++) {
    const k = i % 4;
    const input =
      k === 0
        ? { id: i + 1, userId: 1 + (i % 500), kind: "above", priceTicks: MID * 2 + i }
        : k === 1
          ? { id: i + 1, userId: 1 + (i % 500), kind: "below", priceTicks: Math.round(MID * 0.4) - i }
          : { id: i + 1, userId: 1 + (i % 500), kind: "move", percentBps: 5000 + (i % 4000), window: k === 2 ? "1h" : "24h" };
    desk.add(input);
  }
  desk.size();
  const published = [{ events: [{ type: "fill", price: MID }] }];
  return {
    trade: (price, k) => {
      published[0].events[0].price = price;
      desk.onCommit(published, 1_700_000_000_000 + k);
    },
    fired: () => fired,
  };
}

/** The trades: a walk of ± 25 steps around the mid with new highs and lows now and then. */
function prices(n) {
  const out = new Float64Array(n);
  let s = 7;
  for (let i = 0; i < n; i++) {
    s = (s * 1103515245 + 12345) % 2147483648;
    const drift = Math.floor(i / 5000) % 7; // a slow rise: new highs for the trailing stops
    out[i] = MID + (drift + ((s % 51) - 25)) * STEP;
  }
  return out;
}

/** CPU time (this thread's process: user + system), not wall time: on a shared machine waiting for a core is not the hooks' cost. */
function run(v, ps, k0) {
  const c0 = process.cpuUsage();
  for (let i = 0; i < ps.length; i++) v.trade(ps[i], k0 + 2 * i);
  const c = process.cpuUsage(c0);
  return ((c.user + c.system) * 1000) / ps.length;
}

export async function main(options = {}) {
  const o = { trades: 200_000, runs: 15, stops: 10_000, trailing: 2_000, alerts: 10_000, ...options };
  const m = await bundle();
  const variants = {
    "conditional: none waiting": conditionalBook(m, 0, 0),
    [`conditional: ${o.stops} stop-limits`]: conditionalBook(m, o.stops, 0),
    [`conditional: ${o.stops} stop-limits + ${o.trailing} trailing`]: conditionalBook(m, o.stops, o.trailing),
    "alerts: none waiting": alertsDesk(m, 0),
    [`alerts: ${o.alerts} waiting`]: alertsDesk(m, o.alerts),
  };
  const ps = prices(o.trades);
  const ns = Object.fromEntries(Object.keys(variants).map((k) => [k, []]));
  for (let r = 0; r < o.runs + 1; r++) {
    const names = Object.keys(variants);
    for (const name of r % 2 ? names.reverse() : names) {
      const x = run(variants[name], ps, r * 2 * o.trades);
      if (r > 0) ns[name].push(x); // the first run warms up
    }
  }
  const med = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
  const rows = Object.entries(ns).map(([variant, a]) => ({ variant, "CPU ns per trade (median)": +med(a).toFixed(1), min: +Math.min(...a).toFixed(1), max: +Math.max(...a).toFixed(1), fired: variants[variant].fired() }));
  const loadAvg = fs.readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
  console.log(`${o.runs} alternating runs of ${o.trades} trades each, node ${process.version}, load average ${loadAvg}`);
  console.table(rows);
  return { rows, load: loadAvg };
}

runWhenMain(import.meta.url, main, { "--trades": "trades", "--runs": "runs", "--stops": "stops", "--trailing": "trailing", "--alerts": "alerts" });
