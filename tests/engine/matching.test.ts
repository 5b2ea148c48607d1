/**
 * Example-based behaviour of the matching engine: grid validation, price-time priority, partial
 * fills, time in force, market budgets, self-trade prevention, fees and reservation releases.
 */
import { describe, expect, it } from "vitest";
import { SpotEngine, settleFill } from "../../durable/engine/index.ts";
import { cancel, codeOf, doneOf, fills, limit, makeEngine, makePair, market, ok } from "./helpers.ts";

describe("validation", () => {
  it("rejects a price that is not on the tick grid", () => {
    const e = makeEngine({ tickSize: 5 });
    const r = e.execute(limit({ price: 102 }));
    expect(r).toMatchObject({ ok: false, code: "PRICE_NOT_ON_TICK" });
    expect(codeOf(e.execute(limit({ price: 105 })))).toBe("ok");
  });

  it("rejects a quantity that is not a multiple of the lot size", () => {
    const e = makeEngine({ lotSize: 10 });
    expect(codeOf(e.execute(limit({ qty: 15 })))).toBe("QTY_NOT_ON_LOT");
    expect(codeOf(e.execute(market({ qty: 15 })))).toBe("QTY_NOT_ON_LOT");
    expect(codeOf(e.execute(limit({ qty: 20 })))).toBe("ok");
  });

  it("rejects a limit order worth less than the pair's minimum order value", () => {
    const e = makeEngine({ minNotional: 1000 });
    expect(codeOf(e.execute(limit({ price: 99, qty: 10 })))).toBe("BELOW_MIN_NOTIONAL");
    expect(codeOf(e.execute(limit({ price: 100, qty: 10 })))).toBe("ok");
  });

  it("rejects prices and quantities that are not positive safe integers", () => {
    const e = makeEngine();
    for (const price of [0, -5, 1.5, Number.NaN, Infinity, 2 ** 53]) {
      expect(codeOf(e.execute(limit({ price })))).toBe("INVALID_PRICE");
    }
    for (const qty of [0, -1, 0.5, Number.NaN]) {
      expect(codeOf(e.execute(limit({ qty })))).toBe("INVALID_QTY");
      expect(codeOf(e.execute(market({ qty })))).toBe("INVALID_QTY");
    }
  });

  it("rejects an order whose price times quantity exceeds the safe integer range", () => {
    const e = makeEngine();
    expect(codeOf(e.execute(limit({ price: 2 ** 30, qty: 2 ** 23 })))).toBe("NOTIONAL_TOO_LARGE");
    expect(codeOf(e.execute(limit({ price: 2 ** 30, qty: 2 ** 22 })))).toBe("ok");
  });

  it("rejects a second open order with the same id", () => {
    const e = makeEngine();
    ok(e, limit({ id: 7, price: 90 }));
    expect(codeOf(e.execute(limit({ id: 7, price: 80 })))).toBe("DUPLICATE_ID");
    expect(codeOf(e.execute(market({ id: 7, side: "sell" })))).toBe("DUPLICATE_ID");
  });

  it("rejects unknown sides, commands and malformed ids", () => {
    const e = makeEngine();
    expect(codeOf(e.execute(limit({ side: "long" as never })))).toBe("INVALID_SIDE");
    expect(codeOf(e.execute({ type: "stop" } as never))).toBe("INVALID_COMMAND");
    expect(codeOf(e.execute(limit({ id: "" })))).toBe("INVALID_ID");
    expect(codeOf(e.execute(limit({ id: 1.5 })))).toBe("INVALID_ID");
    expect(codeOf(e.execute(limit({ owner: "" })))).toBe("INVALID_OWNER");
    expect(codeOf(e.execute(limit({ tif: "FOK" as never })))).toBe("INVALID_COMMAND");
  });

  it("rejects a budget on a market sell and a budget that is not positive", () => {
    const e = makeEngine();
    expect(codeOf(e.execute(market({ side: "sell", budget: 100 })))).toBe("INVALID_BUDGET");
    expect(codeOf(e.execute(market({ budget: 0 })))).toBe("INVALID_BUDGET");
    expect(codeOf(e.execute(market({ budget: -1 })))).toBe("INVALID_BUDGET");
    expect(codeOf(e.execute(market({ budget: 2.5 })))).toBe("INVALID_BUDGET");
  });

  it("changes nothing when it rejects a command", () => {
    const e = makeEngine({ tickSize: 5 });
    ok(e, limit({ price: 100 }));
    const before = e.stateHash();
    const r = e.execute(limit({ price: 101 }));
    expect(r.ok).toBe(false);
    expect(r.seq).toBe(1);
    expect(r.events).toEqual([
      { type: "rejected", id: expect.anything(), code: "PRICE_NOT_ON_TICK", message: expect.any(String) },
    ]);
    expect(e.seq).toBe(1);
    expect(e.stateHash()).toBe(before);
  });

  it("throws on a pair configuration that cannot work", () => {
    expect(() => new SpotEngine(makePair({ tickSize: 0 }))).toThrow(/tickSize/);
    expect(() => new SpotEngine(makePair({ lotSize: 1.5 }))).toThrow(/lotSize/);
    expect(() => new SpotEngine(makePair({ takerFeeBps: -1 }))).toThrow(/takerFeeBps/);
    expect(() => new SpotEngine(makePair({ baseUnitsPerLot: 0n }))).toThrow(/baseUnitsPerLot/);
  });
});

