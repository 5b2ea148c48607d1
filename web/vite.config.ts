/**
 * Builds the SPA into dist/web (served by the Worker's [assets]). Paraglide messages are compiled
 * by the CLI before this runs (`npm run i18n`, one module per locale); its Vite plugin is not used
 * because it can hang after a clean build (TOOLCHAIN.md). In `serve` mode /api and /ws are proxied
 * to a local worker.
 *
 * Start-up loads only the entry (React, router, shell), the active language's messages and the
 * first screen's chunk; index.html starts fetching the last two at once (firstRoutePreload)
 * instead of after the entry has run. Until the entry has run, index.html shows the app frame
 * drawn at build time (web/shell.ts), painted from the document alone: nothing in the head
 * blocks rendering (the global stylesheet is preloaded and applied by main.tsx before React
 * renders).
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { defineConfig, type Plugin } from "vite";
import type { OutputBundle, OutputChunk } from "rolldown";
import react from "@vitejs/plugin-react";
import { bootShell } from "./shell.ts";

const webRoot = fileURLToPath(new URL(".", import.meta.url));
const repoRoot = fileURLToPath(new URL("..", import.meta.url));
const apiTarget = process.env.API_TARGET ?? "http://127.0.0.1:8795";

/**
 * Likely first screens (hash path → page module under web/src, whether it needs a login: a
 * visitor without a session token lands on /login instead, and the API request whose answer is
 * the screen's largest paint, started at once and adopted by the API client: lib/early.ts).
 * Keep in step with app/routes.tsx.
 */
const FIRST_ROUTES: Record<string, [string, boolean, string?]> = {
  "/": ["features/home/components/HomePage.tsx", true],
  "/login": ["features/auth/components/LoginPage.tsx", false],
  "/register": ["features/auth/components/RegisterPage.tsx", false],
  "/quotations": ["features/quotations/components/QuotationsPage.tsx", false, "/api/currency/quotation_new"],
  "/news/list": ["features/news/components/NewsListPage.tsx", false],
  "/news/detail": ["features/news/components/NewsDetailPage.tsx", false],
  "/kline": ["features/kline/components/KlinePage.tsx", false],
  "/lang": ["features/settings/components/LangPage.tsx", false],
  "/exchange": ["features/spot/components/ExchangePage.tsx", true],
  "/assets": ["features/assets/components/AssetsPage.tsx", true],
  "/personal": ["features/personal/components/PersonalPage.tsx", true],
};
const LOCALES = ["en", "zh", "hk", "kr", "jp", "es"];

/**
 * Writes a small inline script into index.html that preloads, before the entry runs, the
 * messages of the stored (or the browser's) language and the chunk and CSS of the screen in the
 * URL. Without it the browser learns about both only after the entry has downloaded and run,
 * which is most of the time to the first screen on a phone.
 */
