/**
 * Display formatting. Prices, volumes and changes arrive as decimal strings and are formatted as
 * strings (schemas/money.ts): no value shown here ever passes through a JS number, so nothing is
 * rounded up or invented. A price of "0" means the pair has no trades yet and is shown as "--".
 */
import { formatUnits, parseUnits } from "../../../schemas/money.ts";

export const PLACEHOLDER = "--";

const DECIMAL_RE = /^-?\d+(\.\d+)?$/;

function asDecimalString(value: string | number | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  const s = typeof value === "number" ? (Number.isFinite(value) ? String(value) : "") : value.trim();
  return DECIMAL_RE.test(s) ? s : null;
}

/** A decimal string (or number) as sign, magnitude in units and its scale; null when not decimal. */
function decimalParts(value: string | number | null | undefined): { neg: boolean; units: bigint; scale: number } | null {
  const s = asDecimalString(value);
  if (s === null) return null;
  const neg = s.startsWith("-");
  const abs = neg ? s.slice(1) : s;
  const scale = abs.includes(".") ? (abs.split(".")[1] ?? "").length : 0;
  const units = parseUnits(abs, scale);
  return units === null ? null : { neg, units, scale };
}

export function isZeroDecimal(value: string): boolean {
  return /^-?0*(\.0*)?$/.test(value);
}

/** Inserts thousands separators into the integer part of a decimal string. */
export function groupThousands(value: string): string {
  const neg = value.startsWith("-");
  const abs = neg ? value.slice(1) : value;
  const [int = "0", frac] = abs.split(".");
  const grouped = int.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return (neg ? "-" : "") + grouped + (frac !== undefined ? `.${frac}` : "");
}

/** A last price as the API sent it, grouped; "--" when missing or zero (no trades yet). */
export function formatPrice(value: string | number | null | undefined): string {
  const s = asDecimalString(value);
  if (s === null || isZeroDecimal(s)) return PLACEHOLDER;
  return groupThousands(s);
}

/** A quantity divided by 1000 with two decimals (truncated), e.g. "123456.7" → "123.45". */
export function formatThousands(value: string | number | null | undefined): string {
  const d = decimalParts(value);
  if (d === null) return PLACEHOLDER;
  const { neg, units, scale } = d;
  return (neg ? "-" : "") + groupThousands(formatUnits(units, scale + 3, 2));
}

/**
 * An amount shortened with K (thousand), M (million) or B (billion) and two decimals, cut not
 * rounded, e.g. "1234567.8" → "1.23M", "999.999" → "999.99", "0" → "0.00". Exact: no number.
 */
export function formatCompact(value: string | number | null | undefined): string {
  const d = decimalParts(value);
  if (d === null) return PLACEHOLDER;
  const { neg, units, scale } = d;
  const whole = units / 10n ** BigInt(scale);
  const steps: [bigint, number, string][] = [
    [1_000_000_000n, 9, "B"],
    [1_000_000n, 6, "M"],
    [1_000n, 3, "K"],
  ];
  const [, shift, suffix] = steps.find(([min]) => whole >= min) ?? [0n, 0, ""];
  return (neg ? "-" : "") + groupThousands(formatUnits(units, scale + shift, 2)) + suffix;
}

export type Trend = "up" | "down" | "flat";

export function trendOf(change: string | number | null | undefined): Trend {
  const s = asDecimalString(change);
  if (s === null || isZeroDecimal(s)) return "flat";
  return s.startsWith("-") ? "down" : "up";
}

/** A percent change with an explicit sign and two decimals, e.g. "+1.25%", "-0.40%", "0.00%". */
export function formatChange(change: string | number | null | undefined): string {
  const d = decimalParts(change);
  if (d === null) return PLACEHOLDER;
  const { neg, units, scale } = d;
  const fixed = formatUnits(units, scale, 2);
  if (isZeroDecimal(fixed)) return "0.00%";
  return `${neg ? "-" : "+"}${fixed}%`;
}

/** Dates from the API come as "YYYY-MM-DD HH:mm:ss" strings or epoch numbers (s or ms). */
export function formatDateTime(value: string | number | null | undefined): string {
  if (value === null || value === undefined || value === "") return "";
  let date: Date;
  if (typeof value === "number" || /^\d+$/.test(value)) {
    const n = Number(value);
    date = new Date(n < 1e12 ? n * 1000 : n);
  } else {
    return value;
  }
  if (Number.isNaN(date.getTime())) return String(value);
  const p = (n: number) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${p(date.getMonth() + 1)}-${p(date.getDate())} ${p(date.getHours())}:${p(date.getMinutes())}`;
}

/** Month and day only ("11-21"), for tight spots such as the notice ticker. */
export function formatShortDate(value: string | number | null | undefined): string {
  const full = formatDateTime(value);
  const match = /^\d{4}-(\d{2}-\d{2})/.exec(full);
  return match?.[1] ?? full;
}
