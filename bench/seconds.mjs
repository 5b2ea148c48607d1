#!/usr/bin/env node
/**
 * Seconds contracts at expiry: N contracts on BTC/USDT that all expire in the same second, settled
 * while spot orders keep flowing on the same pair, against the real Worker (local workerd, fresh
 * --persist-to state). Each contract's duration is chosen so that it ends in the target second
 * (durations 1..600 s are added to the options for the run). Reports, per contract:
 *   - fix lag:  when the pair object fixed the result (the settle movement's time) − end_at
 *   - paid lag: when the drain sent it to D1 in the batch that applied it (micro_orders.settled_at) − end_at
 *   - when the API first showed every contract settled, after the last one ended (polled: an upper bound)
 * as p50/p99/max, and checks afterwards that every contract has exactly one settle movement, that
 * every settle movement nets to zero and that the house holds nothing any more.
 *
 *   node bench/seconds.mjs [--contracts 10000] [--concurrency 16] [--spot-concurrency 2] [--seed http|rpc] [--json FILE] [--cpu-profile 1]
 *
 * --seed rpc (the default): contracts go through POST /api/dev/seconds/seed (local only), logged in
 * as each player (the endpoint has the same checks as the real one and acts only on the session's
 * own money), which runs the submit path of POST /api/microtrade/submit in the Worker itself: the stake,
 * fee and house hold are frozen in D1 first, then the pair object's acceptSeconds, then status 1.
 * Only the HTTP round trip per contract is skipped (through HTTP this machine managed 12–29/s).
 * --seed http submits every contract through POST /api/microtrade/submit.
 * BENCH_SERVER_LOG=FILE writes the Worker's own output (warnings and errors) there after the run.
 *
 * --accounts objects (issue #28): the users' D1 funding and the treasury are opened in their account
 * objects by the migration path (`POST /api/dev/accounts/migrate`, `POST /api/dev/accounts/system`,
 * bench/lib/objects.mjs `cutOver`) before the server runs with ACCOUNTS=objects; the contracts hold in
 * the objects and the desk pays them by legs. Then per contract:
 *   - paid lag: when the user's account object applied the leg of the chunk that settled it (the
 *     leg's movement time in the object's SQLite; the chunk found by the desk's order, end_at then
 *     id, and each chunk's first contract id in its key) − end_at
 *   - read-model lag: when D1's row got status 3 (micro_orders.settled_at) − end_at
 * and afterwards that every contract's two holds (the user's stake + fee, the treasury shard's
 * cover) are resolved, no leg is left in a pair's outbox and no leg was refused.
 */
import fs from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { pathToFileURL } from "node:url";
import { profileServer } from "./lib/cpu-profile.mjs";
import { ROOT, d1, freePort, log, prepareState, randomPepper, snapshotTree, startServer, tempDir } from "./lib/server.mjs";
import { httpClient, login, pct } from "./lib/client.mjs";
import { cutOver, objectFiles, readAccountObjects, sqlite } from "./lib/objects.mjs";
import { ACCOUNTS, PAIRS, orderRequest, orderStream, warmupOrders } from "./lib/orders.mjs";

export const DEFAULTS = { contracts: 10_000, concurrency: 16, spotConcurrency: 2, stake: "1", seed: "rpc", lead: 120, json: null, quiet: false, accounts: "d1" };

const args = (argv) => {
  const o = {};
  for (let i = 0; i < argv.length; i += 2) {
    const k = argv[i].replace(/^--/, "").replace(/-([a-z])/g, (_, c) => c.toUpperCase());
    o[k] = k === "json" || k === "seed" || k === "accounts" ? argv[i + 1] : Number(argv[i + 1]);
  }
  return o;
};

