#!/usr/bin/env node
/**
 * Crash safety of the spot path and of seconds contracts: load (orders with client ids, cancels,
 * crossing trades on two pairs, and seconds contracts of 1-3 s so settlements run all the time)
 * against the real Worker, `kill -9` of the whole server process group (wrangler host and
 * every workerd) at random moments, restart on the same --persist-to folder, N times; then drain
 * (wake the pair objects, wait out the reconciler's 60 s grace, fire the cron) and check the money
 * invariants by reading D1 (`wrangler d1 execute --json`) and, when the `sqlite3` tool exists,
 * the pair objects' own SQLite files. Exits non-zero when an invariant fails.
 *
 *   node bench/crash.mjs [--crashes 20] [--seed 1] [--min-run-ms 300] [--max-run-ms 2500]
 *                        [--concurrency 12] [--grace-ms 61000] [--root DIR] [--json FILE]
 *                        [--accounts objects]
 *
 * --accounts objects (issue #28): the server runs with ACCOUNTS=objects after the cut-over (every
 * user's D1 balances opened in their account object, the treasury over its shards), so spot
 * orders (conditional ones too, since session 17), transfers and seconds contracts move money only
 * in the account objects. The checks then read the objects'
 * own SQLite files (bench/lib/objects.mjs) besides D1's read model: per currency the objects hold
 * what the cut-over opened; each object's balances equal its movements and its frozen funds its
 * open holds; every open hold is an open order's; each contract's two holds resolved once by its
 * result or released whole; the fee shards hold the trades' and settled contracts' fees; D1's read
 * model equals the objects and the reconciler's report is clean.
 *
 * Orders whose HTTP exchange was cut by a kill have an unknown outcome; after each restart the
 * client sends them again with the same client_oid (which must return the first order, never a
 * second one), and once more at the end. Contracts the same way; at the end every contract must be
 * settled exactly once (one settle movement, the result the tie rule gives from its stored ticks)
 * or revoked with exactly one refund, and the house must hold nothing any more.
 */
import fs from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { ROOT, d1, freePort, log, prepareState, randomPepper, snapshotTree, startServer, tempDir } from "./lib/server.mjs";
import { runWhenMain } from "./lib/cli.mjs";
import { httpClient, login, now, prng } from "./lib/client.mjs";
import { ACCOUNTS, PAIRS, orderRequest, orderStream, warmupOrders } from "./lib/orders.mjs";
import { checkAccountObjects, cutOver, hasSqlite, objectFiles, openReservation, pairLegsPending, readAccountObjects, spotHoldExplainer, sqlite } from "./lib/objects.mjs";
import { d1RecordHoldsView } from "./lib/products-objects.mjs";

export const DEFAULTS = {
  crashes: 20,
  seed: 1,
  minRunMs: 300, // load time before each kill: uniform in [min, max]
  maxRunMs: 2500,
  concurrency: 12, // requests in flight (over both pairs)
  cancelShare: 0.25, // share of actions that cancel an open order instead of placing one
  conditionalShare: 0.04, // share of actions that place (or, a third of them, cancel) a conditional stop-limit (issue #30)
  batchShare: 0.3, // share of placing actions that send a batch (POST /api/transaction/batch) instead of one order
  batchSize: 5,
  secondsShare: 0.2, // share of actions that open a seconds contract (1-3 s) instead
  secondsDurations: [1, 2, 3],
  graceMs: 61_000, // the reconciler (objects mode: the account object's orphan sweep) releases holds of orders older than 60 s
  accounts: "d1", // "objects": balances in the account objects (ACCOUNTS=objects, issue #28)
  pairs: 2,
  root: null,
  json: null,
  quiet: false,
};

