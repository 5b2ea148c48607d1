#!/usr/bin/env node
/**
 * Leveraged positions at a liquidation wave (issue #11 §3): N open positions on BTC/USDT, of which
 * `cross` are 100× longs whose liquidation price lies about 0.8 % under the index; the rest are 10×
 * longs (liquidation about 8 % under) and 100× shorts (above). Then the index is dropped about 2 %
 * in one step (a large sell through the bids, and a bid under it), crossing exactly the `cross`
 * liquidation prices at once, while spot orders and seconds contracts keep flowing on the pair,
 * against the real Worker (local workerd, fresh --persist-to state). Reports:
 *   - fix lag:  when the pair object closed each position (lever_positions.closed_at) − the drop
 *   - seen lag: when the API first listed all of them as closed − the drop
 * and checks afterwards that exactly the crossed positions were liquidated, each with exactly one
 * close movement, every movement balanced.
 *
 *   node bench/lever.mjs [--positions 10000] [--cross 1000] [--concurrency 16] [--json FILE]
 *
 * The run widens BTC/USDT's settings (positions per user, house exposure) and funds the treasury
 * for the holds, in its own throw-away state only.
 *
 * --accounts objects (issue #28): the funding (the holders' lever accounts, the treasury) is opened
 * in the account objects by the migration path (bench/lib/objects.mjs `cutOver`) and the server runs
 * with ACCOUNTS=objects. Then also, from the objects' SQLite files: each wave position has exactly
 * one close leg in its user's object and its two holds (margin + open fee in the user's object, the
 * cover in its treasury shard) resolved, every other position's holds still open, no leg refused, no
 * leg left in the pair's outbox; and the close lag (when the user's object applied the close leg −
 * the drop) as a distribution.
 */
import fs from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { pathToFileURL } from "node:url";
import { ROOT, d1, freePort, log, prepareState, randomPepper, snapshotTree, startServer, tempDir } from "./lib/server.mjs";
import { httpClient, login, pct } from "./lib/client.mjs";
import { cutOver, objectFiles, readAccountObjects, sqlite } from "./lib/objects.mjs";
import { ACCOUNTS, PAIRS, orderRequest, orderStream, warmupOrders } from "./lib/orders.mjs";

export const DEFAULTS = { positions: 10_000, cross: 1_000, concurrency: 16, json: null, quiet: false, accounts: "d1" };

const args = (argv) => {
  const o = {};
  for (let i = 0; i < argv.length; i += 2) {
    const k = argv[i].replace(/^--/, "").replace(/-([a-z])/g, (_, c) => c.toUpperCase());
    o[k] = k === "json" || k === "accounts" ? argv[i + 1] : Number(argv[i + 1]);
  }
  return o;
};

