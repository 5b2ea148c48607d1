/// <reference lib="dom" />
// Functions passed to page.evaluate() run in the browser, hence the DOM types.
/**
 * The first paint comes from the document alone (issue #17 §3): before any script or stylesheet
 * has arrived, a phone shows the app's frame (web/shell.ts) for the screen in the URL, with the
 * screen's first text in the visitor's language where the screen draws it (the largest paint comes
 * from the document: issue #31); then the app replaces it, already styled, without a shift.
 */
import { readFileSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { newPhoneContext, snap } from "./browser.ts";
import { browser, server, useExchange } from "./exchange.ts";

const WORDS = Object.fromEntries(
  ["en", "zh"].map((l) => [l, JSON.parse(readFileSync(new URL(`../../web/messages/${l}.json`, import.meta.url), "utf8")) as Record<string, string>]),
);

let token = "";

useExchange();

beforeAll(async () => {
  const res = await fetch(`${server.baseUrl}/api/user/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ user_string: "demo1@exchange.test", password: "Demo1234", type: 1 }),
  });
  const json = (await res.json()) as { type: string; message: { token: string } };
  if (json.type !== "ok") throw new Error(`demo login failed: ${JSON.stringify(json)}`);
  token = json.message.token;
});

/** A phone with `lang` (and a session) stored; with `scripts: false` no script or stylesheet of the build ever arrives. */
async function open(path: string, opts: { lang: string; session?: boolean; scripts: boolean; hold?: RegExp }): Promise<{ page: Page; errors: Error[]; close: () => Promise<void> }> {
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
  // A request held unanswered keeps the screen in its loading state.
  if (opts.hold) await context.route(opts.hold, () => {});
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
      text: shell?.innerText.replace(/\s+/g, " ").trim() ?? null,
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
    it(`shows a ${lang} visitor the frame of the screen in the URL and its first text in ${lang} before any script arrives`, async () => {
      const words = WORDS[lang]!;
      const login = await open("/login", { lang, scripts: false });
      await login.page.waitForSelector('[data-testid="boot-shell"]');
      expect(await shellState(login.page)).toEqual({ text: `${words.login_heading} ${words.login_sub}`, back: true, menu: false, bell: false, tabbar: false, tabs: 4, lit: -1 });
      await snap(login.page, `shell-${lang}-login`);
      await login.close();

      // A tab screen: the menu icon, and the tab bar (the tabs the app shows first) with Markets lit.
      const quotes = await open("/quotations", { lang, scripts: false });
      await quotes.page.waitForSelector('[data-testid="boot-shell"]');
      expect(await shellState(quotes.page)).toEqual({ text: words.quotes_note, back: false, menu: true, bell: false, tabbar: true, tabs: 4, lit: 1 });
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

  it("draws the login heading and the quotations note where the app then draws them, so nothing shifts", async () => {
    const place = (page: Page, sel: string) =>
      page.evaluate((s) => {
        const el = Array.from(document.querySelectorAll<HTMLElement>(s)).find((e) => e.offsetHeight > 0);
        const r = el?.getBoundingClientRect();
        return r ? { x: Math.round(r.x), y: Math.round(r.y), w: Math.round(r.width), h: Math.round(r.height), text: el!.innerText } : null;
      }, sel);
    for (const [path, bootSel, appSel] of [
      ["/login", ".boot-h[data-l=zh]", "main h2"],
      ["/quotations", ".boot-note[data-l=zh]", "main p.muted"],
    ] as const) {
      const shell = await open(path, { lang: "zh", scripts: false });
      await shell.page.waitForSelector(bootSel);
      const drawn = await place(shell.page, bootSel);
      await shell.close();
      // The quotations while their rows load, as the shell draws them.
      const app = await open(path, { lang: "zh", scripts: true, hold: /quotation_new/ });
      await app.page.waitForSelector(appSel);
      await expect.poll(() => place(app.page, appSel), { timeout: 30_000 }).toEqual(drawn);
      await app.close();
    }
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
