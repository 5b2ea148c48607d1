#!/usr/bin/env node
/**
 * `npm start` (and `npm run dev`, which passes --dev): everything needed to run the exchange
 * locally on one port from a fresh clone after `npm install`.
 *
 *  1. creates .dev.vars from .dev.vars.example with a random PEPPER when it is missing;
 *  2. builds the SPA (`npm run build`), unless --dev or web/ has no index.html yet;
 *  3. applies the D1 migrations to the local database;
 *  4. seeds it (idempotent: a second start keeps every balance and row as it was);
 *  5. starts `wrangler dev` on 127.0.0.1:$PORT (default 8787) and waits until the API answers;
 *  6. fires the cron every minute (wrangler dev does not run crons itself) through the
 *     /__scheduled path of --test-scheduled. That path must be listed in wrangler.toml
 *     `run_worker_first`, or the [assets] SPA fallback answers it with index.html and nothing runs
 *     (miniflare's /cdn-cgi/handler/scheduled reaches the assets router, not our worker);
 *  7. forwards Ctrl+C / SIGTERM to wrangler and exits cleanly.
 *
 * State lives in .wrangler/state (or --persist-to DIR), so data survives restarts.
 * Environment: PORT, MARKET_MAKER=off to keep the demo market maker from starting,
 * C2C_PAY_WINDOW_SECONDS / C2C_APPEAL_AFTER_SECONDS to shorten the C2C payment window and appeal delay,
 * LOCAL_OBSERVABILITY=on to keep wrangler's local trace collector (off here by default, see START_ENV),
 * ACCOUNTS=d1 to run with every balance in D1 as before (the default, objects, keeps every balance in its
 * account's object, opened from the seed at the first start: see ACCOUNTS_MODE below).
 * The Worker gets DEV_OUTBOX=on and DEV_CLOCK=on (worker/lib/clock.ts: POST /api/dev/clock moves the
 * time ahead, POST /api/dev/cron runs a cron now); every-minute cron runs see the moved clock.
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { demoAccounts } from "./seed-data/accounts.mjs";
import { ROOT, WRANGLER_BIN, WRANGLER_ENV } from "./seed.mjs";

const argv = process.argv.slice(2);
const DEV = argv.includes("--dev");
const PORT = Number(process.env.PORT || 8787);
const HOST = "127.0.0.1";
const BASE_URL = `http://${HOST}:${PORT}`;
const persistIndex = argv.findIndex((a) => a === "--persist-to" || a.startsWith("--persist-to="));
const persistValue = persistIndex < 0 ? null : argv[persistIndex]?.includes("=") ? argv[persistIndex].split("=")[1] : argv[persistIndex + 1];
const PERSIST_TO = persistValue ? resolve(persistValue) : null;
const persistArgs = PERSIST_TO ? ["--persist-to", PERSIST_TO] : [];
const READY_TIMEOUT_MS = 90_000;
/**
 * Balances live in the account objects by default (ACCOUNTS=objects, worker/lib/accounts.ts). The
 * seed writes D1, so after the worker answers the first start of a state opens every account's
 * object from it the way a running exchange is cut over (`npm run migrate-accounts -- --maintenance
 * --end-maintenance`: a read-only window, every user and system account opened once, every total
 * compared, the cut-over recorded in D1) before anyone trades; a state that ran with D1 balances
 * before is opened the same way at its first start in objects mode. `ACCOUNTS=d1` keeps every
 * balance in D1, and is refused on a state that was cut over (its D1 balances are a copy from the
 * cut-over; the Worker itself would refuse every money route) unless `--force-d1` says so.
 */
const ACCOUNTS_MODE = (process.env.ACCOUNTS ?? "objects").trim().toLowerCase() || "objects";
const ACCOUNTS_OBJECTS = ACCOUNTS_MODE === "objects";
const FORCE_D1 = argv.includes("--force-d1");
const STATE_DIR = PERSIST_TO ?? join(ROOT, ".wrangler", "state");
/** Written when the state's cut-over succeeded: once per state, never undone. */
const CUT_OVER_FILE = join(STATE_DIR, "accounts-objects-cut-over");

/** Children we started, so a signal reaches whichever is running. */
const children = new Set();
let stopping = false;
let cronTimer = null;
let marketMaker = null;

