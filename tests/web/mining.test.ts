// The mining rule and break-even calculator (schemas/mining-calc.ts), shared by the hourly payout
// and the plan screen: a holder's part is rounded down and the fee taken from it, per-share figures
// are truncated, and the calculator works in bigint on decimal strings (no float ever rounds money).
import { describe, expect, it } from "vitest";
import { breakEven, holderShare, perShare } from "../../schemas/mining-calc.ts";

describe("a holder's part of an hour's payout", () => {
  it("is the amount times the shares held over the plan's shares, rounded down, minus the fee rounded in the house's favour", () => {
    // 0.01 BTC (1,000,000 sat) for 10 of 1,000 shares, 2 % fee.
    expect(holderShare(1_000_000n, 10n, 1000n, 200)).toEqual({ gross: 10_000n, fee: 200n, net: 9_800n });
    // 7 sat for 1 of 3 shares: 2 sat gross; a 10 % fee of 0.2 sat takes 1 sat.
    expect(holderShare(7n, 1n, 3n, 1000)).toEqual({ gross: 2n, fee: 1n, net: 1n });
    expect(holderShare(7n, 1n, 3n, 0)).toEqual({ gross: 2n, fee: 0n, net: 2n });
  });

  it("shows a per-share amount with four decimals beyond the currency's, truncated", () => {
    expect(perShare(1_000_000n, 1000, 8)).toBe("0.00001");
    expect(perShare(1n, 3, 8)).toBe("0.000000003333");
    expect(perShare(0n, 3, 8)).toBe("0");
  });
});

describe("the break-even calculator", () => {
  const base = { shares: "3", price: "50", fee_bps: 200, days: 30, per_share_day: "0.00001", coin_price: "50000", payout_decimals: 8, price_decimals: 2 };

  it("states the cost, what is paid a day and over the term, and when the cost would be covered at the user's assumptions", () => {
    expect(breakEven(base)).toEqual({
      cost: "150",
      net_day: "0.0000294",
      fee_day: "0.0000006",
      net_term: "0.000882",
      value_term: "44.1",
      result_term: "-105.9",
      break_even_price: "170068.02",
      break_even_days: 103,
      within_term: false,
    });
    expect(breakEven({ ...base, coin_price: "200000" })).toMatchObject({ break_even_days: 26, within_term: true, result_term: "26.4" });
  });

  it("says never when nothing is paid, and refuses shares that are not whole or numbers that are not plain decimals", () => {
    expect(breakEven({ ...base, per_share_day: "0" })).toMatchObject({ break_even_price: null, break_even_days: null, within_term: false });
    expect(breakEven({ ...base, shares: "1.5" })).toBeNull();
    expect(breakEven({ ...base, shares: "0" })).toBeNull();
    expect(breakEven({ ...base, coin_price: "-1" })).toBeNull();
    expect(breakEven({ ...base, per_share_day: "1e-5" })).toBeNull();
  });
});
