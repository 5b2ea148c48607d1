/** The chart page's book grouping (issue #30): steps per tick, bids rounded down, asks up, amounts summed exactly. */
import { describe, expect, it } from "vitest";
import { groupLevels, groupSteps } from "../../web/src/features/kline/bookGroups.ts";

const d = { price: 2, qty: 6 };

describe("the order book grouped by a price step", () => {
  it("offers 1, 10, 100 and 1000 ticks of the pair's price", () => {
    expect(groupSteps(2)).toEqual(["0.01", "0.1", "1", "10"]);
    expect(groupSteps(0)).toEqual(["1", "10", "100", "1000"]);
  });

  it("sums bids into buckets rounded down and asks into buckets rounded up, best first, never showing a better price than an order has", () => {
    const bids: [string, string][] = [["100.57", "0.100000"], ["100.51", "0.200000"], ["99.99", "1.000000"]];
    const asks: [string, string][] = [["100.61", "0.300000"], ["100.70", "0.000001"], ["101.01", "2.000000"]];
    expect(groupLevels(bids, "0.1", "bids", d)).toEqual([["100.5", "0.300000"], ["99.9", "1.000000"]]);
    expect(groupLevels(asks, "0.1", "asks", d)).toEqual([["100.7", "0.300001"], ["101.1", "2.000000"]]);
    expect(groupLevels(bids, "10", "bids", d)).toEqual([["100", "0.300000"], ["90", "1.000000"]]);
    expect(groupLevels(asks, "10", "asks", d)).toEqual([["110", "2.300001"]]);
  });

  it("leaves the book as it is at the finest step", () => {
    const bids: [string, string][] = [["100.57", "0.100000"], ["100.51", "0.200000"]];
    expect(groupLevels(bids, "0.01", "bids", d)).toEqual(bids);
  });
});