export async function main(options = {}) {
  const o = { ...DEFAULTS, ...options };
  const say = o.quiet ? () => {} : log;
  const t0 = now();
  const rnd = prng(o.seed); // the load's choices
  const killRnd = prng(o.seed + 0x9e3779b9); // the crash schedule, independent of how the load went
  const root = o.root ?? snapshotTree(ROOT);
  const dir = tempDir("exchange-crash-state-");
  const pepper = randomPepper();
  const pairs = PAIRS.slice(0, o.pairs);
  say(`preparing state in ${dir}`);
  await prepareState({ root, dir, pepper });
  // Short durations, so contracts expire (and settle) between the kills.
  await d1(root, dir, `INSERT INTO seconds_options (seconds, profit_ratio_bps, status) VALUES ${o.secondsDurations.map((d) => `(${d}, 8000, 1)`).join(", ")} ON CONFLICT (seconds) DO NOTHING;`);
  // What the house holds before the load: the seeded products' reservations (a savings budget, a
  // launch's supply), which no action of this run touches; at the end it must hold exactly that.
  const [houseBefore] = await d1(root, dir, "SELECT currency_id, account, CAST(frozen AS TEXT) AS frozen FROM balances WHERE user_id = -3 AND frozen != 0");
  const objects = o.accounts === "objects";
  let cut = null;
  if (objects) {
    say("cut-over: every user's balances and the treasury opened in their account objects (ACCOUNTS=objects)");
    cut = await cutOver({ root, dir, pepper });
  }
  const vars = objects ? { ACCOUNTS: "objects" } : null;
  const port = await freePort();
  let server = await startServer({ root, dir, port, pepper, vars });
  let client = httpClient(server.url, { timeoutMs: 20_000 });
  const tokens = {};
  for (const [k, a] of Object.entries(ACCOUNTS)) tokens[k] = await login(client, a.account, a.password);
  for (const who of ["demo1", "demo2"]) {
    const r = await client.request("POST", "/api/wallet/change", { token: tokens[who], body: { number: "20000", from_field: "change", to_field: "micro", currency_id: 3 } });
    if (r.body?.type !== "ok") throw new Error(`micro transfer failed: ${JSON.stringify(r.body)}`);
  }

  // ---------------------------------------------------------------- client-side record
  /** clientOid -> { who, pair, req, acks: [{order_id, status, replayed}], errors: [...], unknown } */
  const orders = new Map();
  const cancels = []; // { orderId, who, result: "cancelled" | "not_found" | "unknown" | code }
  const openByWho = { mm: [], demo1: [], demo2: [] };
  let oidCounter = 0;
  const stats = { placed: 0, acked: 0, refused: {}, unknown: 0, cancelsSent: 0, cancelsAcked: 0, retries: 0, replays: 0, batches: 0, contracts: 0, contractsAcked: 0, contractsRefused: {}, conditionals: 0, conditionalsAcked: 0, conditionalCancels: 0 };
  const conditionalIds = [];
  /** clientOid -> { who, body, ids: Set, unknown, refused } */
  const contracts = new Map();

  async function sendContract(rec) {
    const r = await client.request("POST", "/api/microtrade/submit", { token: tokens[rec.who], body: rec.body });
    if (r.status === 200 && r.body?.type === "ok") {
      rec.unknown = false;
      rec.ids.add(String(r.body.message.id));
      return "ok";
    }
    if (r.status === 0 || r.status >= 500) {
      rec.unknown = true;
      return "unknown";
    }
    rec.unknown = false;
    rec.refused = r.body?.code ?? String(r.status);
    stats.contractsRefused[rec.refused] = (stats.contractsRefused[rec.refused] ?? 0) + 1;
    return "refused";
  }

  const recordAck = (rec, msg) => {
    rec.acks.push({ orderId: msg.order_id, status: msg.status, replayed: !!msg.replayed });
    if (msg.replayed) stats.replays++;
    if (!msg.replayed && msg.status === "open") openByWho[rec.who].push({ orderId: msg.order_id, pair: rec.pair });
  };

  async function sendOrder(rec) {
    const r = await client.request("POST", rec.req.path, { token: tokens[rec.who], body: rec.req.body });
    if (r.status === 200 && r.body?.type === "ok") {
      rec.unknown = false;
      recordAck(rec, r.body.message);
      return "ok";
    }
    if (r.status === 0 || r.status >= 500) {
      // Cut by a kill (or the server said "try again"): outcome unknown until a retry answers.
      rec.unknown = true;
      rec.errors.push(r.status === 0 ? `net:${r.error?.code ?? r.error?.message}` : `${r.status} ${r.body?.code ?? ""}`);
      return "unknown";
    }
    rec.unknown = false;
    rec.refused = `${r.status} ${r.body?.code}`;
    stats.refused[rec.refused] = (stats.refused[rec.refused] ?? 0) + 1;
    return "refused";
  }

  async function sendCancel(who, entry) {
    stats.cancelsSent++;
    const r = await client.request("POST", "/api/transaction_del", { token: tokens[who], body: { id: Number(entry.orderId) } });
    const result = r.status === 200 && r.body?.type === "ok" ? "cancelled" : r.status === 0 || r.status >= 500 ? "unknown" : (r.body?.code ?? String(r.status));
    if (result === "cancelled") stats.cancelsAcked++;
    cancels.push({ orderId: entry.orderId, who, result });
  }

  // ---------------------------------------------------------------- load
  const streams = pairs.map((p, i) => orderStream(p, o.seed * 7919 + i));
  let running = false;
  let serverUp = true;
  let loadPromise = null;

  async function worker(wi) {
    let k = wi;
    while (running) {
      if (!serverUp) {
        await sleep(20);
        continue;
      }
      const pi = k++ % pairs.length;
      const pair = pairs[pi];
      if (rnd() < o.secondsShare) {
        const clientOid = `c${o.seed}-${++oidCounter}`;
        const body = { match_id: pair.pairId, currency_id: 3, type: rnd() < 0.5 ? 1 : 2, seconds: o.secondsDurations[Math.floor(rnd() * o.secondsDurations.length)], number: "1", client_oid: clientOid };
        const rec = { clientOid, who: rnd() < 0.5 ? "demo1" : "demo2", body, ids: new Set(), unknown: false, refused: null };
        contracts.set(clientOid, rec);
        stats.contracts++;
        const res = await sendContract(rec);
        if (res === "ok") stats.contractsAcked++;
        if (res === "unknown") await sleep(20);
        continue;
      }
      if (rnd() < o.conditionalShare) {
        // A stop-limit at a taker's price (beyond the market on its side, so some fire under the
        // load), or the cancel of one; its hold is checked with the open orders' below.
        const ord = streams[pi]();
        if (conditionalIds.length > 0 && rnd() < 1 / 3) {
          const [who, id] = conditionalIds.splice(Math.floor(rnd() * conditionalIds.length), 1)[0];
          stats.conditionalCancels++;
          await client.request("POST", "/api/transaction/conditional/cancel", { token: tokens[who], body: { id } });
          continue;
        }
        stats.conditionals++;
        const r = await client.request("POST", "/api/transaction/conditional", {
          token: tokens[ord.who],
          body: { currency_id: pair.currencyId, legal_id: 3, side: ord.side, type: "stop_limit", num: ord.num, stop_price: ord.price, price: ord.price },
        });
        if (r.status === 200 && r.body?.type === "ok") {
          stats.conditionalsAcked++;
          conditionalIds.push([ord.who, r.body.message.id]);
        }
        continue;
      }
      if (rnd() < o.cancelShare) {
        const who = ["mm", "demo1", "demo2"][Math.floor(rnd() * 3)];
        const list = openByWho[who];
        if (list.length > 0) {
          const entry = list.splice(Math.floor(rnd() * list.length), 1)[0];
          await sendCancel(who, entry);
          continue;
        }
      }
      if (rnd() < o.batchShare) {
        // A batch of one account's orders, each with its own client id: after a cut, each is
        // re-sent alone through the single-order path with the same id (ids are shared).
        const recs = [];
        for (let n = 0; n < o.batchSize; n++) {
          const ord = { ...streams[pi](), ...(recs[0] ? { who: recs[0].who } : {}) };
          const clientOid = `s${o.seed}-${++oidCounter}`;
          const rec = { clientOid, who: ord.who, pair: pair.pairId, req: orderRequest(pair, ord, clientOid), acks: [], errors: [], unknown: false, viaBatch: true };
          orders.set(clientOid, rec);
          recs.push(rec);
          stats.placed++;
        }
        const body = { currency_id: pair.currencyId, legal_id: 3, orders: recs.map((r) => ({ side: r.req.path.endsWith("walletIn") ? "buy" : "sell", mode: 2, price: r.req.body.price, num: r.req.body.num, client_oid: r.clientOid })) };
        stats.batches++;
        const r = await client.request("POST", "/api/transaction/batch", { token: tokens[recs[0].who], body });
        if (r.status === 200 && r.body?.type === "ok") {
          recs.forEach((rec, k) => {
            const item = r.body.message.orders[k];
            if (item?.order_id) {
              recordAck(rec, item);
              stats.acked++;
            } else {
              rec.refused = `batch ${item?.code}`;
              stats.refused[rec.refused] = (stats.refused[rec.refused] ?? 0) + 1;
            }
          });
        } else if (r.status === 0 || r.status >= 500) {
          for (const rec of recs) {
            rec.unknown = true;
            rec.errors.push(r.status === 0 ? `net:${r.error?.code ?? r.error?.message}` : `${r.status} ${r.body?.code ?? ""}`);
          }
          await sleep(20);
        } else {
          throw new Error(`batch refused whole: ${r.status} ${JSON.stringify(r.body)}`);
        }
        continue;
      }
      const ord = streams[pi]();
      const clientOid = `s${o.seed}-${++oidCounter}`;
      const rec = { clientOid, who: ord.who, pair: pair.pairId, req: orderRequest(pair, ord, clientOid), acks: [], errors: [], unknown: false };
      orders.set(clientOid, rec);
      stats.placed++;
      const res = await sendOrder(rec);
      if (res === "ok") stats.acked++;
      if (res === "unknown") await sleep(20);
    }
  }

  function startLoad() {
    running = true;
    loadPromise = Promise.all(Array.from({ length: o.concurrency }, (_, i) => worker(i)));
  }
  async function stopLoad() {
    running = false;
    await loadPromise;
  }

  async function retryUnknown() {
    const pending = [...orders.values()].filter((r) => r.unknown);
    for (const rec of pending) {
      stats.retries++;
      await sendOrder(rec);
    }
    const pendingContracts = [...contracts.values()].filter((r) => r.unknown);
    for (const rec of pendingContracts) {
      stats.retries++;
      await sendContract(rec);
    }
    return pending.length + pendingContracts.length;
  }

  // Warm books so the first takers trade.
  for (const pair of pairs) {
    for (const w of warmupOrders(pair)) {
      const clientOid = `w${o.seed}-${++oidCounter}`;
      const rec = { clientOid, who: w.who, pair: pair.pairId, req: orderRequest(pair, w, clientOid), acks: [], errors: [], unknown: false };
      orders.set(clientOid, rec);
      if ((await sendOrder(rec)) !== "ok") throw new Error(`warm-up refused: ${rec.refused ?? rec.errors.join(",")}`);
    }
  }

  // ---------------------------------------------------------------- crash loop
  const crashLog = [];
  startLoad();
  for (let i = 1; i <= o.crashes; i++) {
    const runMs = Math.round(o.minRunMs + killRnd() * (o.maxRunMs - o.minRunMs));
    await sleep(runMs);
    const before = stats.placed;
    serverUp = false;
    server.kill9();
    await server.exited;
    const tKill = now();
    client.close();
    client = httpClient(server.url, { timeoutMs: 20_000 });
    server = await startServer({ root, dir, port, pepper, vars });
    const restartMs = Math.round(now() - tKill);
    const retried = await retryUnknown();
    serverUp = true;
    crashLog.push({ crash: i, afterMs: runMs, ordersSoFar: before, restartMs, retried });
    say(`crash ${i}/${o.crashes}: kill -9 after ${runMs} ms of load; restart ${restartMs} ms; ${retried} unknown orders re-sent; ${stats.placed} orders so far`);
  }
  await sleep(1000);
  await stopLoad();
  const lastSubmit = now();
  // Everything still unknown gets one more try (same client_oid).
  for (let round = 0; round < 3 && (await retryUnknown()) > 0; round++);

  // ---------------------------------------------------------------- drain and reconcile
  say(`load stopped: ${stats.placed} orders, ${stats.cancelsSent} cancels; waiting ${Math.round(o.graceMs / 1000)} s for the reconciler's grace period`);
  const wake = async () => {
    for (const p of pairs) await client.request("GET", `/api/currency/depth?currency_id=${p.currencyId}&legal_id=3`);
  };
  while (now() - lastSubmit < o.graceMs) {
    await wake();
    await sleep(Math.min(5000, Math.max(0, o.graceMs - (now() - lastSubmit))));
  }
  let submitted;
  for (let round = 0; round < 8; round++) {
    await wake();
    await client.request("GET", "/__scheduled?cron=*+*+*+*+*");
    await sleep(1500);
    await wake();
    [[submitted]] = await d1(root, dir, "SELECT (SELECT count(*) FROM spot_orders WHERE status = 0) + (SELECT count(*) FROM micro_orders WHERE status IN (0, 1, 2)) AS n");
    if (submitted.n === 0) break;
  }
  if (objects) {
    // The reconciler last (the daily trigger always runs it): it drains each user's object and
    // compares it with the read model; then the objects' own drains (500 ms after a write) settle.
    await client.request("GET", "/__scheduled?cron=0+0+*+*+*");
    await sleep(3000);
  }
  // Give the last alarm a moment, then stop cleanly and read the files.
  await wake();
  await sleep(1000);
  client.close();
  await server.stop();

  // ---------------------------------------------------------------- checks
  say("checking invariants");
  const checks = await checkInvariants({ root, dir, orders, cancels, pairs, contracts, houseBefore, cut });
  const failed = checks.filter((c) => !c.ok);
  const windows = checks.info;
  const report = {
    crashPoints: o.crashes,
    crashLog,
    stats: { ...stats, cancelResults: countBy(cancels.map((c) => c.result)), stillUnknown: [...orders.values()].filter((r) => r.unknown).length },
    checks,
    windows,
    passed: failed.length === 0,
    seconds: +((now() - t0) / 1000).toFixed(1),
    options: { ...o, root: o.root ?? "snapshot of the working tree" },
  };
  if (!o.quiet) {
    console.log(`\nCrash points: ${o.crashes} (kill -9 of wrangler host + workerd, restart on the same state); balances in ${objects ? "the account objects (ACCOUNTS=objects)" : "D1"}`);
    console.log(`Orders: ${stats.placed} placed (${stats.batches} batches of ${o.batchSize}; ${stats.acked} acked at first try, ${stats.retries} re-sends, ${stats.replays} replayed by client_oid), refused ${JSON.stringify(stats.refused)}`);
    console.log(`Cancels: ${stats.cancelsSent} sent ${JSON.stringify(report.stats.cancelResults)}`);
    console.log(`Seconds contracts: ${stats.contracts} sent (${stats.contractsAcked} acked at first try), refused ${JSON.stringify(stats.contractsRefused)}; in D1: ${windows.contractStatuses}`);
    console.log(`Orders in D1: ${windows.orderStatuses}`);
    console.log(
      `Cut by a kill: ${windows.cutByKill} order requests (${windows.cutButAlreadyInD1} had reached D1 and were answered by replay, ` +
        `${windows.cutAndPlacedOnlyByRetry} were placed by the re-send); orphaned holds released by the reconciler: ${windows.orphanedHoldsReleased}`,
    );
    if (windows.replayedOpenThenOrphaned > 0) {
      console.log(
        `NOTE  ${windows.replayedOpenThenOrphaned} re-sent orders were answered "open" (replayed) but had never been booked; ` +
          `the reconciler later rejected them as orphaned (funds released, nothing lost; the client was told "open")`,
      );
    }
    for (const c of checks) console.log(`${c.ok ? "PASS" : "FAIL"}  ${c.name}${c.detail ? `: ${c.detail}` : ""}`);
    console.log(`\n${report.passed ? "All invariants hold" : `${failed.length} invariant(s) FAILED`} (${report.seconds} s)`);
  }
  if (o.json) fs.writeFileSync(o.json, JSON.stringify(report, null, 2));
  return report;
}

