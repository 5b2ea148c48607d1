/**
 * Display formatting of market data (web/src/lib/format.ts): values stay decimal strings, are
 * never rounded up, and a price of zero is shown as "--" (no trade yet) rather than a number.
 */
import { describe, expect, it } from "vitest";
import {
  chartPriceFormatter,
  currencyDecimals,
  formatAmount,
  formatChange,
  formatCompact,
  formatExact,
  formatMoney,
  formatPrice,
  formatClock,
  formatDateTime,
  formatDay,
  formatMinute,
  formatDayStart, formatShortDate, parseBeijingInput, toBeijingInput,
  timeHeading,
  formatUpTo,
  groupThousands,
  trendOf,
} from "../../web/src/lib/format.ts";

describe("formatPrice", () => {
  it("shows the API's own digits with thousands separators", () => {
    expect(formatPrice("67234.51")).toBe("67,234.51");
    expect(formatPrice("0.00001234")).toBe("0.00001234");
  });
  it("shows -- for a pair that has not traded, and for anything that is not a decimal", () => {
    expect(formatPrice("0")).toBe("--");
    expect(formatPrice("0.000")).toBe("--");
    expect(formatPrice("")).toBe("--");
    expect(formatPrice("NaN")).toBe("--");
    expect(formatPrice(undefined)).toBe("--");
  });
  it("keeps precision a JS number would lose", () => {
    expect(formatPrice("12345678901234567.123456789")).toBe("12,345,678,901,234,567.123456789");
  });
});

describe("formatChange and trendOf", () => {
  it("signs and pads the percent change", () => {
    expect(formatChange("1.87")).toBe("+1.87%");
    expect(formatChange("-1.2")).toBe("-1.20%");
    expect(formatChange("0.00")).toBe("0.00%");
    expect(formatChange("-0.001")).toBe("0.00%");
  });
  it("colours up, down and flat", () => {
    expect(trendOf("1.87")).toBe("up");
    expect(trendOf("-0.01")).toBe("down");
    expect(trendOf("0.00")).toBe("flat");
    expect(trendOf("junk")).toBe("flat");
  });
});

describe("small helpers", () => {
  it("groups integer digits only", () => {
    expect(groupThousands("-1234567.891")).toBe("-1,234,567.891");
  });
  it("shortens server times to month-day, still labelled with the zone", () => {
    expect(formatShortDate("2026-11-21 11:59:51")).toBe("11-21 (UTC+8)");
  });
  it("shows the start of a product day (00:00 UTC) as 08:00 the same date in UTC+8", () => {
    expect(formatDayStart("2026-11-21")).toBe("2026-11-21 08:00 UTC+8");
    expect(formatDayStart(Date.UTC(2026, 11, 31))).toBe("2026-12-31 08:00 UTC+8");
    expect(formatDayStart("soon")).toBe("soon");
  });
  it("reads a console's typed time in UTC+8 whatever the device's zone, and fills inputs the same way", () => {
    const zone = process.env.TZ;
    try {
      for (const tz of ["America/New_York", "UTC"]) {
        process.env.TZ = tz;
        // 2026-11-26 17:00 in Beijing is 09:00 UTC.
        expect(parseBeijingInput("2026-11-26 17:00")).toBe(Date.UTC(2026, 10, 26, 9));
        expect(parseBeijingInput("2026-11-26T17:00")).toBe(Date.UTC(2026, 10, 26, 9));
        expect(toBeijingInput(Date.UTC(2026, 10, 26, 9))).toBe("2026-11-26 17:00");
        expect(toBeijingInput(Date.UTC(2026, 10, 26, 9), "T")).toBe("2026-11-26T17:00");
      }
    } finally {
      process.env.TZ = zone;
    }
    expect(parseBeijingInput("2026-11-26T09:00:00Z")).toBeNull();
    expect(parseBeijingInput("tomorrow")).toBeNull();
  });
  it("shows every time in Beijing time labelled UTC+8, whatever the device's zone (the one time rule)", () => {
    const zone = process.env.TZ;
    try {
      for (const tz of ["America/New_York", "UTC", "Asia/Tokyo"]) {
        process.env.TZ = tz;
        // 2026-11-21 03:59:51 UTC is 11:59:51 in Beijing.
        expect(formatDateTime(Date.UTC(2026, 10, 21, 3, 59, 51))).toBe("2026-11-21 11:59:51 UTC+8");
        expect(formatDateTime(String(Date.UTC(2026, 10, 21, 16, 0, 0) / 1000))).toBe("2026-11-22 00:00:00 UTC+8");
        expect(formatDay(Date.UTC(2026, 10, 21, 16, 0, 0))).toBe("2026-11-22 (UTC+8)");
        expect(formatMinute(Date.UTC(2026, 10, 21, 3, 59, 51))).toBe("11-21 11:59 UTC+8");
        expect(formatClock(Date.UTC(2026, 10, 21, 3, 59, 51))).toBe("11:59:51");
      }
    } finally {
      process.env.TZ = zone;
    }
    // The server's own strings are Beijing time already: labelled, not moved.
    expect(formatDateTime("2026-11-21 11:59:51")).toBe("2026-11-21 11:59:51 UTC+8");
    expect(formatMinute("2026-11-21 11:59:51")).toBe("11-21 11:59 UTC+8");
    expect(timeHeading("Time")).toBe("Time (UTC+8)");
    expect(formatDateTime(null)).toBe("");
    expect(formatDateTime("soon")).toBe("soon");
  });
});

