/**
 * The demo market maker's decisions, with no network in them (scripts/market-maker.mjs does the
 * talking), so they are tested in plain Node against a small fake exchange (tests/unit/).
 *
 * Why it is shaped like this: the first version placed a fresh ladder at the new mid every step,
 * remembered its orders in a map and forgot every order that the open-order list (newest 100)
 * no longer showed. The forgotten orders were never cancelled, so each pair's book filled with
 * stale quotes whose frozen funds ran one side of the inventory dry (ETH asks vanished for
 * minutes). Now the server's open-order list is the only memory: every step each open order is
 * kept only while it is on the right side of the mid and within the ladder's depth, everything
 * else is cancelled, and missing levels are placed in one batch, sized to what the account can
 * pay for. The taking account leans its market orders towards whatever refills the maker's
 * short side, so neither side runs out while both accounts hold funds.
 */

/** Levels quoted on each side. */
export const LEVELS = 6;
/** Batch endpoints take at most this many orders or ids. */
export const MAX_BATCH = 20;
/** Balances are compared at this many decimals (the largest currency scale). */
const SCALE = 8;

// mulberry32: a small seeded PRNG, so a run's walk is reproducible.
/** @param {number} seed */
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

/** Decimal string → integer units at `d` decimals (extra decimals are cut), without floats. */
export function toUnits(/** @type {string} */ s, /** @type {number} */ d) {
  const str = String(s).trim();
  const neg = str.startsWith("-");
  const [i = "0", f = ""] = (neg ? str.slice(1) : str).split(".");
  const u = BigInt(i || "0") * 10n ** BigInt(d) + BigInt((f + "0".repeat(d)).slice(0, d) || "0");
  return neg ? -u : u;
}

/** Integer units at `d` decimals → decimal string. */
export function fromUnits(/** @type {bigint} */ u, /** @type {number} */ d) {
  const neg = u < 0n;
  const a = neg ? -u : u;
  const s = a.toString().padStart(d + 1, "0");
  return (neg ? "-" : "") + (d ? `${s.slice(0, -d)}.${s.slice(-d)}` : s);
}

/**
 * @typedef {{ pd: number, qd: number, minNotional: bigint }} PairRules
 *   price and quantity decimals, minimum order value in USDT at 2 decimals
 * @typedef {{ id: string, side: "buy" | "sell", price: bigint }} OpenQuote
 * @typedef {{ side: "buy" | "sell", price: bigint, qty: bigint }} NewQuote
 */

/** Value of `qty` at `price` in quote units at SCALE decimals. */
export function valueOf(/** @type {PairRules} */ p, /** @type {bigint} */ price, /** @type {bigint} */ qty) {
  return (price * qty * 10n ** BigInt(SCALE)) / 10n ** BigInt(p.pd + p.qd);
}

/** A quantity worth about `multiple` × the minimum order value at `price`, rounded up. */
export function sizeFor(/** @type {PairRules} */ p, /** @type {bigint} */ price, /** @type {number} */ multiple) {
  const target = (p.minNotional * BigInt(Math.round(multiple * 100))) / 100n;
  return (target * 10n ** BigInt(p.pd + p.qd)) / (price * 100n) + 1n;
}

/** The smallest quantity at `price` that meets the minimum order value. */
const minQty = (/** @type {PairRules} */ p, /** @type {bigint} */ price) => sizeFor(p, price, 1);

/** Spacing between levels: 0.05 % of the mid, at least one price unit. */
export const spacingFor = (/** @type {bigint} */ mid) => (mid / 2000n > 0n ? mid / 2000n : 1n);

/**
 * What to do with one side of one pair's quotes this step.
 * Keeps an open order while it sits strictly on its side of the mid and no deeper than the
 * ladder (so a new quote can never cross one of our own: self-trade prevention would expire it),
 * one order per level; cancels every other open order, including ones we never placed this run;
 * returns the level prices that have no order.
 * @param {{ mid: bigint, side: "buy" | "sell", open: OpenQuote[], levels?: number }} a
 * @returns {{ cancel: string[], missing: bigint[] }}
 */
export function planSide({ mid, side, open, levels = LEVELS }) {
  const spacing = spacingFor(mid);
  const levelOf = (/** @type {bigint} */ price) => {
    const off = side === "buy" ? mid - price : price - mid;
    if (off <= 0n) return 0; // at or through the mid: would cross a new quote of the other side
    // nearest level, rounding half up
    const n = Number((off + spacing / 2n) / spacing);
    return n >= 1 && n <= levels ? n : 0;
  };
  const taken = new Set();
  const cancel = [];
  for (const o of open) {
    if (o.side !== side) continue;
    const n = levelOf(o.price);
    if (n === 0 || taken.has(n)) cancel.push(o.id);
    else taken.add(n);
  }
  const missing = [];
  for (let n = 1; n <= levels; n++) {
    if (taken.has(n)) continue;
    const price = side === "buy" ? mid - spacing * BigInt(n) : mid + spacing * BigInt(n);
    if (price > 0n) missing.push(price);
  }
  return { cancel, missing };
}

/**
 * Sizes new quotes so one side never asks for more than `share` of what the account holds free:
 * each level gets a random multiple of the minimum, cut to an equal part of that budget; a level
 * the budget cannot pay at the minimum value is left out (it would only be refused).
 * @param {{ rules: PairRules, side: "buy" | "sell", prices: bigint[], available: bigint, rand: () => number, share?: number }} a
 *   `available` is the free balance at SCALE decimals: quote for buys, base for sells.
 * @returns {NewQuote[]}
 */
