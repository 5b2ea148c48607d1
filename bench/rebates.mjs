#!/usr/bin/env node
/**
 * Invitation rebates (issue #18 §4): the daily settlement over N fee movements from M invitees, on
 * the real Worker (local workerd, fresh --persist-to state with the migrations and the seed).
 *
 * The fee movements are written straight into the local D1 SQLite file (not through the API), all
 * inside yesterday's Beijing day: `--spot` of them as spot trades (the invitee buys: fee in BTC; or
 * sells: fee in USDT), the rest as ledger movements of seconds, leverage and conversion (the fee
 * account credited, the invitee debited, like the products' own movements). Invitees hang under
 * 20,000 inviters on chains of up to three levels; 10 % are not verified at level 2 and 2 % registered more than
 * 12 months ago (those pay nothing).
 *
 * Then the crons run as deployed: `/__scheduled?cron=0+0+*+*+*` once (00:00 UTC), then the
 * every-minute cron until the run is done. Reports invocations, D1 statements (the run's own count;
 * D1 allows 1,000 per invocation) and time per invocation, and checks that the total paid equals,
 * to the unit, a direct SQL recomputation from the raw fee rows, and equals the ledger's rebate rows.
 *
 *   npm exec -- node bench/rebates.mjs [--movements 1000000] [--invitees 100000] [--spot 0.6] [--json FILE]
 */
import fs from "node:fs";
import path from "node:path";
import http from "node:http";
import { DatabaseSync } from "node:sqlite";
import { freePort, log, prepareState, randomPepper, snapshotTree, startServer, tempDir } from "./lib/server.mjs";

const argv = process.argv.slice(2);
const opt = (name, def) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : def;
};
const MOVEMENTS = Number(opt("movements", 1_000_000));
const INVITEES = Number(opt("invitees", 100_000));
const SPOT_SHARE = Number(opt("spot", 0.6));
const INVITERS = Number(opt("inviters", Math.max(1, Math.floor(INVITEES / 5))));
const JSON_OUT = opt("json", null);

