// The savings screens' preview arithmetic (web/src/features/earn/terms.ts): what a user is shown
// before subscribing must be what the server will compute (amount × APR / 365, rounded down).
import { describe, expect, it } from "vitest";
import { amountProblem, dailyInterest, maturityAt, reserveLow, termInterest } from "../../web/src/features/earn/terms.ts";

describe("the interest a subscription would earn", () => {
  it("is amount × APR / 365 a day, rounded down to the unit, never a float", () => {
    expect(dailyInterest("100", 500)).toBe("0.01369863");
    expect(termInterest("100", 500, 30)).toBe("0.4109589");
    expect(dailyInterest("1000", 365)).toBe("0.1");
    // A huge amount stays exact.
    expect(dailyInterest("90000000.12345678", 1250)).toBe("30821.91785049");
    expect(dailyInterest("", 500)).toBeNull();
    expect(dailyInterest("abc", 500)).toBeNull();
  });

  it("pays a fixed term out once the term's days of holding have passed since the subscription, to the minute", () => {
    expect(maturityAt(Date.UTC(2026, 10, 26, 7, 30), 30)).toBe(Date.UTC(2026, 11, 26, 7, 30));
    expect(maturityAt(Date.UTC(2026, 11, 31, 23, 59), 7)).toBe(Date.UTC(2027, 0, 7, 23, 59));
  });
});

describe("an amount the screen refuses before sending", () => {
  const p = { min_amount: "10", max_amount: "1000", my_open: "900", budget_covers: "500" };
  it("names the first problem in the order the server checks", () => {
    expect(amountProblem("abc", p, "5000")).toBe("invalid");
    expect(amountProblem("0", p, "5000")).toBe("invalid");
    expect(amountProblem("5", p, "5000")).toBe("below_min");
    expect(amountProblem("200", p, "5000")).toBe("above_room");
    expect(amountProblem("100", { ...p, my_open: "0", budget_covers: "50" }, "5000")).toBe("above_budget");
    expect(amountProblem("100", p, "99.99")).toBe("above_balance");
    expect(amountProblem("100", p, "100")).toBeNull();
  });
});

describe("a flexible position's reserve", () => {
  it("reads as low once the budget no longer keeps 30 days of interest ahead", () => {
    expect(reserveLow("3", "0.1")).toBe(false);
    expect(reserveLow("2.9", "0.1")).toBe(true);
    expect(reserveLow("0", "0")).toBe(false);
  });
});
