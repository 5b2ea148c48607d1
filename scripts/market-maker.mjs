#!/usr/bin/env node
/**
 * Demo market maker for local runs (`npm start`; `MARKET_MAKER=off` disables it).
 *
 * It is an ordinary API client: two seeded, verified demo accounts place real orders through the
 * same endpoints as everyone else, with real (demo) funds. `mm@exchange.test` quotes six levels a
 * side around a seeded random walk per pair; `mm2@exchange.test` now and then sends a small
 * market order so deals and candles appear. Two accounts are needed because the engine's
 * self-trade prevention (rightly) never lets an account trade with itself. Nothing here touches
 * the database or the engine directly, and it never runs in a deployed Worker. Its decisions
 * (which quotes to keep, cancel and place, how big, which way the taker trades) live in
 * scripts/market-maker-core.mjs; this file only talks HTTP, using the batch endpoints.
 *
 *   node scripts/market-maker.mjs --url http://127.0.0.1:8787 [--seed 7] [--interval 1000]
 */
import { LEVELS, SCALE, chunks, fromUnits, prng, step, toUnits } from "./market-maker-core.mjs";

const args = new Map();
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i].replace(/^--/, ""), process.argv[i + 1]);
const BASE = args.get("url") ?? process.env.MM_URL ?? "http://127.0.0.1:8787";
const INTERVAL = Number(args.get("interval") ?? 1000);
const SEED = Number(args.get("seed") ?? 7);
const DEBUG = Boolean(process.env.MM_DEBUG);

/** Reference starting points only: after the first trade every price is whatever the book does. */
const START = { BTC: "65000", ETH: "3500", DOGE: "0.15", LTC: "80", XRP: "0.6", BCH: "400" };

async function call(path, { token, body, method } = {}) {
  const res = await fetch(`${BASE}/api${path}`, {
    method: method ?? (body ? "POST" : "GET"),
    headers: { "content-type": "application/json", lang: "en", ...(token ? { authorization: token } : {}) },
    body: body ? JSON.stringify(body) : undefined,
    signal: AbortSignal.timeout(5000),
  });
  return res.json();
}

async function login(account, password) {
  const r = await call("/user/login", { body: { user_string: account, password, type: 1 } });
  if (r.type !== "ok") throw new Error(`market maker cannot log in as ${account}: ${r.message}`);
  return r.message.token;
}

/** The exchange as the core loop sees it, over HTTP. */
function httpApi(maker, taker) {
  const warn = (p, what, r) => DEBUG && console.warn(`[market-maker] ${p.name} ${what}: ${r.code ?? r.message}`);
  return {
    async openOrders(p) {
      const r = await call(`/new/transaction/index?currency_id=${p.currencyId}`, { token: maker });
      return (r.data?.lists ?? []).map((o) => ({ id: o.id, side: o.direction, price: toUnits(o.price, p.pd) }));
    },
    async balance(p, who) {
      const r = await call(`/transaction/balance?currency_id=${p.currencyId}&legal_id=${p.legalId}`, { token: who === "maker" ? maker : taker });
      if (r.type !== "ok") throw new Error(`balance: ${r.message}`);
      const m = r.message;
      return { base: toUnits(m.user_currency, SCALE), quote: toUnits(m.user_legal, SCALE), heldBase: toUnits(m.lock_currency, SCALE), heldQuote: toUnits(m.lock_legal, SCALE) };
    },
    async cancel(ids) {
      await call("/transaction_del/batch", { token: maker, body: { ids } });
    },
    async place(p, quotes) {
      const orders = quotes.map((q) => ({ side: q.side, mode: 2, price: fromUnits(q.price, p.pd), num: fromUnits(q.qty, p.qd) }));
      const r = await call("/transaction/batch", { token: maker, body: { currency_id: p.currencyId, legal_id: p.legalId, orders } });
      if (r.type !== "ok") return warn(p, "batch", r);
      r.message.orders.forEach((o, i) => o.code && warn(p, `${quotes[i].side} ${orders[i].price}`, o));
    },
    async market(p, side, qty) {
      const r = await call(side === "buy" ? "/transaction/walletIn" : "/transaction/walletOut", {
        token: taker,
        body: { currency_id: p.currencyId, legal_id: p.legalId, mode: 1, num: fromUnits(qty, p.qd) },
      });
      if (r.type !== "ok") warn(p, `market ${side}`, r);
    },
  };
}

/** Cancels every open order of the maker (left by an earlier run, or by the old leaking version). */
async function cancelAll(maker) {
  for (let round = 0; round < 100; round++) {
    const r = await call("/new/transaction/index", { token: maker });
    const ids = (r.data?.lists ?? []).map((o) => o.id);
    if (ids.length === 0) return;
    for (const batch of chunks(ids)) await call("/transaction_del/batch", { token: maker, body: { ids: batch } });
  }
}

async function main() {
  const maker = await login("mm@exchange.test", "MarketMaker1234");
  const taker = await login("mm2@exchange.test", "MarketMaker1234");
  await cancelAll(maker);
  const quotes = await call("/currency/quotation_new");
  const rows = quotes.message?.[0]?.quotation ?? [];
  const pairs = [];
  for (const q of rows) {
    const bal = await call(`/transaction/balance?currency_id=${q.currency_id}&legal_id=${q.legal_id}`, { token: maker });
    if (bal.type !== "ok") continue;
    const pd = bal.message.price_decimals;
    const qd = bal.message.qty_decimals;
    // Start at the pair's index when it has one (limit orders must sit within the price band
    // around it), else at the last trade, else at the seeded start.
    const last = bal.message.index_price ?? (q.now_price && Number(q.now_price) > 0 ? q.now_price : START[q.currency_name]);
    if (!last) continue;
    pairs.push({
      currencyId: q.currency_id,
      legalId: q.legal_id,
      name: q.currency_name,
      pd,
      qd,
      mid: toUnits(last, pd),
      minNotional: toUnits(bal.message.min_notional, 2),
      rand: prng(SEED * 1000 + q.currency_id),
      tick: 0,
    });
  }
  console.log(`[market-maker] quoting ${LEVELS} levels a side on ${pairs.map((p) => p.name).join(", ")} on ${BASE}`);

  let stopping = false;
  process.on("SIGINT", () => (stopping = true));
  process.on("SIGTERM", () => (stopping = true));

  const api = httpApi(maker, taker);
  // One pair at a time, spread over the interval (each pair still steps once per interval when the
  // machine keeps up). Stepping all pairs at once sent a burst of a dozen requests every interval,
  // and a page or a user's order that arrived then waited behind all of them on the local runtime's
  // one thread (issue #17 §3); this way at most one step's requests are ahead of it, and on a busy
  // machine the market maker slows down instead of crowding out the people using the exchange.
  const slot = INTERVAL / Math.max(1, pairs.length);
  while (!stopping) {
    for (const p of pairs) {
      if (stopping) break;
      const started = Date.now();
      await step(p, api).catch((e) => console.warn(`[market-maker] ${p.name}: ${e.message}`));
      await new Promise((r) => setTimeout(r, Math.max(20, slot - (Date.now() - started))));
    }
  }
  // Leave the book as we found it: cancel our resting orders.
  await cancelAll(maker).catch(() => {});
  console.log("[market-maker] stopped");
}

main().catch((e) => {
  console.error(`[market-maker] ${e.message}`);
  process.exit(1);
});
