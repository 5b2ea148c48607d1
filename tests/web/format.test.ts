/**
 * Display formatting of market data (web/src/lib/format.ts): values stay decimal strings, are
 * never rounded up, and a price of zero is shown as "--" (no trade yet) rather than a number.
 */
import { describe, expect, it } from "vitest";
import { formatChange, formatCompact, formatPrice, formatShortDate, formatThousands, groupThousands, trendOf } from "../../web/src/lib/format.ts";

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

describe("formatThousands (volume in K)", () => {
  it("divides by 1000 and truncates to two decimals", () => {
    expect(formatThousands("123456.789")).toBe("123.45");
    expect(formatThousands("98765432.1")).toBe("98,765.43");
    expect(formatThousands("999")).toBe("0.99");
    expect(formatThousands("0")).toBe("0.00");
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
  it("shortens server times to month-day", () => {
    expect(formatShortDate("2026-11-21 11:59:51")).toBe("11-21");
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