describe("matching", () => {
  it("rests a limit order that does not cross and reports its level", () => {
    const e = makeEngine();
    const r = e.execute(limit({ id: 1, side: "buy", price: 100, qty: 3 }));
    expect(r.ok && r.depth).toEqual([{ side: "buy", price: 100, qty: 3 }]);
    expect(r.events.map((x) => x.type)).toEqual(["accepted", "booked"]);
    expect(e.bestBid()).toBe(100);
    expect(e.bestAsk()).toBeNull();
    expect(e.order(1)).toMatchObject({ remaining: 3, reservation: 300, reservationAsset: "quote" });
  });

  it("fills a limit buy at the maker's price", () => {
    const e = makeEngine();
    ok(e, limit({ id: "ask", owner: "alice", side: "sell", price: 100, qty: 5 }));
    const ev = ok(e, limit({ id: "bid", owner: "bob", side: "buy", price: 105, qty: 5 }));
    expect(fills(ev)).toEqual([
      expect.objectContaining({ takerId: "bid", makerId: "ask", price: 100, qty: 5, takerSide: "buy", makerRemaining: 0 }),
    ]);
    expect(doneOf(ev, "ask")).toMatchObject({ reason: "filled", releasedReservation: 0 });
    expect(doneOf(ev, "bid")).toMatchObject({ reason: "filled", remaining: 0 });
    expect(e.orderCount).toBe(0);
  });

  it("fills a limit sell at the maker's price", () => {
    const e = makeEngine();
    ok(e, limit({ id: "bid", owner: "alice", side: "buy", price: 100, qty: 5 }));
    const ev = ok(e, limit({ id: "ask", owner: "bob", side: "sell", price: 90, qty: 5 }));
    expect(fills(ev).map((f) => [f.price, f.qty])).toEqual([[100, 5]]);
  });

  it("partially fills a resting order and keeps its place in the queue", () => {
    const e = makeEngine();
    ok(e, limit({ id: "a1", owner: "alice", side: "sell", price: 100, qty: 5 }));
    ok(e, limit({ id: "a2", owner: "carol", side: "sell", price: 100, qty: 5 }));
    const first = ok(e, market({ owner: "bob", qty: 2 }));
    expect(fills(first).map((f) => [f.makerId, f.qty, f.makerRemaining])).toEqual([["a1", 2, 3]]);
    const second = ok(e, market({ owner: "bob", qty: 4 }));
    expect(fills(second).map((f) => [f.makerId, f.qty])).toEqual([
      ["a1", 3],
      ["a2", 1],
    ]);
    expect(e.depth()).toEqual({ bids: [], asks: [[100, 4]] });
  });

  it("rests the unfilled part of a limit order at its limit price", () => {
    const e = makeEngine();
    ok(e, limit({ id: "ask", owner: "alice", side: "sell", price: 100, qty: 2 }));
    const r = e.execute(limit({ id: "bid", owner: "bob", side: "buy", price: 101, qty: 5 }));
    expect(r.ok && r.events.at(-1)).toEqual({ type: "booked", id: "bid", owner: "bob", side: "buy", price: 101, remaining: 3 });
    expect(r.ok && r.depth).toEqual([
      { side: "buy", price: 101, qty: 3 },
      { side: "sell", price: 100, qty: 0 },
    ]);
    expect(e.bestBid()).toBe(101);
  });

  it("fills orders at the same price in arrival order", () => {
    const e = makeEngine();
    for (const id of ["first", "second", "third"]) ok(e, limit({ id, owner: id, side: "buy", price: 50, qty: 1 }));
    const ev = ok(e, market({ owner: "seller", side: "sell", qty: 3 }));
    expect(fills(ev).map((f) => f.makerId)).toEqual(["first", "second", "third"]);
  });

  it("takes better prices first and never goes beyond the taker's limit", () => {
    const e = makeEngine();
    ok(e, limit({ id: "a103", owner: "m", side: "sell", price: 103, qty: 1 }));
    ok(e, limit({ id: "a101", owner: "m", side: "sell", price: 101, qty: 1 }));
    ok(e, limit({ id: "a102", owner: "m", side: "sell", price: 102, qty: 1 }));
    const ev = ok(e, limit({ id: "t", owner: "t", side: "buy", price: 102, qty: 5 }));
    expect(fills(ev).map((f) => f.price)).toEqual([101, 102]);
    expect(e.depth()).toEqual({ bids: [[102, 3]], asks: [[103, 1]] });
  });

  it("expires the unfilled remainder of an IOC limit order", () => {
    const e = makeEngine();
    ok(e, limit({ owner: "m", side: "sell", price: 100, qty: 2 }));
    const ev = ok(e, limit({ id: "ioc", owner: "t", side: "buy", price: 100, qty: 5, tif: "IOC" }));
    expect(fills(ev).map((f) => f.qty)).toEqual([2]);
    expect(doneOf(ev, "ioc")).toMatchObject({ reason: "expired", remaining: 3, releasedReservation: 300 });
    expect(e.orderCount).toBe(0);
  });

  it("fills a market sell down the book and expires what liquidity cannot cover", () => {
    const e = makeEngine();
    ok(e, limit({ owner: "m1", side: "buy", price: 100, qty: 1 }));
    ok(e, limit({ owner: "m2", side: "buy", price: 90, qty: 1 }));
    const ev = ok(e, market({ id: "mkt", owner: "t", side: "sell", qty: 5 }));
    expect(fills(ev).map((f) => f.price)).toEqual([100, 90]);
    expect(doneOf(ev, "mkt")).toMatchObject({ reason: "expired", remaining: 3, releasedReservation: 3, reservationAsset: "base" });
  });

  it("expires a market order on an empty book and releases everything", () => {
    const e = makeEngine();
    const ev = ok(e, market({ id: "m", side: "buy", qty: 4, budget: 1000 }));
    expect(doneOf(ev, "m")).toMatchObject({ reason: "expired", remaining: 4, releasedReservation: 1000 });
  });

  it("counts applied commands in seq and numbers trades consecutively", () => {
    const e = makeEngine();
    ok(e, limit({ owner: "m", side: "sell", price: 100, qty: 1 }));
    ok(e, limit({ owner: "m", side: "sell", price: 101, qty: 1 }));
    e.execute(limit({ price: -1 }));
    const r = e.execute(market({ owner: "t", qty: 2 }));
    expect(r.seq).toBe(3);
    expect(fills(r.events).map((f) => f.tradeId)).toEqual([1, 2]);
    expect(e.tradeSeq).toBe(2);
  });
});

