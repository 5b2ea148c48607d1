/**
 * Decimal strings ↔ bigint minimal units (10^-scale), with no zod: the web app's formatting
 * (web/src/lib/format.ts) imports this file alone, so a screen that only shows numbers never
 * downloads zod. `./money.ts` re-exports everything here beside its zod schemas.
 */

/** The largest amount a single balance may hold, in minimal units (D1 reads integers as JS numbers). */
export const MAX_UNITS = BigInt(Number.MAX_SAFE_INTEGER);

/** A non-negative plain decimal: up to 20 integer digits and 30 decimals, no sign or exponent. */
export const DECIMAL_RE = /^(\d{1,20})(?:\.(\d{1,30}))?$/;

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
