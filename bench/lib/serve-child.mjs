#!/usr/bin/env node
// Runs the exchange Worker locally for the benchmarks, in its own process so a benchmark can
// kill -9 it (with its workerd children) as one process group. Uses wrangler's
// unstable_startWorker with file watching OFF: other people editing the tree must not reload
// the Worker in the middle of a measurement.
//
//   node bench/lib/serve-child.mjs [--root DIR] --dir DIR --port PORT --pepper P [--inspector PORT] [--vars JSON]
// Prints one line `READY <url>` on stdout when the API answers.
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const args = new Map();
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i].replace(/^--/, ""), process.argv[i + 1]);
// --root: the project folder to bundle (a snapshot made by bench/lib/server.mjs), default this tree.
const ROOT = path.resolve(args.get("root") ?? path.join(path.dirname(fileURLToPath(import.meta.url)), "..", ".."));
const dir = args.get("dir");
const port = Number(args.get("port"));
const pepper = args.get("pepper") ?? "bench-pepper";
const inspector = args.get("inspector") ? Number(args.get("inspector")) : null;
if (!dir || !port) {
  console.error("usage: serve-child.mjs --dir DIR --port PORT [--pepper P] [--inspector PORT]");
  process.exit(2);
}
process.env.WRANGLER_SEND_METRICS = "false";
process.env.CLOUDFLARE_CF_FETCH_ENABLED = "false";
process.chdir(ROOT);

const require = createRequire(path.join(ROOT, "package.json"));
const { unstable_startWorker } = require("wrangler");

const worker = await unstable_startWorker({
  config: path.join(ROOT, "wrangler.toml"),
  compatibilityFlags: ["nodejs_compat"],
  sendMetrics: false,
  bindings: {
    DEV_OUTBOX: { type: "plain_text", value: "on" },
    PEPPER: { type: "secret_text", value: pepper },
    ...Object.fromEntries(Object.entries(JSON.parse(args.get("vars") ?? "{}")).map(([k, value]) => [k, { type: "plain_text", value: String(value) }])),
  },
  dev: {
    server: { hostname: "127.0.0.1", port },
    inspector: inspector ? { hostname: "127.0.0.1", port: inspector } : false,
    persist: dir,
    watch: false,
    liveReload: false,
    testScheduled: true,
    logLevel: "warn",
  },
});
await worker.ready;
const url = `http://127.0.0.1:${port}`;
process.stdout.write(`READY ${url}\n`);

let closing = false;
const close = async () => {
  if (closing) return;
  closing = true;
  try {
    await worker.dispose();
  } finally {
    process.exit(0);
  }
};
process.on("SIGTERM", close).on("SIGINT", close);
