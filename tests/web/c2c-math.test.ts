/**
 * What the C2C screens compute before anything is sent (web/src/features/c2c/math.ts): the order
 * dialog's total (number × price to the cent, half up, as the server's dealMoneyCents), the
 * quantity a typed total buys, the all-in button, the advert's limits, the payment countdown and
 * where an order in the list leads. Exact, with no float anywhere.
 */
import { describe, expect, it } from "vitest";
import { hasUnread } from "../../web/src/features/c2c/readMarks.ts";
import { allInNumber, canAppeal, checkOrder, formatCountdown, numberForTotal, orderLink, qtyDecimals, secondsLeft, totalOf } from "../../web/src/features/c2c/math.ts";

/** A sell advert (the merchant sells, the user buys) at 7.20 CNY, 100–7,200 CNY per order. */
const makeAdvert = (over: Partial<Parameters<typeof checkOrder>[1] & { max_number: string }> = {}) => ({
  type: "sell" as const,
  price: "7.20",
  min_money: "100.00",
  max_money: "7200.00",
  surplus_number: "5000",
  max_number: "1000",
  user_sell_all_balance: "0",
  ...over,
});

describe("the order total", () => {
  it("is number × price in CNY with exactly 2 decimals", () => {
    expect(totalOf("100", "7.20", 6)).toBe("720.00");
    expect(totalOf("0.5", "7.21", 6)).toBe("3.61"); // 3.605 rounds half up, as the server does
    expect(totalOf("1.234567", "7.2", 6)).toBe("8.89"); // 8.8888824
  });

  it("stays exact where a float would not (0.1 × 3 coins' worth)", () => {
    expect(totalOf("0.3", "0.10", 6)).toBe("0.03");
    expect(totalOf("123456789.123456", "7.19", 6)).toBe("887654313.80");
  });

  it("is not computed from something that is not an amount", () => {
    expect(totalOf("", "7.20", 6)).toBeNull();
    expect(totalOf("1e3", "7.20", 6)).toBeNull();
    expect(totalOf("1.1234567", "7.20", 6)).toBeNull(); // more decimals than the coin allows
    expect(totalOf("1", "7.201", 6)).toBeNull(); // a price has 2 decimals
  });

  it("from a typed total gives the quantity it pays for, never more", () => {
    expect(numberForTotal("720", "7.20", 6)).toBe("100");
    expect(numberForTotal("100", "7.20", 6)).toBe("13.888888");
    expect(totalOf(numberForTotal("100", "7.20", 6)!, "7.20", 6)).toBe("100.00");
    expect(numberForTotal("100", "0", 6)).toBeNull();
    expect(numberForTotal("abc", "7.20", 6)).toBeNull();
  });

  it("limits a quantity to the coin's scale, at most 6 decimals", () => {
    expect(qtyDecimals(8)).toBe(6);
    expect(qtyDecimals(4)).toBe(4);
    expect(qtyDecimals(undefined)).toBe(6);
  });
});

describe("the all-in button", () => {
  it("buying from a merchant fills the advert's largest order", () => {
    expect(allInNumber(makeAdvert({ max_number: "1000.000000" }), 6)).toBe("1000");
  });

  it("selling to a merchant fills the user's balance, cut to the coin's decimals and capped by the advert", () => {
    const buyAd = makeAdvert({ type: "buy", max_number: "1000", user_sell_all_balance: "250.12345678" });
    expect(allInNumber(buyAd, 6)).toBe("250.123456");
    expect(allInNumber({ ...buyAd, user_sell_all_balance: "5000" }, 6)).toBe("1000");
    expect(allInNumber({ ...buyAd, user_sell_all_balance: "0" }, 6)).toBe("0");
  });
});