export async function main(options = {}) {
  const o = { ...DEFAULTS, ...options };
  const say = o.quiet ? () => {} : log;
  const root = snapshotTree(ROOT);
  const dir = tempDir("exchange-seconds-state-");
  const pepper = randomPepper();
  const pair = PAIRS[0];
  say(`preparing state in ${dir}`);
  await prepareState({ root, dir, pepper });
  // Durations 1..600 s so each contract can end in the target second; limits wide enough for the run.
  const durations = Array.from({ length: 600 }, (_, k) => `(${k + 1}, 8000, 1)`).join(", ");
  await d1(root, dir, `INSERT INTO seconds_options (seconds, profit_ratio_bps, status) VALUES ${durations} ON CONFLICT (seconds) DO NOTHING;
    UPDATE micro_currencies SET pair_exposure = '10000000', user_exposure = '10000000' WHERE currency_id = 3;`);
  const objects = o.accounts === "objects";
  if (objects) {
    say("cut-over: every user's balances and the system accounts opened in their account objects (ACCOUNTS=objects)");
    await cutOver({ root, dir, pepper });
  }
  const port = await freePort();
  // --cpu-profile 1: the runtime's CPU profile from a second before the target second until every contract is settled
  // (CPU_PROFILE_DIR=<dir> keeps the raw profiles for bench/profile-diff.mjs).
  const inspector = o.cpuProfile ? await freePort([port]) : null;
  const server = await startServer({ root, dir, port, pepper, inspector, vars: objects ? { ACCOUNTS: "objects" } : {} });
  const client = httpClient(server.url, { timeoutMs: 30_000 });
  const tokens = {};
  for (const [k, a] of Object.entries(ACCOUNTS)) tokens[k] = await login(client, a.account, a.password);
  const players = ["demo1", "demo2"];
  for (const who of players) {
    const r = await client.request("POST", "/api/wallet/change", { token: tokens[who], body: { number: "50000", from_field: "change", to_field: "micro", currency_id: 3 } });
    if (r.body?.type !== "ok") throw new Error(`transfer failed: ${JSON.stringify(r.body)}`);
  }
  for (const w of warmupOrders(pair)) await client.request("POST", orderRequest(pair, w).path, { token: tokens.mm, body: orderRequest(pair, w).body });

  // Spot orders flow on the same pair for the whole run.
  let spotOn = true;
  let spotSent = 0;
  const next = orderStream(pair, 7);
  const spot = Array.from({ length: o.spotConcurrency }, async () => {
    while (spotOn) {
      const w = next();
      const req = orderRequest(pair, w);
      await client.request("POST", req.path, { token: tokens[w.who], body: req.body });
      spotSent++;
    }
  });

  // Calibrate the submit rate, then aim every contract at one second far enough ahead.
  const t0 = Date.now();
  const submitOne = async (who, seconds) =>
    client.request("POST", "/api/microtrade/submit", { token: tokens[who], body: { match_id: pair.pairId, currency_id: 3, type: 1 + (Math.random() < 0.5 ? 1 : 0), seconds, number: o.stake } });
  const probe = await Promise.all(Array.from({ length: 64 }, (_, k) => submitOne(players[k % 2], 5)));
  const rate = 64 / ((Date.now() - t0) / 1000);
  // The rate under load varies: aim with a wide margin (at most 600 s ahead, the longest duration).
  const lead = o.seed === "rpc" ? (o.lead ?? 120) * 1000 : (o.contracts / rate) * 1000 * 3 + 10_000;
  const target = Math.ceil(Math.min(Date.now() + 590_000, Date.now() + lead) / 1000) * 1000;
  say(`submit rate ≈ ${rate.toFixed(0)}/s; target second ${new Date(target).toISOString()}`);
  if (probe.some((r) => r.body?.type !== "ok")) throw new Error(`probe refused: ${JSON.stringify(probe.find((r) => r.body?.type !== "ok").body)}`);
  const ids = [];
  const refused = {};
  let sent = 0;
  // Seeding through the Worker's own submit path: chunks of 250, a few in flight (one per player).
  const seedRpc = Array.from({ length: o.seed === "rpc" ? 2 : 0 }, async (_, w) => {
    while (sent < o.contracts && target - Date.now() > 2000) {
      const count = Math.min(250, o.contracts - sent);
      sent += count;
      // Each seeder logs in as its player: the endpoint acts only on the session's own money.
      const r = await client.request("POST", "/api/dev/seconds/seed", {
        token: tokens[players[w % 2]],
        body: { match_id: pair.pairId, currency_id: 3, number: o.stake, end_at: target, count, concurrency: Math.ceil(o.concurrency / 2) },
      });
      const seeded = r.body?.message;
      if (!Array.isArray(seeded?.ids)) throw new Error(`seed failed: ${r.status} ${JSON.stringify(r.body ?? r.text)}`);
      ids.push(...seeded.ids);
      for (const [k, v] of Object.entries(seeded.refused)) refused[k] = (refused[k] ?? 0) + v;
    }
  });
  await Promise.all(seedRpc);
  const sub = o.seed === "rpc" ? [] : Array.from({ length: o.concurrency }, async (_, w) => {
    while (sent < o.contracts) {
      sent++;
      const seconds = Math.ceil((target - Date.now()) / 1000);
      if (seconds > 600) throw new Error(`target second ${seconds} s away: more than the longest duration`);
      if (seconds < 2) {
        // Submitting more slowly than calibrated: stop here (reported), the rest could not end in the target second.
        sent = o.contracts;
        break;
      }
      const r = await submitOne(players[w % 2], seconds);
      if (r.body?.type === "ok") ids.push(r.body.message.id);
      else refused[r.body?.code ?? r.status] = (refused[r.body?.code ?? r.status] ?? 0) + 1;
    }
  });
  await Promise.all(sub);
  const submitted = Date.now();
  say(`${ids.length} contracts accepted in ${((submitted - t0) / 1000).toFixed(1)} s (refused: ${JSON.stringify(refused)}); waiting for the target second`);

  // Wait for state: every contract settled in D1 (counted through the API), or give up after 10 minutes.
  const settledCount = async () => {
    let n = 0;
    for (const who of players) n += (await client.request("GET", "/api/new/microtrade/lists?status=3&limit=1", { token: tokens[who] })).body?.data?.total ?? 0;
    return n;
  };
  let stopProfile = null;
  if (inspector !== null) {
    await sleep(Math.max(0, target - 1000 - Date.now()));
    stopProfile = await profileServer(server, inspector, say);
  }
  let done = 0;
  const deadline = target + 600_000;
  const expected = ids.length + probe.length;
  while (Date.now() < deadline && (done = await settledCount()) < expected) await sleep(100);
  // When the API first showed every contract settled (polled every 100 ms: an upper bound).
  const allSeenAt = Date.now();
  if (stopProfile) {
    const profile = await stopProfile();
    for (const [id, p] of Object.entries(profile)) say(`cpu profile of ${id} (target second − 1 s to every contract settled): busy ${p.busyMs} of ${p.sampledMs} ms; top self time:\n${p.top.slice(0, 15).map((t) => `  ${String(t.ms).padStart(8)} ms  ${t.fn}`).join("\n")}`);
  }
  spotOn = false;
  await Promise.all(spot);
  // Objects mode: the last spot orders' legs leave their pair a moment after their commit (with that
  // moment's others): wait until every pair's outbox is empty before stopping the server (state, 30 s at most).
  if (objects) for (const end = Date.now() + 30_000; Date.now() < end && pairLegsPending(dir) > 0; ) await sleep(100);
  await server.stop();
  if (process.env.BENCH_SERVER_LOG) fs.writeFileSync(process.env.BENCH_SERVER_LOG, server.output.join(""));

  if (objects) {
    const result = await objectsResult({ root, dir, o, ids, expected, target, submitted, t0, spotSent, done, allSeenAt });
    say(JSON.stringify(result, null, 2));
    if (o.json) fs.writeFileSync(o.json, JSON.stringify(result, null, 2));
    return result;
  }
  const rows = (await d1(root, dir, `SELECT o.end_at, o.settled_at, m.created_at AS fixed_at, o.seconds FROM micro_orders o JOIN movements m ON m.key = 'micro:' || o.id || ':settle';
      SELECT count(*) AS n FROM movements WHERE key LIKE 'micro:%:settle';
      SELECT count(*) AS n FROM micro_orders WHERE status = 3;
      SELECT CAST(COALESCE(SUM(d_frozen), 0) AS TEXT) AS f FROM ledger WHERE user_id = -3 AND currency_id = 3 AND movement_key LIKE 'micro:%';
      SELECT count(*) AS n FROM (SELECT movement_key FROM ledger WHERE movement_key LIKE 'micro:%:settle' GROUP BY movement_key HAVING SUM(d_available + d_frozen) != 0);`));
  const [lagRows, [settleMoves], [settledRows], houseFrozen, [unbalanced]] = rows;
  const targetRows = lagRows.filter((r) => r.end_at >= target && r.end_at < target + 2000);
  const fix = targetRows.map((r) => r.fixed_at - r.end_at).sort((a, b) => a - b);
  const paid = targetRows.map((r) => r.settled_at - r.end_at).sort((a, b) => a - b);
  const result = {
    contracts: ids.length,
    requested: o.contracts,
    in_target_second: targetRows.length,
    seeded_through: o.seed === "rpc" ? "POST /api/dev/seconds/seed (the Worker's submit path after the session: D1 hold, then acceptSeconds)" : "POST /api/microtrade/submit",
    submit_rate_per_s: Math.round(ids.length / ((submitted - t0) / 1000)),
    spot_orders_during_run: spotSent,
    fix_lag_ms: { p50: pct(fix, 50), p99: pct(fix, 99), max: fix.at(-1) },
    paid_lag_ms: { p50: pct(paid, 50), p99: pct(paid, 99), max: paid.at(-1) },
    all_settled_seen_via_api_ms_after_last_expiry: allSeenAt - Math.max(...targetRows.map((r) => r.end_at)),
    settled_via_api: done,
    settle_movements: settleMoves.n,
    settled_rows: settledRows.n,
    // What the house (treasury) still holds for contracts: its frozen USDT moved by contract
    // movements only (the earn products' seeded holds are frozen there too, and are not ours).
    house_frozen_after: houseFrozen[0]?.f ?? "0",
    unbalanced_settle_movements: unbalanced.n,
  };
  result.ok = result.settle_movements === expected && result.settled_rows === expected && result.unbalanced_settle_movements === 0 && result.house_frozen_after === "0";
  say(JSON.stringify(result, null, 2));
  if (o.json) fs.writeFileSync(o.json, JSON.stringify(result, null, 2));
  return result;
}

