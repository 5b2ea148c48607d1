#!/usr/bin/env node
/**
 * Demo market maker for local runs (`npm start`; `MARKET_MAKER=off` disables it).
 *
 * It is an ordinary API client: two seeded, verified demo accounts place real orders through the
 * same endpoints as everyone else, with real (demo) funds. `mm@exchange.test` quotes six levels a
 * side around a seeded random walk per pair; `mm2@exchange.test` now and then sends a small
 * market order so deals and candles appear. Two accounts are needed because the engine's
 * self-trade prevention (rightly) never lets an account trade with itself. Nothing here touches
 * the database or the engine directly, and it never runs in a deployed Worker.
 *
 *   node scripts/market-maker.mjs --url http://127.0.0.1:8787 [--seed 7] [--interval 1000]
 */
const args = new Map();
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i].replace(/^--/, ""), process.argv[i + 1]);
const BASE = args.get("url") ?? process.env.MM_URL ?? "http://127.0.0.1:8787";
const INTERVAL = Number(args.get("interval") ?? 1000);
const SEED = Number(args.get("seed") ?? 7);

/** Reference starting points only: after the first trade every price is whatever the book does. */
const START = { BTC: "65000", ETH: "3500", DOGE: "0.15", LTC: "80", XRP: "0.6", BCH: "400" };
const LEVELS = 6;

// mulberry32: a small seeded PRNG, so a run's walk is reproducible.
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

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

/** Decimal string ↔ integer units at `d` decimals, without floats for the amounts sent. */
const toUnits = (s, d) => {
  const [i, f = ""] = String(s).split(".");
  return BigInt(i) * 10n ** BigInt(d) + BigInt((f + "0".repeat(d)).slice(0, d) || "0");
};
const fromUnits = (u, d) => {
  const neg = u < 0n;
  const a = neg ? -u : u;
  const s = a.toString().padStart(d + 1, "0");
  return (neg ? "-" : "") + (d ? `${s.slice(0, -d)}.${s.slice(-d)}` : s);
};

async function main() {
  const maker = await login("mm@exchange.test", "MarketMaker1234");
  const taker = await login("mm2@exchange.test", "MarketMaker1234");
  const quotes = await call("/currency/quotation_new");
  const rows = quotes.message?.[0]?.quotation ?? [];
  const pairs = [];
  for (const q of rows) {
    const bal = await call(`/transaction/balance?currency_id=${q.currency_id}&legal_id=${q.legal_id}`, { token: maker });
    if (bal.type !== "ok") continue;
    const pd = bal.message.price_decimals;
    const qd = bal.message.qty_decimals;
    const last = q.now_price && q.now_price !== "0" ? q.now_price : START[q.currency_name];
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
      orders: new Map(), // order id → price units
      tick: 0,
    });
  }
  console.log(`[market-maker] quoting ${pairs.map((p) => p.name).join(", ")} on ${BASE}`);

  let stopping = false;
  process.on("SIGINT", () => (stopping = true));
  process.on("SIGTERM", () => (stopping = true));

  while (!stopping) {
    const started = Date.now();
    await Promise.all(pairs.map((p) => step(p, maker, taker).catch((e) => console.warn(`[market-maker] ${p.name}: ${e.message}`))));
    await new Promise((r) => setTimeout(r, Math.max(50, INTERVAL - (Date.now() - started))));
  }
  // Leave the book as we found it: cancel our resting orders.
  for (const p of pairs) for (const id of p.orders.keys()) await call("/transaction_del", { token: maker, body: { id } }).catch(() => {});
  console.log("[market-maker] stopped");
}

/** One step of one pair: move the walk, refresh the quotes, sometimes take liquidity. */
async function step(p, maker, taker) {
  p.tick += 1;
  // Random walk with a small drift back towards nothing in particular: ±0.08 % per step.
  const bps = BigInt(Math.round((p.rand() - 0.5) * 16));
  p.mid = p.mid + (p.mid * bps) / 10000n;
  if (p.mid < 1n) p.mid = 1n;
  const spacing = p.mid / 2000n > 0n ? p.mid / 2000n : 1n; // 0.05 %
  // Cancel quotes that drifted more than the book's depth away from the new mid.
  for (const [id, price] of p.orders) {
    const off = price > p.mid ? price - p.mid : p.mid - price;
    if (off > spacing * BigInt(LEVELS + 1)) {
      await call("/transaction_del", { token: maker, body: { id } });
      p.orders.delete(id);
    }
  }
  const open = await call(`/new/transaction/index?currency_id=${p.currencyId}`, { token: maker });
  const live = new Set((open.data?.lists ?? []).map((o) => o.id));
  for (const id of [...p.orders.keys()]) if (!live.has(id)) p.orders.delete(id);
  const have = new Set([...p.orders.values()].map(String));
  for (let level = 1; level <= LEVELS; level++) {
    for (const side of ["buy", "sell"]) {
      const price = side === "buy" ? p.mid - spacing * BigInt(level) : p.mid + spacing * BigInt(level);
      if (price <= 0n || have.has(String(price))) continue;
      const qty = sizeFor(p, price, 3 + p.rand() * 40);
      const r = await call(side === "buy" ? "/transaction/walletIn" : "/transaction/walletOut", {
        token: maker,
        body: { currency_id: p.currencyId, legal_id: p.legalId, mode: 2, price: fromUnits(price, p.pd), num: fromUnits(qty, p.qd) },
      });
      if (r.type === "ok" && r.message.status === "open") p.orders.set(r.message.order_id, price);
      else if (r.type !== "ok" && process.env.MM_DEBUG) console.warn(`[market-maker] ${p.name} ${side} ${fromUnits(price, p.pd)}: ${r.code}`);
    }
  }
  // Every few steps a small market order from the second account makes a real deal.
  if (p.tick % 3 === 0) {
    const side = p.rand() < 0.5 ? "buy" : "sell";
    const qty = sizeFor(p, p.mid, 2 + p.rand() * 8); // above the minimum even at the market band's limit
    await call(side === "buy" ? "/transaction/walletIn" : "/transaction/walletOut", {
      token: taker,
      body: { currency_id: p.currencyId, legal_id: p.legalId, mode: 1, num: fromUnits(qty, p.qd) },
    });
  }
}

/** A quantity worth about `multiple` × the minimum order value at `price`. */
function sizeFor(p, price, multiple) {
  // value (2-decimal USDT) = price/10^pd × qty/10^qd; solve for qty units, rounded up to stay above the minimum.
  const target = (p.minNotional * BigInt(Math.round(multiple * 100))) / 100n;
  const num = target * 10n ** BigInt(p.pd + p.qd);
  const den = price * 100n;
  return num / den + 1n;
}

main().catch((e) => {
  console.error(`[market-maker] ${e.message}`);
  process.exit(1);
});
