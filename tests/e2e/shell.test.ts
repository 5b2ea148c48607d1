/// <reference lib="dom" />
// Functions passed to page.evaluate() run in the browser, hence the DOM types.
/**
 * The first paint comes from the document alone (issue #17 §3): before any script or stylesheet
 * has arrived, a phone shows the app's frame (web/shell.ts) for the screen in the URL, without a
 * word of text, so it is right in every language; then the app replaces it, already styled.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { launchBrowser, newPhoneContext, snap } from "./browser.ts";
import { startServer, type TestServer } from "./server.ts";

let server: TestServer;
let browser: Browser;
let token = "";

beforeAll(async () => {
  server = await startServer();
  browser = await launchBrowser();
  const res = await fetch(`${server.baseUrl}/api/user/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ user_string: "demo1@exchange.test", password: "Demo1234", type: 1 }),
  });
  const json = (await res.json()) as { type: string; message: { token: string } };
  if (json.type !== "ok") throw new Error(`demo login failed: ${JSON.stringify(json)}`);
  token = json.message.token;
});

afterAll(async () => {
  await browser?.close();
  await server?.dispose();
});

/** A phone with `lang` (and a session) stored; with `scripts: false` no script or stylesheet of the build ever arrives. */
async function open(path: string, opts: { lang: string; session?: boolean; scripts: boolean }): Promise<{ page: Page; errors: Error[]; close: () => Promise<void> }> {
  const context = await newPhoneContext(browser);
  await context.addInitScript(
    ([l, t]) => {
      localStorage.setItem("lang", l as string);
      if (t) localStorage.setItem("token", t as string);
    },
    [opts.lang, opts.session ? token : ""] as const,
  );
  // When React first puts its header in, whether the global stylesheet already applies (base.css
  // sets the body's 14px): a user would otherwise see the app unstyled for a moment.
  await context.addInitScript(() => {
    const seen = new MutationObserver(() => {
      if (!document.querySelector("#root header")) return;
      (window as { __firstHeaderStyled?: boolean }).__firstHeaderStyled = getComputedStyle(document.body).fontSize === "14px";
      seen.disconnect();
    });
    seen.observe(document, { childList: true, subtree: true });
  });
  if (!opts.scripts) await context.route(/\/assets\/.+\.(js|css)$/, (route) => route.abort());
  const page = await context.newPage();
  const errors: Error[] = [];
  page.on("pageerror", (err) => errors.push(err));
  await page.goto(`${server.baseUrl}/#${path}`);
  return { page, errors, close: () => context.close() };
}

/** What the shell shows: its text, which header icons and whether the tab bar is visible, and the lit tab. */
function shellState(page: Page) {
  return page.evaluate(() => {
    const shell = document.querySelector<HTMLElement>('[data-testid="boot-shell"]');
    const shown = (sel: string) => {
      const el = shell?.querySelector<HTMLElement>(sel);
      return !!el && getComputedStyle(el).display !== "none" && el.getBoundingClientRect().height > 0;
    };
    const tabs = Array.from(shell?.querySelectorAll<HTMLElement>(".boot-tab") ?? []);
    const lit = tabs.findIndex((t) => getComputedStyle(t).color === "rgb(240, 185, 11)");
    return {
      text: shell?.textContent?.trim() ?? null,
      back: shown(".boot-back"),
      menu: shown(".boot-menu"),
      bell: shown(".boot-bell"),
      tabbar: shown(".boot-tabs"),
      tabs: tabs.length,
      lit,
    };
  });
}

describe("the start-up shell", () => {
  for (const lang of ["en", "zh"]) {
    it(`shows a ${lang} visitor the frame of the screen in the URL before any script arrives, with no text in it`, async () => {
      const login = await open("/login", { lang, scripts: false });
      await login.page.waitForSelector('[data-testid="boot-shell"]');
      expect(await shellState(login.page)).toEqual({ text: "", back: true, menu: false, bell: false, tabbar: false, tabs: 4, lit: -1 });
      await snap(login.page, `shell-${lang}-login`);
      await login.close();

      // A tab screen: the menu icon, and the tab bar (the tabs the app shows first) with Markets lit.
      const quotes = await open("/quotations", { lang, scripts: false });
      await quotes.page.waitForSelector('[data-testid="boot-shell"]');
      expect(await shellState(quotes.page)).toEqual({ text: "", back: false, menu: true, bell: false, tabbar: true, tabs: 4, lit: 1 });
      await snap(quotes.page, `shell-${lang}-quotations`);
      await quotes.close();
    });
  }

  it("shows a visitor the login frame for a screen that needs a login, and a signed-in user the bell and their tab", async () => {
    // Assets are one's own (spot, home and the markets are open to guests, issue #26).
    const visitor = await open("/assets", { lang: "en", scripts: false });
    await visitor.page.waitForSelector('[data-testid="boot-shell"]');
    expect(await shellState(visitor.page)).toMatchObject({ back: true, menu: false, bell: false, tabbar: false });
    await visitor.close();

    const user = await open("/assets", { lang: "en", session: true, scripts: false });
    await user.page.waitForSelector('[data-testid="boot-shell"]');
    expect(await shellState(user.page)).toMatchObject({ back: false, menu: true, bell: true, tabbar: true, lit: 3 });
    await user.close();
  });

  it("is replaced by the app, which paints styled and in the stored language from its first frame", async () => {
    const { page, errors, close } = await open("/login", { lang: "zh", scripts: true });
    await page.waitForSelector('[data-testid="login-submit"]');
    expect(await page.locator('[data-testid="boot-shell"]').count()).toBe(0);
    expect((await page.locator('[data-testid="page-title"]').textContent())?.trim()).toBe("登录");
    expect(await page.evaluate(() => (window as { __firstHeaderStyled?: boolean }).__firstHeaderStyled)).toBe(true);
    expect(errors).toEqual([]);
    await close();
  });
});
