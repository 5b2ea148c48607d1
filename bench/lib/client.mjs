// HTTP and WebSocket client helpers for the end-to-end benchmarks: keep-alive HTTP over loopback
// with per-request timing, logins, decimal helpers, and a depth-subscribed WebSocket (plus the
// user's private channel) that records every message with its arrival time.
import http from "node:http";
import { createRequire } from "node:module";
import path from "node:path";
import { ROOT } from "./server.mjs";

const require = createRequire(path.join(ROOT, "package.json"));
const WebSocket = require("ws");

export const now = () => performance.now();

/** A keep-alive HTTP client for one base URL (127.0.0.1 only). */
export function httpClient(baseUrl, { maxSockets = 256, timeoutMs = 30_000 } = {}) {
  const url = new URL(baseUrl);
  if (url.hostname !== "127.0.0.1") throw new Error("the benchmarks only talk to 127.0.0.1");
  const agent = new http.Agent({ keepAlive: true, maxSockets, maxFreeSockets: maxSockets });
  /**
   * One request; resolves { status, body, ms, t0, t1 } and never rejects: a network failure gives
   * status 0 with the error in `error` (a crash test expects those).
   */
  function request(method, p, { token, body, headers } = {}) {
    const payload = body === undefined ? null : Buffer.from(JSON.stringify(body));
    const t0 = now();
    return new Promise((resolve) => {
      const req = http.request(
        {
          host: url.hostname,
          port: url.port,
          path: p,
          method,
          agent,
          headers: {
            lang: "en",
            ...(payload ? { "content-type": "application/json", "content-length": payload.length } : {}),
            ...(token ? { authorization: token } : {}),
            ...headers,
          },
        },
        (res) => {
          const chunks = [];
          res.on("data", (c) => chunks.push(c));
          res.on("end", () => {
            const t1 = now();
            const text = Buffer.concat(chunks).toString();
            let json = null;
            try {
              json = JSON.parse(text);
            } catch {}
            resolve({ status: res.statusCode, body: json, text: json ? undefined : text, t0, t1, ms: t1 - t0 });
          });
          res.on("error", (error) => resolve({ status: 0, error, t0, t1: now(), ms: now() - t0 }));
        },
      );
      req.setTimeout(timeoutMs, () => req.destroy(new Error("timeout")));
      req.on("error", (error) => resolve({ status: 0, error, t0, t1: now(), ms: now() - t0 }));
      if (payload) req.write(payload);
      req.end();
    });
  }
  return { request, agent, close: () => agent.destroy() };
}

export async function login(client, account, password) {
  const r = await client.request("POST", "/api/user/login", { body: { user_string: account, password, type: 1 } });
  if (r.body?.type !== "ok") throw new Error(`login ${account} failed: ${r.status} ${JSON.stringify(r.body ?? r.text ?? r.error?.message)}`);
  return r.body.message.token;
}

/** Integer units ↔ decimal strings at `d` decimals (no floats). */
export function fmt(units, d) {
  const u = BigInt(units);
  const neg = u < 0n;
  const s = (neg ? -u : u).toString().padStart(d + 1, "0");
  return (neg ? "-" : "") + (d ? `${s.slice(0, -d)}.${s.slice(-d)}` : s);
}

/**
 * A WebSocket on /ws?pair=ID subscribed to market_depth of the pair and, with `token`, a second one
 * on that user's private channel /ws/user (the user's order events, sent once the pair's outbox
 * has reached D1). Every message of both is kept with its arrival time in `messages` (and handed
 * to `onMessage`).
 */
export function depthSocket(baseUrl, { pairId, currencyId, legalId = 3, token, onMessage, countOnly = false, withTicker = false }) {
  const wsUrl = baseUrl.replace(/^http/, "ws") + `/ws?pair=${pairId}`;
  const ws = new WebSocket(wsUrl, { perMessageDeflate: false });
  // The session token travels as a subprotocol value, as the web client sends it (never in the URL).
  const user = token ? new WebSocket(baseUrl.replace(/^http/, "ws") + "/ws/user", ["exchange-user.v1", `bearer.${token}`], { perMessageDeflate: false }) : null;
  const topic = `market_depth_${currencyId}_${legalId}`;
  // countOnly: after the snapshot, messages are only counted (cheap viewers for fan-out load).
  const state = { ws, user, topic, messages: [], count: 0, snapshotSeq: null, loggedIn: false };
  const keep = (msg) => {
    const t = now();
    state.messages.push({ t, msg });
    onMessage?.(msg, t);
  };
  const userReady = new Promise((resolve, reject) => {
    if (!user) return resolve();
    user.on("error", reject);
    user.on("open", () => {
      state.loggedIn = true;
      resolve();
    });
    user.on("close", (code) => {
      if (!state.loggedIn || code === 4001) reject(new Error(`user channel closed: ${code}`));
    });
    user.on("message", (data) => {
      try {
        keep(JSON.parse(String(data)));
      } catch {
        // not JSON: ignored
      }
    });
  });
  const depthReady = new Promise((resolve, reject) => {
    ws.on("error", reject);
    ws.on("open", () => {
      ws.send(JSON.stringify({ type: "sub", topic }));
      // withTicker: the pair's ticker (day market) too, as the trade screens follow it.
      if (withTicker) ws.send(JSON.stringify({ type: "sub", topic: `daymarket_${currencyId}_${legalId}` }));
    });
    ws.on("message", (data) => {
      if (countOnly && state.snapshotSeq !== null) {
        state.count++;
        return;
      }
      let msg;
      try {
        msg = JSON.parse(String(data));
      } catch {
        return;
      }
      if (msg.type === "error") return reject(new Error(`ws error: ${msg.message}`));
      if (msg.type === "market_depth" && msg.snapshot) {
        state.snapshotSeq = msg.seq;
        resolve();
        return;
      }
      keep(msg);
    });
  });
  state.ready = Promise.all([depthReady, userReady]).then(() => state);
  const closeOne = (sock) => new Promise((res) => {
    if (!sock || sock.readyState === WebSocket.CLOSED) return res();
    sock.once("close", res);
    sock.close();
    setTimeout(() => {
      sock.terminate();
      res();
    }, 1000);
  });
  state.close = () => Promise.all([closeOne(ws), closeOne(user)]).then(() => undefined);
  return state;
}

/** Percentile of a sorted array (nearest rank). */
export function pct(sorted, p) {
  if (sorted.length === 0) return null;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i];
}

export function summary(values) {
  const s = [...values].sort((a, b) => a - b);
  return { n: s.length, p50: pct(s, 50), p90: pct(s, 90), p99: pct(s, 99), max: s.length ? s[s.length - 1] : null };
}

/** mulberry32: a small seeded PRNG, so a run's order stream is reproducible. */
export function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
