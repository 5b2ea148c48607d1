// The leveraged-contract form's preview (web/src/features/lever/math.ts): margin and fee shown
// before confirming, rounded up to 8 decimals as the server charges them.
import { describe, expect, it } from "vitest";
import { capPriceOf, lotsOffered, openTerms, preview, priceAt, snapLots, stepLots, sumUsdt } from "../../web/src/features/lever/math.ts";

describe("lever order preview", () => {
  it("shows margin = price × lots × lot size / leverage and the fee on the value", () => {
    // 10 lots × 0.01 BTC at 101 = 10.1 USDT; 10× → 1.01 margin; 0.05 % → 0.00505 fee (as the API charged in tests/api/lever.test.ts).
    expect(preview("101.00", "10", "0.01", 10, "0.05")).toEqual({ value: "10.10000000", margin: "1.01000000", fee: "0.00505000" });
  });

  it("rounds margin and fee up to the minimal unit", () => {
    expect(preview("0.01", "1", "0.00000001", 3, "0.05")).toEqual({ value: "0.00000001", margin: "0.00000001", fee: "0.00000001" });
  });

  it("shows nothing for a missing or invalid input", () => {
    expect(preview("", "10", "0.01", 10, "0.05")).toBeNull();
    expect(preview("101", "0", "0.01", 10, "0.05")).toBeNull();
    expect(preview("101", "1.5", "0.01", 10, "0.05")).toBeNull();
    expect(preview("abc", "1", "0.01", 10, "0.05")).toBeNull();
  });
});

describe("lots offered (spec §5: quantities sometimes multiples of 10 or 100)", () => {
  it("accepts only whole multiples of the pair's step within its bounds, as the server does", () => {
    expect(lotsOffered("10", 1, 1000, 1)).toBe(true);
    expect(lotsOffered("15", 10, 1000, 10)).toBe(false);
    expect(lotsOffered("20", 10, 1000, 10)).toBe(true);
    expect(lotsOffered("150", 100, 1000, 100)).toBe(false);
    expect(lotsOffered("1100", 100, 1000, 100)).toBe(false);
    expect(lotsOffered("", 1, 1000, 1)).toBe(false);
    expect(lotsOffered("1.5", 1, 1000, 1)).toBe(false);
  });

  it("steps and snaps to offered counts only", () => {
    expect(stepLots("10", 10, 100, 10, 1)).toBe("20");
    expect(stepLots("15", 10, 100, 10, 1)).toBe("20");
    expect(stepLots("15", 10, 100, 10, -1)).toBe("10");
    expect(stepLots("10", 10, 100, 10, -1)).toBe("10");
    expect(stepLots("100", 10, 100, 10, 1)).toBe("100");
    expect(snapLots("15", 10, 100, 10)).toBe("20");
    expect(snapLots("3", 10, 100, 10)).toBe("10");
    expect(snapLots("999", 100, 1000, 100)).toBe("1000");
    expect(snapLots("5000", 100, 1000, 100)).toBe("1000");
    expect(snapLots("", 1, 1000, 1)).toBe("1");
  });
});

describe("gain cap shown before opening", () => {
  it("puts a long's cap at twice its price, in the pair's decimals (the API's cap_price at open)", () => {
    expect(capPriceOf("101.00", 2)).toBe("202.00");
    expect(capPriceOf("60000.00", 2)).toBe("120000.00");
    expect(capPriceOf("", 2)).toBeNull();
  });
});

describe("what an open charges and risks, before confirming (openTerms)", () => {
  const btc = { lots: "10", lotSize: "0.01", leverage: 10, feePercent: "0.05", overnightPercent: "0.02", maintenancePercent: "20", priceDecimals: 2 };

  it("shows margin, fee, their sum, the overnight fee per day and the liquidation price as the server computes them", () => {
    // As the API opened it in tests/api/lever.test.ts: margin 1.01, fee 0.00505, liquidation 92.92 (20 % maintenance).
    expect(openTerms({ ...btc, direction: 1, price: "101.00" })).toEqual({
      value: "10.10000000",
      margin: "1.01000000",
      fee: "0.00505000",
      cost: "1.01505000",
      overnightPerDay: "0.00202000",
      liquidation: "92.92",
    });
  });

  it("puts a short's liquidation price above the open price, the same distance the server's rule gives", () => {
    // The loss that leaves 20 % of the 1.01 margin: 0.808 USDT = 8.08 on 0.1 BTC → 101 + 8.08 = 109.08.
    expect(openTerms({ ...btc, direction: 2, price: "101.00" })?.liquidation).toBe("109.08");
  });

  it("has no liquidation price for a 1× long without maintenance margin, and shows nothing for a missing input", () => {
    expect(openTerms({ ...btc, leverage: 1, maintenancePercent: "0", direction: 1, price: "101.00" })?.liquidation).toBeNull();
    expect(openTerms({ ...btc, direction: 1, price: "" })).toBeNull();
    expect(openTerms({ ...btc, lots: "0", direction: 1, price: "101.00" })).toBeNull();
  });

  it("rounds the overnight fee up to the minimal unit", () => {
    expect(openTerms({ ...btc, lots: "1", lotSize: "0.00000001", direction: 1, price: "0.01" })?.overnightPerDay).toBe("0.00000001");
  });
});

describe("the totals of a close-all confirmation (sumUsdt)", () => {
  it("adds signed P/L exactly to the minimal unit, and is unknown when one figure is", () => {
    expect(sumUsdt(["1.00000001", "-0.50000002", "0.1"])).toBe("0.59999999");
    expect(sumUsdt(["-1.5", "0.25"])).toBe("-1.25000000");
    expect(sumUsdt([])).toBe("0.00000000");
    expect(sumUsdt(["1", null])).toBeNull();
  });
});

describe("a typed TP/SL shown as the server stores it (priceAt)", () => {
  it("pads to the pair's price decimals, and leaves what does not fit as typed", () => {
    expect(priceAt("59500", 2)).toBe("59500.00");
    expect(priceAt("59500.5", 2)).toBe("59500.50");
    expect(priceAt("59500.123", 2)).toBe("59500.123");
    expect(priceAt("abc", 2)).toBe("abc");
  });
});
