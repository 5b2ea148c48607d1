// The leveraged-contract form's preview (web/src/features/lever/math.ts): margin and fee shown
// before confirming, rounded up to 8 decimals as the server charges them.
import { describe, expect, it } from "vitest";
import { preview } from "../../web/src/features/lever/math.ts";

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