describe("market buy budget", () => {
  it("stops before a fill would exceed the budget", () => {
    const e = makeEngine();
    ok(e, limit({ owner: "m", side: "sell", price: 100, qty: 2 }));
    ok(e, limit({ owner: "m", side: "sell", price: 110, qty: 5 }));
    // 2 × 100 = 200 spent, 150 left buys one lot at 110 (not two: 220 > 150).
    const ev = ok(e, market({ id: "mb", owner: "t", qty: 10, budget: 350 }));
    expect(fills(ev).map((f) => [f.price, f.qty])).toEqual([
      [100, 2],
      [110, 1],
    ]);
    expect(doneOf(ev, "mb")).toMatchObject({ reason: "budget", remaining: 7, releasedReservation: 40 });
    expect(e.depth().asks).toEqual([[110, 4]]);
  });

  it("cuts the last fill down to whole lots the budget pays for", () => {
    const e = makeEngine({ lotSize: 10 });
    ok(e, limit({ owner: "m", side: "sell", price: 7, qty: 100 }));
    const ev = ok(e, market({ id: "mb", owner: "t", qty: 100, budget: 500 }));
    // 500 / 7 = 71.4 units → 70 (lot multiple) costing 490.
    expect(fills(ev).map((f) => f.qty)).toEqual([70]);
    expect(doneOf(ev, "mb")).toMatchObject({ reason: "budget", remaining: 30, releasedReservation: 10 });
  });

  it("completes as filled when the budget is exactly enough", () => {
    const e = makeEngine();
    ok(e, limit({ owner: "m", side: "sell", price: 100, qty: 3 }));
    const ev = ok(e, market({ id: "mb", owner: "t", qty: 3, budget: 300 }));
    expect(doneOf(ev, "mb")).toMatchObject({ reason: "filled", releasedReservation: 0 });
  });

  it("charges a budgeted market buy exactly the trade price from its reservation", () => {
    const e = makeEngine();
    ok(e, limit({ owner: "m", side: "sell", price: 100, qty: 3 }));
    const [f] = fills(ok(e, market({ owner: "t", qty: 3, budget: 1000 })));
    expect(f?.buyerReservedPrice).toBe(100);
  });
});

