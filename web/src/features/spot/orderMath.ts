/**
 * Order-form arithmetic (spec §5 spot order rules) on decimal strings with bigint inside: the
 * quantity a slider percentage buys or sells, the order total, the market order's protective
 * price and the checks made before an order is sent. Nothing here goes through a JS number, so
 * the amount submitted is exactly the amount shown.
 */
import { formatUnits, parseUnits } from "../../../../schemas/decimal.ts";
import type { OrderMode, Side, SpotBalance } from "./api.ts";

/** Quantities are shown and entered with 5 decimals (spec §9), never more than the pair allows. */
export const QTY_DISPLAY_DECIMALS = 5;
/** A market order fills only within this percentage of the best opposite price (the server's band). */
export const MARKET_BAND_PERCENT = 10n;
/** Slider stops (spec §5). */
export const SLIDER_STEPS = [0, 25, 50, 75, 100] as const;

const DECIMAL_RE = /^\d+(\.\d+)?$/;

export function qtyDecimalsFor(pairQtyDecimals: number): number {
  return Math.max(0, Math.min(QTY_DISPLAY_DECIMALS, pairQtyDecimals));
}

/** The number of decimals a decimal string is written with ("1.50" → 2). */
function scaleOf(value: string): number {
  const dot = value.indexOf(".");
  return dot < 0 ? 0 : value.length - dot - 1;
}

/** A decimal string as (units, scale) at its own precision; null when it is not a plain decimal. */
export function toUnits(value: string | null | undefined): { units: bigint; scale: number } | null {
  if (!value) return null;
  const s = value.trim();
  if (!DECIMAL_RE.test(s)) return null;
  const scale = scaleOf(s);
  const units = parseUnits(s, scale);
  return units === null ? null : { units, scale };
}

const pow10 = (n: number) => 10n ** BigInt(n);

/** True when the string is a decimal above zero. */
export function isPositive(value: string | null | undefined): boolean {
  const u = toUnits(value);
  return u !== null && u.units > 0n;
}

/** Compares two decimal strings: -1, 0 or 1 (null when either is not a decimal). */
export function compareDecimals(a: string, b: string): -1 | 0 | 1 | null {
  const x = toUnits(a);
  const y = toUnits(b);
  if (!x || !y) return null;
  const l = x.units * pow10(y.scale);
  const r = y.units * pow10(x.scale);
  return l < r ? -1 : l > r ? 1 : 0;
}

/** price × quantity, truncated to `decimals` places (spec: order total to 2 decimals). */
export function orderTotal(price: string, qty: string, decimals = 2): string | null {
  const p = toUnits(price);
  const q = toUnits(qty);
  if (!p || !q) return null;
  return formatUnits(p.units * q.units, p.scale + q.scale, decimals);
}

/**
 * The protective limit of a market order, as the server computes it: the best opposite price
 * plus (buy) or minus (sell) 10 %, at the pair's price precision.
 */
export function marketLimitPrice(best: string, side: Side, priceDecimals: number): string | null {
  const units = parseUnits(best, priceDecimals);
  if (units === null || units <= 0n) return null;
  const band = (units * MARKET_BAND_PERCENT) / 100n;
  const limit = side === "buy" ? units + band : units - band > 0n ? units - band : 1n;
  return formatUnits(limit, priceDecimals);
}

/**
 * The quantity a slider percentage stands for (spec §5), rounded down to `decimals` places:
 * buying, available USDT / price × percent; selling, available coin × percent.
 */
export function sliderQuantity(opts: {
  side: Side;
  percent: number;
  price: string;
  availableLegal: string;
  availableCurrency: string;
  decimals: number;
}): string {
  const pct = BigInt(Math.max(0, Math.min(100, Math.round(opts.percent))));
  if (pct === 0n) return "";
  const d = opts.decimals;
  let units: bigint;
  if (opts.side === "buy") {
    const a = toUnits(opts.availableLegal);
    const p = toUnits(opts.price);
    if (!a || !p || p.units <= 0n) return "";
    units = (a.units * pow10(p.scale) * pct * pow10(d)) / (pow10(a.scale) * p.units * 100n);
  } else {
    const b = toUnits(opts.availableCurrency);
    if (!b) return "";
    units = (b.units * pct * pow10(d)) / (pow10(b.scale) * 100n);
  }
  if (units <= 0n) return formatUnits(0n, d);
  return formatUnits(units, d);
}

/**
 * Keeps what the user types a plain decimal with at most `maxDecimals` places: digits and one
 * point (a comma counts as the point), no signs or exponents.
 */
export function sanitizeDecimalInput(raw: string, maxDecimals: number): string {
  let s = raw.replace(/,/g, ".").replace(/[^\d.]/g, "");
  const dot = s.indexOf(".");
  if (dot >= 0) {
    const int = s.slice(0, dot);
    let frac = s.slice(dot + 1).replace(/\./g, "");
    if (maxDecimals <= 0) return int;
    frac = frac.slice(0, maxDecimals);
    s = `${int === "" ? "0" : int}.${frac}`;
  }
  // "007" → "7", but keep "0" and "0.x".
  s = s.replace(/^0+(?=\d)/, "");
  return s;
}

export interface OrderCheckInput {
  side: Side;
  mode: OrderMode;
  /** The limit price typed (limit orders). */
  price: string;
  qty: string;
  /** Best opposite price (market orders), or null when that side of the book is empty. */
  bestOpposite: string | null;
  balance: SpotBalance;
}

