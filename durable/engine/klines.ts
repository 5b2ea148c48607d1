/**
 * Candles (klines) and 24-hour market statistics, built only from executed trades: every bar and
 * every "change %" shown to users comes from real fills, never from interpolation or jitter.
 *
 * Periods 1min … 60min are aligned on the epoch (whole minutes/hours are the same in every
 * whole-hour timezone); 1day, 1week and 1mon follow the Asia/Shanghai calendar, which is a fixed
 * UTC+8 (no daylight saving since 1991): days start at 00:00 Beijing time (16:00 UTC the day
 * before), weeks start on Monday, months on the 1st.
 *
 * Trades are applied in arrival (engine) order. A trade stamped earlier than the previous one
 * (a wall clock stepping back) is counted at the previous trade's time, so bars never reopen and
 * `close` is always the latest trade.
 */

/** Candle periods, as named by the public API. */
export type KlinePeriod = "1min" | "5min" | "15min" | "30min" | "60min" | "1day" | "1week" | "1mon";

/** All supported periods, shortest first. */
export const KLINE_PERIODS: readonly KlinePeriod[] = ["1min", "5min", "15min", "30min", "60min", "1day", "1week", "1mon"];

/** Asia/Shanghai offset from UTC in milliseconds (fixed UTC+8). */
export const SHANGHAI_OFFSET_MS = 8 * 3_600_000;

const MINUTE = 60_000;
const DAY = 86_400_000;
const FIXED: Partial<Record<KlinePeriod, number>> = {
  "1min": MINUTE,
  "5min": 5 * MINUTE,
  "15min": 15 * MINUTE,
  "30min": 30 * MINUTE,
  "60min": 60 * MINUTE,
};

/** One executed trade as klines see it. */
export interface Trade {
  /** Epoch milliseconds. */
  time: number;
  /** Price units. */
  price: number;
  /** Quantity units. */
  qty: number;
}

/** One OHLCV bar. Prices in price units, volume in quantity units, quoteVolume in notional units. */
export interface Candle {
  period: KlinePeriod;
  /** Bucket start, epoch ms (inclusive). */
  openTime: number;
  /** Next bucket's start, epoch ms (exclusive). */
  closeTime: number;
  open: number;
  high: number;
  low: number;
  close: number;
  /** Sum of traded quantity. */
  volume: number;
  /** Sum of price × qty (bigint: a busy month can pass 2^53). */
  quoteVolume: bigint;
  /** Number of trades. */
  trades: number;
}

/** Start (epoch ms) of the `period` bucket containing `timeMs`. */
export function bucketStart(period: KlinePeriod, timeMs: number): number {
  const fixed = FIXED[period];
  if (fixed !== undefined) return Math.floor(timeMs / fixed) * fixed;
  const local = timeMs + SHANGHAI_OFFSET_MS;
  const day = Math.floor(local / DAY);
  switch (period) {
    case "1day":
      return day * DAY - SHANGHAI_OFFSET_MS;
    case "1week": {
      // 1970-01-01 was a Thursday: weekday with Monday = 0 is (day + 3) mod 7.
      const weekday = (((day + 3) % 7) + 7) % 7;
      return (day - weekday) * DAY - SHANGHAI_OFFSET_MS;
    }
    case "1mon": {
      const d = new Date(local);
      return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1) - SHANGHAI_OFFSET_MS;
    }
    default:
      throw new RangeError(`unknown kline period ${String(period)}`);
  }
}

/** Start of the bucket after the one starting at `openTime`. */
export function bucketEnd(period: KlinePeriod, openTime: number): number {
  const fixed = FIXED[period];
  if (fixed !== undefined) return openTime + fixed;
  if (period === "1day") return openTime + DAY;
  if (period === "1week") return openTime + 7 * DAY;
  const d = new Date(openTime + SHANGHAI_OFFSET_MS);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) - SHANGHAI_OFFSET_MS;
}

