#!/usr/bin/env node
/**
 * Proof of liabilities (issue #20 §2, "Measured"): the daily snapshot over N users' balances on the
 * real Worker (local workerd, fresh --persist-to state with the migrations and the seed), and the
 * time a proof takes to verify in Chromium.
 *
 * The users and their balances are written straight into the local D1 SQLite file (not through
 * the API), as bench/rebates.mjs does: every user gets one deposit movement (USDT, and BTC for
 * every third), and every fifth user a hold (part of it moved from available to frozen, as an
 * order or an earn product does), all through `ledger` rows, whose trigger keeps `balances`.
 *
 * Then the crons run as deployed: `/__scheduled?cron=0+0+*+*+*` once (00:00 UTC), then the
 * every-minute cron until the snapshot is done. Reports time per invocation, invocations and D1
 * statements per invocation (the snapshot's own count; D1 allows 1,000 per invocation), checks
 * that the published totals equal the ledger's sums (direct SQL on the file), fetches demo1's
 * proof, and verifies it 20 times in Chromium (playwright-core, /usr/bin/chromium when present)
 * with the same code the app runs (schemas/liabilities.ts, types stripped), reporting the median.
 *
 *   npm exec -- node bench/liabilities.mjs [--users 1000000] [--json FILE]
 */
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { stripTypeScriptTypes } from "node:module";
import { DatabaseSync } from "node:sqlite";
import { chromium } from "playwright-core";
import { ROOT, freePort, log, prepareState, randomPepper, snapshotTree, startServer, tempDir } from "./lib/server.mjs";

const argv = process.argv.slice(2);
const opt = (name, def) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : def;
};
const USERS = Number(opt("users", 1_000_000));
const JSON_OUT = opt("json", null);
const RUNS = 20;
/** Whose proof is fetched and verified (bound to this account). */
const ACCOUNT = "demo1@exchange.test";

let seed = 0x2545f491;
const rand = () => {
  seed ^= seed << 13;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  return (seed >>> 0) / 4294967296;
};
const randInt = (n) => Math.floor(rand() * n);

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

function generate(file) {
  const db = new DatabaseSync(file);
  db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = OFF;");
  const usdt = db.prepare("SELECT id FROM currencies WHERE name = 'USDT'").get();
  const btc = db.prepare("SELECT id FROM currencies WHERE name = 'BTC'").get();
  const maxId = db.prepare("SELECT COALESCE(MAX(id), 0) AS m FROM users").get().m;
  const now = Date.now() - 86_400_000;
  const insUser = db.prepare("INSERT INTO users (id, account, account_type, password_hash, extension_code, role, created_at) VALUES (?, ?, 1, 'x', ?, 'user', ?)");
  const insMove = db.prepare("INSERT INTO movements (key, kind, created_at) VALUES (?, ?, ?)");
  const insLedger = db.prepare(
    "INSERT INTO ledger (movement_key, user_id, currency_id, account, d_available, d_frozen, kind, memo, created_at) VALUES (?, ?, ?, 'change', ?, ?, ?, 'bench', ?)",
  );
  db.exec("BEGIN");
  for (let i = 0; i < USERS; i++) {
    const id = maxId + 1 + i;
    insUser.run(id, `liab${i}@bench.test`, `BL${id}`, now);
    const key = `bench-liab-fund:${id}`;
    insMove.run(key, "deposit", now);
    // Up to 50 USDT: the deposits account (user -1) carries the other side of every deposit in one
    // balance row, bounded by 2^53 units (90,071,992.54740991 USDT); 1,000,000 users at up to 500
    // USDT each overflowed it (CHECK constraint failed) near 360,000 users.
    const u = 1 + randInt(5_000_000_000);
    insLedger.run(key, id, usdt.id, u, 0, "deposit", now);
    insLedger.run(key, -1, usdt.id, -u, 0, "deposit", now);
    if (i % 3 === 0) {
      const b = 1 + randInt(100_000_000); // up to 1 BTC
      insLedger.run(key, id, btc.id, b, 0, "deposit", now);
      insLedger.run(key, -1, btc.id, -b, 0, "deposit", now);
    }
    if (i % 5 === 0) {
      const hold = `bench-liab-hold:${id}`;
      const h = Math.floor(u / 3);
      insMove.run(hold, "spot_freeze", now);
      insLedger.run(hold, id, usdt.id, -h, h, "spot_freeze", now);
    }
    if (i % 100_000 === 99_999) {
      db.exec("COMMIT; BEGIN");
      log(`generated ${i + 1} users`);
    }
  }
  db.exec("COMMIT");
  db.close();
}

/** schemas/liabilities.ts and its one import, types stripped, as one browser module setting window.verifyProof. */
function verifierModule() {
  const strip = (f) => stripTypeScriptTypes(fs.readFileSync(path.join(ROOT, "schemas", f), "utf8"));
  const decimal = strip("decimal.ts");
  const tree = strip("liabilities.ts").replace(/^import [^;]+ from "\.\/decimal\.ts";$/m, "");
  return `${decimal}\n${tree}\nwindow.verifyProof = verifyProof;\nwindow.verifierReady = true;\n`;
}

