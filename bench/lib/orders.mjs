// The order streams both end-to-end benchmarks send: seeded accounts, pairs with their units, and
// a maker/taker mix that trades without ever meeting self-trade prevention in the steady state.
import { fmt, prng } from "./client.mjs";

export const ACCOUNTS = {
  mm: { account: "mm@exchange.test", password: "MarketMaker1234" },
  demo1: { account: "demo1@exchange.test", password: "Demo1234" },
  demo2: { account: "demo2@exchange.test", password: "Demo1234" },
};

/** Pairs under load: price and quantity units follow the seeded pair decimals. Notional ≈ 8–12 USDT. */
export const PAIRS = [
  { pairId: 1, currencyId: 1, name: "BTC/USDT", pd: 2, qd: 6, mid: 6_000_000, step: 100, qty: 200 }, // 60000.00, 1.00 steps, 0.000200 BTC
  { pairId: 2, currencyId: 2, name: "ETH/USDT", pd: 2, qd: 5, mid: 300_000, step: 10, qty: 300 }, // 3000.00, 0.10, 0.00300 ETH
  { pairId: 6, currencyId: 6, name: "LTC/USDT", pd: 2, qd: 4, mid: 8_000, step: 1, qty: 1_000 }, // 80.00, 0.01, 0.1000 LTC
  { pairId: 11, currencyId: 11, name: "DOGE/USDT", pd: 5, qd: 1, mid: 15_000, step: 1, qty: 600 }, // 0.15000, 0.00001, 60.0 DOGE
];

/** Makers rest at mid ± 1..LEVELS steps; takers cross at mid ± CROSS steps. */
export const LEVELS = 20;
export const CROSS = 25;
/** mm makes, demo1 and demo2 take: 3 makers per 2 takers keeps liquidity on the book. */
export const CYCLE = ["mm", "demo1", "mm", "demo2", "mm"];

/**
 * An endless, reproducible order stream for one pair: { who, side, taker, price, num }.
 * Takers use the makers' size, so most take exactly one maker; when the other side is empty they
 * rest, and the next maker on that side trades with them.
 */
export function orderStream(pair, seed) {
  const rnd = prng(seed);
  let i = 0;
  return () => {
    const who = CYCLE[i++ % CYCLE.length];
    const side = rnd() < 0.5 ? "buy" : "sell";
    const taker = who !== "mm";
    const k = taker ? CROSS : 1 + Math.floor(rnd() * LEVELS);
    const price = side === "buy" ? pair.mid + (taker ? k : -k) * pair.step : pair.mid + (taker ? -k : k) * pair.step;
    return { who, side, taker, price: fmt(price, pair.pd), num: fmt(pair.qty, pair.qd) };
  };
}

/** The request of one limit order. */
export function orderRequest(pair, o, clientOid) {
  return {
    path: o.side === "buy" ? "/api/transaction/walletIn" : "/api/transaction/walletOut",
    body: { currency_id: pair.currencyId, legal_id: 3, price: o.price, num: o.num, mode: 2, ...(clientOid ? { client_oid: clientOid } : {}) },
  };
}

/** A book of mm makers on both sides of `pair` (LEVELS per side), as order descriptions. */
export function warmupOrders(pair) {
  const out = [];
  for (let k = 1; k <= LEVELS; k++) {
    for (const side of ["buy", "sell"]) {
      out.push({ who: "mm", side, taker: false, price: fmt(pair.mid + (side === "buy" ? -k : k) * pair.step, pair.pd), num: fmt(pair.qty * 2, pair.qd) });
    }
  }
  return out;
}

/**
 * The same mix in batches for POST /api/transaction/batch: each batch belongs to one account
 * (cycling mm, demo1, mm, demo2, mm), mm's are makers, the demo accounts' are takers.
 */
export function batchStream(pair, seed, size) {
  const rnd = prng(seed);
  let i = 0;
  return () => {
    const who = CYCLE[i++ % CYCLE.length];
    const taker = who !== "mm";
    const orders = [];
    for (let n = 0; n < size; n++) {
      const side = rnd() < 0.5 ? "buy" : "sell";
      const k = taker ? CROSS : 1 + Math.floor(rnd() * LEVELS);
      const price = side === "buy" ? pair.mid + (taker ? k : -k) * pair.step : pair.mid + (taker ? -k : k) * pair.step;
      orders.push({ who, side, taker, price: fmt(price, pair.pd), num: fmt(pair.qty, pair.qd) });
    }
    return { who, orders };
  };
}

/** The request of one batch of limit orders of one account. */
export function batchRequest(pair, orders) {
  return {
    path: "/api/transaction/batch",
    body: { currency_id: pair.currencyId, legal_id: 3, orders: orders.map((o) => ({ side: o.side, mode: 2, price: o.price, num: o.num })) },
  };
}