export interface OrderProblem {
  key: "price_positive" | "buy_qty_positive" | "sell_qty_positive" | "buy_total_positive" | "too_many_decimals" | "min_notional" | "no_liquidity" | "insufficient_balance" | "price_out_of_band";
  params?: Record<string, string | number>;
}

/**
 * The checks made before sending (spec §5): price above 0, quantity above 0 (distinct buy and
 * sell messages), precision, the minimum order value and the available balance. Returns the
 * first problem, or null with the price the order is priced at (a market order's protective limit).
 */
export function checkOrder(input: OrderCheckInput): { problem: OrderProblem } | { problem: null; effectivePrice: string } {
  const { side, mode, balance } = input;
  let price: string;
  if (mode === 2) {
    if (!isPositive(input.price)) return { problem: { key: "price_positive" } };
    if (parseUnits(input.price, balance.price_decimals) === null) {
      return { problem: { key: "too_many_decimals", params: { decimals: balance.price_decimals } } };
    }
    if (outsideBand(input.price, balance)) {
      return { problem: { key: "price_out_of_band", params: { percent: balance.price_band_percent, low: balance.price_band_low!, high: balance.price_band_high! } } };
    }
    price = input.price;
  } else {
    const limit = input.bestOpposite ? marketLimitPrice(input.bestOpposite, side, balance.price_decimals) : null;
    if (!limit) {
      if (!isPositive(input.qty)) return { problem: { key: side === "buy" ? "buy_qty_positive" : "sell_qty_positive" } };
      return { problem: { key: "no_liquidity" } };
    }
    price = limit;
  }
  if (!isPositive(input.qty)) return { problem: { key: side === "buy" ? "buy_qty_positive" : "sell_qty_positive" } };
  const qd = qtyDecimalsFor(balance.qty_decimals);
  if (parseUnits(input.qty, qd) === null) return { problem: { key: "too_many_decimals", params: { decimals: qd } } };

  const notional = orderTotal(price, input.qty, 8) ?? "0";
  if (compareDecimals(notional, balance.min_notional) === -1) {
    return { problem: { key: "min_notional", params: { min: balance.min_notional } } };
  }
  const needed = side === "buy" ? notional : input.qty;
  const available = side === "buy" ? balance.user_legal : balance.user_currency;
  if (compareDecimals(needed, available) === 1) return { problem: { key: "insufficient_balance" } };
  return { problem: null, effectivePrice: price };
}

/** Whether a limit price lies outside the pair's price band around the index (none while the book has no index). */
export function outsideBand(price: string, balance: SpotBalance): boolean {
  if (balance.price_band_low === null || balance.price_band_high === null) return false;
  return compareDecimals(price, balance.price_band_low) === -1 || compareDecimals(price, balance.price_band_high) === 1;
}

/**
 * A limit order priced beyond the market band (a buy more than 10 % above the best ask, a sell
 * more than 10 % below the best bid) is most likely a typing slip: the form asks before sending.
 */
export function farFromMarket(side: Side, price: string, bestOpposite: string | null): boolean {
  if (!bestOpposite) return false;
  const p = toUnits(price);
  const b = toUnits(bestOpposite);
  if (!p || !b || b.units <= 0n) return false;
  const lhs = p.units * pow10(b.scale) * 100n;
  const rhs = b.units * pow10(p.scale);
  return side === "buy" ? lhs > rhs * (100n + MARKET_BAND_PERCENT) : lhs < rhs * (100n - MARKET_BAND_PERCENT);
}

/** Cuts a decimal string to at most `max` decimals (truncating); shorter strings are left as they are. */
export function clampDecimals(value: string, max: number): string {
  const u = toUnits(value);
  if (!u || u.scale <= max) return value;
  return formatUnits(u.units, u.scale, max);
}

/** A market buy by total is entered in USDT with this many decimals. */
export const TOTAL_DECIMALS = 2;

/** The slider for a market buy by total: that share of the available USDT, cut to 2 decimals. */
export function sliderTotal(percent: number, availableLegal: string): string {
  const pct = BigInt(Math.max(0, Math.min(100, Math.round(percent))));
  const a = toUnits(availableLegal);
  if (pct === 0n || !a) return "";
  return formatUnits((a.units * pct * pow10(TOTAL_DECIMALS)) / (pow10(a.scale) * 100n), TOTAL_DECIMALS);
}

/** The same rules as the server's for a market buy by total (spend `total` USDT). */
export function checkTotal(input: { total: string; bestAsk: string | null; balance: SpotBalance }): { problem: OrderProblem | null } {
  const { total, balance } = input;
  if (!isPositive(total)) return { problem: { key: "buy_total_positive" } };
  if (parseUnits(total, TOTAL_DECIMALS) === null) return { problem: { key: "too_many_decimals", params: { decimals: TOTAL_DECIMALS } } };
  if (!input.bestAsk || !isPositive(input.bestAsk)) return { problem: { key: "no_liquidity" } };
  if (compareDecimals(total, balance.min_notional) === -1) return { problem: { key: "min_notional", params: { min: balance.min_notional } } };
  if (compareDecimals(total, balance.user_legal) === 1) return { problem: { key: "insufficient_balance" } };
  return { problem: null };
}