describe("self-trade prevention", () => {
  it("expires the taker's remainder when it meets its owner's resting order", () => {
    const e = makeEngine();
    ok(e, limit({ id: "other", owner: "bob", side: "sell", price: 100, qty: 1 }));
    ok(e, limit({ id: "mine", owner: "alice", side: "sell", price: 101, qty: 1 }));
    ok(e, limit({ id: "behind", owner: "carol", side: "sell", price: 101, qty: 1 }));
    const ev = ok(e, limit({ id: "taker", owner: "alice", side: "buy", price: 105, qty: 3 }));
    expect(fills(ev).map((f) => f.makerId)).toEqual(["other"]);
    expect(doneOf(ev, "taker")).toMatchObject({ reason: "self_trade", remaining: 2, releasedReservation: 210 });
    // The resting order of the same owner, and everything behind it, is untouched; nothing rests.
    expect(e.order("mine")).toMatchObject({ remaining: 1 });
    expect(e.order("behind")).toMatchObject({ remaining: 1 });
    expect(e.order("taker")).toBeUndefined();
  });

  it("never trades an account with itself on a market order", () => {
    const e = makeEngine();
    ok(e, limit({ id: "mine", owner: 42, side: "buy", price: 100, qty: 1 }));
    const ev = ok(e, market({ id: "mkt", owner: 42, side: "sell", qty: 1 }));
    expect(fills(ev)).toEqual([]);
    expect(doneOf(ev, "mkt")).toMatchObject({ reason: "self_trade", remaining: 1, releasedReservation: 1 });
  });

  it("treats numeric and string owners as different accounts", () => {
    const e = makeEngine();
    ok(e, limit({ owner: 7, side: "buy", price: 100, qty: 1 }));
    expect(fills(ok(e, market({ owner: "7", side: "sell", qty: 1 })))).toHaveLength(1);
  });
});