const countBy = (xs) => xs.reduce((m, x) => ((m[x] = (m[x] ?? 0) + 1), m), {});

/** Reads D1 (and the pair objects' SQLite files when possible) and checks the invariants. */
export async function checkInvariants({ root, dir, orders, cancels, pairs, contracts = new Map(), houseBefore = [], cut = null }) {
  const [balances, ledgerByAccount, unbalancedMovements, spotOrders, trades, pairRows, currencies, systemAccounts, outcomes, microOrders, microMoves] = await d1(
    root,
    dir,
    `SELECT user_id, currency_id, account, available, frozen FROM balances;
     SELECT user_id, currency_id, account, sum(d_available) AS a, sum(d_frozen) AS f FROM ledger GROUP BY user_id, currency_id, account;
     SELECT movement_key, currency_id, sum(d_available + d_frozen) AS s FROM ledger GROUP BY movement_key, currency_id HAVING s != 0;
     SELECT id, user_id, pair_id, side, kind, price, qty, filled, reserved_units, reserved_currency, status, done_reason, client_oid FROM spot_orders;
     SELECT pair_id, trade_id, qty, buy_order_id, sell_order_id, buyer_fee, seller_fee, price FROM spot_trades;
     SELECT id, currency_id, legal_id, price_decimals, qty_decimals FROM pairs;
     SELECT id, scale FROM currencies;
     SELECT DISTINCT user_id FROM balances WHERE user_id <= 0;
     SELECT status, coalesce(done_reason, '') AS reason, count(*) AS n FROM spot_orders GROUP BY 1, 2 ORDER BY 1, 2;
     SELECT id, user_id, currency_id, type, CAST(stake AS TEXT) AS stake, CAST(fee AS TEXT) AS fee, CAST(hold AS TEXT) AS hold, profit_ratio_bps, open_tick_id, open_price, end_tick_id, end_price, CAST(result AS TEXT) AS result, status, client_oid, fee_held FROM micro_orders;
     SELECT key FROM movements WHERE key LIKE 'micro:%';`,
  );
  const checks = [];
  const check = (name, ok, detail = "") => checks.push({ name, ok, detail: ok ? detail : detail.slice(0, 2000) });
  const big = (v) => BigInt(v ?? 0);

  const scale = new Map(currencies.map((c) => [c.id, c.scale]));
  const pairById = new Map(pairRows.map((p) => [p.id, p]));
  const reservation = (r) => openReservation(r, pairById.get(r.pair_id), scale);
  // Objects mode (cut: what the cut-over opened): D1's balances and ledger are the record up to the
  // cut-over; the money checks and the fee account's are the objects' (checkObjectsMode).
  if (!cut) checks.push(...(await checkD1Money({ root, dir, balances, ledgerByAccount, unbalancedMovements, systemAccounts, spotOrders, reservation })));

  // 4. Orders: nothing left submitted; every acknowledged order exists exactly once; client ids unique.
  const stillSubmitted = spotOrders.filter((r) => r.status === 0);
  check("no order left in 'submitted' after drain + reconciler", stillSubmitted.length === 0, JSON.stringify(stillSubmitted.slice(0, 10)));
  const byId = new Map(spotOrders.map((r) => [String(r.id), r]));
  const byOid = new Map();
  for (const r of spotOrders) if (r.client_oid) byOid.set(r.client_oid, [...(byOid.get(r.client_oid) ?? []), r]);
  const bad4 = [];
  let ackedCount = 0;
  for (const rec of orders.values()) {
    const ids = new Set(rec.acks.map((a) => a.orderId));
    if (ids.size > 1) bad4.push({ clientOid: rec.clientOid, problem: "two different order ids acknowledged", ids: [...ids] });
    const rows = byOid.get(rec.clientOid) ?? [];
    if (rows.length > 1) bad4.push({ clientOid: rec.clientOid, problem: "duplicated", rows: rows.map((r) => r.id) });
    if (ids.size >= 1) {
      ackedCount++;
      const id = [...ids][0];
      const row = byId.get(String(id));
      if (!row) bad4.push({ clientOid: rec.clientOid, problem: "acknowledged order missing", id });
      else if (row.client_oid !== rec.clientOid) bad4.push({ clientOid: rec.clientOid, problem: "order row has another client id", id, rowOid: row.client_oid });
      // A first (non-replayed) answer is final about some things: "filled" stays filled, "rejected" stays rejected.
      const first = rec.acks.find((a) => !a.replayed);
      if (row && first?.status === "filled" && row.status !== 2) bad4.push({ clientOid: rec.clientOid, problem: "acked filled but status", status: row.status });
      if (row && first?.status === "rejected" && row.status !== 4) bad4.push({ clientOid: rec.clientOid, problem: "acked rejected but status", status: row.status });
      if (row && first?.status === "open" && row.status === 4) bad4.push({ clientOid: rec.clientOid, problem: "acked open (booked) but later rejected/orphaned", status: row.status });
    }
    if (rec.refused && rows.length > 0 && ids.size === 0) bad4.push({ clientOid: rec.clientOid, problem: "refused but an order row exists", refused: rec.refused });
  }
  check("every acknowledged order exists exactly once, under its client id; no client id twice", bad4.length === 0, bad4.length ? JSON.stringify(bad4.slice(0, 20)) : `${ackedCount} acknowledged orders`);
  const bad4b = cancels.filter((c) => c.result === "cancelled" && byId.get(String(c.orderId))?.status !== 3);
  check("every acknowledged cancel left its order cancelled", bad4b.length === 0, JSON.stringify(bad4b.slice(0, 10).map((c) => ({ ...c, status: byId.get(String(c.orderId))?.status }))));

  // 5. Trades: each order's filled equals its trades; trade ids contiguous per pair; fees account = trade fees.
  const tradeFill = new Map();
  const feeSum = new Map();
  const tradeIds = new Map();
  for (const t of trades) {
    tradeFill.set(t.buy_order_id, (tradeFill.get(t.buy_order_id) ?? 0n) + big(t.qty));
    tradeFill.set(t.sell_order_id, (tradeFill.get(t.sell_order_id) ?? 0n) + big(t.qty));
    const p = pairById.get(t.pair_id);
    feeSum.set(p.currency_id, (feeSum.get(p.currency_id) ?? 0n) + big(t.buyer_fee));
    feeSum.set(p.legal_id, (feeSum.get(p.legal_id) ?? 0n) + big(t.seller_fee));
    tradeIds.set(t.pair_id, [...(tradeIds.get(t.pair_id) ?? []), t.trade_id]);
  }
  const bad5 = spotOrders.filter((r) => big(r.filled) !== (tradeFill.get(r.id) ?? 0n)).map((r) => ({ id: r.id, filled: r.filled, trades: String(tradeFill.get(r.id) ?? 0n), status: r.status }));
  check("every order's filled quantity equals the sum of its trades", bad5.length === 0, bad5.length ? JSON.stringify(bad5.slice(0, 20)) : `${trades.length} trades`);
  const bad5b = spotOrders.filter((r) => (r.status === 2) !== (big(r.filled) === big(r.qty)));
  check("status 'filled' exactly when filled = qty", bad5b.length === 0, JSON.stringify(bad5b.slice(0, 10)));
  const bad5c = [];
  for (const [pid, ids] of tradeIds) {
    ids.sort((a, b) => a - b);
    if (ids[0] !== 1 || ids[ids.length - 1] !== ids.length) bad5c.push({ pair: pid, count: ids.length, first: ids[0], last: ids[ids.length - 1] });
  }
  check("trade ids per pair are 1..n with no gap (no fill lost or applied twice)", bad5c.length === 0, JSON.stringify(bad5c));
  // Seconds contracts book their fee at acceptance; a refund takes it back. Objects mode: taken at the
  // acceptance too (the pair's open legs; a refused contract has no row), or at the settlement for a
  // contract accepted before that (`fee_held` 1, migrations/0056).
  for (const m of microOrders) if (cut ? (Number(m.fee_held) === 1 ? m.status === 3 : m.status !== 4) : m.status !== 4) feeSum.set(m.currency_id, (feeSum.get(m.currency_id) ?? 0n) + big(m.fee));
  const fees = cut ? feeShardTotals(dir) : new Map(balances.filter((b) => b.user_id === 0 && b.account === "change").map((b) => [b.currency_id, big(b.available) + big(b.frozen)]));
  const bad5d = [...new Set([...fees.keys(), ...feeSum.keys()])].filter((c) => (fees.get(c) ?? 0n) !== (feeSum.get(c) ?? 0n)).map((c) => ({ currency: c, feeAccount: String(fees.get(c) ?? 0n), tradeFees: String(feeSum.get(c) ?? 0n) }));
  check("the fee account holds exactly the fees of the recorded trades and seconds contracts", bad5d.length === 0, JSON.stringify(bad5d));

  // 5b. Seconds contracts: each settled exactly once by the tie rule from its stored prices, or
  //     revoked with exactly one refund; nothing left running; the house holds nothing.
  if (cut) checks.push(...(await checkObjectsMode({ root, dir, cut, spotOrders, microOrders, contracts, reservation })));
  else checks.push(...checkContracts({ microOrders, microMoves, balances, contracts, houseBefore }));

  // 6. The pair objects' own state (needs the sqlite3 tool; skipped otherwise).
  checks.push(...checkObjects({ dir, spotOrders, trades, pairs }));

  // Which crash windows the run hit (informational).
  const unknownFirst = [...orders.values()].filter((r) => r.errors.length > 0);
  const info = {
    contractStatuses: JSON.stringify(countBy(microOrders.map((m) => ["held", "trading", "settling", "settled", "revoked"][m.status]))),
    orderStatuses: outcomes.map((r) => `${["submitted", "open", "filled", "cancelled", "rejected"][r.status]}${r.reason ? `/${r.reason}` : ""}: ${r.n}`).join(", "),
    cutByKill: unknownFirst.length,
    cutButAlreadyInD1: unknownFirst.filter((r) => r.acks.some((a) => a.replayed)).length,
    cutAndPlacedOnlyByRetry: unknownFirst.filter((r) => r.acks.length > 0 && !r.acks.some((a) => a.replayed)).length,
    orphanedHoldsReleased: outcomes.filter((r) => r.reason === "orphaned").reduce((a, r) => a + r.n, 0),
    // A re-send whose first attempt froze funds but never reached the pair object is answered
    // "open" (replayed) although the order is not in the book; the reconciler rejects it later.
    replayedOpenThenOrphaned: [...orders.values()].filter((r) => {
      const a = r.acks.find((x) => x.replayed && x.status === "open");
      const row = a && byId.get(String(a.orderId));
      return row && row.status === 4 && row.done_reason === "orphaned" && !r.acks.some((x) => !x.replayed);
    }).length,
  };
  checks.info = info;
  return checks;
}