/**
 * Wrangler ≥ 4.1xx attaches a local trace collector (a streaming tail worker behind its local
 * dashboard) to the Worker and every Durable Object unless X_LOCAL_OBSERVABILITY is false: every
 * request, object call and D1 call then emits spans to another worker on the same runtime thread,
 * which about doubles the runtime CPU of each request (bench/README.md, issue #17). With the demo
 * market maker trading, the pages and the API waited behind that work (Lighthouse, issue #17 §3).
 * A deployed Worker has no such collector, so `npm start` turns it off; LOCAL_OBSERVABILITY=on
 * (or an explicit X_LOCAL_OBSERVABILITY) keeps it for whoever wants the local dashboard's traces.
 */
const START_ENV = {
  ...WRANGLER_ENV,
  ...(process.env.X_LOCAL_OBSERVABILITY !== undefined || process.env.LOCAL_OBSERVABILITY === "on" ? {} : { X_LOCAL_OBSERVABILITY: "false" }),
};

const log = (msg) => console.log(`\x1b[36m[start]\x1b[0m ${msg}`);
const warn = (msg) => console.warn(`\x1b[33m[start]\x1b[0m ${msg}`);

function fail(msg) {
  console.error(`\x1b[31m[start]\x1b[0m ${msg}`);
  process.exit(1);
}

/** Spawns a command; resolves with its exit code. */
function run(cmd, args, { stdio = ["ignore", "inherit", "inherit"] } = {}) {
  return new Promise((res, rej) => {
    const child = spawn(cmd, args, { cwd: ROOT, env: START_ENV, stdio, shell: process.platform === "win32" && cmd === "npm" });
    children.add(child);
    child.on("error", rej);
    child.on("exit", (code, signal) => {
      children.delete(child);
      if (stopping && children.size === 0) finish();
      res(code ?? (signal ? 1 : 0));
    });
  });
}

const wrangler = (args, opts) => run(process.execPath, [WRANGLER_BIN, ...args], opts);

// 1. secrets for local development
function ensureDevVars() {
  const target = join(ROOT, ".dev.vars");
  if (existsSync(target)) return;
  const example = join(ROOT, ".dev.vars.example");
  const pepper = randomBytes(32).toString("hex");
  const template = existsSync(example) ? readFileSync(example, "utf8") : "PEPPER=change-me\n";
  const text = /^\s*PEPPER\s*=.*$/m.test(template)
    ? template.replace(/^\s*PEPPER\s*=.*$/m, `PEPPER=${pepper}`)
    : `${template.trimEnd()}\nPEPPER=${pepper}\n`;
  writeFileSync(target, text, { mode: 0o600 });
  log("created .dev.vars with a random PEPPER");
}

// 2. the single-page app
async function buildSpa() {
  if (DEV) {
    log("--dev: skipping the SPA build (dist/web is served as it is)");
  } else if (!existsSync(join(ROOT, "web", "index.html"))) {
    warn("web/index.html not found: skipping the SPA build, the API still starts");
  } else {
    log("building the SPA (npm run build)");
    const code = await run("npm", ["run", "build"]);
    if (code !== 0 && !stopping) fail(`npm run build failed (exit ${code})`);
  }
  // wrangler refuses to start when the [assets] directory is missing.
  mkdirSync(join(ROOT, "dist", "web"), { recursive: true });
}

/** Refuses to start on a port something else already holds (it would answer our readiness probe). */
function assertPortFree() {
  return new Promise((res) => {
    const server = createServer();
    server.once("error", () => fail(`port ${PORT} is in use: stop the other process or set PORT`));
    server.listen(PORT, HOST, () => server.close(() => res()));
  });
}

/**
 * Settings from the environment override wrangler.toml [vars]: the C2C timings, so the payment
 * window and the appeal delay can be tried shortened (`C2C_PAY_WINDOW_SECONDS=120 npm start`), and
 * the product switches (`PRODUCT_SECONDS=off npm start` runs the exchange without seconds contracts).
 */
