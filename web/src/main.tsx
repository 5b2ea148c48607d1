/**
 * Entry: global styles (tokens, base), the active language's messages (loaded before anything
 * renders text), then the app. The likely first screen's chunk is already on its way: index.html
 * preloads it (vite.config.ts, firstRoutePreload). Until the app renders, index.html shows the
 * start-up shell (web/shell.ts).
 */
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import "./styles/tokens.css";
import "./styles/base.css";
import "./styles/components.css";
import { $locale, loadLocale } from "./i18n/index.ts";
import { App } from "./app/App.tsx";

/**
 * The built index.html fetches the global stylesheet as a preload (so it does not hold back the
 * shell's paint); it becomes the stylesheet here, and the app renders once it applies (or failed
 * to load: the app still works unstyled rather than not at all). In dev there is none.
 */
function appStyles(): Promise<void[]> {
  const links = Array.from(document.querySelectorAll<HTMLLinkElement>("link[data-app-style]"));
  return Promise.all(
    links.map(
      (link) =>
        new Promise<void>((done) => {
          link.addEventListener("load", () => done(), { once: true });
          link.addEventListener("error", () => done(), { once: true });
          link.rel = "stylesheet";
        }),
    ),
  );
}

const root = document.getElementById("root");
if (root) {
  void Promise.all([loadLocale($locale.get()), appStyles()]).then(() =>
    createRoot(root).render(
      <StrictMode>
        <App />
      </StrictMode>,
    ),
  );
}
