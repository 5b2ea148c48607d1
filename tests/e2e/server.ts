/**
 * A throw-away copy of the whole app for browser tests: a fresh temporary --persist-to folder holding
 * a copy of a migrated and seeded local D1 (made once, see seededTemplate), then the Worker
 * started in-process with wrangler's unstable_startWorker on a free port, serving the built SPA
 * (built first when dist/web/index.html is missing) and /api with the dev outbox turned on.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
/** The pepper the seed hashes demo passwords with; the worker must get the same one. */
export const TEST_PEPPER = "e2e-pepper-not-secret";

/**
 * Every server runs with its balances in the account objects (ACCOUNTS=objects, as `npm start` and
 * wrangler.toml do), opened from the seeded D1 by the cut-over at its start;
 * `E2E_ACCOUNTS=d1 npm test -- --project e2e` runs the same walks with every balance in D1.
 */
const ACCOUNTS_OBJECTS = (process.env.E2E_ACCOUNTS ?? "objects") !== "d1";

const OFFLINE_ENV = { WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" };

export interface TestServer {
  baseUrl: string;
  persistDir: string;
  dispose(): Promise<void>;
}

// The bound ends a step that hangs; a loaded machine (CI beside other work) took over 180 s to apply
// the migrations, so it is generous. Asynchronous: it runs in vitest's own process (tests/e2e/pool.ts),
// whose other work (the other projects' files) must go on meanwhile.
function run(cmd: string, args: string[], what: string): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(cmd, args, { cwd: ROOT, env: { ...process.env, ...OFFLINE_ENV }, encoding: "utf8", timeout: 900_000, maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${what} failed (exit ${err.code ?? err.signal}):\n${stdout}\n${stderr}`));
      else resolve();
    });
  });
}

/** A migrated and seeded local D1 is reused for this long; the seed's windows (a sale, a vote round) are dated from its creation. */
const TEMPLATE_MAX_AGE_MS = 6 * 3600_000;

/** Every file under a folder, in a stable order (the template's key covers the seed's data files). */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((e) => (e.isDirectory() ? filesUnder(join(dir, e.name)) : [join(dir, e.name)]));
}

/**
 * Runs `make` in at most one process at a time until `done()` holds: browser test files run in
 * parallel, and two of them must not build the SPA or the template at once. The lock is a folder
 * (made atomically) holding its owner's pid; a lock whose owner died is taken over. Waiting polls
 * the state (`done()`, the lock), never a fixed time.
 */
async function once(lock: string, done: () => boolean, make: () => Promise<void>): Promise<void> {
  while (!done()) {
    try {
      mkdirSync(lock);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      if (!ownerAlive(lock)) rmSync(lock, { recursive: true, force: true });
      else await new Promise((r) => setTimeout(r, 250));
      continue;
    }
    try {
      writeFileSync(join(lock, "pid"), String(process.pid));
      if (!done()) await make();
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
}

function ownerAlive(lock: string): boolean {
  let pid: number;
  try {
    pid = Number(readFileSync(join(lock, "pid"), "utf8"));
  } catch {
    // Made a moment ago with its pid not written yet (alive), or removed meanwhile (look again).
    const made = statSync(lock, { throwIfNoEntry: false });
    return made !== undefined && Date.now() - made.mtimeMs < 10_000;
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** The built SPA the worker serves (built when missing: `npm test` builds it before any test). */
export async function ensureWebBuilt(): Promise<void> {
  const built = join(ROOT, "dist", "web", "index.html");
  await once(join(tmpdir(), `exchange-e2e-web-build-${createHash("sha256").update(ROOT).digest("hex").slice(0, 16)}.lock`), () => existsSync(built), () =>
    run("npm", ["run", "build"], "building the web app"),
  );
}

/**
 * A local D1 with every migration applied and the demo seed written, made once and copied for each
 * server: applying the migrations through wrangler and seeding is most of a server's start-up, and
 * every browser test file starts one. The folder's name is a hash of the migrations, the seed and its
 * data, so a changed migration or seed makes a new one; it is built in a temporary folder and renamed
 * into place when complete, so a run that dies half-way never leaves a template behind.
 */
async function seededTemplate(): Promise<string> {
  const hash = createHash("sha256");
  hash.update(TEST_PEPPER).update("password-cost:test");
  for (const f of [...filesUnder(join(ROOT, "migrations")), join(ROOT, "scripts", "seed.mjs"), ...filesUnder(join(ROOT, "scripts", "seed-data"))]) {
    if (existsSync(f)) hash.update(f.slice(ROOT.length)).update(readFileSync(f));
  }
  const template = join(tmpdir(), `exchange-e2e-template-${hash.digest("hex").slice(0, 16)}`);
  const ready = join(template, ".ready");
  const fresh = () => existsSync(ready) && Date.now() - statSync(ready).mtimeMs < TEMPLATE_MAX_AGE_MS;
  await once(`${template}.lock`, fresh, () => buildTemplate(template));
  return template;
}

async function buildTemplate(template: string): Promise<void> {
  const building = mkdtempSync(join(tmpdir(), "exchange-e2e-building-"));
  const wranglerBin = join(ROOT, "node_modules", "wrangler", "bin", "wrangler.js");
  await run(process.execPath, [wranglerBin, "d1", "migrations", "apply", "DB", "--local", "--persist-to", building], "applying D1 migrations");
  const seed = join(ROOT, "scripts", "seed.mjs");
  if (existsSync(seed)) {
    await run(process.execPath, [seed, "--persist-to", building, "--pepper", TEST_PEPPER, "--password-cost", "test"], "seeding");
  }
  writeFileSync(join(building, ".ready"), new Date().toISOString());
  rmSync(template, { recursive: true, force: true });
  renameSync(building, template);
}

/**
 * The Worker bundled once per run, as `wrangler deploy` bundles it (the artifact a deploy ships), in a
 * temporary folder every server of the run starts from without bundling again: bundling took about
 * 1.5 s of CPU per server, some 50 s of a run's CPU on a 2-core machine. Made at the first start, in
 * vitest's own process (tests/e2e/pool.ts), so a run without browser tests never makes it.
 */
let bundled: Promise<string> | undefined;
export function workerBundle(): Promise<string> {
  bundled ??= (async () => {
    const outdir = mkdtempSync(join(tmpdir(), "exchange-e2e-worker-"));
    const wranglerBin = join(ROOT, "node_modules", "wrangler", "bin", "wrangler.js");
    await run(process.execPath, [wranglerBin, "deploy", "--dry-run", "--outdir", outdir], "bundling the Worker");
    // The source map is for people; left beside the bundle it would be collected as one of its modules.
    rmSync(join(outdir, "index.js.map"), { force: true });
    rmSync(join(outdir, "README.md"), { force: true });
    process.once("exit", () => rmSync(outdir, { recursive: true, force: true }));
    return join(outdir, "index.js");
  })();
  return bundled;
}

/** `vars`: extra plain-text bindings, e.g. a shortened C2C payment window. */
export async function startServer(vars: Record<string, string> = {}): Promise<TestServer> {
  Object.assign(process.env, OFFLINE_ENV);

  await ensureWebBuilt();
  const entrypoint = await workerBundle();
  const template = await seededTemplate();
  const persistDir = mkdtempSync(join(tmpdir(), "exchange-e2e-"));
  cpSync(template, persistDir, { recursive: true });

  const { unstable_startWorker } = await import("wrangler");
  const worker = await unstable_startWorker({
    config: join(ROOT, "wrangler.toml"),
    entrypoint,
    sendMetrics: false,
    // Already bundled (workerBundle); nodejsCompatMode as the CLI derives it from compatibility_flags.
    build: { bundle: false, nodejsCompatMode: "v2" },
    bindings: {
      DEV_OUTBOX: { type: "plain_text", value: "on" },
      TRUST_CF_CONNECTING_IP: { type: "plain_text", value: "off" },
      PEPPER: { type: "secret_text", value: TEST_PEPPER },
      // scrypt at the test cost (worker/lib/password.ts passwordCost; the seed above matches it).
      PASSWORD_COST: { type: "plain_text", value: "test" },
      // Balances in the account objects (issue #28) unless E2E_ACCOUNTS=d1; the dev routes that open
      // them answer only with the dev clock on.
      ACCOUNTS: { type: "plain_text", value: ACCOUNTS_OBJECTS ? "objects" : "d1" },
      ...(ACCOUNTS_OBJECTS ? { DEV_CLOCK: { type: "plain_text" as const, value: "on" } } : {}),
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
  // The seed wrote D1: open every account's object from it, as a running exchange is cut over.
  if (ACCOUNTS_OBJECTS) await run(process.execPath, [join(ROOT, "scripts", "migrate-accounts.mjs"), "--api", url.origin, "--maintenance", "--end-maintenance"], "opening the account objects");

  return {
    baseUrl: url.origin,
    persistDir,
    async dispose() {
      await worker.dispose();
      rmSync(persistDir, { recursive: true, force: true });
    },
  };
}
