/**
 * Chart data helpers: candles from the API (decimal strings, open time in ms) into the chart's
 * shape, moving averages of closes, and axis labels in Beijing time (spec: timezone Asia/Shanghai).
 * Numbers appear here only to draw; no amount shown as money is computed from them.
 */
import type { Bar, KlinePeriodName } from "../../../../schemas/realtime.ts";

export type Interval = "realtime" | KlinePeriodName;
export const INTERVALS: Interval[] = ["realtime", "1min", "5min", "15min", "30min", "60min", "1day", "1week", "1mon"];

const MINUTE = 60_000;
/** Approximate length of a bar, to ask for a window of about `BARS_WANTED` bars. */
export const PERIOD_MS: Record<KlinePeriodName, number> = {
  "1min": MINUTE,
  "5min": 5 * MINUTE,
  "15min": 15 * MINUTE,
  "30min": 30 * MINUTE,
  "60min": 60 * MINUTE,
  "1day": 1440 * MINUTE,
  "1week": 7 * 1440 * MINUTE,
  "1mon": 31 * 1440 * MINUTE,
};
export const BARS_WANTED = 400;

export const MA_WINDOWS = [5, 10, 30] as const;

export interface ChartBar {
  /** Seconds since the epoch (the chart's UTCTimestamp). */
  time: number;
  open: number;
  high: number;
  low: number;
  close: number;
  volume: number;
}

export function toChartBar(b: Bar): ChartBar {
  return {
    time: Math.floor(b.time / 1000),
    open: Number(b.open),
    high: Number(b.high),
    low: Number(b.low),
    close: Number(b.close),
    volume: Number(b.volume),
  };
}

/**
 * Inserts or replaces a live bar in a series sorted by time: the open bar changes in place, a new
 * bar is appended; a bar older than the last one is ignored (it was already superseded).
 * Returns false when the bar was ignored.
 */
export function upsertBar(bars: ChartBar[], bar: ChartBar): boolean {
  const last = bars[bars.length - 1];
  if (!last || bar.time > last.time) {
    bars.push(bar);
    return true;
  }
  if (bar.time === last.time) {
    bars[bars.length - 1] = bar;
    return true;
  }
  return false;
}

/** Simple moving average of closes over `n` bars; points start at the n-th bar. */
export function movingAverage(bars: ChartBar[], n: number): { time: number; value: number }[] {
  const out: { time: number; value: number }[] = [];
  let sum = 0;
  for (let i = 0; i < bars.length; i++) {
    sum += bars[i]!.close;
    if (i >= n) sum -= bars[i - n]!.close;
    if (i >= n - 1) out.push({ time: bars[i]!.time, value: sum / n });
  }
  return out;
}

/** The moving average at the last bar, or null when there are fewer than `n` bars. */
export function lastMovingAverage(bars: ChartBar[], n: number): number | null {
  if (bars.length < n) return null;
  let sum = 0;
  for (let i = bars.length - n; i < bars.length; i++) sum += bars[i]!.close;
  return sum / n;
}

/** Decimal places of a price string ("65012.98" → 2), for the price axis. */
export function decimalsOf(price: string | undefined): number {
  if (!price) return 2;
  const dot = price.indexOf(".");
  return dot < 0 ? 0 : Math.min(8, price.length - dot - 1);
}

const partsFormat = new Intl.DateTimeFormat("en-GB", {
  timeZone: "Asia/Shanghai",
  year: "numeric",
  month: "2-digit",
  day: "2-digit",
  hour: "2-digit",
  minute: "2-digit",
  second: "2-digit",
  hour12: false,
});

/** Calendar fields of an instant in Beijing time. */
export function shanghaiParts(seconds: number): { y: string; mo: string; d: string; h: string; mi: string; s: string } {
  const parts = partsFormat.formatToParts(new Date(seconds * 1000));
  const get = (t: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === t)?.value ?? "";
  const h = get("hour");
  return { y: get("year"), mo: get("month"), d: get("day"), h: h === "24" ? "00" : h, mi: get("minute"), s: get("second") };
}

/** Tick labels by tick kind (lightweight-charts TickMarkType: 0 year, 1 month, 2 day, 3 time, 4 time with seconds). */
export function tickLabel(seconds: number, kind: number): string {
  const p = shanghaiParts(seconds);
  switch (kind) {
    case 0:
      return p.y;
    case 1:
      return `${p.y}-${p.mo}`;
    case 2:
      return `${p.mo}-${p.d}`;
    case 4:
      return `${p.h}:${p.mi}:${p.s}`;
    default:
      return `${p.h}:${p.mi}`;
  }
}

/** The crosshair's time label: date and time for intraday bars, the date for day bars and longer. */
export function crosshairLabel(seconds: number, interval: Interval): string {
  const p = shanghaiParts(seconds);
  if (interval === "1day" || interval === "1week") return `${p.y}-${p.mo}-${p.d}`;
  if (interval === "1mon") return `${p.y}-${p.mo}`;
  return `${p.y}-${p.mo}-${p.d} ${p.h}:${p.mi}`;
}
