/**
 * Entry: global styles (tokens, base), the active language's messages (loaded before anything
 * renders text), then the app. The likely first screen's chunk is already on its way: index.html
 * preloads it (vite.config.ts, firstRoutePreload).
 */
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import "./styles/tokens.css";
import "./styles/base.css";
import "./styles/components.css";
import { $locale, loadLocale } from "./i18n/index.ts";
import { App } from "./app/App.tsx";

const root = document.getElementById("root");
if (root) {
  void loadLocale($locale.get()).then(() =>
    createRoot(root).render(
      <StrictMode>
        <App />
      </StrictMode>,
    ),
  );
}
