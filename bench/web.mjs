#!/usr/bin/env node
/* global window, document -- code in page.evaluate / waitForFunction runs in the browser */
// `npm run bench -- --only web` (or `npm run bench:web`): how fast the SPA is on a phone.
// (Lighthouse against `npm start` as well: --start, below.)
//
//  1. builds the SPA (`npm run build`; --no-build reuses dist/web);
//  2. prints the first-load weight: every script, module preload and stylesheet that index.html
//     names, plus their static imports (what the browser fetches before the first screen),
//     raw and gzip (level 9, as a CDN would send it);
//  3. unless --size-only: starts a throw-away Worker (fresh local D1, migrations, seed) like the
//     browser tests do, then
//     - Lighthouse (npm `lighthouse`, /usr/bin/chromium via chrome-launcher, CHROME_PATH to
//       override; mobile preset) on /login, /quotations and /news/list, median of --runs (3);
//     - axe-core (npm `axe-core`, injected with playwright-core) on every screen at 390×844,
//       logged in as the seeded demo1 user, counting violations by impact.
//
//   npm run bench:web                      # all of it
//   npm run bench:web -- --size-only       # build + sizes
//   npm run bench:web -- --no-lighthouse   # build + sizes + axe
//   npm run bench:web -- --json FILE       # also write the numbers as JSON
//   npm run bench:web -- --no-axe --runs 1 --routes /quotations   # one quick Lighthouse look
//   npm run bench:web -- --start           # Lighthouse also against `npm start`, both tables
//   npm run bench:web -- --start-only      # Lighthouse against `npm start` only (no axe)
//   npm run bench:web -- --url http://127.0.0.1:8787   # Lighthouse against a server already running
//   npm run bench:web -- --lhr-dir DIR     # also keep each Lighthouse run's whole JSON report in DIR
//
// --start runs the product the README's way: `scripts/start.mjs` (what `npm start` runs: the build,
// migrations, the seed, `wrangler dev`, the demo market maker) on a free port with its data in a
// temporary --persist-to folder (your .wrangler/state is not touched), waits until it reports the
// market maker running, runs Lighthouse on the same routes, then stops it with Ctrl+C's signal.
// Every Lighthouse table says whether the market maker was still trading at the end of the run.
//
// Lighthouse runs without network except localhost; it throttles as its mobile preset does
// (simulated 4G, 4× CPU slowdown), so scores are comparable between runs on this machine only.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const DIST = path.join(ROOT, "dist", "web");
const CHROME = process.env.CHROME_PATH ?? "/usr/bin/chromium";
const PEPPER = "bench-pepper-not-secret";
const OFFLINE_ENV = { WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" };
const VIEWPORT = { width: 390, height: 844 };
// Offline like the browser tests: every host but localhost resolves to nothing.
const BROWSER_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1 , EXCLUDE localhost"];

/** Screens axe visits: [route, selector that shows the screen is ready, needs login]. */
export const AXE_SCREENS = [
  ["/login", '[data-testid="login-submit"]', false],
  ["/register", '[data-testid="captcha-image"] img', false],
  ["/forget", '[data-testid="forget-continue"]', false],
  ["/lang", '[data-testid="lang-en"]', false],
  ["/agreement", '[data-testid="agreement"]', false],
  ["/news/list", '[data-testid="article-list"]', false],
  ["/help/center", '[data-testid="article-list"]', false],
  ["/customer", "main > *", false],
  ["/quotations", '[data-testid="quote-row"]', false],
  ["/kline", '[data-testid="kline-chart"]:not([data-status="loading"])', false],
  ["/", '[data-testid="home"]', true],
  ["/exchange", '[data-testid="order-book"][aria-busy="false"]', true],
  ["/exchange/lists", '[data-testid="spot-records"]', true],
  ["/assets", '[data-testid="assets-page"]', true],
  ["/personal", "main > *", true],
  ["/recharge", "main > *", true],
  ["/recharge/log", "main > *", true],
  ["/withdrawal", "main > *", true],
  ["/withdrawal/log", "main > *", true],
  ["/excharge", "main > *", true],
  ["/excharge/log", "main > *", true],
  ["/transfer", "main > *", true],
  ["/password", "main > *", true],
  ["/bank", "main > *", true],
  ["/verifyed", "main > *", true],
  ["/security", "main > *", true],
  ["/security/fund-password", "main > *", true],
  ["/security/authenticator", "main > *", true],
  ["/security/addresses", "main > *", true],
];

const LIGHTHOUSE_ROUTES = ["/login", "/quotations", "/news/list"];

function parseArgs(argv) {
  const out = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (!a.startsWith("--")) continue;
    const next = argv[i + 1];
    if (next === undefined || next.startsWith("--")) out[a.slice(2)] = true;
    else out[a.slice(2)] = argv[++i];
  }
  return out;
}

