/**
 * Once per run, in vitest's own process, before any browser test file starts: the files run in
 * parallel (one Worker and one Chromium each), so what they would otherwise all prepare at once is
 * prepared here. The seeded D1 template is made by the first file that needs it, under a lock
 * (tests/e2e/server.ts), so the other projects' tests need not wait for it.
 */
import { prepareBrowser } from "./browser.ts";
import { ensureWebBuilt } from "./server.ts";

export default async function setup(): Promise<void> {
  await prepareBrowser();
  await ensureWebBuilt();
}