export async function main(options = {}) {
  const o = { ...DEFAULTS, ...options };
  const say = o.quiet ? () => {} : log;
  const root = snapshotTree(ROOT);
  const dir = tempDir("exchange-lever-state-");
  const pepper = randomPepper();
  const pair = PAIRS[0];
  const now = Date.now();
  say(`preparing state in ${dir}`);
  await prepareState({ root, dir, pepper });
  // One lot = 0.01 BTC ≈ 600 USDT of value at 60000: the house holds that much per position.
  const treasury = BigInt(o.positions) * 1000n * 10n ** 8n;
  await d1(
    root,
    dir,
    `UPDATE lever_pairs SET max_positions = 1000, pair_exposure = '${BigInt(o.positions) * 1000n}' WHERE pair_id = 1;
     INSERT INTO movements (key, kind, created_at) VALUES ('bench-lever-house', 'treasury_funding', ${now});
     INSERT INTO ledger (movement_key, user_id, currency_id, account, d_available, d_frozen, kind, memo, created_at) VALUES
       ('bench-lever-house', -3, 3, 'change', ${treasury}, 0, 'treasury_funding', 'bench', ${now}),
       ('bench-lever-house', -1, 3, 'change', ${-treasury}, 0, 'treasury_funding', 'bench', ${now});`,
  );
  // A user may hold 1,000 positions per pair: the positions are spread over verified bench users
  // (demo1's password), each with 100,000 USDT in the lever account.
  const holders = Array.from({ length: Math.ceil(o.positions / 1000) }, (_, k) => `bench${k + 1}@exchange.test`);
  const perHolder = 100_000n * 10n ** 8n;
  await d1(
    root,
    dir,
    holders
      .map(
        (a, k) => `INSERT INTO users (account, account_type, password_hash, extension_code, role, review_status, created_at)
          SELECT '${a}', 1, password_hash, 'BENCHLV${k + 1}', 'user', 2, ${now} FROM users WHERE account = 'demo1@exchange.test';
        INSERT INTO movements (key, kind, created_at) VALUES ('bench-lever-fund:${k}', 'deposit', ${now});
        INSERT INTO ledger (movement_key, user_id, currency_id, account, d_available, d_frozen, kind, memo, created_at) VALUES
          ('bench-lever-fund:${k}', (SELECT id FROM users WHERE account = '${a}'), 3, 'lever', ${perHolder}, 0, 'deposit', 'bench', ${now}),
          ('bench-lever-fund:${k}', -1, 3, 'change', ${-perHolder}, 0, 'deposit', 'bench', ${now});`,
      )
      .join("\n"),
  );
  const objects = o.accounts === "objects";
  if (objects) {
    say("cut-over: the funding opened in the account objects (ACCOUNTS=objects)");
    await cutOver({ root, dir, pepper });
  }
  const port = await freePort();
  const server = await startServer({ root, dir, port, pepper, vars: objects ? { ACCOUNTS: "objects" } : {} });
  const client = httpClient(server.url, { timeoutMs: 30_000 });
  const tokens = {};
  for (const [k, a] of Object.entries(ACCOUNTS)) tokens[k] = await login(client, a.account, a.password);
  for (const a of holders) tokens[a] = await login(client, a, ACCOUNTS.demo1.password);
  const players = ["demo1", "demo2"];
  for (const who of players) {
    for (const [to, number] of [["micro", "10000"]]) {
      const r = await client.request("POST", "/api/wallet/change", { token: tokens[who], body: { number, from_field: "change", to_field: to, currency_id: 3 } });
      if (r.body?.type !== "ok") throw new Error(`transfer failed: ${JSON.stringify(r.body)}`);
    }
  }
  for (const w of warmupOrders(pair)) await client.request("POST", orderRequest(pair, w).path, { token: tokens.mm, body: orderRequest(pair, w).body });

  // Open the positions: `cross` 100× longs first, then 10× longs and 100× shorts alternately.
  const t0 = Date.now();
  const kinds = (i) => (i < o.cross ? { type: 1, multiple: 100, wave: true } : i % 2 ? { type: 1, multiple: 10, wave: false } : { type: 2, multiple: 100, wave: false });
  const waveIds = [];
  const otherIds = [];
  const refused = {};
  let next = 0;
  // A market open carries the index its sender confirmed (refused with price_moved past 0.1 %).
  const deal = await client.request("GET", "/api/lever/deal?currency_id=1&legal_id=3", { token: tokens.demo1 });
  const confirmed = deal.body?.message?.index_price ?? undefined;
  await Promise.all(
    Array.from({ length: o.concurrency }, async () => {
      while (next < o.positions) {
        const i = next++;
        const k = kinds(i);
        const r = await client.request("POST", "/api/lever/submit", { token: tokens[holders[i % holders.length]], body: { currency_id: 1, legal_id: 3, type: k.type, share: 1, multiple: k.multiple, index_price: confirmed } });
        if (r.body?.type === "ok") (k.wave ? waveIds : otherIds).push(r.body.message.id);
        else refused[r.body?.code ?? r.status] = (refused[r.body?.code ?? r.status] ?? 0) + 1;
      }
    }),
  );
  const opened = Date.now();
  say(`${waveIds.length + otherIds.length} positions open in ${((opened - t0) / 1000).toFixed(1)} s (refused: ${JSON.stringify(refused)})`);

  // Spot orders and seconds contracts flow on the pair for the rest of the run.
  let flowing = true;
  let spotSent = 0;
  let secondsSent = 0;
  const stream = orderStream(pair, 11);
  const spot = Array.from({ length: 2 }, async () => {
    while (flowing) {
      const w = stream();
      const req = orderRequest(pair, w);
      await client.request("POST", req.path, { token: tokens[w.who], body: req.body });
      spotSent++;
    }
  });
  const seconds = (async () => {
    while (flowing) {
      await client.request("POST", "/api/microtrade/submit", { token: tokens.demo2, body: { match_id: 1, currency_id: 3, type: 1, seconds: 30, number: "1" } });
      secondsSent++;
    }
  })();
  await sleep(2000);

  // The drop: demo1 sells 5 BTC at −2 % through every bid (the rest rests as the best ask), then bids just under it.
  const drop = (pair.mid * 98) / 100;
  const price = (ticks) => (ticks / 10 ** pair.pd).toFixed(pair.pd);
  const sold = await client.request("POST", "/api/transaction/walletOut", { token: tokens.demo1, body: { currency_id: 1, legal_id: 3, price: price(drop), num: "5", mode: 2 } });
  const bid = await client.request("POST", "/api/transaction/walletIn", { token: tokens.demo2, body: { currency_id: 1, legal_id: 3, price: price(drop - 10 * pair.step), num: "0.01", mode: 2 } });
  const crossedAt = Date.now();
  if (sold.body?.type !== "ok" || bid.body?.type !== "ok") throw new Error(`drop refused: ${JSON.stringify([sold.body, bid.body])}`);
  say(`index dropped to ≈ ${price(drop)} at ${new Date(crossedAt).toISOString()}`);

  // Wait for state: every wave position listed as closed through the API, or give up after 2 minutes.
  const closedCount = async () => {
    let n = 0;
    for (const who of holders) n += (await client.request("POST", "/api/lever/my_trade?status=4&limit=1", { token: tokens[who] })).body?.message?.message?.total ?? 0;
    return n;
  };
  let seenAt = null;
  while (Date.now() < crossedAt + 120_000) {
    if ((await closedCount()) >= waveIds.length) {
      seenAt = Date.now();
      break;
    }
    await sleep(100);
  }
  flowing = false;
  await Promise.all([...spot, seconds]);
  // The last spot orders' legs leave their pair 10 ms after the commit, or with the pair's `legs`
  // alarm 500 ms after it (durable/pair/legs.ts): let them land before the server stops, or the
  // outbox check below counts legs that a restart would still deliver.
  if (objects) await sleep(1500);
  await server.stop();

  if (objects) {
    const result = await objectsResult({ root, dir, waveIds, otherIds, crossedAt, seenAt, opened, t0, spotSent, secondsSent });
    say(JSON.stringify(result, null, 2));
    if (o.json) fs.writeFileSync(o.json, JSON.stringify(result, null, 2));
    return result;
  }
  const [rows, [moves], [unbalanced], [others]] = await d1(
    root,
    dir,
    `SELECT id, closed_at, close_reason FROM lever_positions WHERE status = 4;
     SELECT count(*) AS n FROM movements WHERE key LIKE 'lever:%:close';
     SELECT count(*) AS n FROM (SELECT movement_key FROM ledger WHERE movement_key LIKE 'lever:%' GROUP BY movement_key, currency_id HAVING SUM(d_available + d_frozen) != 0);
     SELECT count(*) AS n FROM lever_positions WHERE status = 2;`,
  );
  const wave = new Set(waveIds);
  const liquidated = rows.filter((r) => wave.has(r.id) && r.close_reason === "liquidation");
  const fix = liquidated.map((r) => r.closed_at - crossedAt).sort((a, b) => a - b);
  const result = {
    positions: waveIds.length + otherIds.length,
    wave: waveIds.length,
    open_rate_per_s: Math.round((waveIds.length + otherIds.length) / ((opened - t0) / 1000)),
    liquidated: liquidated.length,
    closed_outside_wave: rows.filter((r) => !wave.has(r.id)).length,
    still_trading: others.n,
    fix_lag_ms: { p50: pct(fix, 50), p99: pct(fix, 99), max: fix.at(-1) ?? null },
    seen_lag_ms: seenAt === null ? null : seenAt - crossedAt,
    close_movements: moves.n,
    unbalanced_lever_movements: unbalanced.n,
    spot_orders_during_run: spotSent,
    seconds_contracts_during_run: secondsSent,
  };
  result.ok =
    result.liquidated === result.wave && result.closed_outside_wave === 0 && result.close_movements === result.wave && result.unbalanced_lever_movements === 0 && (fix.at(-1) ?? Infinity) <= 1000;
  say(JSON.stringify(result, null, 2));
  if (o.json) fs.writeFileSync(o.json, JSON.stringify(result, null, 2));
  return result;
}