describe("fees", () => {
  it("takes the buyer's fee in base and the seller's in quote at maker and taker rates", () => {
    const e = makeEngine({ makerFeeBps: 10, takerFeeBps: 20, baseUnitsPerLot: 100n, quoteUnitsPerTickLot: 1n });
    ok(e, limit({ owner: "maker", side: "sell", price: 50_000_00, qty: 1_000_000 }));
    const [f] = fills(ok(e, market({ owner: "taker", side: "buy", qty: 1_000_000 })));
    // Buyer (taker) receives 1 BTC = 1e8 base units, pays 0.2%; seller (maker) receives 50,000 USDT = 5e12 units, pays 0.1%.
    expect(f?.buyerFee).toBe(200_000n);
    expect(f?.sellerFee).toBe(5_000_000_000n);
  });

  it("rounds fees down to the minimal unit", () => {
    const e = makeEngine({ makerFeeBps: 25, takerFeeBps: 25, baseUnitsPerLot: 1n });
    ok(e, limit({ owner: "m", side: "buy", price: 3, qty: 399 }));
    const [f] = fills(ok(e, market({ owner: "t", side: "sell", qty: 399 })));
    expect(f?.buyerFee).toBe(0n); // 399 × 25 / 10000 = 0.9975
    expect(f?.sellerFee).toBe(2n); // 1197 × 25 / 10000 = 2.99
  });

  it("credits every fee to the pair's fee account", () => {
    const pair = makePair({ makerFeeBps: 100, takerFeeBps: 200, feeAccount: "treasury" });
    const e = new SpotEngine(pair);
    ok(e, limit({ owner: "m", side: "sell", price: 100, qty: 100 }));
    const [f] = fills(ok(e, market({ owner: "t", qty: 100, budget: 20_000 })));
    const s = settleFill(pair, f!);
    expect(s.fee).toEqual({
      account: "treasury",
      base: { available: 200n, frozen: 0n }, // 2% of 100 lots × 100 units
      quote: { available: 100n, frozen: 0n }, // 1% of 10,000
    });
  });
});

describe("reservations", () => {
  it("releases the whole reservation of a cancelled buy", () => {
    const e = makeEngine();
    ok(e, limit({ id: "b", owner: "alice", side: "buy", price: 120, qty: 4 }));
    const r = e.execute(cancel("b", "alice"));
    expect(r.ok && r.events).toEqual([
      { type: "done", id: "b", owner: "alice", side: "buy", reason: "cancelled", remaining: 4, releasedReservation: 480, reservationAsset: "quote" },
    ]);
    expect(r.ok && r.depth).toEqual([{ side: "buy", price: 120, qty: 0 }]);
  });

  it("releases the unfilled quantity of a cancelled, partly filled sell", () => {
    const e = makeEngine();
    ok(e, limit({ id: "s", owner: "alice", side: "sell", price: 100, qty: 10 }));
    ok(e, market({ owner: "bob", qty: 3 }));
    const r = e.execute(cancel("s"));
    expect(r.ok && doneOf(r.events, "s")).toMatchObject({ remaining: 7, releasedReservation: 7, reservationAsset: "base" });
  });

  it("releases the price improvement when a limit buy fills below its limit", () => {
    const e = makeEngine();
    ok(e, limit({ owner: "m", side: "sell", price: 95, qty: 2 }));
    const ev = ok(e, limit({ id: "b", owner: "t", side: "buy", price: 100, qty: 5 }));
    const [f] = fills(ev);
    // Reserved at 100 per lot, paid 95: 5 per lot comes back with the fill; the rest stays frozen for the resting 3 lots.
    expect(f?.buyerReservedPrice).toBe(100);
    expect(settleFill(makePair(), f!).buyer.quote).toEqual({ frozen: -200n, available: 10n });
    expect(e.order("b")).toMatchObject({ remaining: 3, reservation: 300 });
  });

  it("refuses to cancel another account's order or an unknown one", () => {
    const e = makeEngine();
    ok(e, limit({ id: "x", owner: "alice" }));
    expect(codeOf(e.execute(cancel("x", "mallory")))).toBe("NOT_OWNER");
    expect(codeOf(e.execute(cancel("nope")))).toBe("UNKNOWN_ORDER");
    expect(e.order("x")).toBeDefined();
  });
});

