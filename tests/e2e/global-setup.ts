/**
 * Once per run, in vitest's own process, before any browser test file starts: the built SPA and the
 * packaged Chromium (when there is no system one) are prepared here, and the service that hands each
 * file a Worker of its own and the run's Chromium is started (tests/e2e/pool.ts). The seeded D1
 * template is made at the first lease, under a lock (tests/e2e/server.ts), so a run without browser
 * tests never waits for it.
 */
import type { TestProject } from "vitest/node";
import { prepareBrowser } from "./browser.ts";
import { startPool } from "./pool.ts";
import { ensureWebBuilt } from "./server.ts";

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  await prepareBrowser();
  await ensureWebBuilt();
  const pool = await startPool();
  // The first browser files' Workers (one per lane), started now: the run orders the browser files
  // last (vitest.config.ts), so this is done while the other projects' files run.
  pool.warm(Math.max(1, project.vitest.config.maxWorkers));
  project.provide("e2ePool", pool.url);
  return () => pool.close();
}
