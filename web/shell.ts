/**
 * index.html's start-up shell, drawn at build time (web/vite.config.ts, appShell): the app frame
 * as React first paints it, from the document alone, before any script or stylesheet has
 * arrived. A phone shows the header (menu or back icon, the logo, a bar where the title goes,
 * the bell when logged in, the language icon) and, on a tab screen, the footer tab bar with
 * the active tab lit, in the app's colours and sizes. On /login and /quotations it also draws the
 * screen's first text where the screen draws it (the login heading and line under it; the
 * quotations' loading rows and the note under them), in each of the six languages, of which CSS
 * shows the visitor's: so the screen's largest text is painted from the document (Lighthouse's
 * LCP) rather than after the scripts. React replaces it on its first render.
 *
 * Drawn from the app's own data, not copied: the icons (components/iconPaths.ts), the tabs
 * (app/tabs.ts, of which the bar shows those the app shows before the product switches have
 * loaded) and the colours and sizes (styles/tokens.css). index.html's inline script picks the
 * variant for the URL before the body is parsed: `data-boot-tab` on <html> for a tab screen
 * (its value is the lit tab's position, -1 for none), `data-boot-in` with a session,
 * `data-boot-page` (the screen the app will show: /login for a screen that needs a login without a
 * session) and `data-boot-lang` (the language as i18n/index.ts picks it).
 */
import { TABS } from "./src/app/tabs.ts";
import { ICON_PATHS, LOGO_PATHS, type IconName } from "./src/components/iconPaths.ts";
import { productOfPath } from "../schemas/products.ts";

export interface BootShell {
  /** CSS for the shell, for a <style> in the head. */
  style: string;
  /** The shell's markup, to go inside <div id="root">. */
  html: string;
  /** For the inline script: tab path → [needs a login (1/0), position in the shell's bar or -1]. */
  tabs: Record<string, [number, number]>;
}

/** The words the shell draws, per language (web/messages/<locale>.json). */
export type BootWords = Record<string, { login_heading: string; login_sub: string; quotes_note: string }>;

/** <html lang> per locale, as i18n/index.ts sets it (bcp47), for the CJK font the app picks. */
const HTML_LANG: Record<string, string> = { en: "en", zh: "zh-CN", hk: "zh-HK", kr: "ko", jp: "ja", es: "es" };

const esc = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/** tokens.css's --font-cjk per <html lang> (`:root:lang(ja) { --font-cjk: …; }`), "" for the default. */
function cjkFonts(css: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of css.matchAll(/:root(?::lang\(([^)]+)\))?\s*\{\s*--font-cjk:\s*([^;]+);/g)) out[m[1] ?? ""] = m[2]!.trim();
  if (!out[""]) throw new Error("styles/tokens.css: no --font-cjk");
  return out;
}

/** A custom property's value in tokens.css (`--bg: #0b0e11;`); throws when it is not there. */
export function token(css: string, name: string): string {
  const m = new RegExp(`--${name}:\\s*([^;]+);`).exec(css);
  if (!m?.[1]) throw new Error(`styles/tokens.css: no --${name}`);
  return m[1].trim();
}

function icon(name: IconName, cls = ""): string {
  return `<svg${cls ? ` class="${cls}"` : ""} width="22" height="22" viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="1.7" stroke-linecap="round" stroke-linejoin="round"><path d="${ICON_PATHS[name]}"/></svg>`;
}

