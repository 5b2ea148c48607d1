// Samples the V8 CPU profile of workers inside the local workerd runtime through its inspector
// (the runtime exposes one inspector target per worker: the exchange's own worker — which also
// runs the pair Durable Objects — and miniflare's D1 simulator, among others). Used by
// `bench/e2e-load.mjs --cpu-profile` to say where the runtime's CPU time goes.
import { execSync } from "node:child_process";
import { createRequire } from "node:module";
import fs from "node:fs";
import path from "node:path";
import { ROOT, groupPids } from "./server.mjs";

const require = createRequire(path.join(ROOT, "package.json"));
const WebSocket = require("ws");

/** The runtime's inspector port: a port of the group's workerd that answers /json/list. */
export async function findInspector(pgid) {
  const pids = new Set(groupPids(pgid));
  const lines = execSync("ss -ltnpH").toString().split("\n");
  for (const l of lines) {
    const m = /:(\d+)\s+\S+\s+users:\(\("workerd",pid=(\d+)/.exec(l);
    if (!m || !pids.has(Number(m[2]))) continue;
    try {
      const r = await fetch(`http://127.0.0.1:${m[1]}/json/list`, { signal: AbortSignal.timeout(1000) });
      const list = await r.json();
      if (Array.isArray(list) && list.some((t) => String(t.id).startsWith("core:user:"))) return { port: Number(m[1]), targets: list };
    } catch {}
  }
  return null;
}

function cdp(url) {
  const ws = new WebSocket(url, { perMessageDeflate: false, maxPayload: 1 << 30 });
  let id = 0;
  const pending = new Map();
  ws.on("message", (d) => {
    const msg = JSON.parse(String(d));
    if (msg.id && pending.has(msg.id)) {
      const { res, rej } = pending.get(msg.id);
      pending.delete(msg.id);
      if (msg.error) rej(new Error(msg.error.message));
      else res(msg.result);
    }
  });
  const open = new Promise((res, rej) => {
    ws.once("open", res);
    ws.once("error", rej);
  });
  return {
    open,
    send: (method, params = {}) =>
      new Promise((res, rej) => {
        const i = ++id;
        pending.set(i, { res, rej });
        ws.send(JSON.stringify({ id: i, method, params }));
      }),
    close: () => ws.close(),
  };
}

/**
 * Starts sampling targets given as { id, url } (the exchange's own worker is reached through
 * wrangler's inspector proxy, which holds the runtime's only session to it; other workers
 * directly); returns stop() → per-target summaries.
 */
export async function startProfiling(targets, intervalUs = 200) {
  const sessions = [];
  for (const { id, url } of targets) {
    const c = cdp(url);
    await c.open;
    await c.send("Profiler.enable");
    await c.send("Profiler.setSamplingInterval", { interval: intervalUs });
    await c.send("Profiler.start");
    sessions.push({ id, c });
  }
  return async function stop() {
    const out = {};
    for (const { id, c } of sessions) {
      const { profile } = await c.send("Profiler.stop");
      c.close();
      // CPU_PROFILE_DIR: the raw profiles too (open in Chrome DevTools, or compare two runs' totals by function).
      if (process.env.CPU_PROFILE_DIR) fs.writeFileSync(path.join(process.env.CPU_PROFILE_DIR, `${id.replace(/[^a-z0-9]+/gi, "-")}.cpuprofile`), JSON.stringify(profile));
      out[id] = summarise(profile);
    }
    return out;
  };
}

/** Self time per function (ms), the idle share, and the top entries. */
function summarise(profile) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map();
  const deltas = profile.timeDeltas;
  let total = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const n = byId.get(profile.samples[i]);
    const dt = (deltas[i + 1] ?? deltas[i] ?? 0) / 1000;
    total += dt;
    const f = n.callFrame;
    const key = f.functionName ? `${f.functionName} ${shortUrl(f.url)}:${f.lineNumber + 1}` : `(${n.callFrame.url ? "anonymous " + shortUrl(f.url) + ":" + (f.lineNumber + 1) : f.functionName || "program"})`;
    const name = f.functionName === "(idle)" || f.functionName === "(program)" || f.functionName === "(garbage collector)" ? f.functionName : key;
    self.set(name, (self.get(name) ?? 0) + dt);
  }
  const idle = self.get("(idle)") ?? 0;
  const top = [...self.entries()]
    .filter(([k]) => k !== "(idle)")
    .sort((a, b) => b[1] - a[1])
    .slice(0, 25)
    .map(([fn, ms]) => ({ fn, ms: +ms.toFixed(1) }));
  return { sampledMs: +total.toFixed(0), busyMs: +(total - idle).toFixed(0), top };
}

function shortUrl(u) {
  if (!u) return "";
  const parts = u.split("/");
  return parts.slice(-2).join("/");
}

/**
 * Starts sampling a local server's runtime: the exchange's worker (through wrangler's inspector
 * proxy on `inspector`) and miniflare's D1 simulator when the runtime lists it. Answers stop(), or
 * null (said through `say`) when the runtime's inspector is not found.
 */
export async function profileServer(server, inspector, say) {
  const insp = await findInspector(server.pid);
  if (!insp) {
    say("cpu profile: runtime inspector not found");
    return null;
  }
  const d1Target = insp.targets.find((t) => /^d1:db:./.test(t.id));
  const targets = [{ id: "exchange Worker + pair DOs", url: `ws://127.0.0.1:${inspector}/ws` }];
  if (d1Target) targets.push({ id: "D1 simulator (miniflare)", url: `ws://127.0.0.1:${insp.port}/${d1Target.id}` });
  return startProfiling(targets);
}