const kb = (n) => `${(n / 1024).toFixed(1)} KB`;

/**
 * What the first screen needs before it renders: the files index.html loads or preloads, and
 * the static imports of those scripts (followed through `import ... from "./x.js"` in the
 * built chunks). Lazy `import()` targets are not counted.
 */
export function firstLoad(dist = DIST) {
  const html = readFileSync(path.join(dist, "index.html"), "utf8");
  const named = new Set();
  for (const m of html.matchAll(/<(?:script|link)\b[^>]*?(?:src|href)="(\/assets\/[^"]+\.(?:js|css))"/g)) named.add(m[1]);
  const files = new Set();
  const visit = (url) => {
    if (files.has(url)) return;
    files.add(url);
    if (!url.endsWith(".js")) return;
    const code = readFileSync(path.join(dist, url), "utf8");
    // Static imports only (import x from "./y.js", import "./y.js", export ... from "./y.js").
    for (const m of code.matchAll(/(?:^|[;\n}])\s*(?:import|export)\s*(?:[\w$*{},\s]+?\s*from\s*)?["'](\.\/[^"']+\.js)["']/g)) {
      visit(path.posix.join(path.posix.dirname(url), m[1]));
    }
  };
  for (const url of named) visit(url);
  const rows = [...files].map((url) => {
    const buf = readFileSync(path.join(dist, url));
    return { file: url, raw: buf.length, gzip: gzipSync(buf, { level: 9 }).length };
  });
  rows.sort((a, b) => b.gzip - a.gzip);
  const sum = (k, ext) => rows.filter((r) => !ext || r.file.endsWith(ext)).reduce((s, r) => s + r[k], 0);
  return { rows, js: sum("gzip", ".js"), css: sum("gzip", ".css"), gzip: sum("gzip"), raw: sum("raw") };
}

/**
 * What a first visit to `route` fetches on top of firstLoad(): the language's messages and the
 * screen's chunks and CSS that index.html's inline preloader names (vite.config.ts).
 */
export function firstScreen(fl, route, { locale = "en", loggedIn = false } = {}, dist = DIST) {
  const html = readFileSync(path.join(dist, "index.html"), "utf8");
  const m = html.match(/var M=(\{.*?\}),s=localStorage/);
  if (!m) return null;
  const map = JSON.parse(m[1]);
  let r = map.r[route];
  if (r?.a && !loggedIn) r = map.r["/login"];
  const extra = [...new Set([...(map.l[locale] ?? []), ...(r?.f ?? [])])].filter((f) => !fl.rows.some((row) => row.file === f));
  const gz = extra.reduce((s, f) => s + gzipSync(readFileSync(path.join(dist, f)), { level: 9 }).length, 0);
  return { route, extra, gzip: fl.gzip + gz };
}

function printFirstLoad(fl) {
  console.log("| file | raw | gzip |\n| --- | ---: | ---: |");
  for (const r of fl.rows) console.log(`| ${r.file} | ${kb(r.raw)} | ${kb(r.gzip)} |`);
  console.log(`| **first load (JS ${kb(fl.js)} + CSS ${kb(fl.css)})** | ${kb(fl.raw)} | **${kb(fl.gzip)}** |`);
}

function run(cmd, args, what) {
  const r = spawnSync(cmd, args, { cwd: ROOT, env: { ...process.env, ...OFFLINE_ENV }, encoding: "utf8", timeout: 300_000 });
  if (r.status !== 0) throw new Error(`${what} failed (exit ${r.status ?? r.signal}):\n${r.stdout ?? ""}\n${r.stderr ?? ""}`);
  return r.stdout;
}

