/// <reference lib="dom" />
// The function passed to page.evaluate() runs in the browser, hence the DOM types.
/**
 * Chromium for the browser tests: the system browser (/usr/bin/chromium) when installed, else the
 * headless build shipped inside @sparticuz/chromium, so `npm install && npm test` works on a fresh
 * machine without downloading anything. Every host except localhost resolves to nothing, so a
 * test can never reach the internet.
 */
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";

export const VIEWPORT = { width: 390, height: 844 };
export const SCREENSHOT_DIR = join(process.cwd(), "test-results");
/**
 * The tests' screenshots are for people to look at (nothing compares them): `SCREENSHOTS=on npm test`
 * (or one file: `SCREENSHOTS=on npm test -- tests/e2e/screens.test.ts`) writes them to test-results/.
 * Off by default: about 400 pictures a run cost Chromium more CPU than the tests' own steps
 * (docs/development.md, "How long it takes").
 */
export const SCREENSHOTS = process.env.SCREENSHOTS === "on";

const OFFLINE_FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1 , EXCLUDE localhost",
];

/**
 * Features turned off besides Playwright's own list. This Chromium's headless mode preloads the
 * address bar's popup (chrome://omnibox-popup, a WebUI in a renderer of its own) for every new
 * window: about 0.3 s of CPU per phone, half of what a fresh context costs, for a popup no test can
 * open.
 */
const DISABLED_FEATURES = ["WebUIOmniboxPopup", "WebUIOmniboxAimPopup"];

const SYSTEM_CHROMIUM = "/usr/bin/chromium";

/**
 * Unpacks the packaged Chromium (when there is no system one) into the temporary folder. Run once
 * before the browser test files start (tests/e2e/global-setup.ts): files run in parallel, and two
 * unpacking it at once would let one launch a half-written binary.
 */
export async function prepareBrowser(): Promise<void> {
  if (existsSync(SYSTEM_CHROMIUM)) return;
  const { default: packaged } = await import("@sparticuz/chromium");
  await packaged.executablePath();
}

export async function launchBrowser(): Promise<Browser> {
  if (existsSync(SYSTEM_CHROMIUM)) {
    // Chromium keeps only the last --disable-features it is given, and Playwright passes its own
    // list first: ours must repeat Playwright's. Its list is read from a first launch's command
    // line (once per test process: see tests/e2e/exchange.ts) rather than copied here.
    const probe = await chromium.launch({ executablePath: SYSTEM_CHROMIUM, headless: true, args: [...OFFLINE_FLAGS, "--enable-automation"] });
    const cdp = await probe.newBrowserCDPSession();
    const { arguments: argv } = (await cdp.send("Browser.getBrowserCommandLine")) as { arguments: string[] };
    await probe.close();
    const playwrights = argv.filter((a) => a.startsWith("--disable-features=")).flatMap((a) => a.slice("--disable-features=".length).split(","));
    const disabled = `--disable-features=${[...new Set([...playwrights, ...DISABLED_FEATURES])].join(",")}`;
    return chromium.launch({ executablePath: SYSTEM_CHROMIUM, headless: true, args: [...OFFLINE_FLAGS, disabled] });
  }
  const { default: packaged } = await import("@sparticuz/chromium");
  const extra = OFFLINE_FLAGS.filter((f) => !packaged.args.some((a) => a.split("=")[0] === f.split("=")[0]));
  return chromium.launch({ executablePath: await packaged.executablePath(), headless: true, args: [...packaged.args, ...extra] });
}

/**
 * A phone-sized page context (390×844, touch, 2× pixels) in a fresh profile (optionally in a
 * device time zone of its own). Waits for state are
 * bounded at two minutes, not Playwright's 30 s: the bound only catches a hang, and a loaded
 * machine can take far longer than an idle one to reach the same state.
 */
export async function newPhoneContext(browser: Browser, options: { timezoneId?: string } = {}): Promise<BrowserContext> {
  const context = await browser.newContext({
    viewport: VIEWPORT,
    deviceScaleFactor: 2,
    isMobile: true,
    hasTouch: true,
    locale: "en-US",
    colorScheme: "dark",
    ...(options.timezoneId ? { timezoneId: options.timezoneId } : {}),
  });
  context.setDefaultTimeout(120_000);
  return context;
}

/**
 * With SCREENSHOTS=on, saves the screen as test-results/<name>.png once its transitions (a drawer
 * sliding in, a toast) have finished, as a person would see it; otherwise does nothing.
 */
export async function snap(page: Page, name: string): Promise<void> {
  if (!SCREENSHOTS) return;
  await settled(page);
  await snapFailure(page, name);
}

/** Saves the screen a step failed on as test-results/<name>.png, whatever SCREENSHOTS says: it explains the failure. */
export async function snapFailure(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`), fullPage: false });
}

/** Waits (at most 2 s: a picture, not a check) until the page's finite animations have finished. */
async function settled(page: Page): Promise<void> {
  await page
    .evaluate(() => {
      const running = document.getAnimations().filter((a) => a.effect?.getTiming().iterations !== Infinity);
      const done = Promise.all(running.map((a) => a.finished.catch(() => undefined)));
      return Promise.race([done, new Promise((resolve) => setTimeout(resolve, 2_000))]);
    })
    .catch(() => undefined);
}

/**
 * A phone in `lang`, logged in with `token` when given. Both are stored once per tab (a logout or a
 * language change made by the test sticks across reloads). The page's uncaught errors are collected
 * so a test can assert there were none. Its context closes with the browser.
 */
export async function openPhone(browser: Browser, lang: string, token?: string): Promise<{ page: Page; errors: Error[] }> {
  const context = await newPhoneContext(browser);
  await context.addInitScript(
    ([t, l]) => {
      if (sessionStorage.getItem("seeded")) return;
      sessionStorage.setItem("seeded", "1");
      localStorage.setItem("lang", l as string);
      if (t) localStorage.setItem("token", t as string);
    },
    [token ?? "", lang] as const,
  );
  const page = await context.newPage();
  const errors: Error[] = [];
  page.on("pageerror", (err) => errors.push(err));
  return { page, errors };
}
