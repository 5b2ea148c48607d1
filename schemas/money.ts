/**
 * Decimal strings on the wire, bigint fixed-point inside. Amounts are stored in a currency's
 * minimal units (10^-scale); nothing here ever goes through a JS number.
 */
import { z } from "zod";

/** The largest amount a single balance may hold, in minimal units (D1 reads integers as JS numbers). */
export const MAX_UNITS = BigInt(Number.MAX_SAFE_INTEGER);

const DECIMAL_RE = /^(\d{1,20})(?:\.(\d{1,30}))?$/;

/**
 * A non-negative decimal string such as "12.5"; no sign, no exponent, no spaces. Built in a pure
 * call, so a bundle that needs only the bigint helpers below (the web app's formatting) leaves
 * zod out.
 */
export const decimalStringSchema = /* @__PURE__ */ (() =>
  z
    .union([z.string(), z.number()], { message: "invalid_amount" })
    .transform((v) => (typeof v === "number" ? numberToPlainString(v) : v.trim()))
    .pipe(z.string().regex(DECIMAL_RE, { message: "invalid_amount" })))();

function numberToPlainString(n: number): string {
  // Clients may send JSON numbers; accept only those that print exactly as plain decimals.
  if (!Number.isFinite(n) || n < 0) return "invalid";
  const s = String(n);
  return /e/i.test(s) ? "invalid" : s;
}

/** Parses a decimal string into minimal units at `scale`; null when it has more decimals than scale. */
export function parseUnits(value: string, scale: number): bigint | null {
  const m = DECIMAL_RE.exec(value.trim());
  if (!m) return null;
  const int = m[1] ?? "0";
  const frac = (m[2] ?? "").replace(/0+$/, "");
  if (frac.length > scale) return null;
  return BigInt(int) * 10n ** BigInt(scale) + BigInt(frac.padEnd(scale, "0") || "0");
}

/** Formats minimal units as a decimal string with exactly `decimals` places (truncating, never rounding up). */
export function formatUnits(units: bigint, scale: number, decimals: number = scale): string {
  const neg = units < 0n;
  let abs = neg ? -units : units;
  if (decimals < scale) abs = abs / 10n ** BigInt(scale - decimals);
  const d = Math.max(decimals, 0);
  const pad = d > scale ? 10n ** BigInt(d - scale) : 1n;
  const scaled = abs * pad;
  const base = 10n ** BigInt(d);
  const int = scaled / base;
  const frac = (scaled % base).toString().padStart(d, "0");
  return (neg ? "-" : "") + int.toString() + (d > 0 ? "." + frac : "");
}

/** Formats minimal units with trailing zeros removed ("1.5", "2"). */
export function formatUnitsTrim(units: bigint, scale: number): string {
  const s = formatUnits(units, scale);
  return s.includes(".") ? s.replace(/\.?0+$/, "") : s;
}

/** Multiplies two fixed-point values and rescales, rounding toward zero. */
export function mulDiv(a: bigint, b: bigint, divisor: bigint): bigint {
  return (a * b) / divisor;
}