describe("the advert's limits", () => {
  it("accepts an amount whose total is within min and max", () => {
    expect(checkOrder("100", makeAdvert(), 6)).toBeNull();
    expect(checkOrder("1000", makeAdvert(), 6)).toBeNull(); // exactly the max: 7,200.00
  });

  it("refuses an empty, zero or malformed amount", () => {
    expect(checkOrder("", makeAdvert(), 6)).toEqual({ kind: "empty" });
    expect(checkOrder("0", makeAdvert(), 6)).toEqual({ kind: "invalid" });
    expect(checkOrder("-5", makeAdvert(), 6)).toEqual({ kind: "invalid" });
    expect(checkOrder("1.1234567", makeAdvert(), 6)).toEqual({ kind: "decimals", decimals: 6 });
  });

  it("refuses a total below the minimum or above the maximum, judged on the rounded total", () => {
    expect(checkOrder("13.88", makeAdvert(), 6)).toEqual({ kind: "below_min", min: "100.00" }); // 99.94
    expect(checkOrder("13.8889", makeAdvert(), 6)).toBeNull(); // 100.00008 → 100.00
    expect(checkOrder("1000.01", makeAdvert(), 6)).toEqual({ kind: "above_max", max: "7200.00" });
  });

  it("refuses more than the merchant has left", () => {
    expect(checkOrder("600", makeAdvert({ surplus_number: "500", max_money: "100000.00" }), 6)).toEqual({ kind: "above_remaining", remaining: "500" });
  });

  it("selling to a merchant, refuses more than the user's balance", () => {
    const buyAd = makeAdvert({ type: "buy", user_sell_all_balance: "50" });
    expect(checkOrder("51", buyAd, 6)).toEqual({ kind: "above_balance", balance: "50" });
    expect(checkOrder("50", buyAd, 6)).toBeNull();
  });
});

describe("the payment countdown", () => {
  it("counts whole seconds to the deadline and stops at zero", () => {
    expect(secondsLeft(10_000, 0)).toBe(10);
    expect(secondsLeft(10_000, 9_001)).toBe(1); // part of a second left still shows 1
    expect(secondsLeft(10_000, 10_000)).toBe(0);
    expect(secondsLeft(10_000, 99_000)).toBe(0);
  });

  it("shows minutes and seconds", () => {
    expect(formatCountdown(900)).toBe("15:00");
    expect(formatCountdown(61)).toBe("01:01");
    expect(formatCountdown(0)).toBe("00:00");
    expect(formatCountdown(-3)).toBe("00:00");
  });
});

describe("where an order leads", () => {
  it("sends the buyer of an unpaid order to pay, everything else to the detail", () => {
    expect(orderLink({ id: 7, role: "buyer", is_sure: 0 })).toBe("/legal/pay?id=7");
    expect(orderLink({ id: 7, role: "seller", is_sure: 0 })).toBe("/legal/show?id=7");
    expect(orderLink({ id: 7, role: "buyer", is_sure: 3 })).toBe("/legal/show?id=7");
  });

  it("offers an appeal only for a paid order, once its time has come, and only once", () => {
    const paid = { is_sure: 3 as const, appeal_from: 1_000, appeal: null };
    expect(canAppeal(paid, 999)).toBe(false);
    expect(canAppeal(paid, 1_000)).toBe(true);
    expect(canAppeal({ ...paid, is_sure: 1 }, 5_000)).toBe(false);
    expect(canAppeal({ ...paid, appeal_from: null }, 5_000)).toBe(false);
  });
});

describe("the new-message badge", () => {
  it("shows while an order has a message newer than the last one read, and goes once it is read", () => {
    expect(hasUnread({}, 7, 0)).toBe(false); // no messages at all
    expect(hasUnread({}, 7, 3)).toBe(true);
    expect(hasUnread({ 7: 3 }, 7, 3)).toBe(false);
    expect(hasUnread({ 7: 3 }, 7, 4)).toBe(true); // a new message after reading
    expect(hasUnread({ 8: 9 }, 7, 1)).toBe(true); // another order's reading does not count
  });
});