/** Checks 1-3 with the balances in D1: the ledger's sums, each balance = its ledger rows, frozen = the open orders' reservations. */
async function checkD1Money({ root, dir, balances, ledgerByAccount, unbalancedMovements, systemAccounts, spotOrders, reservation }) {
  const checks = [];
  const check = (name, ok, detail = "") => checks.push({ name, ok, detail: ok ? detail : detail.slice(0, 2000) });
  const big = (v) => BigInt(v ?? 0);
  // 1. Per currency every balance (users + system accounts) sums to zero, i.e.
  //    users + fees (+ the exchange's own treasury, -3, when seeded) = deposited - withdrawn.
  const SYSTEM_NAMES = { 0: "fees", "-1": "deposits", "-2": "withdrawals", "-3": "treasury" };
  const perCurrency = new Map();
  for (const b of balances) {
    const c = perCurrency.get(b.currency_id) ?? { users: 0n, fees: 0n, treasury: 0n, deposits: 0n, withdrawals: 0n, other: 0n };
    const v = big(b.available) + big(b.frozen);
    const name = b.user_id > 0 ? "users" : (SYSTEM_NAMES[b.user_id] ?? "other");
    c[name] += v;
    perCurrency.set(b.currency_id, c);
  }
  const bad1 = [...perCurrency].filter(([, c]) => c.users + c.fees + c.treasury + c.other !== -(c.deposits + c.withdrawals));
  check(
    "per currency, users + fees (+ treasury) = deposited - withdrawn, i.e. all balances sum to zero",
    bad1.length === 0,
    bad1.length
      ? JSON.stringify(bad1.map(([id, c]) => ({ currency: id, ...Object.fromEntries(Object.entries(c).map(([k, v]) => [k, String(v)])) })))
      : `${perCurrency.size} currencies; system accounts present: ${systemAccounts.map((r) => SYSTEM_NAMES[r.user_id] ?? r.user_id).join(", ")}`,
  );
  const unknownSystem = systemAccounts.filter((r) => !(String(r.user_id) in SYSTEM_NAMES));
  check("no system account other than fees, deposits, withdrawals, treasury", unknownSystem.length === 0, JSON.stringify(unknownSystem));

  // 2. Each balance row equals the sum of its ledger rows (and no ledger group lacks a balance row).
  const key = (r) => `${r.user_id}:${r.currency_id}:${r.account}`;
  const led = new Map(ledgerByAccount.map((r) => [key(r), r]));
  const bal = new Map(balances.map((r) => [key(r), r]));
  const bad2 = [];
  for (const b of balances) {
    const l = led.get(key(b));
    if (big(b.available) !== big(l?.a) || big(b.frozen) !== big(l?.f)) bad2.push({ account: key(b), balance: [b.available, b.frozen], ledger: [l?.a ?? 0, l?.f ?? 0] });
  }
  for (const l of ledgerByAccount) if (!bal.has(key(l)) && (big(l.a) !== 0n || big(l.f) !== 0n)) bad2.push({ account: key(l), balance: null, ledger: [l.a, l.f] });
  check("every balance row equals the sum of its ledger rows", bad2.length === 0, bad2.length ? JSON.stringify(bad2) : `${balances.length} rows`);
  check("every movement nets to zero per currency", unbalancedMovements.length === 0, JSON.stringify(unbalancedMovements));

  // 3. Frozen funds equal the reservations of open orders (limit buy: price x remaining; sell: remaining).
  const expectFrozen = new Map();
  const open = spotOrders.filter((r) => r.status === 0 || r.status === 1);
  for (const r of open) {
    const { currency, units } = reservation(r);
    const k = `${r.user_id}:${currency}`;
    expectFrozen.set(k, (expectFrozen.get(k) ?? 0n) + units);
  }
  // Open conditional orders (issue #30) hold their own reserved units besides the open orders.
  const [conditionalRows] = await d1(root, dir, "SELECT user_id, reserved_currency, reserved_units FROM spot_conditional_orders WHERE status IN (0, 1)");
  for (const c of conditionalRows) {
    const k = `${c.user_id}:${c.reserved_currency}`;
    expectFrozen.set(k, (expectFrozen.get(k) ?? 0n) + big(c.reserved_units));
  }
  const bad3 = [];
  for (const b of balances.filter((x) => x.user_id > 0 && x.account === "change")) {
    const e = expectFrozen.get(`${b.user_id}:${b.currency_id}`) ?? 0n;
    if (big(b.frozen) !== e) bad3.push({ user: b.user_id, currency: b.currency_id, frozen: String(b.frozen), openOrderReservations: String(e) });
  }
  for (const [k, v] of expectFrozen) if (!bal.has(`${k.split(":")[0]}:${k.split(":")[1]}:change`) && v !== 0n) bad3.push({ account: k, frozen: 0, openOrderReservations: String(v) });
  check("each user's frozen funds equal the reservations of their open orders and open conditional orders (so finished ones hold nothing)", bad3.length === 0, bad3.length ? JSON.stringify(bad3) : `${open.length} open orders, ${conditionalRows.length} open conditional orders`);
  return checks;
}

