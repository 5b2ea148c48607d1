/**
 * Money on screen (DESIGN §3, spec §9 precision): balances and fees arrive as decimal strings at
 * the currency's scale and are compared, added and truncated as bigint minimal units here, never
 * as JS numbers. Showing them is lib/format.ts's business (one formatter).
 */
import { formatUnits, parseUnits } from "../../../schemas/decimal.ts";

const SIGNED_RE = /^(-?)(\d+)(?:\.(\d+))?$/;

/** Number of decimals a decimal string carries ("1.50" → 2, "3" → 0). */
export function decimalsOf(value: string): number {
  const frac = value.trim().split(".")[1];
  return frac ? frac.length : 0;
}

/** A signed decimal string as minimal units at `scale`; null when it is not a decimal or has too many decimals. */
export function toUnits(value: string | null | undefined, scale: number): bigint | null {
  if (value === null || value === undefined) return null;
  const m = SIGNED_RE.exec(value.trim());
  if (!m) return null;
  const units = parseUnits(`${m[2] ?? "0"}${m[3] ? `.${m[3]}` : ""}`, scale);
  if (units === null) return null;
  return m[1] === "-" ? -units : units;
}

/** Minimal units as a decimal string with exactly `decimals` places (truncated). */
export function fromUnits(units: bigint, scale: number, decimals: number = scale): string {
  return formatUnits(units, scale, decimals);
}

/** Minimal units as a decimal string with trailing zeros dropped ("12.5", "3"). */
export function fromUnitsTrim(units: bigint, scale: number): string {
  const s = formatUnits(units, scale);
  return s.includes(".") ? s.replace(/\.?0+$/, "") : s;
}

/**
 * A decimal string cut (not rounded) to `decimals` places, e.g. ("1.23999", 2) → "1.23".
 * Anything that is not a decimal comes back as "--".
 */
export function truncate(value: string | null | undefined, decimals: number): string {
  if (value === null || value === undefined) return "--";
  const scale = Math.max(decimalsOf(value), decimals);
  const units = toUnits(value, scale);
  if (units === null) return "--";
  return formatUnits(units, scale, decimals);
}

/** Compares two decimal strings exactly: -1, 0 or 1 (null when either is not a decimal). */
export function compareDecimal(a: string, b: string): -1 | 0 | 1 | null {
  const scale = Math.max(decimalsOf(a), decimalsOf(b));
  const x = toUnits(a, scale);
  const y = toUnits(b, scale);
  if (x === null || y === null) return null;
  return x < y ? -1 : x > y ? 1 : 0;
}

export function isPositiveDecimal(value: string | null | undefined): boolean {
  if (!value) return false;
  const scale = decimalsOf(value);
  const u = toUnits(value, scale);
  return u !== null && u > 0n;
}

/** Keeps what a user types in an amount field to digits and one dot, at most `scale` decimals. */
export function sanitizeAmountInput(raw: string, scale: number): string {
  let s = raw.replace(/,/g, ".").replace(/[^\d.]/g, "");
  const dot = s.indexOf(".");
  if (dot !== -1) s = s.slice(0, dot + 1) + s.slice(dot + 1).replace(/\./g, "");
  if (scale === 0) return s.replace(/\..*$/, "");
  const [int = "", frac] = s.split(".");
  const cleanInt = int.replace(/^0+(?=\d)/, "");
  return frac === undefined ? cleanInt : `${cleanInt === "" ? "0" : cleanInt}.${frac.slice(0, scale)}`;
}
