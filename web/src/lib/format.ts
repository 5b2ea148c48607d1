/**
 * The one number formatter of the web app (issue #8 §6): every price, amount, volume, change and
 * chart axis label on screen goes through here, so they all group thousands with "," and cut
 * decimals the same way. Prices, volumes, changes and money arrive as decimal strings and are
 * formatted as strings (schemas/decimal.ts): no amount shown here ever passes through a JS number,
 * so nothing is rounded up or invented. Display always truncates (never rounds a balance up).
 * A price of "0" means the pair has no trades yet and is shown as "--". The only numbers
 * formatted are the chart's axis and legend values, which the chart library itself computes as
 * floats (`chartPriceFormatter`).
 */
import { formatUnits, parseUnits } from "../../../schemas/decimal.ts";

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

/**
 * A decimal string cut (not rounded) to exactly `decimals` places and grouped, e.g.
 * ("12345.6789", 2) → "12,345.67", ("5", 2) → "5.00". "--" for anything that is not a decimal.
 */
export function formatAmount(value: string | null | undefined, decimals: number): string {
  const d = decimalParts(value);
  if (d === null) return PLACEHOLDER;
  const { neg, units, scale } = d;
  const cut = formatUnits(units, scale, decimals);
  return (neg && !isZeroDecimal(cut) ? "-" : "") + groupThousands(cut);
}

/** A decimal string as sent, without trailing zeros, grouped ("10000.00000000" → "10,000"). */
export function formatExact(value: string | null | undefined): string {
  const d = decimalParts(value);
  if (d === null) return PLACEHOLDER;
  const { neg, units, scale } = d;
  const s = formatUnits(units, scale);
  const trimmed = s.includes(".") ? s.replace(/\.?0+$/, "") : s;
  return (neg && !isZeroDecimal(trimmed) ? "-" : "") + groupThousands(trimmed);
}

/** A decimal string cut to at most `max` decimals (trailing zeros as sent), grouped: ("0.123456789", 6) → "0.123456". */
export function formatUpTo(value: string | null | undefined, max: number): string {
  const d = decimalParts(value);
  if (d === null) return PLACEHOLDER;
  return formatAmount(value, Math.min(d.scale, max));
}

/**
 * THE precision rule for an amount of a currency (issue #16 §3), the same on every screen that
 * shows one (assets, transfer, withdrawal, records, spot, conversion):
 * - USDT (the quote and fiat-like currency): exactly 2 decimals ("10,000.00", "62.32");
 * - every coin: up to 8 decimals (no listed coin keeps more), trailing zeros trimmed but never
 *   below 2 ("1.00499", "0.10", "12.00");
 * - always cut, never rounded: a balance is never shown as more than the user has.
 */
export function moneyDecimals(currencyName: string): { min: number; max: number } {
  return currencyName.trim().toUpperCase() === "USDT" ? { min: 2, max: 2 } : { min: 2, max: 8 };
}

/** The most decimals the rule shows for a currency: USDT 2, a coin 8. */
export function currencyDecimals(currencyName: string): number {
  return moneyDecimals(currencyName).max;
}

/**
 * An amount of a currency by the one rule (moneyDecimals), grouped, e.g. ("10000.00000000",
 * "USDT") → "10,000.00", ("1.00499", "BTC") → "1.00499", ("0.5", "BTC") → "0.50". "--" when not
 * a decimal.
 */
export function formatMoney(value: string | null | undefined, currencyName: string): string {
  const d = decimalParts(value);
  if (d === null) return PLACEHOLDER;
  const { min, max } = moneyDecimals(currencyName);
  const { neg, units, scale } = d;
  let cut = formatUnits(units, scale, max);
  const keep = cut.indexOf(".") + 1 + min;
  while (cut.length > keep && cut.endsWith("0")) cut = cut.slice(0, -1);
  return (neg && !isZeroDecimal(cut) ? "-" : "") + groupThousands(cut);
}

/**
 * An amount about to move (what a confirm dialog says will be taken, paid or received): the rule's
 * decimals, but never cut, so a typed 10.123 USDT reads "10.123", not "10.12". Trailing zeros are
 * trimmed down to the rule's minimum ("10.00", "0.50").
 */
export function formatMoneyMoved(value: string | null | undefined, currencyName: string): string {
  const exact = formatExact(value);
  if (exact === PLACEHOLDER) return exact;
  const { min } = moneyDecimals(currencyName);
  const [int, frac = ""] = exact.split(".");
  return frac.length >= min ? exact : `${int}.${frac.padEnd(min, "0")}`;
}

/**
 * The price formatter of the candle chart's axis, crosshair and legend. lightweight-charts works
 * in floats and hands us a float; it is shown at the pair's price precision with the same
 * grouping as every other price. (Chart coordinates, not money: nothing is computed from them.)
 */