function envVarArgs() {
  const out = [];
  // Every product switch wrangler.toml declares (a new product's switch needs no edit here).
  const switches = [...readFileSync(new URL("../wrangler.toml", import.meta.url), "utf8").matchAll(/^(PRODUCT_[A-Z0-9_]+)\s*=/gm)].map((m) => m[1]);
  for (const name of switches) {
    const value = process.env[name]?.trim().toLowerCase();
    if (!value) continue;
    if (value !== "on" && value !== "off") fail(`${name} must be "on" or "off" (got "${value}")`);
    out.push("--var", `${name}:${value}`);
  }
  // Always named: whatever wrangler.toml deploys with, the start runs the mode it announced.
  out.push("--var", `ACCOUNTS:${ACCOUNTS_MODE}`);
  for (const name of ["C2C_PAY_WINDOW_SECONDS", "C2C_APPEAL_AFTER_SECONDS"]) {
    const value = process.env[name]?.trim();
    if (!value) continue;
    if (!/^\d{1,7}$/.test(value)) fail(`${name} must be a whole number of seconds (got "${value}")`);
    out.push("--var", `${name}:${value}`);
  }
  return out;
}

// 5. the worker
function startWorker() {
  const args = [
    WRANGLER_BIN,
    "dev",
    "--port",
    String(PORT),
    "--ip",
    HOST,
    "--var",
    "DEV_OUTBOX:on",
    "--var",
    "DEV_CLOCK:on",
    "--var",
    "TRUST_CF_CONNECTING_IP:off",
    "--test-scheduled",
    "--show-interactive-dev-session=false",
    ...envVarArgs(),
    ...persistArgs,
  ];
  const child = spawn(process.execPath, args, { cwd: ROOT, env: START_ENV, stdio: ["ignore", "inherit", "inherit"] });
  children.add(child);
  child.on("exit", (code, signal) => {
    children.delete(child);
    if (stopping) return children.size === 0 ? finish() : undefined;
    fail(`wrangler dev exited (${signal ?? `code ${code}`})`);
  });
  return child;
}

async function waitUntilReady(worker) {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (worker.exitCode !== null) fail("wrangler dev stopped before it was ready");
    try {
      const res = await fetch(`${BASE_URL}/api/cfg/kefu`, { signal: AbortSignal.timeout(2000) });
      if (res.ok) return;
    } catch {
      /* not listening yet */
    }
    await sleep(500);
  }
  fail(`the worker did not answer ${BASE_URL}/api/cfg/kefu within ${READY_TIMEOUT_MS / 1000} s`);
}

// 6. cron: "* * * * *" every minute, plus "0 0 * * *" (08:00 Beijing) when the UTC day turns and
// "0 * * * *" (mining payouts) when the hour turns
let cronMisrouted = false;
async function fireCron(cron) {
  try {
    const res = await fetch(`${BASE_URL}/__scheduled?cron=${encodeURIComponent(cron).replace(/%20/g, "+")}`, {
      signal: AbortSignal.timeout(30_000),
    });
    const body = (await res.text()).slice(0, 200);
    if ((res.headers.get("content-type") ?? "").includes("text/html")) {
      // The SPA answered: the worker never saw the request.
      if (!cronMisrouted) warn('cron not fired: add "/__scheduled" to run_worker_first in wrangler.toml');
      cronMisrouted = true;
    } else if (!res.ok) {
      warn(`cron "${cron}" failed: ${res.status} ${body}`);
    }
  } catch (err) {
    if (!stopping) warn(`cron "${cron}" could not be fired: ${err instanceof Error ? err.message : err}`);
  }
}

function scheduleCron() {
  // Aligned to the start of each minute, like the real scheduler.
  const delay = 60_000 - (Date.now() % 60_000) + 250;
  cronTimer = setTimeout(async () => {
    const now = new Date();
    await fireCron("* * * * *");
    if (now.getUTCHours() === 0 && now.getUTCMinutes() === 0) await fireCron("0 0 * * *");
    if (now.getUTCMinutes() === 0) await fireCron("0 * * * *");
    if (!stopping) scheduleCron();
  }, delay);
}

/**
 * ── LEAD HOOK: demo market maker ──────────────────────────────────────────────────────────────
 * Starts the demo market maker once the worker answers. It must trade like any user (real orders
 * through the API from the seeded mm@exchange.test account, funded through the ledger), and return
 * an object with stop() so Ctrl+C ends it. Not implemented yet: returns null.
 * Enabled by default; MARKET_MAKER=off skips it.
 * @param {{ baseUrl: string, account: { account: string, password: string } }} _options
 * @returns {Promise<{ stop(): void | Promise<void> } | null>}
 */