/** The fee account's total per currency over its shards (objects mode). */
function feeShardTotals(dir) {
  const sums = new Map();
  for (const o of readAccountObjects(dir).shards.values())
    if (o.userId === 0) for (const b of o.balances) sums.set(b.currency, (sums.get(b.currency) ?? 0n) + b.available + b.frozen);
  return sums;
}

/**
 * The money checks with the balances in the account objects (bench/lib/objects.mjs), and the
 * contracts': each contract's hold in the user's object (stake + fee) and in its treasury shard
 * (the cover) resolved by its result (settled: the fee and a lost stake spent, a win paid from the
 * cover, the rest released) or released whole (revoked); a contract hold with no contract in D1 was
 * released whole (a refused or orphaned contract); no client id answered with two contracts.
 */
async function checkObjectsMode({ root, dir, cut, spotOrders, microOrders, contracts, reservation }) {
  const big = (v) => BigInt(v ?? 0);
  const spotHold = spotHoldExplainer(spotOrders, reservation);
  const running = new Map(microOrders.filter((m) => m.status < 3).map((m) => [String(m.id), m]));
  const contractById = new Map(microOrders.map((m) => [String(m.id), m]));
  // The treasury's record holds the cut-over opened (a savings product's budget `earn_product:*`, a
  // launch's reserve `launch_reserve:*`, ...): explained as the products' crash run explains them.
  const records = await d1RecordHoldsView(root, dir);
  // A conditional order's hold (`spot_cond:{id}`): its order waiting (status 0, 1) holds what it
  // reserved; a fired one (2) holds what its child, still open, has not spent; an ended one nothing.
  const [conditionals] = await d1(root, dir, "SELECT id, user_id, status, reserved_units, child_order_id FROM spot_conditional_orders");
  const conditionalById = new Map(conditionals.map((c) => [String(c.id), c]));
  const orderById = new Map(spotOrders.map((r) => [String(r.id), r]));
  const conditionalHold = (owner, h, id) => {
    const c = conditionalById.get(id);
    if (!c) return `conditional order ${id} is not in D1`;
    if (owner.shard !== null || c.user_id !== owner.userId) return `conditional order ${id} is user ${c.user_id}'s`;
    const rest = h.amount - h.spent - h.released;
    if (c.status === 0 || c.status === 1) return rest === big(c.reserved_units) ? null : `holds ${rest}, conditional order ${id} reserved ${c.reserved_units}`;
    const child = c.status === 2 ? orderById.get(String(c.child_order_id)) : undefined;
    if (child && (child.status === 0 || child.status === 1)) return null;
    return `conditional order ${id} has status ${c.status}${c.status === 2 ? ` and its child ${c.child_order_id} ${child ? `status ${child.status}` : "is not in D1"}` : ""}`;
  };
  const explain = (owner, h) => {
    const [kind, id] = h.hold.split(":");
    if (kind === "spot_order") return spotHold(owner, h);
    if (kind === "spot_cond") return conditionalHold(owner, h, id);
    if (kind === "seconds") return running.has(id) ? null : `contract ${id} ${contractById.has(id) ? `has status ${contractById.get(id).status}` : "is not in D1"}`;
    // null: explained (not `??`, which would let an explained hold fall through); undefined: no product's.
    const problem = records.explain(owner, h);
    return problem === undefined ? "no product explains it" : problem;
  };
  const contractHolds = {
    name: "every contract's two holds (stake + fee in the user's object, the cover in its treasury shard) resolved once by its result, or released whole when revoked or never accepted",
    detail: `${microOrders.length} contracts`,
    check: (objects) => {
      const bad = [];
      for (const m of microOrders) {
        const user = objects.users.get(m.user_id)?.holdByName.get(`seconds:${m.id}`);
        const house = objects.shards.get(`-3:${Number(m.id) % 8}`)?.holdByName.get(`seconds:${m.id}`);
        if (!user || !house) {
          bad.push({ id: m.id, problem: "a hold is missing", user: !!user, house: !!house });
          continue;
        }
        const result = big(m.result);
        const won = m.status === 3 && result > 0n ? result : 0n;
        const lost = m.status === 3 && result < 0n ? -result : 0n;
        const [userSpent, houseSpent] = m.status === 3 ? [big(m.fee) + lost, won] : [0n, 0n];
        if (m.status < 3) continue; // reported by the open-hold check
        if (user.amount !== big(m.stake) + big(m.fee) || user.spent !== userSpent || user.released !== user.amount - userSpent || user.open)
          bad.push({ id: m.id, status: m.status, result: m.result, problem: "user's hold", amount: String(user.amount), spent: String(user.spent), released: String(user.released), expectSpent: String(userSpent) });
        if (house.amount !== big(m.hold) || house.spent !== houseSpent || house.released !== house.amount - houseSpent || house.open)
          bad.push({ id: m.id, status: m.status, result: m.result, problem: "house's hold", amount: String(house.amount), spent: String(house.spent), released: String(house.released), expectSpent: String(houseSpent) });
      }
      for (const o of objects.all)
        for (const h of o.holds)
          if (h.hold.startsWith("seconds:") && !contractById.has(h.hold.slice(8)) && !h.open && (h.spent !== 0n || h.released !== h.amount))
            bad.push({ hold: h.hold, owner: o.shard === null ? o.userId : `${o.userId}:${o.shard}`, problem: "no contract in D1, yet its hold was spent" });
      // A settled contract's result follows the tie rule from its stored ticks.
      for (const m of microOrders.filter((x) => x.status === 3)) {
        const won = m.type === 1 ? m.end_price > m.open_price : m.end_price <= m.open_price;
        const expect = won ? (big(m.stake) * big(m.profit_ratio_bps)) / 10000n : -big(m.stake);
        if (m.end_tick_id === null || m.open_tick_id === null || big(m.result) !== expect) bad.push({ id: m.id, problem: "result is not the rule's", result: m.result, expect: String(expect) });
      }
      return bad;
    },
  };
  const checks = await checkAccountObjects({ root, dir, ...cut, explain, records: [contractHolds] });
  const check = (name, ok, detail = "") => checks.push({ name, ok, detail: String(detail).slice(0, 2000) });
  const byOid = new Map();
  for (const m of microOrders) if (m.client_oid) byOid.set(`${m.user_id}:${m.client_oid}`, (byOid.get(`${m.user_id}:${m.client_oid}`) ?? 0) + 1);
  const twice = [...contracts.values()].filter((c) => c.ids.size > 1);
  const twiceInD1 = [...byOid].filter(([, n]) => n > 1);
  check("no contract client id answered with two contracts, none twice in D1", twice.length === 0 && twiceInD1.length === 0, JSON.stringify({ answered: twice.slice(0, 10).map((c) => ({ oid: c.clientOid, ids: [...c.ids] })), inD1: twiceInD1.slice(0, 10) }));
  const lost = [...contracts.values()].filter((c) => c.ids.size === 1 && !contractById.has([...c.ids][0]));
  check("every acknowledged contract exists in D1", lost.length === 0, JSON.stringify(lost.slice(0, 10).map((c) => c.clientOid)));
  return checks;
}