export function chartPriceFormatter(precision: number): (price: number) => string {
  const digits = Math.max(0, Math.min(precision, 20));
  return (price: number) => (Number.isFinite(price) ? groupThousands(price.toFixed(digits)) : PLACEHOLDER);
}

/**
 * The one time rule (issue #26): every time is shown in Beijing time (Asia/Shanghai, UTC+8, no
 * daylight saving), the zone the exchange's days, rebates and charts run on, and always carries
 * this label, so a phone anywhere reads the same moment the same way and knows which zone it is.
 * A table of times may label its column instead (`timeHeading`) and show `formatClock` in the cells.
 */
export const TIME_ZONE_LABEL = "UTC+8";
const SHANGHAI_OFFSET_MS = 8 * 3600 * 1000;
const BEIJING_TEXT_RE = /^\d{4}-\d{2}-\d{2}( \d{2}:\d{2}(:\d{2})?)?$/;

/**
 * "YYYY-MM-DD HH:mm:ss" in Beijing time: API strings in that form are already Beijing time (the
 * server's `timeFormat`); epoch numbers (s or ms, or their digit strings) are converted. Null for
 * anything else.
 */
function beijingText(value: string | number | null | undefined): string | null {
  if (value === null || value === undefined || value === "") return null;
  if (typeof value === "string" && !/^\d+$/.test(value)) return BEIJING_TEXT_RE.test(value.trim()) ? value.trim() : null;
  const n = Number(value);
  const date = new Date((n < 1e12 ? n * 1000 : n) + SHANGHAI_OFFSET_MS);
  if (Number.isNaN(date.getTime())) return null;
  return date.toISOString().slice(0, 19).replace("T", " ");
}

/** A moment as "2026-11-21 11:59:51 UTC+8"; any other text is shown as it came; "" for none. */
export function formatDateTime(value: string | number | null | undefined): string {
  const text = beijingText(value);
  if (text === null) return value === null || value === undefined ? "" : String(value);
  return `${text} ${TIME_ZONE_LABEL}`;
}

/** To the minute, without the year, for tight rows: "11-21 11:59 UTC+8". */
export function formatMinute(value: string | number | null | undefined): string {
  const text = beijingText(value);
  if (text === null || text.length < 16) return formatDateTime(value);
  return `${text.slice(5, 16)} ${TIME_ZONE_LABEL}`;
}

/** The Beijing calendar day of a moment, labelled: "2026-11-21 (UTC+8)". */
export function formatDay(value: string | number | null | undefined): string {
  const text = beijingText(value);
  return text === null ? formatDateTime(value) : `${text.slice(0, 10)} (${TIME_ZONE_LABEL})`;
}

/** The time of day only ("11:59:51"), for the cells of a column headed by `timeHeading`. */
export function formatClock(value: string | number | null | undefined): string {
  const text = beijingText(value);
  return text === null || text.length < 19 ? PLACEHOLDER : text.slice(11, 19);
}

/** A time column's heading with the zone its cells are in: "Time (UTC+8)". */
export function timeHeading(label: string): string {
  return `${label} (${TIME_ZONE_LABEL})`;
}

/** Month and day only, labelled ("11-21 (UTC+8)"), for tight spots such as the notice ticker. */
export function formatShortDate(value: string | number | null | undefined): string {
  const text = beijingText(value);
  return text === null ? formatDateTime(value) : `${text.slice(5, 10)} (${TIME_ZONE_LABEL})`;
}

/**
 * A time typed into a console input, read in UTC+8 like every time the app shows:
 * "2026-11-26 17:00" or "2026-11-26T17:00" (a datetime-local value) → epoch ms; null otherwise.
 */
export function parseBeijingInput(value: string): number | null {
  const t = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2})$/.exec(value.trim());
  const ms = t ? Date.parse(`${t[1]}T${t[2]}:00+08:00`) : NaN;
  return Number.isNaN(ms) ? null : ms;
}

/** Epoch ms as a console input's value in UTC+8, "2026-11-26 17:00" (`sep` "T" for datetime-local). */
export function toBeijingInput(ms: number, sep: " " | "T" = " "): string {
  return new Date(ms + SHANGHAI_OFFSET_MS).toISOString().slice(0, 16).replace("T", sep);
}

/**
 * The start of a product day (savings interest, covers, the balances snapshot): those days run
 * from 00:00 UTC, which is 08:00 the same date in Beijing time. Takes the day ("2026-11-21") or
 * the moment (epoch ms) and shows it by the one rule: "2026-11-21 08:00 UTC+8".
 */
export function formatDayStart(value: string | number | null | undefined): string {
  const ms = typeof value === "string" && /^\d{4}-\d{2}-\d{2}$/.test(value) ? Date.parse(`${value}T00:00:00Z`) : value;
  const text = beijingText(ms);
  return text === null || text.length < 16 ? formatDateTime(value) : `${text.slice(0, 16)} ${TIME_ZONE_LABEL}`;
}