describe("formatCompact (24 h volume in USDT)", () => {
  it("shortens with K, M and B, cutting to two decimals, never rounding up", () => {
    expect(formatCompact("596.02")).toBe("596.02");
    expect(formatCompact("999.999")).toBe("999.99");
    expect(formatCompact("1000")).toBe("1.00K");
    expect(formatCompact("123456.78")).toBe("123.45K");
    expect(formatCompact("9876543.21")).toBe("9.87M");
    expect(formatCompact("1234567890123.45")).toBe("1,234.56B");
    expect(formatCompact("0")).toBe("0.00");
    expect(formatCompact(null)).toBe("--");
  });
});

describe("one formatter for amounts and money", () => {
  it("groups thousands and cuts (never rounds up) to the asked decimals", () => {
    expect(formatAmount("1234567.999", 2)).toBe("1,234,567.99");
    expect(formatAmount("5", 2)).toBe("5.00");
    expect(formatAmount("-1234.5", 2)).toBe("-1,234.50");
    expect(formatAmount("-0.001", 2)).toBe("0.00");
    expect(formatAmount("abc", 2)).toBe("--");
    expect(formatAmount(null, 2)).toBe("--");
  });

  it("keeps digits a JS number would lose", () => {
    expect(formatAmount("90071992547409931.23456789", 8)).toBe("90,071,992,547,409,931.23456789");
    expect(formatExact("90071992547409931.10000000")).toBe("90,071,992,547,409,931.1");
  });

  it("shows every amount of a currency by one rule: USDT exactly 2 decimals, a coin up to 8 with trailing zeros trimmed to 2", () => {
    expect(currencyDecimals("USDT")).toBe(2);
    expect(currencyDecimals("btc")).toBe(8);
    // The three examples: a zero-padded USDT balance, a USDT value with 8 decimals, a BTC balance cut to 2.
    expect(formatMoney("10000.00000000", "USDT")).toBe("10,000.00");
    expect(formatMoney("62.32777032", "USDT")).toBe("62.32");
    expect(formatMoney("1.00499000", "BTC")).toBe("1.00499");
    expect(formatMoney("10000.12999999", "USDT")).toBe("10,000.12");
    expect(formatMoney("1234.123456789", "BTC")).toBe("1,234.12345678");
    expect(formatMoney("0.50000000", "ETH")).toBe("0.50");
    expect(formatMoney("12", "BTC")).toBe("12.00");
    expect(formatMoney("5", "USDT")).toBe("5.00");
    expect(formatMoney("0.00000001", "BTC")).toBe("0.00000001");
    expect(formatMoney("-0.25000000", "LTC")).toBe("-0.25");
    expect(formatMoney("-0.001", "USDT")).toBe("0.00");
    expect(formatMoney("abc", "USDT")).toBe("--");
    expect(formatMoney(undefined, "BTC")).toBe("--");
  });

  it("never shows a balance as more than it is: cut, not rounded", () => {
    expect(formatMoney("0.999999999", "BTC")).toBe("0.99999999");
    expect(formatMoney("99.999", "USDT")).toBe("99.99");
    expect(formatMoney("1.00499999", "BTC")).toBe("1.00499999");
    expect(formatMoney("90071992547409931.23456789", "BTC")).toBe("90,071,992,547,409,931.23456789");
  });

  it("drops trailing zeros for exact amounts and cuts to at most N decimals", () => {
    expect(formatExact("10000.00000000")).toBe("10,000");
    expect(formatExact("0")).toBe("0");
    expect(formatUpTo("1234.123456789", 6)).toBe("1,234.123456");
    expect(formatUpTo("1234.5", 6)).toBe("1,234.5");
  });
});

describe("the chart's price axis", () => {
  it("labels prices at the pair's precision with the same thousands separators", () => {
    expect(chartPriceFormatter(2)(67234.5)).toBe("67,234.50");
    expect(chartPriceFormatter(4)(0.1)).toBe("0.1000");
    expect(chartPriceFormatter(0)(1234567)).toBe("1,234,567");
    expect(chartPriceFormatter(2)(-1500)).toBe("-1,500.00");
    expect(chartPriceFormatter(2)(Number.NaN)).toBe("--");
  });
});

describe("formatMoneyMoved", () => {
  it("never cuts an amount about to move: a typed 10.123 USDT reads 10.123, whole amounts keep two decimals", async () => {
    const { formatMoneyMoved } = await import("../../web/src/lib/format.ts");
    expect(formatMoneyMoved("10.12300000", "USDT")).toBe("10.123");
    expect(formatMoneyMoved("10000", "USDT")).toBe("10,000.00");
    expect(formatMoneyMoved("0.50000000", "BTC")).toBe("0.50");
    expect(formatMoneyMoved("1.00499", "BTC")).toBe("1.00499");
    expect(formatMoneyMoved("-2.5", "USDT")).toBe("-2.50");
    expect(formatMoneyMoved("abc", "USDT")).toBe("--");
  });
});
