// Five projects side by side: pure Node (engine, schemas), workerd (API and Durable Objects, with
// balances in D1 and in the account objects) and browser end-to-end (Chromium against a local Worker).
import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";

// expect.poll waits for state; its default gives up after 1 s, which a loaded machine (CI beside
// other work) can take for one answer. This bound only ends a wait that would never succeed.
const POLL = { timeout: 60_000, interval: 50 };

// Test files run side by side, across the projects, as many at once as the machine has cores and
// at least two (vitest's default, cores - 1, runs one file at a time on a 2-core machine). Four at
// once on 2 cores was tried: each browser file took about three times as long and some page waits
// ran past their bound, with no gain in the total. TEST_WORKERS=n sets another number.
const LANES = Number(process.env.TEST_WORKERS) || Math.max(2, availableParallelism());

/**
 * The order files are handed to the lanes: the workerd projects first, then the Node ones, then the
 * browser files (largest or, after a run, slowest first within each, as vitest's own order does).
 * The browser files' one-off work (the Worker's bundle, the seeded D1, the first Workers: see
 * tests/e2e/global-setup.ts) starts at once in vitest's own process and is ready when they come,
 * instead of keeping both lanes waiting at the start; and the last files to run are short browser
 * files rather than a workerd runtime starting up behind them (each project's runtime takes some
 * seconds to start, and a lane that waits for it does nothing meanwhile).
 */
const PROJECT_ORDER = ["workers", "objects", "api-objects", "unit", "e2e"];
class LaneSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (f: TestSpecification) => {
      const i = PROJECT_ORDER.indexOf(f.project.name);
      return i < 0 ? PROJECT_ORDER.length : i;
    };
    // Array.prototype.sort is stable: within a project, vitest's order stands.
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}

export default defineConfig(async () => {
  const migrations = await readD1Migrations("migrations");
  // The Worker's test bindings, with balances in D1 or in the account objects.
  const bindings = (accounts: "d1" | "objects") => ({
    TEST_MIGRATIONS: migrations,
    DEV_OUTBOX: "on",
    // Every answer is parsed with the schema its route declares (worker/lib/respond.ts).
    CONTRACT_CHECK: "on",
    PEPPER: "test-pepper-not-secret",
    // New password hashes at the test cost (worker/lib/password.ts passwordCost): the suites hash
    // thousands of times; tests/unit/password-cost.test.ts holds that the deployed configuration
    // hashes at the full cost.
    PASSWORD_COST: "test",
    ACCOUNTS: accounts,
  });
  return {
    test: {
      maxWorkers: LANES,
      sequence: { sequencer: LaneSequencer },
      projects: [
        {
          test: {
            name: "unit",
            environment: "node",
            expect: { poll: POLL },
            include: ["tests/engine/**/*.test.ts", "tests/unit/**/*.test.ts", "tests/web/**/*.test.ts", "tests/sim/**/*.test.ts"],
          },
        },
        {
          plugins: [
            cloudflareTest({
              wrangler: { configPath: "./wrangler.toml" },
              miniflare: {
                // Balances in D1 (worker/lib/accounts.ts), whatever wrangler.toml deploys with: these
                // suites read D1's balances and ledger; "objects" and "api-objects" below run the objects.
                bindings: bindings("d1"),
              },
            }),
          ],
          test: {
            name: "workers",
            expect: { poll: POLL },
            include: ["tests/api/**/*.test.ts", "tests/durable/**/*.test.ts"],
            setupFiles: ["tests/api/setup.ts"],
            isolate: false,
            // A bound on a hung test, not a speed check: tests wait for state, and a loaded machine
            // (CI beside other work) may take several times longer than an idle one.
            testTimeout: 120_000,
          },
        },
        {
          // The same Worker with balances in the account objects (ACCOUNTS=objects, worker/lib/accounts.ts):
          // only tests/objects/, which run each money path on the objects and read D1 as the read model.
          plugins: [
            cloudflareTest({
              wrangler: { configPath: "./wrangler.toml" },
              miniflare: {
                bindings: bindings("objects"),
              },
            }),
          ],
          test: {
            name: "objects",
            expect: { poll: POLL },
            include: ["tests/objects/**/*.test.ts"],
            setupFiles: ["tests/api/setup.ts"],
            isolate: false,
            testTimeout: 120_000,
          },
        },
        {
          // `tests/api/**` again with balances in the account objects (ACCOUNTS=objects, the deployed
          // default): "workers" runs them in D1 mode (an exchange before its cut-over). A test about
          // something only one mode has says so (tests/api/helpers.ts `d1Only`, `onObjects`).
          plugins: [cloudflareTest({ wrangler: { configPath: "./wrangler.toml" }, miniflare: { bindings: bindings("objects") } })],
          test: {
            name: "api-objects",
            expect: { poll: POLL },
            include: ["tests/api/**/*.test.ts"],
            setupFiles: ["tests/api/setup.ts"],
            isolate: false,
            testTimeout: 120_000,
            // Files check the books after each test (afterEach): in objects mode the reconciler
            // also visits up to 200 account objects, past the default 10 s on a loaded machine.
            hookTimeout: 120_000,
          },
        },
        {
          test: {
            name: "e2e",
            environment: "node",
            expect: { poll: POLL },
            include: ["tests/e2e/**/*.test.ts"],
            // A file's process (and its Chromium, tests/e2e/exchange.ts) serves the next file too:
            // a new process per file cost its start, its imports and a Chromium launch, about 2 s
            // of CPU a file. Files share no state: each has its own Worker, contexts and pages.
            isolate: false,
            // Each file gets a Worker of its own on a fresh copy of one seeded D1, started ahead by
            // vitest's own process, and opens contexts in the run's one Chromium (tests/e2e/pool.ts).
            globalSetup: ["tests/e2e/global-setup.ts"],
            // A bound on a hung journey, not a speed check: with the lanes above a browser file
            // shares the cores with more files, and on a loaded machine one journey took over 180 s.
            testTimeout: 300_000,
            hookTimeout: 300_000,
          },
        },
      ],
    },
  };
});
