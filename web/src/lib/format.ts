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
  const s = asDecimalString(value);
  if (s === null) return PLACEHOLDER;
  const neg = s.startsWith("-");
  const abs = neg ? s.slice(1) : s;
  const scale = abs.includes(".") ? (abs.split(".")[1] ?? "").length : 0;
  const units = parseUnits(abs, scale);
  if (units === null) return PLACEHOLDER;
  return (neg ? "-" : "") + groupThousands(formatUnits(units, scale + 3, 2));
}

export type Trend = "up" | "down" | "flat";

export function trendOf(change: string | number | null | undefined): Trend {
  const s = asDecimalString(change);
  if (s === null || isZeroDecimal(s)) return "flat";
  return s.startsWith("-") ? "down" : "up";
}

/** A percent change with an explicit sign and two decimals, e.g. "+1.25%", "-0.40%", "0.00%". */
export function formatChange(change: string | number | null | undefined): string {
  const s = asDecimalString(change);
  if (s === null) return PLACEHOLDER;
  const neg = s.startsWith("-");
  const abs = neg ? s.slice(1) : s;
  const scale = abs.includes(".") ? (abs.split(".")[1] ?? "").length : 0;
  const units = parseUnits(abs, scale);
  if (units === null) return PLACEHOLDER;
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