function checkContracts({ microOrders, microMoves, balances, contracts, houseBefore }) {
  const out = [];
  const check = (name, ok, detail = "") => out.push({ name, ok, detail: ok ? detail : detail.slice(0, 2000) });
  const big = (v) => BigInt(v ?? 0);
  const keys = new Map();
  for (const { key } of microMoves) keys.set(key, (keys.get(key) ?? 0) + 1);
  const bad = [];
  for (const m of microOrders) {
    const has = (step) => keys.has(`micro:${m.id}:${step}`);
    if (!has("open")) bad.push({ id: m.id, problem: "no open movement" });
    if (m.status === 3 && (!has("settle") || has("refund"))) bad.push({ id: m.id, problem: "settled without exactly one settle movement", settle: has("settle"), refund: has("refund") });
    if (m.status === 4 && (has("settle") || !has("refund"))) bad.push({ id: m.id, problem: "revoked without exactly one refund", settle: has("settle"), refund: has("refund") });
    if (m.status < 3) bad.push({ id: m.id, problem: "still running after the drain", status: m.status });
    if (m.status === 3) {
      const won = m.type === 1 ? m.end_price > m.open_price : m.end_price <= m.open_price;
      const expect = won ? (big(m.stake) * big(m.profit_ratio_bps)) / 10000n : -big(m.stake);
      if (m.end_tick_id === null || m.open_tick_id === null || big(m.result) !== expect) bad.push({ id: m.id, problem: "result is not the rule's", result: m.result, expect: String(expect) });
    }
  }
  check("every contract settled exactly once by the tie rule from its stored ticks, or revoked with exactly one refund", bad.length === 0, bad.length ? JSON.stringify(bad.slice(0, 20)) : `${microOrders.length} contracts`);
  // Movement keys are unique in D1; this re-checks the client's view: no client id answered with two contracts.
  const byOid = new Map();
  for (const m of microOrders) if (m.client_oid) byOid.set(`${m.user_id}:${m.client_oid}`, (byOid.get(`${m.user_id}:${m.client_oid}`) ?? 0) + 1);
  const twice = [...contracts.values()].filter((c) => c.ids.size > 1);
  check("no contract client id answered with two contracts", twice.length === 0 && [...byOid.values()].every((n) => n === 1), JSON.stringify(twice.slice(0, 10).map((c) => ({ oid: c.clientOid, ids: [...c.ids] }))));
  const lost = [...contracts.values()].filter((c) => c.ids.size === 1 && !microOrders.some((m) => String(m.id) === [...c.ids][0]));
  check("every acknowledged contract exists in D1", lost.length === 0, JSON.stringify(lost.slice(0, 10).map((c) => c.clientOid)));
  const seeded = new Map(houseBefore.map((h) => [`${h.currency_id}:${h.account}`, big(h.frozen)]));
  const frozen = balances.filter(
    (b) => (b.account === "micro" && b.user_id > 0 && big(b.frozen) !== 0n) || (b.user_id === -3 && big(b.frozen) !== (seeded.get(`${b.currency_id}:${b.account}`) ?? 0n)),
  );
  check(
    "no stake and no house hold left frozen once every contract is settled or revoked (the house holds exactly the seeded products' reservations it held before the load)",
    frozen.length === 0,
    frozen.length ? JSON.stringify(frozen) : `house before and after: ${JSON.stringify(houseBefore)}`,
  );
  return out;
}

