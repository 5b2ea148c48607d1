/**
 * The spot order form's arithmetic (web/src/features/spot/orderMath.ts): slider quantities,
 * totals, the market order's protective price and the checks made before sending, all on
 * decimal strings, rounded down, never through a JS number.
 */
import { describe, expect, it } from "vitest";
import {
  checkOrder,
  checkTotal,
  clampDecimals,
  compareDecimals,
  farFromMarket,
  marketLimitPrice,
  orderTotal,
  qtyDecimalsFor,
  sanitizeDecimalInput,
  sliderQuantity,
  sliderTotal,
} from "../../web/src/features/spot/orderMath.ts";
import type { SpotBalance } from "../../web/src/features/spot/api.ts";

function makeBalance(overrides: Partial<SpotBalance> = {}): SpotBalance {
  return {
    user_currency: "1.00000000",
    user_legal: "10000.00000000",
    lock_currency: "0.00000000",
    lock_legal: "0.00000000",
    order_currency: "0.00000000",
    order_legal: "0.00000000",
    cny_price: null,
    price_decimals: 2,
    qty_decimals: 6,
    min_notional: "5.00",
    price_band_percent: "10",
    index_price: null,
    price_band_low: null,
    price_band_high: null,
    ...overrides,
  };
}

describe("slider quantity", () => {
  it("buys available USDT / price × percent, rounded down to 5 decimals", () => {
    // 10000 / 65012.98 = 0.153815... → 100 % = 0.15381, 25 % = 0.03845
    expect(sliderQuantity({ side: "buy", percent: 100, price: "65012.98", availableLegal: "10000.00000000", availableCurrency: "1", decimals: 5 })).toBe("0.15381");
    expect(sliderQuantity({ side: "buy", percent: 25, price: "65012.98", availableLegal: "10000.00000000", availableCurrency: "1", decimals: 5 })).toBe("0.03845");
  });

  it("sells available coin × percent, rounded down", () => {
    expect(sliderQuantity({ side: "sell", percent: 50, price: "", availableLegal: "0", availableCurrency: "1.00999000", decimals: 5 })).toBe("0.50499");
    expect(sliderQuantity({ side: "sell", percent: 75, price: "", availableLegal: "0", availableCurrency: "0.00001", decimals: 5 })).toBe("0.00000");
  });

  it("never exceeds what the balance pays for, even with awkward prices", () => {
    const qty = sliderQuantity({ side: "buy", percent: 100, price: "0.00003", availableLegal: "7.77777777", availableCurrency: "0", decimals: 1 });
    expect(qty).toBe("259259.2");
    // 259259.2 × 0.00003 = 7.777776 ≤ 7.77777777
    expect(compareDecimals(orderTotal("0.00003", qty, 8)!, "7.77777777")).toBe(-1);
  });

  it("is empty at 0 % and without a price to buy at", () => {
    expect(sliderQuantity({ side: "buy", percent: 0, price: "100", availableLegal: "10", availableCurrency: "0", decimals: 5 })).toBe("");
    expect(sliderQuantity({ side: "buy", percent: 50, price: "", availableLegal: "10", availableCurrency: "0", decimals: 5 })).toBe("");
  });

  it("shows at most 5 quantity decimals, fewer when the pair allows fewer", () => {
    expect(qtyDecimalsFor(6)).toBe(5);
    expect(qtyDecimalsFor(1)).toBe(1);
  });
});

describe("totals and prices", () => {
  it("multiplies price by quantity exactly and truncates to 2 decimals", () => {
    expect(orderTotal("70000", "0.01")).toBe("700.00");
    expect(orderTotal("65012.98", "0.15381")).toBe("9999.64");
    expect(orderTotal("0.1", "0.2", 8)).toBe("0.02000000");
  });

  it("puts a market order's limit 10 % beyond the best price, like the server", () => {
    expect(marketLimitPrice("65000.00", "buy", 2)).toBe("71500.00");
    expect(marketLimitPrice("65000.00", "sell", 2)).toBe("58500.00");
    expect(marketLimitPrice("0.00005", "sell", 5)).toBe("0.00005");
    expect(marketLimitPrice("0", "buy", 2)).toBeNull();
  });

  it("flags a limit price more than 10 % through the best opposite price", () => {
    expect(farFromMarket("buy", "72000", "65000.00")).toBe(true);
    expect(farFromMarket("buy", "71500", "65000.00")).toBe(false);
    expect(farFromMarket("sell", "58000", "65000.00")).toBe(true);
    expect(farFromMarket("sell", "70000", "65000.00")).toBe(false);
    expect(farFromMarket("buy", "70000", null)).toBe(false);
  });

  it("keeps typed numbers plain decimals with limited places", () => {
    expect(sanitizeDecimalInput("1,5", 2)).toBe("1.5");
    expect(sanitizeDecimalInput("0.123456", 5)).toBe("0.12345");
    expect(sanitizeDecimalInput("1e5", 2)).toBe("15");
    expect(sanitizeDecimalInput("-3.2.1", 3)).toBe("3.21");
    expect(sanitizeDecimalInput(".5", 2)).toBe("0.5");
    expect(sanitizeDecimalInput("007", 2)).toBe("7");
    expect(sanitizeDecimalInput("12.", 0)).toBe("12");
  });

  it("cuts prices to at most 5 decimals for the history without rounding", () => {
    expect(clampDecimals("0.1234567", 5)).toBe("0.12345");
    expect(clampDecimals("70000.00", 5)).toBe("70000.00");
  });
});