function firstRoutePreload(): Plugin {
  let inline = "";
  // The shell draws /login's and /quotations' first text in every language (web/shell.ts).
  const words = Object.fromEntries(
    LOCALES.map((l) => {
      const msg = JSON.parse(readFileSync(`${webRoot}messages/${l}.json`, "utf8")) as Record<string, string>;
      return [l, { login_heading: msg.login_heading!, login_sub: msg.login_sub!, quotes_note: msg.quotes_note! }];
    }),
  );
  const shell = bootShell(readFileSync(`${webRoot}src/styles/tokens.css`, "utf8"), words);
  return {
    name: "first-route-preload",
    // The Content-Security-Policy (web/public/_headers) allows scripts from our origin only; this
    // one inline script is allowed by its SHA-256, written into the built _headers.
    closeBundle() {
      const file = `${repoRoot}dist/web/_headers`;
      if (!inline || !existsSync(file)) return;
      const hash = createHash("sha256").update(inline, "utf8").digest("base64");
      const text = readFileSync(file, "utf8");
      if (!text.includes("script-src 'self';")) throw new Error("_headers: no script-src 'self'; to extend");
      let out = text.replace("script-src 'self';", `script-src 'self' 'sha256-${hash}';`);
      // Other API hosts (lib/hosts.ts) must be reachable from the page: their https and wss origins.
      const hosts = (process.env.VITE_API_HOSTS ?? "").split(",").map((h) => h.trim().replace(/\/+$/, "")).filter((h) => /^https?:\/\/[^/?#\s]+$/i.test(h));
      if (hosts.length > 0) {
        if (!out.includes("connect-src 'self';")) throw new Error("_headers: no connect-src 'self'; to extend");
        const origins = hosts.flatMap((h) => [h, h.replace(/^http/i, "ws")]);
        out = out.replace("connect-src 'self';", `connect-src 'self' ${origins.join(" ")};`);
      }
      writeFileSync(file, out);
    },
    transformIndexHtml: {
      order: "post",
      handler(html, ctx) {
        // The start-up shell (web/shell.ts) in place of index.html's markers, in dev too.
        if (!html.includes("<!--boot-style-->") || !html.includes("<!--boot-shell-->")) throw new Error("index.html: no <!--boot-style--> or <!--boot-shell--> for the start-up shell");
        html = html.replace("<!--boot-style-->", `<style>${shell.style}</style>`).replace("<!--boot-shell-->", shell.html);
        const bundle = ctx.bundle as OutputBundle | undefined;
        const chunks = Object.values(bundle ?? {}).filter((o): o is OutputChunk => o.type === "chunk");
        const byFile = new Map(chunks.map((c) => [c.fileName, c]));
        const closure = (start: OutputChunk, into = new Set<string>()) => {
          if (into.has(start.fileName)) return into;
          into.add(start.fileName);
          for (const f of start.imports) {
            const c = byFile.get(f);
            if (c) closure(c, into);
          }
          return into;
        };
        const entry = chunks.find((c) => c.isEntry);
        const atStart = entry ? closure(entry) : new Set<string>();
        const files = (moduleEnd: string): string[] | null => {
          const chunk = chunks.find((c) => c.facadeModuleId?.replaceAll("\\", "/").endsWith(`/src/${moduleEnd}`));
          if (!chunk) return null;
          const out: string[] = [];
          for (const f of closure(chunk)) {
            if (atStart.has(f)) continue;
            out.push(`/${f}`);
            const css = (byFile.get(f) as OutputChunk & { viteMetadata?: { importedCss: Set<string> } })?.viteMetadata?.importedCss;
            for (const c of css ?? []) out.push(`/${c}`);
          }
          return out;
        };
        const map = { l: {} as Record<string, string[]>, r: {} as Record<string, { f: string[]; a: boolean; d?: string }> };
        for (const l of LOCALES) map.l[l] = files(`paraglide/messages/${l}.js`) ?? [];
        // With several API hosts (VITE_API_HOSTS) the client may not use this origin: no early data.
        const sameOriginApi = !(process.env.VITE_API_HOSTS ?? "").trim();
        for (const [path, [mod, auth, data]] of Object.entries(FIRST_ROUTES)) {
          const f = files(mod);
          if (f) map.r[path] = { f, a: auth, ...(data && sameOriginApi ? { d: data } : {}) };
        }
        // Language as i18n/index.ts picks it: the stored one, else the browser's (approximately;
        // a wrong guess costs one unused preload).
        // The shell's variant (web/shell.ts): a tab screen the visitor may see lights its tab and
        // shows the menu icon and the bar; a session shows the bell; the screen (data-boot-page)
        // and the language (data-boot-lang) pick the first text it draws.
        const code = `(function(){try{var M=${JSON.stringify(map)},s=localStorage,B=${JSON.stringify(shell.tabs)},l=s.getItem("lang"),k=s.getItem("token"),h=document.documentElement;if(!M.l[l]){var n=(navigator.language||"").toLowerCase();l=/^zh-(tw|hk)/.test(n)?"hk":/^zh/.test(n)?"zh":/^ko/.test(n)?"kr":/^ja/.test(n)?"jp":/^es/.test(n)?"es":"en"}var p=location.hash.slice(1).split("?")[0]||"/",r=M.r[p],b=B[p];if(b&&!(b[0]&&!k))h.setAttribute("data-boot-tab",b[1]);if(k)h.setAttribute("data-boot-in","");if(r&&r.a&&!k){r=M.r["/login"];p="/login"}h.setAttribute("data-boot-page",p);h.setAttribute("data-boot-lang",l);(M.l[l]||[]).concat(r?r.f:[]).forEach(function(u){var e=document.createElement("link");if(/\\.css$/.test(u)){e.rel="preload";e.as="style"}else e.rel="modulepreload";e.crossOrigin="";e.href=u;document.head.appendChild(e)});if(r&&r.d){var q=fetch(r.d,{headers:{lang:l,accept:"application/json"},cache:"no-store"});q.catch(function(){});window.__early={u:r.d,l:l,t:Date.now(),p:q}}}catch(e){}})();`;
        inline = code;
        // Right after <meta charset>, before the entry's stylesheet: an inline script after a
        // stylesheet waits for it to download, which held every preload back by that long. So the
        // screen's CSS is only fetched here (preload), not applied: applied now it would come
        // before the global styles and lose to them; the chunk's loader applies it in order.
        const charset = /<meta charset="UTF-8" \/>/i;
        if (!charset.test(html)) throw new Error("index.html: no <meta charset=\"UTF-8\" /> to put the preloader after");
        html = html.replace(charset, (tag) => `${tag}\n    <script>${code}</script>`);
        if (!bundle) return html;
        // The global stylesheet must not hold the shell's paint back: fetched at once, but as a
        // preload, which main.tsx turns into the stylesheet and waits for before React renders.
        const sheet = /<link rel="stylesheet" crossorigin href="(\/assets\/[^"]+\.css)">/g;
        if (!sheet.test(html)) throw new Error("index.html: the entry's stylesheet link was not found");
        return html.replace(sheet, (_, href: string) => `<link rel="preload" as="style" crossorigin href="${href}" data-app-style>`);
      },
    },
  };
}

export default defineConfig({
  root: webRoot,
  base: "/",
  plugins: [react(), firstRoutePreload()],
  // Feature styles are CSS modules next to their components (Foo.module.css, read as s.fooBar);
  // only tokens and base styles are global. Class names keep their source name for debugging.
  css: { modules: { localsConvention: "camelCaseOnly", generateScopedName: "[local]_[hash:base64:5]" } },
  build: {
    outDir: `${repoRoot}dist/web`,
    emptyOutDir: true,
    target: "es2022",
    chunkSizeWarningLimit: 800,
    rolldownOptions: {
      output: {
        // React and the router change seldom: their own long-lived chunk survives releases that
        // only change screens. Messages, schemas and zod are left to the bundler, so each lands
        // with the screens that use it (and messages per language) instead of at start-up.
        codeSplitting: {
          groups: [{ name: "react", test: /node_modules[\\/](react|react-dom|scheduler|react-router|cookie|set-cookie-parser)[\\/]/ }],
        },
      },
    },
  },
  server: {
    host: "127.0.0.1",
    port: 8796,
    fs: { allow: [repoRoot] },
    proxy: {
      "/api": { target: apiTarget, changeOrigin: true },
      "/ws": { target: apiTarget, ws: true, changeOrigin: true },
    },
  },
});
