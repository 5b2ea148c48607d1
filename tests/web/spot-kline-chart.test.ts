/**
 * Chart data of the kline page (web/src/features/kline/chartData.ts): live bars replace the open
 * bar or extend the series, moving averages of closes, and axis labels in Beijing time whatever
 * the device's time zone.
 */
import { describe, expect, it } from "vitest";
import { crosshairLabel, lastMovingAverage, movingAverage, tickLabel, toChartBar, upsertBar, type ChartBar } from "../../web/src/features/kline/chartData.ts";

const bar = (time: number, close: number): ChartBar => ({ time, open: close, high: close, low: close, close, volume: 1 });

describe("live bars", () => {
  it("replaces the open bar, appends a new one and ignores an older one", () => {
    const bars = [bar(60, 1), bar(120, 2)];
    expect(upsertBar(bars, bar(120, 3))).toBe(true);
    expect(bars.map((b) => b.close)).toEqual([1, 3]);
    expect(upsertBar(bars, bar(180, 4))).toBe(true);
    expect(bars.map((b) => b.time)).toEqual([60, 120, 180]);
    expect(upsertBar(bars, bar(60, 9))).toBe(false);
    expect(bars).toHaveLength(3);
  });

  it("turns API bars (ms, decimal strings) into chart bars (seconds)", () => {
    expect(toChartBar({ time: 1_700_000_040_000, open: "1.5", high: "2", low: "1", close: "1.75", volume: "0.010000" })).toEqual({
      time: 1_700_000_040,
      open: 1.5,
      high: 2,
      low: 1,
      close: 1.75,
      volume: 0.01,
    });
  });
});

describe("moving averages", () => {
  it("averages the last n closes and starts at the n-th bar", () => {
    const bars = [1, 2, 3, 4, 5, 6].map((c, i) => bar(i * 60, c));
    expect(movingAverage(bars, 5)).toEqual([
      { time: 240, value: 3 },
      { time: 300, value: 4 },
    ]);
    expect(lastMovingAverage(bars, 5)).toBe(4);
    expect(lastMovingAverage(bars, 10)).toBeNull();
    expect(movingAverage(bars, 10)).toEqual([]);
  });
});

describe("Beijing time labels", () => {
  // 2024-01-31 16:30:05 UTC is 2024-02-01 00:30:05 in Shanghai.
  const t = Date.UTC(2024, 0, 31, 16, 30, 5) / 1000;
  it("labels ticks by kind", () => {
    expect(tickLabel(t, 0)).toBe("2024");
    expect(tickLabel(t, 1)).toBe("2024-02");
    expect(tickLabel(t, 2)).toBe("02-01");
    expect(tickLabel(t, 3)).toBe("00:30");
    expect(tickLabel(t, 4)).toBe("00:30:05");
  });
  it("labels the crosshair with the date, and the time for intraday bars", () => {
    expect(crosshairLabel(t, "15min")).toBe("2024-02-01 00:30");
    expect(crosshairLabel(t, "1day")).toBe("2024-02-01");
    expect(crosshairLabel(t, "1mon")).toBe("2024-02");
  });
});