async function startMarketMaker({ baseUrl }) {
  // An ordinary API client on two demo accounts (scripts/market-maker.mjs): real orders, real funds.
  const child = spawn(process.execPath, [join(ROOT, "scripts", "market-maker.mjs"), "--url", baseUrl], {
    cwd: ROOT,
    stdio: ["ignore", "inherit", "inherit"],
  });
  child.on("exit", (code) => {
    if (!stopping && code !== 0) warn(`the market maker stopped (exit ${code}); the exchange keeps running`);
  });
  return {
    stop: () =>
      new Promise((res) => {
        if (child.exitCode !== null) return res();
        child.once("exit", () => res());
        child.kill("SIGTERM");
        setTimeout(() => {
          child.kill("SIGKILL");
          res();
        }, 5000).unref();
      }),
  };
}

function printBanner() {
  const users = demoAccounts.filter((a) => a.role === "user" && !a.key.startsWith("mm"));
  const operators = demoAccounts.filter((a) => a.role === "operator");
  const mm = demoAccounts.find((a) => a.key === "mm");
  const lines = [
    "",
    `  Exchange running at \x1b[1m${BASE_URL}/\x1b[0m`,
    "",
    "  Demo accounts (verified):",
    ...users.map(
      (u) =>
        `    ${u.account.padEnd(26)} password ${u.password.padEnd(16)} ${Object.entries(u.credits)
          .map(([c, v]) => `${v} ${c}`)
          .join(" + ")}`,
    ),
    operators.length > 0 ? `  Operators:\n${operators.map((o) => `    ${o.account.padEnd(26)} password ${o.password}`).join("\n")}` : "",
    mm ? `  Market maker account:\n    ${mm.account.padEnd(26)} password ${mm.password}` : "",
    "",
    `  Market maker: ${marketMaker ? "running" : process.env.MARKET_MAKER === "off" ? "off (MARKET_MAKER=off)" : "not available yet"}`,
    `  Balances: ${ACCOUNTS_OBJECTS ? "in the account objects, D1 the read model (ACCOUNTS=d1 npm start keeps them in D1, on a state never cut over)" : `in D1 (ACCOUNTS=d1${FORCE_D1 ? ", --force-d1" : ""}; without it they live in the account objects)`}`,
    `  Cron: fired every minute through ${BASE_URL}/__scheduled`,
    `  Dev clock: POST ${BASE_URL}/api/dev/clock {"advance_s":86400} moves time a day ahead; POST /api/dev/cron {"cron":"* * * * *"} runs a cron now`,
    `  Local trace collector: ${START_ENV.X_LOCAL_OBSERVABILITY === "false" ? "off (LOCAL_OBSERVABILITY=on to keep it)" : "on"}`,
    `  Data: ${STATE_DIR} (kept between runs)`,
    DEV ? "  --dev: the SPA was not rebuilt" : "",
    "  Stop with Ctrl+C.",
    "",
  ];
  console.log(lines.filter((l) => l !== "").join("\n").replace(/^/, "\n") + "\n");
}

// 7. shutdown
let finished = false;
async function finish() {
  if (finished) return;
  finished = true;
  process.exit(0);
}

function shutdown(signal) {
  if (stopping) return;
  stopping = true;
  log(`${signal}: stopping`);
  if (cronTimer) clearTimeout(cronTimer);
  Promise.resolve(marketMaker?.stop())
    .catch(() => {})
    .finally(() => {
      if (children.size === 0) return finish();
      for (const child of children) child.kill(signal);
      setTimeout(() => {
        for (const child of children) child.kill("SIGKILL");
        finish();
      }, 8000).unref();
    });
}

/**
 * ACCOUNTS=d1 on a state whose balances moved into the account objects: D1's balances are a copy
 * from the cut-over, so the exchange would show and trade old figures. Refused unless --force-d1.
 */
function refuseD1AfterCutOver() {
  if (ACCOUNTS_OBJECTS || FORCE_D1 || !existsSync(CUT_OVER_FILE)) return;
  fail(
    [
      `ACCOUNTS=d1, but this state (${STATE_DIR}) was cut over to the account objects at ${readFileSync(CUT_OVER_FILE, "utf8").trim()}:`,
      "  its balances live in the account objects, and D1's balances are a copy from that moment.",
      "  Start it without ACCOUNTS=d1 (the objects, the default), or start a fresh state in D1 mode",
      `  (remove ${STATE_DIR}, or --persist-to another folder), or \`ACCOUNTS=d1 npm start -- --force-d1\` to run on D1's old copy anyway.`,
    ].join("\n"),
  );
}