/** Legs waiting in the pair objects' outboxes (read from their SQLite files). */
function pairLegsPending(dir) {
  return readdirPairs(dir).reduce((a, f) => a + (sqlite(f, "SELECT name FROM sqlite_master WHERE name = 'money_outbox'").length ? sqlite(f, "SELECT count(*) AS n FROM money_outbox")[0].n : 0), 0);
}

/**
 * Objects mode: the pay delay of each contract from the user's account object (the leg of its
 * chunk), the read model's from D1, and the holds' end state from every account object.
 */
async function objectsResult({ root, dir, o, ids, expected, target, submitted, t0, spotSent, done, allSeenAt }) {
  const [contracts, [settledRows]] = await d1(root, dir, `SELECT id, user_id, end_at, settled_at, status FROM micro_orders ORDER BY end_at, id;
    SELECT count(*) AS n FROM micro_orders WHERE status = 3;`);
  const accounts = readAccountObjects(dir);
  // Every settle leg a user's object applied: its chunk's first contract id → when it was applied.
  const legAt = new Map();
  // Each chunk's commit second in the pair (the leg key's second: when the desk fixed its results).
  const fixedIn = new Map();
  for (const u of accounts.users.values())
    for (const r of sqlite(u.file, "SELECT substr(ref, 1, instr(ref, '#') - 1) AS k, MIN(at) AS at FROM money_movements WHERE ref LIKE 'seconds:%' AND instr(ref, ':refused') = 0 GROUP BY 1")) {
      const [, , second, first] = r.k.split(":");
      legAt.set(`${u.userId}:${first}`, r.at);
      fixedIn.set(first, Number(second) * 1000);
    }
  const firsts = new Set([...legAt.keys()].map((k) => k.split(":")[1]));
  // The desk settles due contracts in (end_at, id) order, up to 250 a chunk: a contract is in the chunk of the last first id before it.
  const paid = [];
  const fixSecond = [];
  const delivery = [];
  const readModel = [];
  const unpaid = [];
  let chunk = null;
  for (const c of contracts) {
    if (firsts.has(String(c.id))) chunk = String(c.id);
    if (c.end_at < target || c.end_at >= target + 2000) continue;
    const at = chunk === null ? undefined : legAt.get(`${c.user_id}:${chunk}`);
    if (at === undefined) unpaid.push(c.id);
    else {
      paid.push(at - c.end_at);
      // Where the time went: the pair's fix (its commit second, to the second) and the legs' way to the user's object.
      fixSecond.push(Math.floor((fixedIn.get(chunk) - Math.floor(c.end_at / 1000) * 1000) / 1000));
      delivery.push(at - fixedIn.get(chunk));
    }
    if (c.settled_at) readModel.push(c.settled_at - c.end_at);
  }
  paid.sort((a, b) => a - b);
  readModel.sort((a, b) => a - b);
  const hist = {};
  for (const ms of paid) {
    const bucket = ms < 0 ? "<0" : ms < 250 ? "0-249" : ms < 500 ? "250-499" : ms < 1000 ? "500-999" : ms < 2000 ? "1000-1999" : ms < 5000 ? "2000-4999" : ">=5000";
    hist[bucket] = (hist[bucket] ?? 0) + 1;
  }
  // The holds: every contract's two `seconds:{id}` holds resolved; nothing left owed or refused.
  let open = 0;
  let refused = 0;
  for (const a of accounts.all) {
    open += a.holds.filter((h) => h.open && h.hold.startsWith("seconds:")).length;
    refused += a.refused.length;
  }
  const legsPending = pairLegsPending(dir);
  const result = {
    accounts: "objects",
    contracts: ids.length,
    requested: o.contracts,
    in_target_second: paid.length + unpaid.length,
    seeded_through: o.seed === "rpc" ? "POST /api/dev/seconds/seed (the Worker's submit path on the objects: the cover in the treasury shard, the stake in the user's object, then acceptSeconds)" : "POST /api/microtrade/submit",
    submit_rate_per_s: Math.round(ids.length / ((submitted - t0) / 1000)),
    spot_orders_during_run: spotSent,
    paid_lag_ms: { p50: pct(paid, 50), p90: pct(paid, 90), p99: pct(paid, 99), max: paid.at(-1), within_1s: paid.filter((x) => x < 1000).length, histogram: hist },
    // Seconds between the contract's expiry second and the second its chunk was committed by the pair (0: the same second).
    fixed_seconds_after_expiry: { p50: pct(fixSecond.sort((a, b) => a - b), 50), p99: pct(fixSecond, 99), max: fixSecond.at(-1) },
    // From the start of that commit second to the leg applied in the user's object (so up to 1 s more than the delivery itself).
    delivery_after_commit_second_ms: { p50: pct(delivery.sort((a, b) => a - b), 50), p99: pct(delivery, 99), max: delivery.at(-1) },
    chunks: fixedIn.size,
    settle_legs_applied: legAt.size,
    unpaid_in_target_second: unpaid.length,
    read_model_lag_ms: { p50: pct(readModel, 50), p99: pct(readModel, 99), max: readModel.at(-1) },
    all_settled_seen_via_api_ms_after_last_expiry: allSeenAt - target,
    settled_via_api: done,
    settled_rows: settledRows.n,
    open_seconds_holds_after: open,
    refused_legs: refused,
    legs_left_in_pair_outboxes: legsPending,
  };
  result.ok = result.settled_rows === expected && unpaid.length === 0 && open === 0 && refused === 0 && legsPending === 0;
  return result;
}

/** The pair objects' SQLite files (those with a contracts table). */
const readdirPairs = (dir) => objectFiles(dir).filter((f) => sqlite(f, "SELECT name FROM sqlite_master WHERE name = 'contracts'").length > 0);

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(args(process.argv.slice(2))).then(
    (r) => process.exit(r.ok ? 0 : 1),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
