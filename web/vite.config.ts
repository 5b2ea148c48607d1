/**
 * Builds the SPA into dist/web (served by the Worker's [assets]). Paraglide messages are compiled
 * by the CLI before this runs (`npm run i18n`); its Vite plugin is not used because it can hang
 * after a clean build (TOOLCHAIN.md). In `serve` mode /api and /ws are proxied to a local worker.
 */
import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";
import react from "@vitejs/plugin-react";

const webRoot = fileURLToPath(new URL(".", import.meta.url));
const repoRoot = fileURLToPath(new URL("..", import.meta.url));
const apiTarget = process.env.API_TARGET ?? "http://127.0.0.1:8795";

export default defineConfig({
  root: webRoot,
  base: "/",
  plugins: [react()],
  build: {
    outDir: `${repoRoot}dist/web`,
    emptyOutDir: true,
    target: "es2022",
    chunkSizeWarningLimit: 800,
    rolldownOptions: {
      output: {
        // Long-lived vendor chunks: a release that only changes screens keeps these cached.
        codeSplitting: {
          groups: [
            { name: "react", test: /node_modules[\\/](react|react-dom|scheduler|react-router|cookie|set-cookie-parser)[\\/]/ },
            { name: "zod", test: /node_modules[\\/]zod[\\/]/ },
            { name: "messages", test: /src[\\/]paraglide[\\/]/ },
            { name: "schemas", test: /[\\/]schemas[\\/]/ },
          ],
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