/** Records the cut-over in D1 (idempotent): POST /api/dev/accounts/cut-over, as migrate-accounts does at its end. */
async function recordCutOver() {
  const res = await fetch(`${BASE_URL}/api/dev/accounts/cut-over`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" }).catch((err) => err);
  const body = res instanceof Response ? await res.json().catch(() => null) : null;
  if (body?.type !== "ok") warn(`the cut-over could not be recorded in D1 (${res instanceof Response ? `HTTP ${res.status}` : res}): money routes answer "maintenance" until it is`);
}

async function main() {
  if (!Number.isInteger(PORT) || PORT <= 0 || PORT > 65535) fail(`invalid PORT ${process.env.PORT}`);
  process.on("SIGINT", () => shutdown("SIGINT"));
  process.on("SIGTERM", () => shutdown("SIGTERM"));

  if (ACCOUNTS_MODE !== "d1" && !ACCOUNTS_OBJECTS) fail(`ACCOUNTS must be "objects" (the default) or "d1" (got "${process.env.ACCOUNTS}")`);
  refuseD1AfterCutOver();
  await assertPortFree();
  ensureDevVars();
  await buildSpa();
  if (stopping) return;

  log("applying D1 migrations (local)");
  const migrated = await wrangler(["d1", "migrations", "apply", "DB", "--local", ...persistArgs]);
  if (stopping) return;
  if (migrated !== 0) fail(`migrations failed (exit ${migrated})`);

  log("seeding (idempotent)");
  const seeded = await run(process.execPath, [join(ROOT, "scripts", "seed.mjs"), ...persistArgs]);
  if (stopping) return;
  if (seeded !== 0) fail(`seed failed (exit ${seeded})`);

  if (FORCE_D1 && existsSync(CUT_OVER_FILE)) {
    // The Worker with ACCOUNTS=d1 refuses money routes while D1 records the cut-over (worker/lib/maintenance.ts);
    // --force-d1 takes that record out of this local D1 (the next start with the objects records it again).
    warn(`--force-d1: this state was cut over to the account objects at ${readFileSync(CUT_OVER_FILE, "utf8").trim()}; running on D1's balances from then`);
    const cleared = await wrangler(["d1", "execute", "DB", "--local", ...persistArgs, "--command", "DELETE FROM settings WHERE key = 'accounts_cut_over'"], { stdio: ["ignore", "ignore", "inherit"] });
    if (stopping) return;
    if (cleared !== 0) fail(`--force-d1: the cut-over record could not be taken out of D1 (exit ${cleared})`);
  }

  await assertPortFree(); // again: the build, migrations and seed took a while
  log(`starting wrangler dev on ${BASE_URL}`);
  const worker = startWorker();
  await waitUntilReady(worker);
  if (stopping) return;

  // The cut-over happens once per state (a fresh one, or one that ran with D1 balances before):
  // after it the objects hold the money and D1's balances are what they were at the cut-over, so a
  // second opening would compare against old figures.
  if (ACCOUNTS_OBJECTS && !existsSync(CUT_OVER_FILE)) {
    log("opening the account objects from D1 (npm run migrate-accounts)");
    const opened = await run(process.execPath, [join(ROOT, "scripts", "migrate-accounts.mjs"), "--api", BASE_URL, "--maintenance", "--end-maintenance"]);
    if (stopping) return;
    if (opened !== 0) fail(`opening the account objects failed (exit ${opened}); the maintenance window stays on`);
    writeFileSync(CUT_OVER_FILE, `${new Date().toISOString()}\n`);
  } else if (ACCOUNTS_OBJECTS) {
    // A state cut over before D1 recorded it (the Worker refuses money routes until it is): record it now.
    await recordCutOver();
  }

  if (process.env.MARKET_MAKER !== "off") {
    marketMaker = await startMarketMaker({ baseUrl: BASE_URL });
  }
  printBanner();
  scheduleCron();
}

main().catch((err) => fail(err instanceof Error ? (err.stack ?? err.message) : String(err)));