export function sizeQuotes({ rules, side, prices, available, rand, share = 0.5 }) {
  if (prices.length === 0 || available <= 0n) return [];
  const budget = (available * BigInt(Math.round(share * 1000))) / 1000n / BigInt(prices.length);
  const out = [];
  for (const price of prices) {
    let qty = sizeFor(rules, price, 3 + rand() * 40);
    // the level's cost in the currency it freezes, at SCALE decimals
    const cost = (/** @type {bigint} */ q) => (side === "buy" ? valueOf(rules, price, q) : (q * 10n ** BigInt(SCALE)) / 10n ** BigInt(rules.qd));
    if (cost(qty) > budget) {
      qty = side === "buy" ? (budget * 10n ** BigInt(rules.pd + rules.qd)) / (price * 10n ** BigInt(SCALE)) : (budget * 10n ** BigInt(rules.qd)) / 10n ** BigInt(SCALE);
    }
    if (qty < minQty(rules, price)) continue;
    out.push({ side, price, qty });
  }
  return out;
}

/**
 * Which way the taking account trades: towards refilling the maker's short side. When the
 * maker's base holding is worth less than 40 % of its pair inventory the taker sells into the
 * maker's bids (the maker buys base back), above 60 % it buys the maker's asks, in between it
 * flips a coin. A side the taker cannot pay for (`takerCan`) is never chosen; null = neither.
 * @param {{ makerBaseValue: bigint, makerQuote: bigint, rand: () => number, takerCan: { buy: boolean, sell: boolean } }} a
 * @returns {"buy" | "sell" | null}
 */
export function takerSide({ makerBaseValue, makerQuote, rand, takerCan }) {
  const total = makerBaseValue + makerQuote;
  let side = rand() < 0.5 ? "buy" : "sell";
  if (total > 0n) {
    const baseShare = Number((makerBaseValue * 1000n) / total) / 1000;
    if (baseShare < 0.4) side = "sell";
    else if (baseShare > 0.6) side = "buy";
  }
  if (takerCan[side]) return /** @type {"buy" | "sell"} */ (side);
  const other = side === "buy" ? "sell" : "buy";
  return takerCan[other] ? other : null;
}

/** Splits `items` into chunks the batch endpoints accept. */
export function chunks(/** @type {any[]} */ items, size = MAX_BATCH) {
  const out = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * @typedef {{ base: bigint, quote: bigint, heldBase: bigint, heldQuote: bigint }} Free
 *   free and frozen balances at SCALE decimals
 * @typedef {{
 *   openOrders(pair: MakerPair): Promise<OpenQuote[]>,
 *   balance(pair: MakerPair, who: "maker" | "taker"): Promise<Free>,
 *   cancel(ids: string[]): Promise<void>,
 *   place(pair: MakerPair, quotes: NewQuote[]): Promise<void>,
 *   market(pair: MakerPair, side: "buy" | "sell", qty: bigint): Promise<void>,
 * }} MakerApi  what the loop needs from the exchange (HTTP in market-maker.mjs, in memory in tests)
 * @typedef {PairRules & { name: string, mid: bigint, rand: () => number, tick: number }} MakerPair
 */

/**
 * One step of one pair: move the walk, bring both sides of the ladder back to six levels, and
 * every third step let the taker trade a little.
 * @param {MakerPair} p
 * @param {MakerApi} api
 */
export async function step(p, api) {
  p.tick += 1;
  // Random walk: ±0.08 % per step at most.
  const bps = BigInt(Math.round((p.rand() - 0.5) * 16));
  p.mid = p.mid + (p.mid * bps) / 10000n;
  if (p.mid < 1n) p.mid = 1n;

  const [open, free] = await Promise.all([api.openOrders(p), api.balance(p, "maker")]);
  const buys = planSide({ mid: p.mid, side: "buy", open });
  const sells = planSide({ mid: p.mid, side: "sell", open });
  for (const ids of chunks([...buys.cancel, ...sells.cancel])) await api.cancel(ids);
  // Funds of what was just cancelled come back a moment later; sizing uses what is free now.
  const quotes = [
    ...sizeQuotes({ rules: p, side: "buy", prices: buys.missing, available: free.quote, rand: p.rand }),
    ...sizeQuotes({ rules: p, side: "sell", prices: sells.missing, available: free.base, rand: p.rand }),
  ];
  for (const batch of chunks(quotes)) await api.place(p, batch);

  if (p.tick % 3 === 0) {
    const taker = await api.balance(p, "taker");
    const qty = sizeFor(p, p.mid, 2 + p.rand() * 8);
    const side = takerSide({
      makerBaseValue: valueOf(p, p.mid, ((free.base + free.heldBase) * 10n ** BigInt(p.qd)) / 10n ** BigInt(SCALE)),
      makerQuote: free.quote + free.heldQuote,
      rand: p.rand,
      // a market buy may fill up to 10 % above the best ask: keep that much room
      takerCan: { buy: taker.quote > (valueOf(p, p.mid, qty) * 12n) / 10n, sell: taker.base > (qty * 10n ** BigInt(SCALE)) / 10n ** BigInt(p.qd) },
    });
    if (side) await api.market(p, side, qty);
  }
}

export { SCALE };