/** A fresh local database with migrations and the demo seed, and the Worker serving dist/web. */
export async function startWorker() {
  Object.assign(process.env, OFFLINE_ENV);
  const persist = mkdtempSync(path.join(tmpdir(), "exchange-bench-web-"));
  const wrangler = path.join(ROOT, "node_modules", "wrangler", "bin", "wrangler.js");
  run(process.execPath, [wrangler, "d1", "migrations", "apply", "DB", "--local", "--persist-to", persist], "migrations");
  run(process.execPath, [path.join(ROOT, "scripts", "seed.mjs"), "--persist-to", persist, "--pepper", PEPPER], "seed");
  const { unstable_startWorker } = await import("wrangler");
  const worker = await unstable_startWorker({
    config: path.join(ROOT, "wrangler.toml"),
    sendMetrics: false,
    build: { nodejsCompatMode: "v2" },
    bindings: { DEV_OUTBOX: { type: "plain_text", value: "on" }, PEPPER: { type: "secret_text", value: PEPPER } },
    dev: { server: { hostname: "127.0.0.1", port: 0 }, inspector: false, persist, watch: false, liveReload: false, logLevel: "warn" },
  });
  await worker.ready;
  const url = await worker.url;
  return {
    base: url.origin,
    async stop() {
      await worker.dispose();
      rmSync(persist, { recursive: true, force: true });
    },
  };
}

/**
 * The demo market maker (scripts/market-maker.mjs) against the bench Worker, so screens show what
 * they show in use: a book, deals, and green and red change figures. Resolves once a pair has
 * traded twice at different prices (a change other than 0), or after 60 s.
 */
export async function startMarketMaker(base) {
  const child = spawn(process.execPath, [path.join(ROOT, "scripts", "market-maker.mjs"), "--url", base, "--interval", "400"], { cwd: ROOT, stdio: ["ignore", "ignore", "pipe"] });
  // A market maker that died (say, its login timed out on a loaded machine) would leave the
  // screens measured on an idle server: say so instead of measuring silently without it.
  let stderr = "";
  child.stderr.on("data", (d) => (stderr = (stderr + d).slice(-2000)));
  const state = { exited: null };
  child.on("exit", (code, signal) => {
    state.exited = code ?? signal;
    if (!state.stopping) console.log(`market maker exited (${state.exited}) during the run: ${stderr.trim().split("\n").at(-1) ?? ""}`);
  });
  const until = Date.now() + 60_000;
  while (Date.now() < until && state.exited === null) {
    const res = await fetch(`${base}/api/currency/quotation_new`).then((r) => r.json(), () => null);
    const rows = (res?.message ?? []).flatMap((g) => g.quotation ?? []);
    if (rows.some((r) => Number(r.change) > 0) && rows.some((r) => Number(r.change) < 0)) break;
    await new Promise((r) => setTimeout(r, 1000));
  }
  return {
    running: () => state.exited === null,
    stop: () => {
      state.stopping = true;
      child.kill();
    },
  };
}

/**
 * The product started the README's way (`npm start` = scripts/start.mjs, market maker on), on a
 * free port with a temporary --persist-to folder. Resolves once the banner says it runs.
 */