function checkObjects({ dir, spotOrders, trades, pairs }) {
  if (!hasSqlite()) {
    return [{ name: "pair objects' SQLite (book, outbox, trades) agree with D1", ok: true, detail: "skipped: the sqlite3 tool is not installed" }];
  }
  const files = objectFiles(dir);
  const checks = [];
  const bad = [];
  let seen = 0;
  for (const file of files) {
    let info;
    try {
      info = JSON.parse(sqlite(file, "SELECT value FROM meta WHERE key = 'info'")[0]?.value ?? "null");
    } catch {
      continue;
    }
    if (!info) continue;
    const pairId = info.pairId;
    if (!pairs.some((p) => p.pairId === pairId)) continue;
    seen++;
    // Drained rows may be kept (marked drained_at) for a while: count only the pending ones.
    const marked = sqlite(file, "SELECT count(*) AS n FROM pragma_table_info('outbox') WHERE name = 'drained_at'")[0].n > 0;
    const outbox = sqlite(file, `SELECT count(*) AS n FROM outbox${marked ? " WHERE drained_at IS NULL" : ""}`)[0].n;
    if (outbox !== 0) bad.push({ pair: pairId, problem: "outbox not drained", rows: outbox });
    const book = sqlite(file, "SELECT id, remaining FROM book");
    const d1Open = new Map(spotOrders.filter((r) => r.pair_id === pairId && r.status === 1).map((r) => [String(r.id), r]));
    for (const b of book) {
      const r = d1Open.get(String(b.id));
      if (!r) bad.push({ pair: pairId, problem: "resting in the book but not open in D1", id: b.id, d1Status: spotOrders.find((x) => String(x.id) === String(b.id))?.status ?? null });
      else if (BigInt(r.qty) - BigInt(r.filled) !== BigInt(b.remaining)) bad.push({ pair: pairId, problem: "remaining differs", id: b.id, book: b.remaining, d1: Number(r.qty) - Number(r.filled) });
      d1Open.delete(String(b.id));
    }
    for (const [id] of d1Open) bad.push({ pair: pairId, problem: "open in D1 but not in the book", id });
    const hasContracts = sqlite(file, "SELECT count(*) AS n FROM sqlite_master WHERE name = 'contracts'")[0].n > 0;
    const running = hasContracts ? sqlite(file, "SELECT count(*) AS n FROM contracts WHERE status IN (1, 2)")[0].n : 0;
    if (running !== 0) bad.push({ pair: pairId, problem: "contracts still trading or settling in the object", running });
    // Objects mode: the pair's legs (fills, releases, settlements) all delivered and acknowledged.
    const legs = pairLegsPending(file);
    if (legs !== 0) bad.push({ pair: pairId, problem: "legs not delivered", legs });
    const doTrades = sqlite(file, "SELECT count(*) AS n FROM trades")[0].n;
    const d1Trades = trades.filter((t) => t.pair_id === pairId).length;
    if (doTrades !== d1Trades) bad.push({ pair: pairId, problem: "trade count differs", object: doTrades, d1: d1Trades });
  }
  checks.push({
    name: "pair objects' SQLite agrees with D1 (outbox and legs' outbox empty, book = open orders with the same remaining, same trades)",
    ok: bad.length === 0 && seen === pairs.length,
    detail: bad.length ? JSON.stringify(bad.slice(0, 20)) : seen === pairs.length ? `${seen} pair objects` : `found ${seen} of ${pairs.length} pair objects`,
  });
  return checks;
}

runWhenMain(import.meta.url, main, { "--seconds-share": "secondsShare", "--crashes": "crashes", "--seed": "seed", "--min-run-ms": "minRunMs", "--max-run-ms": "maxRunMs", "--concurrency": "concurrency", "--grace-ms": "graceMs", "--pairs": "pairs" });
