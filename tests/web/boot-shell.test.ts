// index.html's start-up shell (web/shell.ts): drawn from the app's own tabs, icons and colours, so
// what a phone shows before the scripts arrive is the frame the app then paints.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { bootShell, token } from "../../web/shell.ts";
import { TABS } from "../../web/src/app/tabs.ts";
import { ICON_PATHS } from "../../web/src/components/iconPaths.ts";
import { pathOn } from "../../web/src/lib/products.ts";

const tokens = readFileSync(new URL("../../web/src/styles/tokens.css", import.meta.url), "utf8");

describe("the start-up shell", () => {
  it("shows the tabs the app's tab bar shows before the product switches load, in its order and with its icons", () => {
    const shell = bootShell(tokens);
    const first = TABS.filter((t) => pathOn(t.to, null));
    const drawn = [...shell.html.matchAll(/<span class="boot-tab"><svg[^>]*><path d="([^"]+)"/g)].map((m) => m[1]);
    expect(drawn).toEqual(first.map((t) => ICON_PATHS[t.icon]));
    // Each tab screen lights its own tab; one the first bar does not show lights none.
    for (const t of TABS) expect(shell.tabs[t.to]).toEqual([t.auth ? 1 : 0, first.findIndex((f) => f.to === t.to)]);
  });

  it("paints in the app's colours, and its only words are the first screens' own, in each language", () => {
    const locales = ["en", "zh", "hk", "kr", "jp", "es"];
    const words = Object.fromEntries(
      locales.map((l) => {
        const msg = JSON.parse(readFileSync(new URL(`../../web/messages/${l}.json`, import.meta.url), "utf8")) as Record<string, string>;
        return [l, { login_heading: msg.login_heading!, login_sub: msg.login_sub!, quotes_note: msg.quotes_note! }];
      }),
    );
    const shell = bootShell(tokens, words);
    expect(shell.style).toContain(`background:${token(tokens, "bg")}`);
    expect(shell.style).toContain(`{color:${token(tokens, "accent")}}`);
    const unescape = (t: string) => t.replace(/&quot;/g, '"').replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");
    const drawn = [...shell.html.matchAll(/<p class="[^"]*" lang="[^"]*" data-l="(\w+)">([^<]*)<\/p>/g)].map((m) => [m[1], unescape(m[2]!)]);
    expect(drawn.sort()).toEqual(locales.flatMap((l) => Object.values(words[l]!).map((w) => [l, w])).sort());
    // Each language's words show only for that language.
    for (const l of locales) expect(shell.style).toContain(`[data-boot-lang="${l}"] .boot-w[data-l="${l}"]`);
    // Nothing else in it is text, and without words it has none.
    expect(shell.html.replace(/<p class="[^"]*boot-w[^"]*"[^>]*>[^<]*<\/p>/g, "").replace(/<[^>]*>/g, "").trim()).toBe("");
    expect(bootShell(tokens).html.replace(/<[^>]*>/g, "").trim()).toBe("");
  });

  it("refuses to build without a colour it needs rather than painting a wrong one", () => {
    expect(() => bootShell(tokens.replace(/--bg-raised:[^;]+;/, ""))).toThrow(/--bg-raised/);
  });
});
