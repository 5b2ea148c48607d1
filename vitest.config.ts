// Three projects side by side: pure Node (engine, schemas), workerd (API and Durable Objects
// through the real Worker) and browser end-to-end (Chromium against a locally started Worker).
import { defineConfig } from "vitest/config";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";

export default defineConfig(async () => {
  const migrations = await readD1Migrations("migrations");
  return {
    test: {
      projects: [
        {
          test: {
            name: "unit",
            environment: "node",
            include: ["tests/engine/**/*.test.ts", "tests/unit/**/*.test.ts", "tests/web/**/*.test.ts"],
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