export async function startProduct() {
  const persist = mkdtempSync(path.join(tmpdir(), "exchange-bench-start-"));
  const port = await new Promise((res) => {
    const srv = createServer();
    srv.listen(0, "127.0.0.1", () => {
      const p = srv.address().port;
      srv.close(() => res(p));
    });
  });
  const env = { ...process.env, ...OFFLINE_ENV, PORT: String(port) };
  delete env.MARKET_MAKER;
  const child = spawn(process.execPath, [path.join(ROOT, "scripts", "start.mjs"), "--persist-to", persist], { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
  let out = "";
  const keep = (d) => (out = (out + d).slice(-20_000));
  child.stdout.on("data", keep);
  child.stderr.on("data", keep);
  const exited = new Promise((res) => child.on("exit", (code, signal) => res(code ?? signal)));
  const ready = new Promise((res) => {
    const check = () => /Market maker: running/.test(out) && res(true);
    child.stdout.on("data", check);
    exited.then(() => res(false));
  });
  const timeout = new Promise((res) => setTimeout(() => res(false), 600_000).unref());
  if (!(await Promise.race([ready, timeout]))) {
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {}
    rmSync(persist, { recursive: true, force: true });
    throw new Error(`npm start did not come up with the market maker running:\n${out.slice(-3000)}`);
  }
  const base = `http://127.0.0.1:${port}`;
  // Like startMarketMaker: let the books move (a change on both sides) before measuring.
  const until = Date.now() + 60_000;
  while (Date.now() < until) {
    const res = await fetch(`${base}/api/currency/quotation_new`).then((r) => r.json(), () => null);
    const rows = (res?.message ?? []).flatMap((g) => g.quotation ?? []);
    if (rows.some((r) => Number(r.change) > 0) && rows.some((r) => Number(r.change) < 0)) break;
    await new Promise((r) => setTimeout(r, 1000));
  }
  return {
    base,
    running: () => !/the market maker stopped/.test(out),
    async stop() {
      try {
        process.kill(child.pid, "SIGINT");
      } catch {}
      await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {}
      rmSync(persist, { recursive: true, force: true });
    },
  };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};

/** The LCP element Lighthouse names (its element audit, or the LCP insight in newer versions): selector and snippet. */
function lcpElement(audits) {
  const find = (v) => {
    if (!v || typeof v !== "object") return null;
    if (v.type === "node" && (v.selector || v.snippet)) return `${v.selector ?? ""} ${v.snippet ?? ""}`.trim();
    for (const x of Array.isArray(v) ? v : Object.values(v)) {
      const f = find(x);
      if (f) return f;
    }
    return null;
  };
  for (const id of ["largest-contentful-paint-element", "lcp-breakdown-insight", "lcp-discovery-insight"]) {
    const f = find(audits[id]?.details);
    if (f) return f;
  }
  return "?";
}

/** Lighthouse mobile (performance, accessibility, best practices, SEO), median of `runs`. */
async function lighthouse(base, runs, routes = LIGHTHOUSE_ROUTES, title = "", lhrDir = null) {
  let lh, launcher;
  try {
    lh = (await import("lighthouse")).default;
    launcher = await import("chrome-launcher");
  } catch {
    console.log("Lighthouse: skipped (npm packages lighthouse and chrome-launcher not installed)");
    return null;
  }
  const chrome = await launcher.launch({ chromePath: CHROME, chromeFlags: BROWSER_FLAGS });
  const out = {};
  try {
    for (const route of routes) {
      const results = [];
      for (let i = 0; i < runs; i++) {
        const r = await lh(`${base}/#${route}`, { port: chrome.port, output: "json", logLevel: "error", onlyCategories: ["performance", "accessibility", "best-practices", "seo"] });
        const c = r.lhr.categories;
        const a = r.lhr.audits;
        // --lhr-dir DIR keeps each run's whole report (long tasks, bootup time, main-thread breakdown).
        if (lhrDir) writeFileSync(path.join(lhrDir, `${route.replace(/\W+/g, "_")}-${i + 1}.json`), r.report);
        results.push({
          performance: Math.round(c.performance.score * 100),
          accessibility: Math.round(c.accessibility.score * 100),
          bestPractices: Math.round(c["best-practices"].score * 100),
          seo: Math.round(c.seo.score * 100),
          fcp: a["first-contentful-paint"].numericValue,
          lcp: a["largest-contentful-paint"].numericValue,
          tbt: a["total-blocking-time"].numericValue,
          cls: a["cumulative-layout-shift"].numericValue,
          lcpElement: lcpElement(a),
          failed: Object.values(a)
            .filter((x) => x.score !== null && x.score < 1 && ["binary", "numeric"].includes(x.scoreDisplayMode) && !/metric/.test(x.id))
            .map((x) => x.id),
        });
      }
      const pick = (k) => median(results.map((r) => r[k]));
      out[route] = {
        performance: pick("performance"),
        accessibility: pick("accessibility"),
        bestPractices: pick("bestPractices"),
        seo: pick("seo"),
        fcp: Math.round(pick("fcp")),
        lcp: Math.round(pick("lcp")),
        tbt: Math.round(pick("tbt")),
        cls: Number(pick("cls").toFixed(3)),
        runs: results.map((r) => r.performance),
        lcpElements: [...new Set(results.map((r) => r.lcpElement))],
        failed: [...new Set(results.flatMap((r) => r.failed))],
      };
    }
  } finally {
    chrome.kill();
  }
  console.log(`\n### Lighthouse mobile (median of ${runs})${title ? `: ${title}` : ""}\n`);
  console.log("| route | performance | accessibility | best practices | SEO | FCP ms | LCP ms | TBT ms | CLS | runs (perf) |");
  console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |");
  for (const [route, r] of Object.entries(out)) {
    console.log(`| ${route} | ${r.performance} | ${r.accessibility} | ${r.bestPractices} | ${r.seo} | ${r.fcp} | ${r.lcp} | ${r.tbt} | ${r.cls} | ${r.runs.join(", ")} |`);
  }
  for (const [route, r] of Object.entries(out)) console.log(`- ${route} LCP element: ${r.lcpElements.join(" | ")}`);
  for (const [route, r] of Object.entries(out)) if (r.failed.length) console.log(`- ${route} audits below full marks: ${r.failed.join(", ")}`);
  return out;
}

/** axe-core on every screen at 390×844, logged in as demo1 for the screens that need it. */
async function axe(base) {
  let source;
  try {
    source = readFileSync(fileURLToPath(import.meta.resolve("axe-core/axe.min.js")), "utf8");
  } catch {
    console.log("axe: skipped (npm package axe-core not installed)");
    return null;
  }
  const { chromium } = await import("playwright-core");
  const browser = await chromium.launch({ executablePath: CHROME, headless: true, args: BROWSER_FLAGS });
  const out = {};
  try {
    const context = await browser.newContext({ viewport: VIEWPORT, deviceScaleFactor: 2, isMobile: true, hasTouch: true, locale: "en-US", colorScheme: "dark" });
    const page = await context.newPage();
    let loggedIn = false;
    for (const [route, ready, auth] of AXE_SCREENS) {
      if (auth && !loggedIn) {
        await page.goto(`${base}/#/login`);
        await page.fill('input[name="account"]', "demo1@exchange.test");
        await page.fill('input[name="password"]', "Demo1234");
        await page.click('[data-testid="login-submit"]');
        await page.waitForFunction(() => window.location.hash === "#/" || window.location.hash === "");
        loggedIn = true;
      }
      await page.goto(`${base}/#${route}`);
      const shown = await page
        .locator(ready)
        .first()
        .waitFor({ timeout: 15_000 })
        .then(() => true, () => false);
      if (!shown) console.log(`axe: ${route} did not show ${ready} within 15 s; checked as it was`);
      // Skeletons and spinners are not what the user reads: wait until none is left.
      await page.waitForFunction(() => !document.querySelector('main [aria-busy="true"], main [role="status"]'), null, { timeout: 15_000 }).catch(() => undefined);
      await page.evaluate(source);
      const result = await page.evaluate(() => globalThis.axe.run(document, { resultTypes: ["violations"] }));
      out[route] = result.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length, sample: v.nodes[0]?.target?.join(" ") }));
    }
  } finally {
    await browser.close();
  }
  console.log("\n### axe-core (390×844, logged in as demo1 where the screen needs it)\n");
  console.log("| route | critical | serious | moderate | minor | rules |\n| --- | ---: | ---: | ---: | ---: | --- |");
  const total = { critical: 0, serious: 0, moderate: 0, minor: 0 };
  for (const [route, vs] of Object.entries(out)) {
    const n = (impact) => vs.filter((v) => v.impact === impact).reduce((s, v) => s + v.nodes, 0);
    for (const k of Object.keys(total)) total[k] += n(k);
    console.log(`| ${route} | ${n("critical")} | ${n("serious")} | ${n("moderate")} | ${n("minor")} | ${vs.map((v) => `${v.id} (${v.impact}, ${v.nodes}: ${v.sample})`).join("; ")} |`);
  }
  console.log(`| **all screens** | ${total.critical} | ${total.serious} | ${total.moderate} | ${total.minor} | |`);
  return { screens: out, total };
}

