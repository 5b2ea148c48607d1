/**
 * A throw-away copy of the whole app for browser tests: D1 migrations applied into a fresh
 * temporary --persist-to folder, the demo seed (when scripts/seed.mjs exists), then the Worker
 * started in-process with wrangler's unstable_startWorker on a free port, serving the built SPA
 * (built first when dist/web/index.html is missing) and /api with the dev outbox turned on.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
/** The pepper the seed hashes demo passwords with; the worker must get the same one. */
export const TEST_PEPPER = "e2e-pepper-not-secret";

const OFFLINE_ENV = { WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" };

export interface TestServer {
  baseUrl: string;
  persistDir: string;
  dispose(): Promise<void>;
}

// The bound ends a step that hangs; a loaded machine (CI beside other work) took over 180 s to apply
// the migrations, so it is generous.
function run(cmd: string, args: string[], what: string) {
  const res = spawnSync(cmd, args, { cwd: ROOT, env: { ...process.env, ...OFFLINE_ENV }, encoding: "utf8", timeout: 900_000 });
  if (res.status !== 0) {
    throw new Error(`${what} failed (exit ${res.status ?? res.signal}):\n${res.stdout ?? ""}\n${res.stderr ?? ""}`);
  }
}

/** `vars`: extra plain-text bindings, e.g. a shortened C2C payment window. */
export async function startServer(vars: Record<string, string> = {}): Promise<TestServer> {
  Object.assign(process.env, OFFLINE_ENV);

  if (!existsSync(join(ROOT, "dist", "web", "index.html"))) {
    run("npm", ["run", "build"], "building the web app");
  }

  const persistDir = mkdtempSync(join(tmpdir(), "exchange-e2e-"));
  const wranglerBin = join(ROOT, "node_modules", "wrangler", "bin", "wrangler.js");
  run(process.execPath, [wranglerBin, "d1", "migrations", "apply", "DB", "--local", "--persist-to", persistDir], "applying D1 migrations");

  const seed = join(ROOT, "scripts", "seed.mjs");
  if (existsSync(seed)) {
    run(process.execPath, [seed, "--persist-to", persistDir, "--pepper", TEST_PEPPER], "seeding");
  }

  const { unstable_startWorker } = await import("wrangler");
  const worker = await unstable_startWorker({
    config: join(ROOT, "wrangler.toml"),
    sendMetrics: false,
    // The CLI derives this from compatibility_flags; the API leaves it unset, which makes the
    // bundler warn about node:crypto although the runtime flag is on.
    build: { nodejsCompatMode: "v2" },
    bindings: {
      DEV_OUTBOX: { type: "plain_text", value: "on" },
      TRUST_CF_CONNECTING_IP: { type: "plain_text", value: "off" },
      PEPPER: { type: "secret_text", value: TEST_PEPPER },
      ...Object.fromEntries(Object.entries(vars).map(([k, value]) => [k, { type: "plain_text" as const, value }])),
    },
    dev: {
      server: { hostname: "127.0.0.1", port: 0 },
      inspector: false,
      persist: persistDir,
      watch: false,
      liveReload: false,
      logLevel: "warn",
    },
  });
  await worker.ready;
  const url = await worker.url;

  return {
    baseUrl: url.origin,
    persistDir,
    async dispose() {
      await worker.dispose();
      rmSync(persistDir, { recursive: true, force: true });
    },
  };
}
