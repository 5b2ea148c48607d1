/**
 * What the form shows before confirming: margin = price × lots × lot size / leverage and the open
 * fee = value × fee %, both rounded UP to 8 decimals as the server charges them
 * (durable/engine/margin.ts). Decimal strings in, decimal strings out; bigint in between.
 */
import { formatUnits, parseUnits } from "../../../../schemas/money.ts";

const SCALE = 8;
const E8 = 10n ** 8n;

const ceilDiv = (a: bigint, b: bigint) => (a + b - 1n) / b;

/**
 * Whether a lot count is one the pair offers: a whole number from min to max and a multiple of
 * its step (spec §5: quantities sometimes multiples of 10 or 100), as the server checks it.
 */
export function lotsOffered(lots: string, min: number, max: number, step: number): boolean {
  if (!/^\d{1,7}$/.test(lots)) return false;
  const n = Number(lots);
  return n >= min && n <= max && n % step === 0;
}

/** The next lot count offered from `lots` one step up or down, kept within min and max. */
export function stepLots(lots: string, min: number, max: number, step: number, dir: 1 | -1): string {
  const n = /^\d{1,7}$/.test(lots) ? Number(lots) : min;
  const next = dir === 1 ? Math.floor(n / step) * step + step : Math.ceil(n / step) * step - step;
  return String(Math.min(max, Math.max(min, next)));
}

/** The offered lot count nearest to what was typed: within min and max, rounded up to a multiple of the step. */
export function snapLots(lots: string, min: number, max: number, step: number): string {
  const n = /^\d{1,7}$/.test(lots) ? Number(lots) : min;
  const up = Math.ceil(n / step) * step;
  return String(Math.min(Math.floor(max / step) * step, Math.max(min, up)));
}

/**
 * The price at which a long's gain reaches its cap (the value at open, which the house holds):
 * open + value / (lots × lot size), i.e. about twice the open price, rounded up to the pair's
 * price decimals as the server does. Null for a short (its gain can never exceed the value).
 */
export function capPriceOf(price: string, priceDecimals: number): string | null {
  const p = parseUnits(price, priceDecimals);
  if (p === null || p <= 0n) return null;
  return formatUnits(p * 2n, priceDecimals);
}

/** Margin and fee in USDT for an order, or null while an input is missing or invalid. */
export function preview(price: string, lots: string, lotSize: string, leverage: number, feePercent: string): { margin: string; fee: string; value: string } | null {
  const p = parseUnits(price, SCALE);
  const s = parseUnits(lotSize, SCALE);
  const fee = parseUnits(feePercent, 2); // percent with 2 decimals = basis points
  if (!/^\d{1,7}$/.test(lots) || p === null || s === null || fee === null || p <= 0n || leverage < 1) return null;
  const n = BigInt(lots);
  if (n <= 0n) return null;
  const value16 = p * s * n; // 16 decimals
  return {
    value: formatUnits(ceilDiv(value16, E8), SCALE),
    margin: formatUnits(ceilDiv(value16, E8 * BigInt(leverage)), SCALE),
    fee: formatUnits(ceilDiv(value16 * fee, E8 * 10_000n), SCALE),
  };
}

const BPS = 10_000n;

/** floor(a / b) for b > 0, also for a negative a (BigInt division truncates toward zero). */
const floorDivSigned = (a: bigint, b: bigint) => {
  const q = a / b;
  return a % b !== 0n && a < 0n ? q - 1n : q;
};
const ceilDivSigned = (a: bigint, b: bigint) => -floorDivSigned(-a, b);

export interface OpenTerms {
  /** the position's value at the price (the house's hold: the most it can gain) */
  value: string;
  margin: string;
  /** the open fee (the close fee is the same rate on the value at close) */
  fee: string;
  /** what leaves the lever balance at open: margin + fee */
  cost: string;
  /** one day's overnight fee: value × daily rate, rounded up, taken from the margin */
  overnightPerDay: string;
  /** the forced-liquidation price at this open price; null when no positive price liquidates */
  liquidation: string | null;
}

/**
 * Everything an open charges and risks, at the price the server will price it at (the index for a
 * market open, the limit price for a limit), exactly as durable/engine/margin.ts computes it:
 * margin, fees and the overnight fee rounded up to 8 decimals (USDT), and the liquidation price —
 * for a long the highest price at which collateral + P/L ≤ margin × maintenance rate, for a short
 * the lowest — in the pair's price decimals. Null while an input is missing or invalid.
 */
export function openTerms(t: {
  direction: 1 | 2;
  price: string;
  lots: string;
  lotSize: string;
  leverage: number;
  feePercent: string;
  overnightPercent: string;
  maintenancePercent: string;
  priceDecimals: number;
}): OpenTerms | null {
  const base = preview(t.price, t.lots, t.lotSize, t.leverage, t.feePercent);
  const ticks = parseUnits(t.price, t.priceDecimals);
  const size = parseUnits(t.lotSize, SCALE);
  const overnightBps = parseUnits(t.overnightPercent, 2);
  const maintenanceBps = parseUnits(t.maintenancePercent, 2);
  if (!base || ticks === null || size === null || overnightBps === null || maintenanceBps === null || ticks <= 0n || size <= 0n) return null;
  const margin = parseUnits(base.margin, SCALE)!;
  const fee = parseUnits(base.fee, SCALE)!;
  const value16 = parseUnits(t.price, SCALE)! * size * BigInt(t.lots);
  const overnight = ceilDiv(value16 * overnightBps, E8 * BPS);
  // Money in 1e-8 USDT: value = ticks × lots × size(1e-8 coin) / 10^priceDecimals.
  const k = BigInt(t.lots) * size;
  const den = 10n ** BigInt(t.priceDecimals);
  const maintenance = ceilDiv(margin * maintenanceBps, BPS);
  const steps = ceilDivSigned((maintenance - margin + 1n) * den, k);
  let liq: bigint | null;
  if (t.direction === 1) {
    const px = ticks + steps - 1n;
    liq = px >= 1n ? px : null;
  } else {
    const px = ticks - steps + 1n;
    liq = px >= 1n ? px : 1n;
  }
  return {
    value: base.value,
    margin: base.margin,
    fee: base.fee,
    cost: formatUnits(margin + fee, SCALE),
    overnightPerDay: formatUnits(overnight, SCALE),
    liquidation: liq === null ? null : formatUnits(liq, t.priceDecimals),
  };
}


/** The exact sum of USDT amounts (8 decimals), e.g. the P/L of every position a "close all" closes; null if one is unknown. */
export function sumUsdt(values: readonly (string | null)[]): string | null {
  let total = 0n;
  for (const v of values) {
    const neg = v?.startsWith("-") ?? false;
    const u = v === null ? null : parseUnits(neg ? v.slice(1) : v, SCALE);
    if (u === null) return null;
    total += neg ? -u : u;
  }
  return formatUnits(total, SCALE);
}

/** A typed price at the pair's price decimals as the server stores it ("59500" → "59500.00"); as typed when it does not fit them. */
export function priceAt(value: string, priceDecimals: number): string {
  const u = parseUnits(value, priceDecimals);
  return u === null ? value : formatUnits(u, priceDecimals);
}