describe("checks before sending", () => {
  const base = { side: "buy" as const, mode: 2 as const, price: "70000", qty: "0.01", bestOpposite: "70000.00", balance: makeBalance() };

  it("accepts a valid limit order priced at its own limit", () => {
    expect(checkOrder(base)).toEqual({ problem: null, effectivePrice: "70000" });
  });

  it("refuses a price of 0 and a quantity of 0, with buy and sell wording", () => {
    expect(checkOrder({ ...base, price: "0" }).problem?.key).toBe("price_positive");
    expect(checkOrder({ ...base, price: "" }).problem?.key).toBe("price_positive");
    expect(checkOrder({ ...base, qty: "0" }).problem?.key).toBe("buy_qty_positive");
    expect(checkOrder({ ...base, side: "sell", qty: "" }).problem?.key).toBe("sell_qty_positive");
  });

  it("refuses an order below the minimum value", () => {
    expect(checkOrder({ ...base, price: "1000", qty: "0.001" }).problem).toEqual({ key: "min_notional", params: { min: "5.00" } });
    expect(checkOrder({ ...base, price: "1000", qty: "0.005" }).problem).toBeNull();
  });

  it("refuses more decimals than the pair allows", () => {
    expect(checkOrder({ ...base, price: "70000.001" }).problem).toEqual({ key: "too_many_decimals", params: { decimals: 2 } });
    expect(checkOrder({ ...base, qty: "0.000001" }).problem).toEqual({ key: "too_many_decimals", params: { decimals: 5 } });
  });

  it("refuses what the balance cannot pay for", () => {
    expect(checkOrder({ ...base, qty: "0.15" }).problem?.key).toBe("insufficient_balance");
    expect(checkOrder({ ...base, side: "sell", qty: "1.00001" }).problem?.key).toBe("insufficient_balance");
    expect(checkOrder({ ...base, side: "sell", qty: "1" }).problem).toBeNull();
  });

  it("prices a market order at its protective limit and needs the other side of the book", () => {
    expect(checkOrder({ ...base, mode: 1, price: "" })).toEqual({ problem: null, effectivePrice: "77000.00" });
    expect(checkOrder({ ...base, mode: 1, price: "", bestOpposite: null }).problem?.key).toBe("no_liquidity");
    // A market buy holds up to the protective limit: 0.13 × 77000 = 10010 > 10000.
    expect(checkOrder({ ...base, mode: 1, price: "", qty: "0.13" }).problem?.key).toBe("insufficient_balance");
  });
});

describe("a market buy by total", () => {
  it("sets the total from the slider as that share of the available USDT, cut to cents", () => {
    expect(sliderTotal(25, "10000.00000000")).toBe("2500.00");
    expect(sliderTotal(50, "0.01999999")).toBe("0.00");
    expect(sliderTotal(100, "123.456789")).toBe("123.45");
    expect(sliderTotal(0, "100")).toBe("");
  });

  it("checks the total as the server does before sending", () => {
    const balance = makeBalance();
    expect(checkTotal({ total: "500", bestAsk: "40000.00", balance }).problem).toBeNull();
    expect(checkTotal({ total: "0", bestAsk: "40000.00", balance }).problem?.key).toBe("buy_total_positive");
    expect(checkTotal({ total: "1.001", bestAsk: "40000.00", balance }).problem?.key).toBe("too_many_decimals");
    expect(checkTotal({ total: "500", bestAsk: null, balance }).problem?.key).toBe("no_liquidity");
    expect(checkTotal({ total: "4.99", bestAsk: "40000.00", balance }).problem?.key).toBe("min_notional");
    expect(checkTotal({ total: "10000.01", bestAsk: "40000.00", balance }).problem?.key).toBe("insufficient_balance");
  });
});