const OFFSET = 8 * 3600_000;
const beijingDay = (ms) => new Date(ms + OFFSET).toISOString().slice(0, 10);
const dayStart = (day) => Date.parse(`${day}T00:00:00Z`) - OFFSET;
const addDays = (day, n) => new Date(Date.parse(`${day}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);

// A deterministic generator, so two runs settle the same data.
let seed = 0x2545f491;
const rand = () => {
  seed ^= seed << 13;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  return (seed >>> 0) / 4294967296;
};
const randInt = (n) => Math.floor(rand() * n);

/** GET without a client-side time limit; resolves with the status once the body has arrived. */
const get = (url) =>
  new Promise((res, rej) => {
    const req = http.get(url, (r) => {
      r.resume();
      r.on("end", () => res({ status: r.statusCode }));
    });
    req.on("error", rej);
  });

function findSqlite(dir) {
  const base = path.join(dir, "v3", "d1", "miniflare-D1DatabaseObject");
  const files = fs.readdirSync(base).filter((f) => f.endsWith(".sqlite") && f !== "metadata.sqlite");
  if (files.length !== 1) throw new Error(`expected one D1 file in ${base}, found ${files.join(", ")}`);
  return path.join(base, files[0]);
}

function generate(file, day) {
  const db = new DatabaseSync(file);
  db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = OFF;");
  const start = dayStart(day);
  const usdt = db.prepare("SELECT id, scale FROM currencies WHERE name = 'USDT'").get();
  const btc = db.prepare("SELECT id FROM currencies WHERE name = 'BTC'").get();
  const pair = db.prepare("SELECT id, price_decimals FROM pairs WHERE currency_id = ? AND legal_id = ?").get(btc.id, usdt.id);
  const maxId = db.prepare("SELECT COALESCE(MAX(id), 0) AS m FROM users").get().m;
  const maxTrade = db.prepare("SELECT COALESCE(MAX(trade_id), 0) AS m FROM spot_trades WHERE pair_id = ?").get(pair.id).m;

  db.exec("BEGIN");
  const insUser = db.prepare(
    "INSERT INTO users (id, account, account_type, password_hash, extension_code, parent_id, role, review_status, created_at) VALUES (?, ?, 1, 'x', ?, ?, 'user', ?, ?)",
  );
  // Inviters (no inviter of their own), then invitees: the first half under inviters (level 1 of
  // them), the next 30 % under that half, the last 20 % under the 30 % (chains of three).
  const insKyc = db.prepare("INSERT INTO kyc_submissions (user_id, level, name, type, card_id, status, created_at) VALUES (?, 2, 'Bench', 1, ?, 2, ?)");
  const inviterIds = [];
  for (let i = 0; i < INVITERS; i++) {
    const id = maxId + 1 + i;
    inviterIds.push(id);
    insUser.run(id, `inviter${i}@bench.test`, `BI${id}`, null, 2, start - 60 * 86_400_000);
  }
  const invitees = [];
  const half = Math.floor(INVITEES * 0.5);
  const next = Math.floor(INVITEES * 0.3);
  for (let i = 0; i < INVITEES; i++) {
    const id = maxId + 1 + INVITERS + i;
    const parent = i < half ? inviterIds[randInt(INVITERS)] : i < half + next ? invitees[randInt(half)] : invitees[half + randInt(next)];
    const r = rand();
    const verified = r < 0.1 ? 0 : 2;
    const created = r > 0.98 ? start - 400 * 86_400_000 : start - (1 + randInt(300)) * 86_400_000;
    insUser.run(id, `invitee${i}@bench.test`, `BE${id}`, parent, verified, created);
    // Verified = identity approved at level 2 (what the settlement asks of an invitee).
    if (verified === 2) insKyc.run(id, `DOC${id}`, created);
    invitees.push(id);
  }
  // Every invitee funded once (a deposit), so the product movements can debit fees.
  const insMove = db.prepare("INSERT INTO movements (key, kind, created_at) VALUES (?, ?, ?)");
  const insLedger = db.prepare(
    "INSERT INTO ledger (movement_key, user_id, currency_id, account, d_available, d_frozen, kind, memo, created_at) VALUES (?, ?, ?, ?, ?, 0, ?, 'bench', ?)",
  );
  for (const id of invitees) {
    const key = `bench-rebate-fund:${id}`;
    insMove.run(key, "deposit", start - 86_400_000);
    insLedger.run(key, id, usdt.id, "change", 10_000_000_000, "deposit", start - 86_400_000);
    insLedger.run(key, -1, usdt.id, "change", -10_000_000_000, "deposit", start - 86_400_000);
  }
  db.exec("COMMIT");

  const spot = Math.round(MOVEMENTS * SPOT_SHARE);
  const insTrade = db.prepare(
    `INSERT INTO spot_trades (pair_id, trade_id, price, qty, taker_side, buyer_id, seller_id, buy_order_id, sell_order_id, buyer_fee, seller_fee, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, 0, 0, ?, ?, ?)`,
  );
  const kinds = ["micro_open", "lever_open", "lever_overnight", "lever_close", "conversion"];
  const step = 86_400_000 / MOVEMENTS;
  let t = 0;
  db.exec("BEGIN");
  for (let i = 0; i < MOVEMENTS; i++) {
    const at = start + Math.floor(i * step);
    const user = invitees[randInt(INVITEES)];
    const maker = inviterIds[randInt(INVITERS)];
    if (i % 1000 < SPOT_SHARE * 1000) {
      t += 1;
      const price = 2_900_000 + randInt(200_000); // 29,000.00 – 30,999.99
      const buys = rand() < 0.5;
      // Taker fee 20 bps: in BTC units for a buyer, in USDT units for a seller.
      const qty = 1 + randInt(100_000); // 0.000001 – 0.1 BTC in 6 decimals
      // Integers well below 2^53: BTC units = qty × 100; the notional in USDT units = qty × price (6 + 2 decimals).
      const feeBtc = Math.floor((qty * 100 * 20) / 10_000);
      const feeUsdt = Math.floor((qty * price * 20) / 10_000);
      insTrade.run(pair.id, maxTrade + t, price, qty, buys ? "buy" : "sell", buys ? user : maker, buys ? maker : user, buys ? feeBtc : 0, buys ? 0 : feeUsdt, at);
    } else {
      const key = `bench-fee:${i}`;
      const kind = kinds[randInt(kinds.length)];
      const fee = 1 + randInt(5_000_000); // up to 0.05 USDT
      insMove.run(key, kind, at);
      insLedger.run(key, user, usdt.id, "change", -fee, kind, at);
      insLedger.run(key, 0, usdt.id, "change", fee, kind, at);
    }
    if (i % 100_000 === 99_999) {
      db.exec("COMMIT; BEGIN");
      log(`generated ${i + 1} fee movements`);
    }
  }
  db.exec("COMMIT");
  log(`generated ${spot} spot trades and ${MOVEMENTS - spot} ledger fee movements for ${INVITEES} invitees of ${INVITERS} inviters (day ${day})`);
  db.close();
}

/** The expected total, straight from the raw fee rows (no table of the settlement is read). */
function recompute(db, day) {
  const start = dayStart(day);
  const end = start + 86_400_000;
  const cutoffDay = (() => {
    const [y, m, d] = day.split("-").map(Number);
    const first = new Date(Date.UTC(y, m - 1 - 12, 1));
    const last = new Date(Date.UTC(first.getUTCFullYear(), first.getUTCMonth() + 1, 0)).getUTCDate();
    return new Date(Date.UTC(first.getUTCFullYear(), first.getUTCMonth(), Math.min(d, last))).toISOString().slice(0, 10);
  })();
  const cutoff = dayStart(cutoffDay);
  const row = db
    .prepare(
      `WITH close AS (
         SELECT t.price FROM spot_trades t JOIN pairs p ON p.id = t.pair_id
         WHERE p.currency_id = (SELECT id FROM currencies WHERE name = 'BTC') AND p.legal_id = (SELECT id FROM currencies WHERE name = 'USDT') AND t.created_at < ?2
         ORDER BY t.trade_id DESC LIMIT 1),
       raw AS (
         SELECT buyer_id AS uid, 'spot' AS product, 1 AS btc, buyer_fee AS fee FROM spot_trades WHERE created_at >= ?1 AND created_at < ?2 AND buyer_fee > 0
         UNION ALL SELECT seller_id, 'spot', 0, seller_fee FROM spot_trades WHERE created_at >= ?1 AND created_at < ?2 AND seller_fee > 0
         UNION ALL SELECT u.user_id, CASE WHEN f.kind LIKE 'micro_%' THEN 'seconds' WHEN f.kind LIKE 'lever_%' THEN 'lever' ELSE 'conversion' END, 0, f.d_available
           FROM ledger f JOIN ledger u ON u.movement_key = f.movement_key AND u.user_id > 0
           WHERE f.user_id = 0 AND f.created_at >= ?1 AND f.created_at < ?2 AND f.kind IN ('micro_open', 'lever_open', 'lever_overnight', 'lever_close', 'conversion')),
       per AS (
         SELECT uid, product, SUM(fee) FILTER (WHERE btc = 1) AS btc_fee, COALESCE(SUM(fee) FILTER (WHERE btc = 0), 0) AS usdt_fee FROM raw GROUP BY uid, product),
       valued AS (
         SELECT uid, product, COALESCE(btc_fee * (SELECT price FROM close) / 100, 0) + usdt_fee AS v FROM per),
       eligible AS (
         SELECT v.v, u.parent_id AS p1, a.parent_id AS p2, b.parent_id AS p3 FROM valued v JOIN users u ON u.id = v.uid
         LEFT JOIN users a ON a.id = u.parent_id LEFT JOIN users b ON b.id = a.parent_id
         WHERE u.parent_id IS NOT NULL AND EXISTS (SELECT 1 FROM kyc_submissions k WHERE k.user_id = u.id AND k.status = 2 AND k.level >= 2) AND u.created_at > ?3 AND v.v > 0)
       SELECT SUM(v * 2000 / 10000) + COALESCE(SUM(v * 500 / 10000) FILTER (WHERE p2 IS NOT NULL), 0) + COALESCE(SUM(v * 200 / 10000) FILTER (WHERE p3 IS NOT NULL), 0) AS total
       FROM eligible`,
    )
    .get(start, end, cutoff);
  return BigInt(row.total ?? 0);
}

async function main() {
  const root = snapshotTree();
  const dir = tempDir("exchange-bench-rebates-");
  const pepper = randomPepper();
  log("preparing state (migrations, seed)");
  await prepareState({ root, dir, pepper, fund: false });
  const file = findSqlite(dir);
  const day = addDays(beijingDay(Date.now()), -1);
  const t0 = performance.now();
  generate(file, day);
  log(`generation took ${((performance.now() - t0) / 1000).toFixed(1)} s`);

  // The top of the shared range: the other benchmarks take the lowest free port first.
  const port = await freePort([8780, 8781, 8782, 8783, 8784]);
  const server = await startServer({ root, dir, port, pepper, timeoutMs: 600_000 });
  const invocations = [];
  try {
    let cron = "0 0 * * *";
    for (let i = 0; i < 100; i++) {
      const s = performance.now();
      // node:http, not fetch: an invocation may take longer than fetch's 300 s wait for headers.
      const r = await get(`${server.url}/__scheduled?cron=${encodeURIComponent(cron).replace(/%20/g, "+")}`);
      const ms = performance.now() - s;
      // A busy timeout: the Worker may still hold the file's write lock when the answer arrives.
      const db = new DatabaseSync(file, { readOnly: true, timeout: 600_000 });
      const run = db.prepare("SELECT phase, cursor, statements, invocations FROM invite_runs WHERE day = ?").get(day);
      db.close();
      invocations.push({ cron, ms: Math.round(ms), status: r.status, phase: run?.phase, statements: run?.statements });
      if (r.status !== 200) log(`invocation ${i + 1} answered ${r.status}; server output:\n${server.output.join("").slice(-4000)}`);
      log(`invocation ${i + 1} (${cron}): ${Math.round(ms)} ms (status ${r.status}, ${Math.round(performance.now() - s - ms)} ms more until D1 could be read), run ${run?.phase} at ${run?.cursor}, ${run?.statements} statements so far`);
      if (!run || run.phase === "done") break;
      cron = "* * * * *";
    }
  } catch (err) {
    log(`failed; server output:\n${server.output.join("").slice(-4000)}`);
    throw err;
  } finally {
    await server.stop();
  }
  const db = new DatabaseSync(file, { readOnly: true });
  const run = db.prepare("SELECT * FROM invite_runs WHERE day = ?").get(day);
  const steps = db.prepare("SELECT phase, COUNT(*) AS n, MIN(at) AS first, MAX(at) AS last FROM invite_run_steps WHERE day = ? GROUP BY phase").all(day);
  const ledgerPaid = BigInt(db.prepare("SELECT COALESCE(SUM(d_available), 0) AS s FROM ledger WHERE kind = 'invite_rebate' AND user_id > 0").get().s);
  const lines = db.prepare("SELECT COUNT(*) AS n FROM invite_rebates WHERE day = ?").get(day).n;
  const t1 = performance.now();
  const expected = recompute(db, day);
  const recomputeMs = Math.round(performance.now() - t1);
  db.close();
  const result = {
    movements: MOVEMENTS,
    invitees: INVITEES,
    inviters_paid: run.inviters_paid,
    rebate_lines: lines,
    invocations: run.invocations,
    statements: run.statements,
    max_statements_per_invocation: Math.max(...invocations.map((x, i) => (x.statements ?? 0) - (i > 0 ? invocations[i - 1].statements ?? 0 : 0))),
    invocation_ms: invocations.map((x) => x.ms),
    total_ms: invocations.reduce((a, x) => a + x.ms, 0),
    steps,
    paid: String(run.total_paid),
    ledger_paid: String(ledgerPaid),
    recomputed: String(expected),
    recompute_ms: recomputeMs,
    exact: BigInt(run.total_paid) === expected && ledgerPaid === expected,
  };
  console.log(JSON.stringify(result, null, 2));
  if (JSON_OUT) fs.writeFileSync(JSON_OUT, JSON.stringify(result, null, 2));
  if (!result.exact) {
    console.error("MISMATCH: the settlement did not pay what the direct SQL recomputation gives");
    process.exit(1);
  }
}

await main();
// Something (an idle socket or handle) kept the process alive after the report: end it, which also removes the temp folders.
process.exit(0);
