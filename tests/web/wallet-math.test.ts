/**
 * The numbers the money screens show before anything is sent (web/src/features/wallet/math.ts,
 * web/src/lib/amount.ts): the withdrawal fee / received / total from the published table, the
 * flash-exchange quote, and display truncation. They must equal what the server computes
 * (worker/domain/conversion/quote.ts and conversions.ts), exactly, with no float anywhere.
 */
import { describe, expect, it } from "vitest";
import { compareDecimal, sanitizeAmountInput, truncate } from "../../web/src/lib/amount.ts";
import { formatAmount, formatExact } from "../../web/src/lib/format.ts";
import { conversionQuote, parsePrice, rate8, withdrawAll, withdrawalPreview, withdrawalTerms } from "../../web/src/features/wallet/math.ts";

const usdtInfo = {
  rate: "1.00000000",
  min: "10.00000000",
  max: "1000000.00000000",
  networks: [
    { type: 0, fee: "5.00000000", min: "20.00000000", max: "1000000.00000000" },
    { type: 1, fee: "1.00000000", min: "10.00000000", max: "1000000.00000000" },
  ],
};
const terms = { shandui_sxf1: "0.2", shandui_sxf2: "0.1", shandui_sxf_money: "10000", shanduiMin: "10", shanduiMax: "100000" };

describe("withdrawal terms and preview", () => {
  it("uses the network's fee, and the general rate when the network's fee is zero (spec §4)", () => {
    expect(withdrawalTerms(usdtInfo, 0)).toEqual({ fee: "5.00000000", min: "20.00000000", max: "1000000.00000000" });
    expect(withdrawalTerms(usdtInfo, 1).fee).toBe("1.00000000");
    const zeroFee = { ...usdtInfo, networks: [{ type: 1, fee: "0.00000000", min: "10.00000000", max: "500.00000000" }] };
    expect(withdrawalTerms(zeroFee, 1)).toEqual({ fee: "1.00000000", min: "10.00000000", max: "500.00000000" });
    expect(withdrawalTerms({ ...usdtInfo, networks: [] }, null).min).toBe("10.00000000");
  });

  it("adds the fee on top: 500 sent over TRC20 freezes 501", () => {
    const p = withdrawalPreview("500", withdrawalTerms(usdtInfo, 1), "1000.00000000", 8);
    expect(p).toEqual({ received: "500.00000000", fee: "1.00000000", total: "501.00000000", problem: null });
  });

  it("names the problem a user would hit: below min, above max, more than available, too many decimals", () => {
    const trc = withdrawalTerms(usdtInfo, 1);
    expect(withdrawalPreview("9.99", trc, "1000", 8).problem).toBe("below_min");
    expect(withdrawalPreview("1000000.00000001", trc, "9999999", 8).problem).toBe("above_max");
    expect(withdrawalPreview("999.5", trc, "1000", 8).problem).toBe("insufficient_balance");
    expect(withdrawalPreview("999", trc, "1000", 8).problem).toBe(null);
    expect(withdrawalPreview("10.123456789", trc, "1000", 8).problem).toBe("too_many_decimals");
    expect(withdrawalPreview("0", trc, "1000", 8).problem).toBe("amount_positive");
  });

  it("shows nothing frozen before an amount is typed", () => {
    expect(withdrawalPreview("", withdrawalTerms(usdtInfo, 1), "1000", 8).total).toBe("0.00000000");
  });

  it("'all' leaves room for the fee and never goes negative", () => {
    expect(withdrawAll("898.80120000", withdrawalTerms(usdtInfo, 1), 8)).toBe("897.8012");
    expect(withdrawAll("0.5", withdrawalTerms(usdtInfo, 1), 8)).toBe("0");
  });
});

describe("flash-exchange quote", () => {
  it("USDT → BTC at 60000: 0.2% fee in USDT, the rest divided by the price and rounded down", () => {
    const q = conversionQuote({ direction: "usdt_to_coin", money: "300", price: "60000.00", coinScale: 8, usdtScale: 8, available: "1000", terms });
    expect(q).toMatchObject({ usdtValue: "300.00000000", fee: "0.60000000", feePercent: "0.2", received: "0.00499000", receivedDisplay: "0.00499", rate: "0.00001666", problem: null });
  });

  it("BTC → USDT at 60000: value = amount × price, the fee tier follows the USDT value", () => {
    const q = conversionQuote({ direction: "coin_to_usdt", money: "0.00499", price: "60000.00", coinScale: 8, usdtScale: 8, available: "0.00499", terms });
    expect(q).toMatchObject({ usdtValue: "299.40000000", fee: "0.59880000", received: "298.80120000", rate: "60000.00000000", problem: null });
    const big = conversionQuote({ direction: "coin_to_usdt", money: "0.2", price: "60000.00", coinScale: 8, usdtScale: 8, available: "1", terms });
    expect(big?.feePercent).toBe("0.1");
    expect(big?.fee).toBe("12.00000000");
  });

  it("refuses what the server refuses: no price, below the minimum, above the maximum, more than held", () => {
    const base = { coinScale: 8, usdtScale: 8, terms };
    expect(conversionQuote({ ...base, direction: "coin_to_usdt", money: "1", price: null, available: "1" })?.problem).toBe("no_price");
    expect(conversionQuote({ ...base, direction: "usdt_to_coin", money: "9.99", price: "60000", available: "100" })?.problem).toBe("below_min");
    expect(conversionQuote({ ...base, direction: "usdt_to_coin", money: "100000.01", price: "60000", available: "200000" })?.problem).toBe("above_max");
    expect(conversionQuote({ ...base, direction: "coin_to_usdt", money: "0.01", price: "60000", available: "0.001" })?.problem).toBe("insufficient_balance");
  });

  it("keeps prices a float would mangle", () => {
    expect(parsePrice("0.1")).toEqual({ num: 1n, dec: 1 });
    expect(rate8("coin_to_usdt", parsePrice("0.00012345")!)).toBe("0.00012345");
    expect(rate8("usdt_to_coin", parsePrice("3")!)).toBe("0.33333333");
    expect(parsePrice("0")).toBeNull();
  });
});

describe("amount display", () => {
  it("truncates to the spec's precision and never rounds a balance up", () => {
    expect(truncate("397.80129999", 2)).toBe("397.80");
    expect(formatAmount("1234567.999", 2)).toBe("1,234,567.99");
    expect(formatAmount("0.00499999", 6)).toBe("0.004999");
    expect(formatExact("10000.00000000")).toBe("10,000");
    expect(formatExact("0.00499000")).toBe("0.00499");
  });

  it("compares decimals of any length exactly", () => {
    expect(compareDecimal("0.30000000000000004", "0.3")).toBe(1);
    expect(compareDecimal("10", "10.000")).toBe(0);
  });

  it("keeps typed amounts to digits, one dot and the currency's decimals", () => {
    expect(sanitizeAmountInput("1,5", 8)).toBe("1.5");
    expect(sanitizeAmountInput("00012.345.6", 2)).toBe("12.34");
    expect(sanitizeAmountInput("abc", 8)).toBe("");
    expect(sanitizeAmountInput(".5", 8)).toBe("0.5");
  });
});