/** Headers and files a crawler or a repeat visit depends on: cache lifetime, robots, favicon. */
async function staticChecks(base, fl) {
  const asset = fl.rows.find((r) => r.file.endsWith(".js"))?.file;
  const head = async (p) => {
    const res = await fetch(`${base}${p}`);
    await res.arrayBuffer();
    return res;
  };
  const a = asset ? await head(asset) : null;
  const index = await head("/");
  const robots = await head("/robots.txt");
  const icon = await head("/favicon.ico");
  const out = {
    assetCache: a?.headers.get("cache-control") ?? null,
    indexCache: index.headers.get("cache-control"),
    robots: robots.headers.get("content-type"),
    favicon: icon.headers.get("content-type"),
  };
  console.log("\n### Static files\n");
  console.log(`- ${asset}: Cache-Control ${out.assetCache}`);
  console.log(`- /: Cache-Control ${out.indexCache}`);
  console.log(`- /robots.txt: ${out.robots}; /favicon.ico: ${out.favicon}`);
  return out;
}

/** The web section: build, first-load size, and (unless --size-only) Lighthouse and axe. */
export async function webBench(opts = {}) {
  console.log("## Web (first load, Lighthouse, axe)");
  if (!opts["no-build"]) run("npm", ["run", "build"], "build");
  const fl = firstLoad();
  console.log("\n### First load (index.html and the static imports of its scripts)\n");
  printFirstLoad(fl);
  const screens = ["/login", "/quotations", "/news/list", "/", "/exchange", "/kline"].map((r) => firstScreen(fl, r, { loggedIn: r === "/" || r === "/exchange" })).filter(Boolean);
  if (screens.length) {
    console.log("\n### First screen (first load + English messages + the screen's preloaded chunks and CSS)\n");
    console.log("| route | gzip | added files |\n| --- | ---: | --- |");
    for (const s of screens) console.log(`| ${s.route} | ${kb(s.gzip)} | ${s.extra.map((f) => path.basename(f)).join(", ")} |`);
  }
  const result = { firstLoad: { js: fl.js, css: fl.css, gzip: fl.gzip, raw: fl.raw, files: fl.rows }, firstScreen: screens };
  const runs = Number(opts.runs ?? 3);
  const routes = typeof opts.routes === "string" ? opts.routes.split(",") : undefined;
  const lhrDir = typeof opts["lhr-dir"] === "string" ? path.resolve(opts["lhr-dir"]) : null;
  if (lhrDir) mkdirSync(lhrDir, { recursive: true });
  // How each Lighthouse run went: the 1-minute load average at its end, the market maker's state.
  const runInfo = (running) => ({ loadAverage: Number(loadavg()[0].toFixed(2)), marketMaker: running ? "running" : "stopped" });
  if (!opts["size-only"]) {
    if (!existsSync(CHROME)) console.log(`browser checks: skipped (no Chromium at ${CHROME}; set CHROME_PATH)`);
    else if (typeof opts.url === "string") {
      // A server someone already runs (their own `npm start`, say): Lighthouse only, nothing started.
      result.static = await staticChecks(opts.url, fl);
      result.lighthouseUrl = await lighthouse(opts.url, runs, routes, opts.url, lhrDir);
      result.lighthouseUrlRun = { loadAverage: runInfo(true).loadAverage };
    } else {
      if (!opts["start-only"]) {
        const worker = await startWorker();
        const mm = await startMarketMaker(worker.base);
        try {
          result.static = await staticChecks(worker.base, fl);
          if (!opts["no-lighthouse"]) {
            result.lighthouse = await lighthouse(worker.base, runs, routes, "throw-away Worker + market maker", lhrDir);
            result.lighthouseRun = runInfo(mm.running());
            console.log(`market maker at the end of the run: ${mm.running() ? "running" : "stopped"}`);
          }
          if (!opts["no-axe"]) result.axe = await axe(worker.base);
        } finally {
          mm.stop();
          await worker.stop();
        }
      }
      if ((opts.start || opts["start-only"]) && !opts["no-lighthouse"]) {
        console.log("\nstarting `npm start` (scripts/start.mjs, market maker on) on a temporary --persist-to folder");
        const product = await startProduct();
        try {
          if (opts["start-only"]) result.static = await staticChecks(product.base, fl);
          result.lighthouseStart = await lighthouse(product.base, runs, routes, "`npm start` (market maker on)", lhrDir);
          result.lighthouseStartRun = runInfo(product.running());
          console.log(`market maker at the end of the run: ${product.running() ? "running" : "stopped"}`);
        } finally {
          await product.stop();
        }
      }
    }
  }
  if (typeof opts.json === "string") writeFileSync(opts.json, JSON.stringify(result, null, 2));
  return 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  webBench(parseArgs(process.argv.slice(2))).catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