describe("depth", () => {
  it("aggregates the top levels per side, best first", () => {
    const e = makeEngine();
    ok(e, limit({ owner: "a", side: "buy", price: 99, qty: 1 }));
    ok(e, limit({ owner: "b", side: "buy", price: 99, qty: 2 }));
    ok(e, limit({ owner: "a", side: "buy", price: 97, qty: 5 }));
    ok(e, limit({ owner: "a", side: "buy", price: 98, qty: 4 }));
    ok(e, limit({ owner: "a", side: "sell", price: 103, qty: 1 }));
    ok(e, limit({ owner: "a", side: "sell", price: 101, qty: 6 }));
    expect(e.depth(2)).toEqual({
      bids: [
        [99, 3],
        [98, 4],
      ],
      asks: [
        [101, 6],
        [103, 1],
      ],
    });
    expect([e.bestBid(), e.bestAsk()]).toEqual([99, 101]);
  });

  it("lists every level a sweep changed with its new total", () => {
    const e = makeEngine();
    ok(e, limit({ owner: "m", side: "buy", price: 100, qty: 1 }));
    ok(e, limit({ owner: "m", side: "buy", price: 100, qty: 1 }));
    ok(e, limit({ owner: "m", side: "buy", price: 99, qty: 5 }));
    const r = e.execute(limit({ owner: "t", side: "sell", price: 99, qty: 4 }));
    expect(r.ok && r.depth).toEqual([
      { side: "buy", price: 100, qty: 0 },
      { side: "buy", price: 99, qty: 3 },
    ]);
  });
});

describe("extremes", () => {
  it("matches exactly with prices and quantities near the safe-integer limit", () => {
    const e = makeEngine();
    const price = 2 ** 40 + 1;
    const qty = 4095; // price × qty just below 2^53
    ok(e, limit({ id: "big-ask", owner: "m", side: "sell", price, qty }));
    const ev = ok(e, limit({ id: "big-bid", owner: "t", side: "buy", price, qty }));
    expect(fills(ev)).toEqual([expect.objectContaining({ price, qty, notional: price * qty })]);
    expect(Number.isSafeInteger(price * qty)).toBe(true);
  });

  it("spends a budget close to the safe-integer limit without overshooting", () => {
    const e = makeEngine();
    const price = 3 ** 20;
    const qty = Math.floor(Number.MAX_SAFE_INTEGER / price);
    ok(e, limit({ owner: "m", side: "sell", price, qty }));
    // One lot short of the whole order, minus a little: the last lot must not be bought.
    const budget = price * qty - 12_346;
    const ev = ok(e, market({ id: "mb", owner: "t", qty, budget }));
    expect(fills(ev).map((f) => f.qty)).toEqual([qty - 1]);
    const left = doneOf(ev, "mb")!.releasedReservation;
    expect(left).toBe(price - 12_346);
    expect(BigInt(price) * BigInt(qty - 1) + BigInt(left)).toBe(BigInt(budget));
  });

  it("keeps many levels and orders consistent through churn", () => {
    const e = makeEngine();
    let id = 0;
    for (let round = 0; round < 20; round++) {
      for (let p = 1; p <= 300; p++) ok(e, limit({ id: ++id, owner: p % 3, side: "buy", price: p * 2, qty: 1 + (p % 4) }));
      for (let k = id - 299; k <= id; k += 2) ok(e, cancel(k));
      ok(e, market({ owner: "x", side: "sell", qty: 200 }));
      e.checkInvariants();
    }
    expect(e.orderCount).toBeGreaterThan(500);
  });
});
