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