function newCandle(period: KlinePeriod, t: Trade, time: number): Candle {
  const openTime = bucketStart(period, time);
  return {
    period,
    openTime,
    closeTime: bucketEnd(period, openTime),
    open: t.price,
    high: t.price,
    low: t.price,
    close: t.price,
    volume: t.qty,
    quoteVolume: BigInt(t.price) * BigInt(t.qty),
    trades: 1,
  };
}

function addToCandle(c: Candle, t: Trade): void {
  if (t.price > c.high) c.high = t.price;
  if (t.price < c.low) c.low = t.price;
  c.close = t.price;
  c.volume += t.qty;
  c.quoteVolume += BigInt(t.price) * BigInt(t.qty);
  c.trades++;
}

/** Aggregates trades (in arrival order) into the bars of one period, oldest first. */
export function aggregateTrades(trades: Iterable<Trade>, period: KlinePeriod): Candle[] {
  const out: Candle[] = [];
  let last = -Infinity;
  for (const t of trades) {
    const time = t.time < last ? last : t.time;
    last = time;
    const cur = out[out.length - 1];
    if (cur !== undefined && time < cur.closeTime) addToCandle(cur, t);
    else out.push(newCandle(period, t, time));
  }
  return out;
}

/** Options of a KlineAggregator. */
export interface KlineOptions {
  /** Periods to maintain (default: all). */
  periods?: readonly KlinePeriod[];
  /** Bars kept in memory per period (default 1500: enough 1min bars for 24h stats). */
  maxBars?: number;
}

/**
 * Keeps the recent bars of every period for one pair and updates them trade by trade.
 * `addTrade` returns the bars it changed (one per period), ready to persist and publish.
 */
export class KlineAggregator {
  readonly periods: readonly KlinePeriod[];
  private readonly maxBars: number;
  private readonly series = new Map<KlinePeriod, Candle[]>();
  private lastTime = -Infinity;

  constructor(opts: KlineOptions = {}) {
    this.periods = opts.periods ?? KLINE_PERIODS;
    this.maxBars = Math.max(1, opts.maxBars ?? 1500);
    for (const p of this.periods) this.series.set(p, []);
  }

  /** Applies one trade; returns copies of the changed bars (one per period). */
  addTrade(t: Trade): Candle[] {
    const time = t.time < this.lastTime ? this.lastTime : t.time;
    this.lastTime = time;
    const changed: Candle[] = [];
    for (const p of this.periods) {
      const bars = this.series.get(p)!;
      let cur = bars[bars.length - 1];
      if (cur !== undefined && time < cur.closeTime) addToCandle(cur, t);
      else {
        cur = newCandle(p, t, time);
        bars.push(cur);
        if (bars.length > this.maxBars + (this.maxBars >> 2)) bars.splice(0, bars.length - this.maxBars);
      }
      changed.push({ ...cur });
    }
    return changed;
  }

  /** The newest `limit` bars of a period (default all kept), oldest first, as copies. */
  bars(period: KlinePeriod, limit?: number): Candle[] {
    const bars = this.series.get(period) ?? [];
    const from = limit === undefined ? 0 : Math.max(0, bars.length - limit);
    const start = Math.max(from, bars.length - this.maxBars);
    return bars.slice(start).map((c) => ({ ...c }));
  }

  /** The bar currently open for a period (the newest one), if any. */
  current(period: KlinePeriod): Candle | undefined {
    const bars = this.series.get(period);
    const c = bars?.[bars.length - 1];
    return c === undefined ? undefined : { ...c };
  }

  /** Seeds a period with stored bars (oldest first), e.g. after a Durable Object restart. */
  load(period: KlinePeriod, bars: readonly Candle[]): void {
    const series = this.series.get(period);
    if (series === undefined) throw new RangeError(`period ${period} is not maintained`);
    series.length = 0;
    for (const c of bars.slice(-this.maxBars)) series.push({ ...c, period });
    const last = series[series.length - 1];
    if (last !== undefined && last.openTime > this.lastTime) this.lastTime = last.openTime;
  }

