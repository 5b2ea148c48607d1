#!/usr/bin/env node
// `npm test`: compiles the messages, builds the SPA when it is missing or stale (the browser tests
// serve it), then runs every vitest project: unit (Node), workers (workerd), e2e (Chromium).
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
const r = spawnSync(process.execPath, [vitest, "run", "--reporter=default", "--reporter=json", `--outputFile.json=${report}`, ...process.argv.slice(2)], {
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
