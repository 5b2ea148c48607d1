/**
 * index.html's start-up shell, drawn at build time (web/vite.config.ts, appShell): the app frame
 * as React first paints it, from the document alone, before any script or stylesheet has
 * arrived. A phone shows the header (menu or back icon, the logo, a bar where the title goes,
 * the bell when logged in, the language icon) and, on a tab screen, the footer tab bar with
 * the active tab lit, in the app's colours and sizes. It holds no text, so it is right in every
 * language; React replaces it on its first render.
 *
 * Drawn from the app's own data, not copied: the icons (components/iconPaths.ts), the tabs
 * (app/tabs.ts, of which the bar shows those the app shows before the product switches have
 * loaded) and the colours and sizes (styles/tokens.css). index.html's inline script picks the
 * variant for the URL before the body is parsed: `data-boot-tab` on <html> for a tab screen
 * (its value is the lit tab's position, -1 for none) and `data-boot-in` with a session.
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

/** A custom property's value in tokens.css (`--bg: #0b0e11;`); throws when it is not there. */
export function token(css: string, name: string): string {
  const m = new RegExp(`--${name}:\\s*([^;]+);`).exec(css);
  if (!m?.[1]) throw new Error(`styles/tokens.css: no --${name}`);
  return m[1].trim();
}

function icon(name: IconName, cls = ""): string {
  return `<svg${cls ? ` class="${cls}"` : ""} width="22" height="22" viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="1.7" stroke-linecap="round" stroke-linejoin="round"><path d="${ICON_PATHS[name]}"/></svg>`;
}

export function bootShell(tokensCss: string): BootShell {
  const t = (name: string) => token(tokensCss, name);
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
  ].join("");
  return { style, html, tabs };
}