  /**
   * 24h statistics from the kept 1min bars: the window is the current minute and the 1439
   * before it (minute granularity, bounded memory). Requires "1min" among the periods.
   */
  dayMarket(nowMs: number): DayStats {
    const bars = this.series.get("1min");
    if (bars === undefined) throw new RangeError("dayMarket needs the 1min period");
    const from = bucketStart("1min", nowMs) - 1439 * MINUTE;
    let first = -1;
    let lastBefore: number | null = null;
    for (let i = bars.length - 1; i >= 0; i--) {
      const b = bars[i]!;
      if (b.openTime > nowMs) continue;
      if (b.openTime < from) {
        lastBefore = b.close;
        break;
      }
      first = i;
    }
    const acc = new StatsAcc();
    if (first >= 0) {
      for (let i = first; i < bars.length; i++) {
        const b = bars[i]!;
        if (b.openTime > nowMs) break;
        acc.addBar(b);
      }
    }
    return acc.result(lastBefore);
  }
}

/** 24h market statistics ("day market"). OHLC are null when the window has no trade. */
export interface DayStats {
  open: number | null;
  high: number | null;
  low: number | null;
  close: number | null;
  /** Latest trade price at or before now (may be older than the window), or null if none ever. */
  last: number | null;
  volume: number;
  quoteVolume: bigint;
  trades: number;
  /** (close − open) / open in basis points, rounded half away from zero; 0 without trades. */
  changeBps: number;
  /** The same as a percent string with two decimals, e.g. "-1.25". */
  change: string;
}

class StatsAcc {
  open: number | null = null;
  high = -Infinity;
  low = Infinity;
  close: number | null = null;
  volume = 0;
  quoteVolume = 0n;
  trades = 0;

  addBar(b: Pick<Candle, "open" | "high" | "low" | "close" | "volume" | "quoteVolume" | "trades">): void {
    if (this.open === null) this.open = b.open;
    if (b.high > this.high) this.high = b.high;
    if (b.low < this.low) this.low = b.low;
    this.close = b.close;
    this.volume += b.volume;
    this.quoteVolume += b.quoteVolume;
    this.trades += b.trades;
  }

  result(lastBefore: number | null): DayStats {
    if (this.open === null || this.close === null) {
      return {
        open: null,
        high: null,
        low: null,
        close: null,
        last: lastBefore,
        volume: 0,
        quoteVolume: 0n,
        trades: 0,
        changeBps: 0,
        change: "0.00",
      };
    }
    const bps = changeBps(this.open, this.close);
    return {
      open: this.open,
      high: this.high,
      low: this.low,
      close: this.close,
      last: this.close,
      volume: this.volume,
      quoteVolume: this.quoteVolume,
      trades: this.trades,
      changeBps: bps,
      change: bpsToPercent(bps),
    };
  }
}

/** (close − open) / open in basis points, rounded half away from zero, exact for safe integers. */
export function changeBps(open: number, close: number): number {
  const num = (BigInt(close) - BigInt(open)) * 10000n;
  const den = BigInt(open);
  const neg = num < 0n;
  const a = neg ? -num : num;
  const q = (a * 2n + den) / (2n * den);
  return Number(neg ? -q : q);
}

/** Basis points as a percent string with two decimals: -125 → "-1.25". */
export function bpsToPercent(bps: number): string {
  const a = Math.abs(bps);
  const s = `${Math.floor(a / 100)}.${String(a % 100).padStart(2, "0")}`;
  return bps < 0 ? `-${s}` : s;
}

/**
 * Exact 24h statistics from trades (arrival order): trades with now − windowMs < time ≤ now.
 * No trade in the window means no change (changeBps 0), whatever happened before.
 */
export function dayStats(trades: Iterable<Trade>, nowMs: number, windowMs = DAY): DayStats {
  const acc = new StatsAcc();
  let lastBefore: number | null = null;
  for (const t of trades) {
    if (t.time > nowMs) continue;
    if (t.time <= nowMs - windowMs) {
      lastBefore = t.price;
      continue;
    }
    acc.addBar({ open: t.price, high: t.price, low: t.price, close: t.price, volume: t.qty, quoteVolume: BigInt(t.price) * BigInt(t.qty), trades: 1 });
  }
  return acc.result(lastBefore);
}