async function browserVerify(url, proof, published) {
  const executablePath = fs.existsSync("/usr/bin/chromium") ? "/usr/bin/chromium" : await (await import("@sparticuz/chromium")).default.executablePath();
  const browser = await chromium.launch({
    executablePath,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
  });
  try {
    const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    await page.goto(url);
    await page.addScriptTag({ content: verifierModule(), type: "module" });
    await page.waitForFunction(() => globalThis.verifierReady === true);
    return await page.evaluate(
      async ({ proof, account, published, runs }) => {
        const times = [];
        let ok = true;
        for (let i = 0; i < runs; i++) {
          const t = performance.now();
          const r = await globalThis.verifyProof(proof, account, published);
          times.push(performance.now() - t);
          ok = ok && r.ok;
        }
        const sorted = [...times].sort((a, b) => a - b);
        return { ok, first_ms: times[0], median_ms: (sorted[runs / 2 - 1] + sorted[runs / 2]) / 2, max_ms: sorted[runs - 1], ua: navigator.userAgent };
      },
      { proof, account: ACCOUNT, published, runs: RUNS },
    );
  } finally {
    await browser.close();
  }
}

async function main() {
  const root = snapshotTree();
  const dir = tempDir("exchange-bench-liabilities-");
  const pepper = randomPepper();
  log("preparing state (migrations, seed)");
  await prepareState({ root, dir, pepper, fund: false });
  const file = findSqlite(dir);
  const t0 = performance.now();
  generate(file);
  log(`generated ${USERS} users in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

  const port = await freePort([8780, 8781, 8782, 8783, 8784]);
  const server = await startServer({ root, dir, port, pepper, timeoutMs: 600_000 });
  const invocations = [];
  let proof;
  let published;
  let browser;
  try {
    let cron = "0 0 * * *";
    for (let i = 0; i < 100; i++) {
      const s = performance.now();
      const r = await get(`${server.url}/__scheduled?cron=${encodeURIComponent(cron).replace(/%20/g, "+")}`);
      const ms = performance.now() - s;
      const db = new DatabaseSync(file, { readOnly: true, timeout: 600_000 });
      const snap = db.prepare("SELECT id, status, phase, cursor, statements, invocations FROM liab_snapshots ORDER BY id DESC LIMIT 1").get();
      db.close();
      invocations.push({ cron, ms: Math.round(ms), status: r.status, phase: snap?.phase, statements: snap?.statements });
      if (r.status !== 200) log(`invocation ${i + 1} answered ${r.status}; server output:\n${server.output.join("").slice(-4000)}`);
      log(`invocation ${i + 1} (${cron}): ${Math.round(ms)} ms, snapshot ${snap?.id} ${snap?.status} at ${snap?.phase} ${snap?.cursor}, ${snap?.statements} statements so far`);
      if (!snap || snap.phase === "done") break;
      cron = "* * * * *";
    }
    published = (await (await fetch(`${server.url}/api/transparency/liabilities`)).json()).message;
    const login = await (
      await fetch(`${server.url}/api/user/login`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ user_string: ACCOUNT, password: "Demo1234", type: 1 }),
      })
    ).json();
    const t = performance.now();
    const answer = await (await fetch(`${server.url}/api/transparency/liabilities/proof`, { headers: { authorization: login.message.token } })).json();
    log(`proof served in ${Math.round(performance.now() - t)} ms`);
    proof = answer.message;
    browser = await browserVerify(server.url, proof, published);
  } catch (err) {
    log(`failed; server output:\n${server.output.join("").slice(-4000)}`);
    throw err;
  } finally {
    await server.stop();
  }
  const db = new DatabaseSync(file, { readOnly: true });
  const snap = db.prepare("SELECT * FROM liab_snapshots ORDER BY id DESC LIMIT 1").get();
  const steps = db.prepare("SELECT phase, COUNT(*) AS n, MIN(at) AS first, MAX(at) AS last FROM liab_steps WHERE snapshot_id = ? GROUP BY phase ORDER BY MIN(at)").all(snap.id);
  const ledger = db
    .prepare("SELECT c.name, CAST(SUM(l.d_available + l.d_frozen) AS TEXT) AS t FROM ledger l JOIN currencies c ON c.id = l.currency_id WHERE l.user_id > 0 GROUP BY c.name")
    .all();
  const nodes = db.prepare("SELECT COUNT(*) AS n FROM liab_nodes WHERE snapshot_id = ?").get(snap.id).n;
  db.close();
  // The proof's scales are the tree's (each currency's decimals + 2); the ledger counts minimal units.
  const scaleOf = Object.fromEntries(proof.currencies.map((c) => [c.name, c.scale - 2]));
  const units = (v, scale) => {
    const [i, f = ""] = v.split(".");
    return BigInt(i) * 10n ** BigInt(scale) + BigInt((f + "0".repeat(scale)).slice(0, scale) || "0");
  };
  const ledgerByName = Object.fromEntries(ledger.map((r) => [r.name, BigInt(r.t)]));
  const totalsEqualLedger = published.totals.every((t) => units(t.total, scaleOf[t.currency]) === (ledgerByName[t.currency] ?? 0n));
  const perInvocation = invocations.map((x, i) => (x.statements ?? 0) - (i > 0 ? (invocations[i - 1].statements ?? 0) : 0));
  const result = {
    users: USERS,
    user_count: snap.user_count,
    status: snap.status,
    invocations: snap.invocations,
    statements: snap.statements,
    statements_per_invocation: perInvocation,
    invocation_ms: invocations.map((x) => x.ms),
    total_ms: invocations.reduce((a, x) => a + x.ms, 0),
    steps,
    stored_nodes: nodes,
    totals: published.totals,
    totals_equal_ledger: totalsEqualLedger,
    leaves: snap.user_count * 2,
    proof_path: proof.leaves.map((l) => l.path.length),
    browser,
  };
  console.log(JSON.stringify(result, null, 2));
  if (JSON_OUT) fs.writeFileSync(JSON_OUT, JSON.stringify(result, null, 2));
  if (snap.status !== "published" || !totalsEqualLedger || !browser.ok) {
    console.error("FAILED: the snapshot was not published, its totals differ from the ledger, or the proof did not verify");
    process.exit(1);
  }
}

await main();
process.exit(0);