export function bootShell(tokensCss: string, words: BootWords = {}): BootShell {
  const t = (name: string) => token(tokensCss, name);
  const cjk = cjkFonts(tokensCss);
  const locales = Object.keys(words);
  // One element per language; CSS shows the one data-boot-lang names.
  const say = (cls: string, key: keyof BootWords[string]) =>
    locales.map((l) => `<p class="${cls} boot-w" lang="${HTML_LANG[l] ?? l}" data-l="${l}">${esc(words[l]![key])}</p>`).join("");
  const skeletonRows = Array.from({ length: 8 }, (_, i) => `<span class="boot-sk-row"><i class="boot-sk boot-sk-av"></i><span class="boot-sk-lines"><i class="boot-sk" style="width:${55 + ((i * 17) % 35)}%;height:12px"></i><i class="boot-sk" style="width:30%;height:10px"></i></span><i class="boot-sk boot-sk-tail"></i></span>`).join("");
  // What the tab bar shows before the product switches have loaded: the tabs of no switched product.
  const shown = TABS.filter((tab) => productOfPath(tab.to) === null);
  const tabs: BootShell["tabs"] = {};
  for (const tab of TABS) tabs[tab.to] = [tab.auth ? 1 : 0, shown.findIndex((s) => s.to === tab.to)];

  const logo = `<svg width="22" height="22" viewBox="0 0 32 32"><path d="${LOGO_PATHS.hexagon}" fill="${t("accent")}"/><path d="${LOGO_PATHS.letter}" stroke="${t("accent-ink")}" stroke-width="3.2" stroke-linecap="round"/></svg>`;
  const html =
    `<div class="boot" aria-hidden="true" data-testid="boot-shell">` +
    `<div class="boot-head">` +
    `<span class="boot-side"><span class="boot-ic boot-back">${icon("back")}</span><span class="boot-ic boot-menu">${icon("menu")}</span></span>` +
    `<span class="boot-title">${logo}<i class="boot-bar"></i></span>` +
    `<span class="boot-side boot-end"><span class="boot-ic boot-bell">${icon("bell")}</span><span class="boot-ic">${icon("globe")}</span></span>` +
    `</div>` +
    // auth/components/AuthLayout.tsx in LoginPage; QuotationsPage while loading (SkeletonList rows=8 avatar).
    `<div class="boot-page boot-login" data-testid="boot-login"><div class="boot-hero"><svg width="44" height="44" viewBox="0 0 32 32"><path d="${LOGO_PATHS.hexagon}" fill="${t("accent")}"/><path d="${LOGO_PATHS.letter}" stroke="${t("accent-ink")}" stroke-width="3.2" stroke-linecap="round"/></svg>${say("boot-h", "login_heading")}${say("boot-sub", "login_sub")}</div></div>` +
    `<div class="boot-page boot-quotes" data-testid="boot-quotes"><div class="boot-sk-list">${skeletonRows}</div>${say("boot-note", "quotes_note")}</div>` +
    `<div class="boot-tabs" data-testid="boot-tabbar">${shown.map((tab) => `<span class="boot-tab">${icon(tab.icon)}<i class="boot-bar"></i></span>`).join("")}</div>` +
    `</div>`;

  const lit = shown.map((_, i) => `[data-boot-tab="${i}"] .boot-tab:nth-child(${i + 1})`).join(",");
  const style = [
    `html,body{margin:0;background:${t("bg")}}`,
    `.boot,.boot *{box-sizing:border-box}`,
    `.boot{max-width:${t("app-max")};margin:0 auto;color:${t("text")}}`,
    // shell.module.css .app-header: same height, grid, background and rule.
    `.boot-head{height:calc(${t("header-h")} + env(safe-area-inset-top));padding:env(safe-area-inset-top) 4px 0;display:grid;grid-template-columns:minmax(48px,1fr) minmax(0,auto) minmax(max-content,1fr);align-items:center;background:rgba(11,14,17,.92);border-bottom:1px solid ${t("line-soft")}}`,
    `.boot-side{display:flex;align-items:center}.boot-end{justify-content:flex-end}`,
    `.boot-ic{display:inline-flex;align-items:center;justify-content:center;width:40px;height:40px}`,
    `.boot-title{display:flex;align-items:center;justify-content:center;gap:8px}`,
    `.boot-bar{display:block;width:64px;height:12px;border-radius:6px;background:${t("bg-card")}}`,
    `.boot-menu,.boot-bell,[data-boot-tab] .boot-back{display:none}[data-boot-tab] .boot-menu,[data-boot-in] .boot-bell{display:inline-flex}`,
    // shell.module.css .tabbar and .tab.
    `.boot-tabs{display:none;position:fixed;bottom:0;left:50%;transform:translateX(-50%);width:100%;max-width:${t("app-max")};height:calc(${t("tabbar-h")} + env(safe-area-inset-bottom));padding-bottom:env(safe-area-inset-bottom);grid-auto-flow:column;grid-auto-columns:1fr;background:${t("bg-raised")};border-top:1px solid ${t("line-soft")};color:${t("text-3")}}`,
    `[data-boot-tab] .boot-tabs{display:grid}`,
    `.boot-tab{display:flex;flex-direction:column;align-items:center;justify-content:center;gap:2px}.boot-tab .boot-bar{width:28px;height:8px;border-radius:4px;margin:4px 0}`,
    ...(lit ? [`${lit}{color:${t("accent")}}`] : []),
    // The screen's first text: base.css's body font and line height, the screen's own sizes.
    `.boot-page{display:none;font-family:${t("font-latin")},${cjk[""]},sans-serif;font-size:14px;line-height:1.45;-webkit-font-smoothing:antialiased}`,
    ...Object.entries(cjk).filter(([lang]) => lang).map(([lang, fonts]) => `.boot-w:lang(${lang}){font-family:${t("font-latin")},${fonts},sans-serif}`),
    `[data-boot-page="/login"] .boot-login,[data-boot-page="/quotations"] .boot-quotes{display:block}`,
    `.boot-w{display:none;margin:0}`,
    locales.map((l) => `[data-boot-lang="${l}"] .boot-w[data-l="${l}"]`).join(",") + `{display:block}`,
    // auth.module.css .auth, .auth-hero, .auth-heading, .auth-sub.
    `.boot-login{padding:20px 20px 32px}.boot-hero{display:flex;flex-direction:column;align-items:flex-start;gap:10px;margin:8px 0 24px}`,
    `.boot-h{font-size:24px;font-weight:700;letter-spacing:-0.01em}.boot-sub{color:${t("text-3")};font-size:14px}`,
    // components.css .skeleton-list and its rows (still, not shimmering); QuotationsPage.module.css .quote-note.
    `.boot-sk-list{padding:8px ${t("page-pad")}}.boot-sk-row{display:flex;align-items:center;gap:12px;padding:12px 0}`,
    `.boot-sk{display:block;background:${t("bg-card")};border-radius:${t("radius-s")}}.boot-sk-av{width:28px;height:28px;border-radius:50%}`,
    `.boot-sk-lines{flex:1;display:flex;flex-direction:column;gap:6px}.boot-sk-tail{width:64px;height:26px}`,
    `.boot-note{font-size:12px;padding:14px ${t("page-pad")} 20px;text-align:center;color:${t("text-3")}}`,
  ].join("");
  return { style, html, tabs };
}
