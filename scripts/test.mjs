#!/usr/bin/env node
// `npm test`: compiles the messages, builds the SPA when it is missing or stale (the browser tests
// serve it), then runs every vitest project: unit (Node), workers, objects and api-objects (workerd), e2e (Chromium).
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, readdirSync } from "node:fs";
import { join } from "node:path";

const root = new URL("..", import.meta.url).pathname;
const run = (cmd, args) => {
  const r = spawnSync(cmd, args, { cwd: root, stdio: "inherit", env: { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" } });
  if (r.status !== 0) process.exit(r.status ?? 1);
};

function newestMtime(dir) {
  let newest = 0;
  if (!existsSync(dir)) return newest;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.name === "paraglide" || e.name === "node_modules") continue;
    const p = join(dir, e.name);
    newest = Math.max(newest, e.isDirectory() ? newestMtime(p) : statSync(p).mtimeMs);
  }
  return newest;
}

if (existsSync(join(root, "web/index.html"))) {
  const built = join(root, "dist/web/index.html");
  const stale = !existsSync(built) || newestMtime(join(root, "web")) > statSync(built).mtimeMs || newestMtime(join(root, "schemas")) > statSync(built).mtimeMs;
  if (stale) run("npm", ["run", "build"]);
}
// A JSON report next to the console one, so the run can end with one plain summary line.
mkdirSync(join(root, "test-results"), { recursive: true });
const report = join(root, "test-results", "vitest.json");
// A report left by an earlier run must never be summarised as this one's (a killed run writes none).
rmSync(report, { force: true });
// vitest's own entry under this process's Node (`npm test` runs on the pinned Node 24 from
// node_modules/.bin), rather than `npx`, which would start on whatever Node runs npm itself.
const vitest = join(root, "node_modules", "vitest", "vitest.mjs");
const args = process.argv.slice(2);
const changed = takeChanged(args);
if (changed) {
  const files = touchedTests(changed.ref, args);
  if (files === "all") console.log("--changed: a change touches every test (configuration, migrations or the seed); running them all.");
  else if (files.length === 0) {
    console.log("--changed: no test touches what changed.\n\nTests: 0 passed, 0 failed");
    process.exit(0);
  } else {
    console.log(`--changed: ${files.length} test file(s):\n  ${files.join("\n  ")}`);
    args.push(...files);
  }
}
const r = spawnSync(process.execPath, [vitest, "run", "--reporter=default", "--reporter=json", `--outputFile.json=${report}`, ...args], {
  cwd: root,
  stdio: "inherit",
  env: { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" },
});
if (existsSync(report)) {
  const j = JSON.parse(readFileSync(report, "utf8"));
  const skipped = (j.numPendingTests ?? 0) + (j.numTodoTests ?? 0);
  console.log(`\nTests: ${j.numPassedTests} passed, ${j.numFailedTests} failed${skipped ? `, ${skipped} skipped` : ""}`);
}
process.exit(r.status ?? 1);

/**
 * `--changed`, `--changed <ref>` or `--changed=<ref>`, taken out of the arguments: files changed
 * since <ref> (default: uncommitted and untracked files, as vitest's own --changed).
 */
function takeChanged(list) {
  const at = list.findIndex((a) => a === "--changed" || a.startsWith("--changed="));
  if (at < 0) return null;
  let ref = list[at].startsWith("--changed=") ? list[at].slice("--changed=".length) : undefined;
  let count = 1;
  const next = list[at + 1];
  if (ref === undefined && next !== undefined && !next.startsWith("-") && !existsSync(join(root, next))) {
    ref = next;
    count = 2;
  }
  list.splice(at, count);
  return { ref };
}

/**
 * The test files a change touches: those vitest relates to it through their imports (engine, web
 * logic, helpers, a changed test itself), and the API, Durable Object and browser tests named after
 * the changed area, which reach the code through the running Worker rather than an import (e.g.
 * worker/domain/c2c/orders.ts → tests/api/c2c*.test.ts and tests/e2e/c2c.test.ts). "all" when the
 * change is one every test depends on.
 */
function touchedTests(ref, passThrough) {
  const git = (gitArgs) => {
    const res = spawnSync("git", gitArgs, { cwd: root, encoding: "utf8" });
    if (res.status !== 0) throw new Error(`git ${gitArgs.join(" ")}: ${res.stderr}`);
    return res.stdout.split("\n").filter(Boolean);
  };
  const changedFiles = [...new Set([...git(["diff", "--name-only", ref ?? "HEAD"]), ...git(["ls-files", "--others", "--exclude-standard"])])];
  const everything = /^(migrations\/|scripts\/(seed|test)|wrangler\.toml$|vitest\.config\.|package(-lock)?\.json$|tests\/api\/setup\.ts$|tests\/e2e\/(server|browser|global-setup|pool|exchange)\.ts$)/;
  if (changedFiles.some((f) => everything.test(f))) return "all";

  const listed = join(root, "test-results", "changed.json");
  rmSync(listed, { force: true });
  const vitestArgs = ["list", ref ? `--changed=${ref}` : "--changed", "--filesOnly", `--json=${listed}`, ...projectArgs(passThrough)];
  const res = spawnSync(process.execPath, [vitest, ...vitestArgs], { cwd: root, encoding: "utf8", env: { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" } });
  if (res.status !== 0 || !existsSync(listed)) throw new Error(`vitest list --changed failed:\n${res.stdout}\n${res.stderr}`);
  const related = JSON.parse(readFileSync(listed, "utf8")).map((t) => t.file.slice(root.length));

  const generic = new Set(["worker", "durable", "web", "src", "schemas", "lib", "domain", "routes", "features", "components", "app", "jobs", "db", "index", "engine", "messages", "ts", "tsx", "mjs", "json", "css", "test", "tests"]);
  const areas = new Set(
    changedFiles
      .filter((f) => /^(worker|durable|web\/src|schemas)\//.test(f))
      .flatMap((f) => f.replace(/\.[^./]+$/, "").split(/[/._-]/))
      .map((w) => w.toLowerCase())
      .filter((w) => w.length >= 3 && !generic.has(w)),
  );
  const named = ["tests/api", "tests/durable", "tests/e2e"].flatMap((dir) =>
    readdirSync(join(root, dir))
      .filter((f) => f.endsWith(".test.ts") && f.replace(/\.test\.ts$/, "").split("-").some((w) => areas.has(w)))
      .map((f) => `${dir}/${f}`),
  );
  return [...new Set([...related, ...named])].sort();
}

/** The `--project <name>` / `--project=<name>` arguments, so the listing covers the same projects. */
function projectArgs(list) {
  return list.flatMap((a, i) => (a === "--project" ? [a, list[i + 1]] : a.startsWith("--project=") ? [a] : []));
}
