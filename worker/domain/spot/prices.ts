/**
 * Real prices only (DESIGN §1): a coin's USDT value comes from `tickers.last_price`, which the spot
 * engine writes from executed trades. A coin without a ticker row has no price: its value is
 * reported as unknown (shown as "0.00"), never invented. All maths is bigint, rounded down.
 */
import { BTC_ID, USDT_ID } from "../../../schemas/wallet.ts";
import { formatUnits } from "../../../schemas/money.ts";
import { pairStub } from "./pairs.ts";

/** A price as an exact fraction: num / 10^dec. */
export interface Price {
  num: bigint;
  dec: number;
  text: string;
}

/** Parses a positive decimal price string; null for anything else (including "0"). */
export function parsePrice(text: string): Price | null {
  const m = /^(\d{1,30})(?:\.(\d{1,30}))?$/.exec(text.trim());
  if (!m) return null;
  const frac = m[2] ?? "";
  const num = BigInt((m[1] ?? "0") + frac);
  if (num <= 0n) return null;
  return { num, dec: frac.length, text: text.trim() };
}

/** The last traded price against USDT of every coin that has one. */
export async function usdtPrices(db: D1Database): Promise<Map<number, Price>> {
  const { results } = await db
    .prepare("SELECT p.currency_id, t.last_price FROM pairs p JOIN tickers t ON t.pair_id = p.id WHERE p.legal_id = ?")
    .bind(USDT_ID)
    .all<{ currency_id: number; last_price: string }>();
  const out = new Map<number, Price>();
  for (const r of results) {
    const p = parsePrice(r.last_price);
    if (p) out.set(r.currency_id, p);
  }
  return out;
}

/** The price of one coin against USDT, or null when it has never traded. */
export async function usdtPrice(db: D1Database, currencyId: number): Promise<Price | null> {
  const r = await db
    .prepare("SELECT t.last_price FROM pairs p JOIN tickers t ON t.pair_id = p.id WHERE p.currency_id = ? AND p.legal_id = ?")
    .bind(currencyId, USDT_ID)
    .first<{ last_price: string }>();
  return r ? parsePrice(r.last_price) : null;
}

/**
 * The USDT price of a coin where the house pays by it (flash exchange against the treasury): the
 * pair's index now, else its newest index tick (desks/seconds.ts), so a trade printed by two
 * accounts of one person on a thin book moves nothing paid out. A pair that never had an index
 * falls back to the last trade (`usdtPrice`), as it did before the index existed.
 */
export async function referenceUsdtPrice(env: { DB: D1Database; PAIR?: Env["PAIR"] }, currencyId: number): Promise<Price | null> {
  const pair = await env.DB.prepare("SELECT id, price_decimals FROM pairs WHERE currency_id = ? AND legal_id = ?").bind(currencyId, USDT_ID).first<{ id: number; price_decimals: number }>();
  if (pair && env.PAIR) {
    const ticks = await pairStub({ PAIR: env.PAIR }, pair.id).referenceNow(pair.id);
    if (ticks !== null) return parsePrice(formatUnits(BigInt(ticks), pair.price_decimals));
  }
  return usdtPrice(env.DB, currencyId);
}

const pow10 = (n: number) => 10n ** BigInt(n);

/** floor(units / 10^scale × price) expressed in minimal units at `targetScale`. */
export function mulPrice(units: bigint, scale: number, price: Price, targetScale: number): bigint {
  return (units * price.num * pow10(targetScale)) / pow10(scale + price.dec);
}

/** floor(units / 10^scale ÷ price) expressed in minimal units at `targetScale`. */
export function divPrice(units: bigint, scale: number, price: Price, targetScale: number): bigint {
  return (units * pow10(price.dec + targetScale)) / (price.num * pow10(scale));
}

/** Changes the scale of an amount, rounding down. */
export function rescale(units: bigint, from: number, to: number): bigint {
  return to >= from ? units * pow10(to - from) : units / pow10(from - to);
}

/**
 * The USDT value of an amount at `usdtScale` decimals: USDT itself is 1, a coin uses its last
 * price, and a coin without a price returns null.
 */
export function usdtValue(currencyId: number, units: bigint, scale: number, prices: Map<number, Price>, usdtScale: number): bigint | null {
  if (currencyId === USDT_ID) return rescale(units, scale, usdtScale);
  const p = prices.get(currencyId);
  return p ? mulPrice(units, scale, p, usdtScale) : null;
}

/**
 * Total value of holdings in BTC minimal units (8 decimals): BTC counts as itself, every other
 * coin through its USDT value divided by the BTC price. Coins without a price (or every non-BTC
 * coin when BTC has no price) count as zero: a conservative figure, never an invented one.
 */
export function holdingsInBtc(holdings: { currencyId: number; units: bigint; scale: number }[], prices: Map<number, Price>): bigint {
  const FINE = 18;
  let btc = 0n;
  let usdtFine = 0n;
  for (const h of holdings) {
    if (h.currencyId === BTC_ID) btc += rescale(h.units, h.scale, 8);
    else usdtFine += usdtValue(h.currencyId, h.units, h.scale, prices, FINE) ?? 0n;
  }
  const btcPrice = prices.get(BTC_ID);
  if (btcPrice && usdtFine > 0n) btc += divPrice(usdtFine, FINE, btcPrice, 8);
  return btc;
}
