// Three projects side by side: pure Node (engine, schemas), workerd (API and Durable Objects
// through the real Worker) and browser end-to-end (Chromium against a locally started Worker).
import { defineConfig } from "vitest/config";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";

// expect.poll waits for state; its default gives up after 1 s, which a loaded machine (CI beside
// other work) can take for one answer. This bound only ends a wait that would never succeed.
const POLL = { timeout: 60_000, interval: 50 };

export default defineConfig(async () => {
  const migrations = await readD1Migrations("migrations");
  return {
    test: {
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
                bindings: {
                  TEST_MIGRATIONS: migrations,
                  DEV_OUTBOX: "on",
                  // Every answer is parsed with the schema its route declares (worker/lib/respond.ts).
                  CONTRACT_CHECK: "on",
                  PEPPER: "test-pepper-not-secret",
                },
              },
            }),
          ],
          test: {
            name: "workers",
            expect: { poll: POLL },
            include: ["tests/api/**/*.test.ts", "tests/durable/**/*.test.ts"],
            setupFiles: ["tests/api/setup.ts"],
            // A bound on a hung test, not a speed check: tests wait for state, and a loaded machine
            // (CI beside other work) may take several times longer than an idle one.
            testTimeout: 120_000,
          },
        },
        {
          test: {
            name: "e2e",
            environment: "node",
            expect: { poll: POLL },
            include: ["tests/e2e/**/*.test.ts"],
            testTimeout: 180_000,
            hookTimeout: 300_000,
            fileParallelism: false,
          },
        },
      ],
    },
  };
});