/** Objects mode: the wave checked in the account objects (close legs, holds) and in D1's read model. */
async function objectsResult({ root, dir, waveIds, otherIds, crossedAt, seenAt, opened, t0, spotSent, secondsSent }) {
  const [rows] = await d1(root, dir, "SELECT id, user_id, status, closed_at, close_reason FROM lever_positions");
  const accounts = readAccountObjects(dir);
  const wave = new Set(waveIds);
  const byId = new Map(rows.map((r) => [r.id, r]));
  const problems = [];
  const closeLag = [];
  const readModelLag = [];
  let closeLegs = 0;
  // Every close leg each user's object applied (one read per object): position id → [{ k, at }].
  const closesOf = new Map();
  for (const u of accounts.users.values())
    for (const c of sqlite(u.file, "SELECT substr(ref, 1, instr(ref, '#') - 1) AS k, MIN(at) AS at FROM money_movements WHERE ref LIKE 'lever:%:close:%' GROUP BY 1")) {
      const key = `${u.userId}:${c.k.split(":")[1]}`;
      closesOf.set(key, [...(closesOf.get(key) ?? []), c]);
    }
  for (const r of rows) {
    const user = accounts.users.get(r.user_id);
    const house = accounts.shards.get(`-3:${r.id % 8}`);
    const u = user?.holdByName.get(`lever_margin:${r.id}`);
    const hh = house?.holdByName.get(`lever_margin:${r.id}`);
    const closes = closesOf.get(`${r.user_id}:${r.id}`) ?? [];
    closeLegs += closes.length;
    const isWave = wave.has(r.id);
    if (isWave) {
      if (r.status !== 4 || r.close_reason !== "liquidation") problems.push({ id: r.id, problem: "wave position not liquidated", status: r.status, reason: r.close_reason });
      if (closes.length !== 1) problems.push({ id: r.id, problem: "close legs", n: closes.length });
      else closeLag.push(closes[0].at - crossedAt);
      if (!u || !hh || u.open || hh.open) problems.push({ id: r.id, problem: "a hold left open or missing", user: u?.open ?? "missing", house: hh?.open ?? "missing" });
      if (r.closed_at) readModelLag.push(r.closed_at - crossedAt);
    } else if (r.status <= 3) {
      if (closes.length !== 0 || !u?.open || !hh?.open) problems.push({ id: r.id, problem: "an open position's holds", user: u?.open ?? "missing", house: hh?.open ?? "missing", closes: closes.length });
    }
  }
  closeLag.sort((a, b) => a - b);
  readModelLag.sort((a, b) => a - b);
  const refused = accounts.all.reduce((a, x) => a + x.refused.length, 0);
  const pairLegs = objectFiles(dir).reduce((a, f) => a + (sqlite(f, "SELECT name FROM sqlite_master WHERE name = 'money_outbox'").length && sqlite(f, "SELECT name FROM sqlite_master WHERE name = 'contracts'").length ? sqlite(f, "SELECT count(*) AS n FROM money_outbox")[0].n : 0), 0);
  const liquidated = rows.filter((r) => wave.has(r.id) && r.close_reason === "liquidation").length;
  const result = {
    accounts: "objects",
    positions: waveIds.length + otherIds.length,
    wave: waveIds.length,
    open_rate_per_s: Math.round((waveIds.length + otherIds.length) / ((opened - t0) / 1000)),
    liquidated,
    closed_outside_wave: rows.filter((r) => !wave.has(r.id) && r.status === 4).length,
    still_trading: rows.filter((r) => r.status === 2).length,
    close_leg_lag_ms: { p50: pct(closeLag, 50), p90: pct(closeLag, 90), p99: pct(closeLag, 99), max: closeLag.at(-1) ?? null },
    read_model_lag_ms: { p50: pct(readModelLag, 50), p99: pct(readModelLag, 99), max: readModelLag.at(-1) ?? null },
    seen_lag_ms: seenAt === null ? null : seenAt - crossedAt,
    close_legs: closeLegs,
    refused_legs: refused,
    legs_left_in_pair_outbox: pairLegs,
    problems: problems.slice(0, 20),
    problem_count: problems.length,
    positions_in_d1: byId.size,
    spot_orders_during_run: spotSent,
    seconds_contracts_during_run: secondsSent,
  };
  result.ok = liquidated === waveIds.length && result.closed_outside_wave === 0 && closeLegs === waveIds.length && problems.length === 0 && refused === 0 && pairLegs === 0;
  return result;
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(args(process.argv.slice(2))).then(
    (r) => process.exit(r.ok ? 0 : 1),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
