// Bundles durable/engine/index.ts (TypeScript) into one ESM file with esbuild's JS API from
// node_modules, so benchmarks run right after `npm install` with no build step by hand.
// The bundle goes to node_modules/.cache/ and is rebuilt on every load (about 20 ms, outside timing),
// written to a temporary name and renamed, so concurrent runs never read a half-written file.
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import path from "node:path";
import fs from "node:fs";

/** Repository root (the folder holding package.json). */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** Builds the engine bundle and returns its file path. */
export function buildEngine(outName = "engine-bench.mjs") {
  const require = createRequire(path.join(ROOT, "package.json"));
  const esbuild = require("esbuild");
  const dir = path.join(ROOT, "node_modules", ".cache");
  fs.mkdirSync(dir, { recursive: true });
  const out = path.join(dir, outName);
  const tmp = `${out}.${process.pid}.tmp.mjs`;
  esbuild.buildSync({
    entryPoints: [path.join(ROOT, "durable", "engine", "index.ts")],
    bundle: true,
    format: "esm",
    platform: "neutral",
    target: "es2022",
    outfile: tmp,
    logLevel: "error",
  });
  fs.renameSync(tmp, out);
  return out;
}

/** Builds and imports the engine module. */
export async function loadEngine() {
  return import(pathToFileURL(buildEngine()).href);
}
