/**
 * Candles and 24h statistics: Asia/Shanghai calendar boundaries (checked against the platform's
 * time-zone database), OHLCV arithmetic, and "no trades means no change".
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  KLINE_PERIODS,
  KlineAggregator,
  aggregateTrades,
  bucketEnd,
  bucketStart,
  changeBps,
  dayStats,
  type KlinePeriod,
  type Trade,
} from "../../durable/engine/index.ts";

const utc = (s: string) => Date.parse(s);
const shanghai = new Intl.DateTimeFormat("en-GB", {
  timeZone: "Asia/Shanghai",
  year: "numeric",
  month: "2-digit",
  day: "2-digit",
  hour: "2-digit",
  minute: "2-digit",
  second: "2-digit",
  weekday: "short",
  hourCycle: "h23",
});
function local(t: number): Record<string, string> {
  return Object.fromEntries(shanghai.formatToParts(t).map((p) => [p.type, p.value]));
}

describe("bucket boundaries", () => {
  it("starts a day at midnight Beijing time, 16:00 UTC the day before", () => {
    expect(bucketStart("1day", utc("2024-03-10T15:59:59.999Z"))).toBe(utc("2024-03-09T16:00:00Z"));
    expect(bucketStart("1day", utc("2024-03-10T16:00:00.000Z"))).toBe(utc("2024-03-10T16:00:00Z"));
    expect(bucketEnd("1day", utc("2024-03-10T16:00:00Z"))).toBe(utc("2024-03-11T16:00:00Z"));
  });

  it("starts a week on Monday 00:00 Beijing time", () => {
    // Sunday 2024-03-10 23:59 in Beijing still belongs to the week of Monday 2024-03-04.
    expect(bucketStart("1week", utc("2024-03-10T15:59:00Z"))).toBe(utc("2024-03-03T16:00:00Z"));
    // Monday 2024-03-11 00:00 in Beijing (Sunday 16:00 UTC) opens a new week.
    expect(bucketStart("1week", utc("2024-03-10T16:00:00Z"))).toBe(utc("2024-03-10T16:00:00Z"));
    expect(bucketEnd("1week", utc("2024-03-10T16:00:00Z"))).toBe(utc("2024-03-17T16:00:00Z"));
  });

  it("starts a month on the 1st in Beijing, across leap years and year ends", () => {
    expect(bucketStart("1mon", utc("2024-01-31T15:59:59Z"))).toBe(utc("2023-12-31T16:00:00Z"));
    expect(bucketStart("1mon", utc("2024-01-31T16:00:00Z"))).toBe(utc("2024-01-31T16:00:00Z"));
    expect(bucketEnd("1mon", utc("2024-01-31T16:00:00Z"))).toBe(utc("2024-02-29T16:00:00Z"));
    expect(bucketEnd("1mon", utc("2024-11-30T16:00:00Z"))).toBe(utc("2024-12-31T16:00:00Z"));
  });

  it("aligns minute periods on whole minutes and hours", () => {
    const t = utc("2024-05-01T10:07:31.250Z");
    expect(bucketStart("1min", t)).toBe(utc("2024-05-01T10:07:00Z"));
    expect(bucketStart("5min", t)).toBe(utc("2024-05-01T10:05:00Z"));
    expect(bucketStart("15min", t)).toBe(utc("2024-05-01T10:00:00Z"));
    expect(bucketStart("30min", t)).toBe(utc("2024-05-01T10:00:00Z"));
    expect(bucketStart("60min", t)).toBe(utc("2024-05-01T10:00:00Z"));
    expect(bucketEnd("15min", utc("2024-05-01T10:00:00Z"))).toBe(utc("2024-05-01T10:15:00Z"));
  });

  it("agrees with the Asia/Shanghai time-zone database for any instant since 1992", () => {
    fc.assert(
      fc.property(fc.integer({ min: utc("1992-01-01T00:00:00Z"), max: utc("2100-01-01T00:00:00Z") }), (t) => {
        for (const p of KLINE_PERIODS) {
          const s = bucketStart(p, t);
          expect(s).toBeLessThanOrEqual(t);
          expect(bucketEnd(p, s)).toBeGreaterThan(t);
          expect(bucketStart(p, bucketEnd(p, s))).toBe(bucketEnd(p, s));
        }
        const day = local(bucketStart("1day", t));
        expect([day.hour, day.minute, day.second]).toEqual(["00", "00", "00"]);
        expect(day.day).toBe(local(t).day);
        const week = local(bucketStart("1week", t));
        expect([week.weekday, week.hour]).toEqual(["Mon", "00"]);
        expect(t - bucketStart("1week", t)).toBeLessThan(7 * 86_400_000);
        const month = local(bucketStart("1mon", t));
        expect([month.day, month.hour, month.month, month.year]).toEqual(["01", "00", local(t).month, local(t).year]);
      }),
      { numRuns: 300 },
    );
  });
});

describe("candles", () => {
  const t0 = utc("2024-05-01T10:00:00Z");
  const trades: Trade[] = [
    { time: t0 + 1_000, price: 100, qty: 2 },
    { time: t0 + 20_000, price: 105, qty: 1 },
    { time: t0 + 40_000, price: 98, qty: 3 },
    { time: t0 + 59_999, price: 101, qty: 4 },
    { time: t0 + 60_000, price: 102, qty: 5 },
  ];

  it("computes open, high, low, close and volume per bar", () => {
    const bars = aggregateTrades(trades, "1min");
    expect(bars).toHaveLength(2);
    expect(bars[0]).toEqual({
      period: "1min",
      openTime: t0,
      closeTime: t0 + 60_000,
      open: 100,
      high: 105,
      low: 98,
      close: 101,
      volume: 10,
      quoteVolume: 200n + 105n + 294n + 404n,
      trades: 4,
    });
    expect(bars[1]).toMatchObject({ openTime: t0 + 60_000, open: 102, high: 102, low: 102, close: 102, volume: 5 });
    expect(aggregateTrades(trades, "5min")).toEqual([
      expect.objectContaining({ openTime: t0, open: 100, high: 105, low: 98, close: 102, volume: 15, trades: 5 }),
    ]);
  });

  it("returns the bar of every period that a trade changed", () => {
    const agg = new KlineAggregator();
    let changed = agg.addTrade(trades[0]!);
    expect(changed.map((c) => c.period)).toEqual([...KLINE_PERIODS]);
    for (const t of trades.slice(1)) changed = agg.addTrade(t);
    expect(changed.find((c) => c.period === "1min")).toMatchObject({ openTime: t0 + 60_000, close: 102 });
    expect(changed.find((c) => c.period === "1day")).toMatchObject({ open: 100, close: 102, high: 105, low: 98, volume: 15 });
    expect(agg.bars("1min").map((b) => b.openTime)).toEqual([t0, t0 + 60_000]);
    // Returned bars are copies: editing them does not touch the series.
    changed[0]!.close = 1;
    expect(agg.current("1min")?.close).toBe(102);
  });

  it("matches the pure aggregation for every period on random trade streams", () => {
    const tradeArb = fc.record({ dt: fc.integer({ min: 0, max: 3 * 86_400_000 }), price: fc.integer({ min: 1, max: 1000 }), qty: fc.integer({ min: 1, max: 50 }) });
    fc.assert(
      fc.property(fc.array(tradeArb, { maxLength: 60 }), (steps) => {
        let t = utc("2024-02-27T00:00:00Z");
        const ts: Trade[] = steps.map((s) => ({ time: (t += s.dt), price: s.price, qty: s.qty }));
        const agg = new KlineAggregator({ maxBars: 10_000 });
        for (const tr of ts) agg.addTrade(tr);
        for (const p of KLINE_PERIODS as KlinePeriod[]) {
          const bars = aggregateTrades(ts, p);
          expect(agg.bars(p)).toEqual(bars);
          expect(bars.reduce((v, b) => v + b.volume, 0)).toBe(ts.reduce((v, x) => v + x.qty, 0));
          for (const b of bars) {
            const inside = ts.filter((x) => x.time >= b.openTime && x.time < b.closeTime);
            expect(b.open).toBe(inside[0]!.price);
            expect(b.close).toBe(inside.at(-1)!.price);
            expect(b.high).toBe(Math.max(...inside.map((x) => x.price)));
            expect(b.low).toBe(Math.min(...inside.map((x) => x.price)));
          }
        }
      }),
      { numRuns: 100 },
    );
  });

  it("counts a trade stamped before the previous one in the latest bar", () => {
    const agg = new KlineAggregator({ periods: ["1min"] });
    agg.addTrade({ time: t0 + 61_000, price: 10, qty: 1 });
    agg.addTrade({ time: t0 + 59_000, price: 12, qty: 1 });
    expect(agg.bars("1min")).toEqual([expect.objectContaining({ openTime: t0 + 60_000, close: 12, volume: 2 })]);
  });

  it("keeps a bounded number of bars per period", () => {
    const agg = new KlineAggregator({ periods: ["1min"], maxBars: 10 });
    for (let i = 0; i < 100; i++) agg.addTrade({ time: t0 + i * 60_000, price: 100 + i, qty: 1 });
    const bars = agg.bars("1min");
    expect(bars).toHaveLength(10);
    expect(bars[0]?.open).toBe(190);
  });

  it("reloads stored bars and continues the open one", () => {
    const first = new KlineAggregator();
    first.addTrade({ time: t0, price: 100, qty: 1 });
    const second = new KlineAggregator();
    for (const p of KLINE_PERIODS) second.load(p, first.bars(p));
    const changed = second.addTrade({ time: t0 + 1000, price: 90, qty: 2 });
    expect(changed.find((c) => c.period === "1min")).toMatchObject({ open: 100, low: 90, close: 90, volume: 3, trades: 2 });
  });
});

describe("24h statistics", () => {
  const now = utc("2024-05-02T12:00:00Z");
  const hour = 3_600_000;

  it("reports open, high, low, close, change and volume over the last 24 hours", () => {
    const s = dayStats(
      [
        { time: now - 30 * hour, price: 50, qty: 9 }, // outside the window
        { time: now - 23 * hour, price: 80, qty: 1 },
        { time: now - 10 * hour, price: 120, qty: 2 },
        { time: now - hour, price: 70, qty: 3 },
        { time: now, price: 100, qty: 4 },
      ],
      now,
    );
    expect(s).toEqual({ open: 80, high: 120, low: 70, close: 100, last: 100, volume: 10, quoteVolume: 80n + 240n + 210n + 400n, trades: 4, changeBps: 2500, change: "25.00" });
  });

  it("shows no change when nothing traded in the window, whatever the older trades", () => {
    const s = dayStats([{ time: now - 25 * hour, price: 123, qty: 1 }], now);
    expect(s).toMatchObject({ open: null, close: null, last: 123, volume: 0, changeBps: 0, change: "0.00" });
    expect(dayStats([], now)).toMatchObject({ last: null, changeBps: 0 });
  });

  it("rounds the change half away from zero to basis points", () => {
    expect(changeBps(300, 299)).toBe(-33); // -33.33
    expect(changeBps(3, 2)).toBe(-3333);
    expect(changeBps(8, 9)).toBe(1250);
    expect(changeBps(20000, 20001)).toBe(1); // 0.5 bps rounds up
    expect(dayStats([{ time: now - hour, price: 300, qty: 1 }, { time: now, price: 299, qty: 1 }], now).change).toBe("-0.33");
  });

  it("derives the same day market from 1min bars as from the trades", () => {
    const agg = new KlineAggregator();
    const ts: Trade[] = [];
    for (let i = 0; i < 2000; i++) {
      const t = { time: now - 2000 * 60_000 + i * 60_000, price: 1000 + ((i * 37) % 101), qty: 1 + (i % 5) };
      ts.push(t);
      agg.addTrade(t);
    }
    // At minute granularity the bar window and the exact window hold the same trades.
    expect(agg.dayMarket(now)).toEqual(dayStats(ts, now));
    expect(agg.dayMarket(now).trades).toBe(1439);
  });
});
