/**
 * Leveraged contracts as money: margin, fees and P/L with their roundings, the liquidation price
 * against the liquidation rule, TP/SL rules per direction, and the promises of the design — a
 * position never loses more than its margin, the house never pays more than it holds, and open +
 * overnight fees + close net to zero across user, house and fees.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  closeAt,
  closeLegs,
  contractUnits,
  equityAt,
  liquidates,
  liquidationPrice,
  capPrice,
  limitReached,
  limitValid,
  openLegs,
  openMoney,
  overnightFee,
  overnightLegs,
  PRICE_MOVE_TOLERANCE_BPS,
  priceMoved,
  refundLegs,
  riskRateBps,
  rawPnl,
  stopHit,
  stopValid,
  sweepVerdict,
  type LeverDirection,
  type LeverLeg,
  type LeverRole,
  type Position,
} from "../../durable/engine/margin.ts";

/** BTC/USDT as seeded: price 2 decimals, BTC and USDT 8 decimals, 0.01 BTC per lot. */
const BTC = contractUnits({ priceDecimals: 2, baseScale: 8, quoteScale: 8 }, 1_000_000n);
const E8 = 100_000_000n;
/** 100.00 USDT in ticks */
const px = (usdt: number) => BigInt(Math.round(usdt * 100));

const position = (over: Partial<Position> & { price?: bigint; leverage?: number } = {}): Position => {
  const lots = over.lots ?? 10n;
  const price = over.openPrice ?? px(100);
  const m = openMoney(BTC, price, lots, over.leverage ?? 10, 10);
  return { direction: 1, openPrice: price, lots, margin: m.margin, hold: m.hold, overnight: 0n, ...over };
};

describe("margin and fees", () => {
  it("computes margin = price × lots × lot size / leverage in USDT minimal units", () => {
    // 10 lots × 0.01 BTC at 100 USDT = 10 USDT of value; 10× leverage → 1 USDT margin; 0.1 % fee.
    expect(openMoney(BTC, px(100), 10n, 10, 10)).toEqual({ margin: 1n * E8, fee: 1_000_000n, hold: 10n * E8 });
  });

  it("rounds the margin and the fee up, never down", () => {
    // value 1 tick × 1 lot × 10^6 / 100 = 10^4 units; / 3 = 3333.33 → 3334; fee 0.1 % = 10 → 10.
    const m = openMoney(BTC, 1n, 1n, 3, 10);
    expect(m.margin).toBe(3334n);
    const tiny = contractUnits({ priceDecimals: 2, baseScale: 8, quoteScale: 6 }, 1n);
    // value 1 × 1 × 1 / 10^4 → a fraction of a unit: margin 1, fee 1, hold 1.
    expect(openMoney(tiny, 1n, 1n, 100, 10)).toEqual({ margin: 1n, fee: 1n, hold: 1n });
  });

  it("refuses nonsense terms", () => {
    expect(() => openMoney(BTC, 0n, 1n, 10, 10)).toThrow(RangeError);
    expect(() => openMoney(BTC, 1n, 0n, 10, 10)).toThrow(RangeError);
    expect(() => openMoney(BTC, 1n, 1n, 0, 10)).toThrow(RangeError);
    expect(() => contractUnits({ priceDecimals: 2, baseScale: 8, quoteScale: 8 }, 0n)).toThrow(RangeError);
  });
});

describe("P/L, equity and risk", () => {
  it("gains on a long when the index rises and on a short when it falls", () => {
    expect(rawPnl(BTC, 1, px(100), px(110), 10n)).toBe(1n * E8);
    expect(rawPnl(BTC, 2, px(100), px(110), 10n)).toBe(-1n * E8);
    expect(rawPnl(BTC, 2, px(100), px(90), 10n)).toBe(1n * E8);
  });

  it("rounds P/L down: a fractional gain is cut, a fractional loss counts whole", () => {
    const c = contractUnits({ priceDecimals: 2, baseScale: 8, quoteScale: 2 }, 1n);
    expect(rawPnl(c, 1, 100n, 101n, 1n)).toBe(0n);
    expect(rawPnl(c, 1, 101n, 100n, 1n)).toBe(-1n);
  });

  it("reports risk rate = equity / margin", () => {
    const p = position();
    expect(riskRateBps(BTC, p, px(100))).toBe(10_000n);
    // −5 % on 10× = −50 % of the margin.
    expect(riskRateBps(BTC, p, px(95))).toBe(5_000n);
    expect(equityAt(BTC, p, px(50))).toBe(0n);
  });

  it("closes at a loss of exactly the margin, and no more, however far the index falls", () => {
    const p = position();
    const o = closeAt(BTC, p, px(1), 10);
    expect(o).toEqual({ pnl: -p.margin, fee: 0n, payout: 0n });
  });

  it("caps a long's gain at the house's hold and closes it at the cap price", () => {
    const p = position();
    expect(capPrice(BTC, p)).toBe(px(200));
    expect(closeAt(BTC, p, px(500), 0).pnl).toBe(p.hold);
    expect(sweepVerdict(BTC, { ...p, stopProfit: null, stopLoss: null }, px(200), 2000)).toBe("cap");
    expect(sweepVerdict(BTC, { ...p, stopProfit: null, stopLoss: null }, px(199.99), 2000)).toBeNull();
  });
});

describe("liquidation", () => {
  it("places a 10× long's liquidation price where equity reaches the maintenance margin", () => {
    // 20 % maintenance: equity 0.2 USDT ⟺ loss 0.8 USDT ⟺ index 92.
    const p = position();
    expect(liquidationPrice(BTC, p, 2000)).toBe(px(92));
    expect(liquidates(BTC, p, px(92), 2000)).toBe(true);
    expect(liquidates(BTC, p, px(92.01), 2000)).toBe(false);
    const s = { ...p, direction: 2 as const };
    expect(liquidationPrice(BTC, s, 2000)).toBe(px(108));
    expect(liquidates(BTC, s, px(108), 2000)).toBe(true);
    expect(liquidates(BTC, s, px(107.99), 2000)).toBe(false);
  });

  it("moves the liquidation price closer as overnight fees eat the margin", () => {
    const p = position();
    const later = { ...p, overnight: 10_000_000n };
    expect(liquidationPrice(BTC, later, 2000)! > liquidationPrice(BTC, p, 2000)!).toBe(true);
  });

  it("never liquidates a 1× long with no maintenance margin (no positive price does)", () => {
    expect(liquidationPrice(BTC, position({ leverage: 1 }), 0)).toBeNull();
  });

  const arb = fc.record({
    direction: fc.constantFrom<LeverDirection>(1, 2),
    open: fc.bigInt({ min: 1n, max: 10_000_000n }),
    lots: fc.bigInt({ min: 1n, max: 1000n }),
    leverage: fc.integer({ min: 1, max: 125 }),
    mm: fc.integer({ min: 0, max: 10_000 }),
    nights: fc.integer({ min: 0, max: 30 }),
    dailyBps: fc.integer({ min: 0, max: 100 }),
    size: fc.bigInt({ min: 1n, max: 100_000_000n }),
    pd: fc.integer({ min: 0, max: 4 }),
  });

  const build = (a: Parameters<Parameters<typeof arb.map>[0]>[0]) => {
    const c = contractUnits({ priceDecimals: a.pd, baseScale: 8, quoteScale: 8 }, a.size);
    const m = openMoney(c, a.open, a.lots, a.leverage, 10);
    let p: Position = { direction: a.direction, openPrice: a.open, lots: a.lots, margin: m.margin, hold: m.hold, overnight: 0n };
    for (let i = 0; i < a.nights; i++) p = { ...p, overnight: p.overnight + overnightFee(c, p, a.dailyBps) };
    return { c, m, p };
  };

  it("the liquidation price is exactly the boundary of the liquidation rule", () => {
    fc.assert(
      fc.property(arb, (a) => {
        const { c, p } = build(a);
        const lp = liquidationPrice(c, p, a.mm);
        if (p.direction === 1) {
          if (lp === null) return !liquidates(c, p, 1n, a.mm);
          return liquidates(c, p, lp, a.mm) && !liquidates(c, p, lp + 1n, a.mm);
        }
        return liquidates(c, p, lp!, a.mm) && (lp === 1n || !liquidates(c, p, lp! - 1n, a.mm));
      }),
      { numRuns: 500 },
    );
  });

  it("a position never loses more than its margin and the house never pays more than its hold", () => {
    fc.assert(
      fc.property(arb, fc.bigInt({ min: 1n, max: 100_000_000n }), fc.integer({ min: 0, max: 1000 }), (a, exit, feeBps) => {
        const { c, m, p } = build(a);
        const o = closeAt(c, p, exit, feeBps);
        const userLoss = m.margin - o.payout; // overnight fees + P/L + close fee, from the margin
        const housePays = o.payout + o.fee - (p.margin - p.overnight);
        return o.payout >= 0n && o.fee >= 0n && userLoss <= m.margin && housePays <= p.hold;
      }),
      { numRuns: 500 },
    );
  });
});

describe("take-profit and stop-loss rules (spec §5)", () => {
  it("wants a long's take-profit above the reference and its stop-loss below; a short's reversed", () => {
    expect(stopValid(1, "profit", px(110), px(100))).toBe(true);
    expect(stopValid(1, "profit", px(100), px(100))).toBe(false);
    expect(stopValid(1, "loss", px(90), px(100))).toBe(true);
    expect(stopValid(1, "loss", px(101), px(100))).toBe(false);
    expect(stopValid(2, "profit", px(90), px(100))).toBe(true);
    expect(stopValid(2, "profit", px(110), px(100))).toBe(false);
    expect(stopValid(2, "loss", px(110), px(100))).toBe(true);
    expect(stopValid(2, "loss", 0n, px(100))).toBe(false);
    expect(stopValid(1, "loss", null, px(100))).toBe(true);
  });

  it("fires a stop when the index reaches it, per direction", () => {
    expect(stopHit(1, px(110), px(90), px(110))).toBe("profit");
    expect(stopHit(1, px(110), px(90), px(90))).toBe("loss");
    expect(stopHit(1, px(110), px(90), px(100))).toBeNull();
    expect(stopHit(2, px(90), px(110), px(89))).toBe("profit");
    expect(stopHit(2, px(90), px(110), px(111))).toBe("loss");
  });

  it("accepts a limit open only on the better side and fires it when the index gets there", () => {
    expect(limitValid(1, px(95), px(100))).toBe(true);
    expect(limitValid(1, px(100), px(100))).toBe(false);
    expect(limitValid(2, px(105), px(100))).toBe(true);
    expect(limitValid(2, px(95), px(100))).toBe(false);
    expect(limitReached(1, px(95), px(95))).toBe(true);
    expect(limitReached(1, px(95), px(95.01))).toBe(false);
    expect(limitReached(2, px(105), px(106))).toBe(true);
  });
});

describe("a confirmed price against the index (a market open)", () => {
  it("refuses an index more than 0.1 % away from the confirmed price either way, and accepts one within it, the boundary included", () => {
    expect(PRICE_MOVE_TOLERANCE_BPS).toBe(10);
    expect(priceMoved(px(100), px(100))).toBe(false);
    expect(priceMoved(px(100), px(100.1))).toBe(false);
    expect(priceMoved(px(100), px(99.9))).toBe(false);
    expect(priceMoved(px(100), px(100.11))).toBe(true);
    expect(priceMoved(px(100), px(99.89))).toBe(true);
    // figures 0.19 % apart, as issue #16 saw them (62.633 shown, 62.752 charged), are refused
    expect(priceMoved(px(62633), px(62752))).toBe(true);
    expect(priceMoved(px(100), px(101), 100)).toBe(false);
    expect(priceMoved(0n, px(100))).toBe(true);
  });
});

describe("the ledger nets to zero", () => {
  const sum = (legs: LeverLeg[], role?: LeverRole) => legs.filter((l) => !role || l.role === role).reduce((s, l) => s + l.dAvailable + l.dFrozen, 0n);

  it("open + overnight fees + close (or refund) sum to zero, and each role ends with nothing frozen", () => {
    fc.assert(
      fc.property(
        fc.constantFrom<LeverDirection>(1, 2),
        fc.bigInt({ min: 1n, max: 10_000_000n }),
        fc.bigInt({ min: 1n, max: 1000n }),
        fc.integer({ min: 1, max: 125 }),
        fc.integer({ min: 0, max: 1000 }),
        fc.integer({ min: 0, max: 10 }),
        fc.bigInt({ min: 1n, max: 20_000_000n }),
        fc.boolean(),
        (direction, open, lots, leverage, feeBps, nights, exit, revoked) => {
          const m = openMoney(BTC, open, lots, leverage, feeBps);
          let p: Position = { direction, openPrice: open, lots, margin: m.margin, hold: m.hold, overnight: 0n };
          const legs: LeverLeg[] = [...openLegs(m)];
          if (revoked) legs.push(...refundLegs(m));
          else {
            for (let i = 0; i < nights; i++) {
              const fee = overnightFee(BTC, p, 50);
              legs.push(...overnightLegs(fee));
              p = { ...p, overnight: p.overnight + fee };
            }
            const o = closeAt(BTC, p, exit, feeBps);
            legs.push(...closeLegs(p, o));
            // The user ends with P/L − every fee, the fee account with every fee, the house with −P/L.
            const fees = legs.filter((l) => l.role === "fees").reduce((s, l) => s + l.dAvailable, 0n);
            if (sum(legs, "user") !== o.pnl - fees) return false;
            if (sum(legs, "house") !== -o.pnl) return false;
          }
          const frozen = (role: LeverRole) => legs.filter((l) => l.role === role).reduce((s, l) => s + l.dFrozen, 0n);
          return sum(legs) === 0n && frozen("user") === 0n && frozen("house") === 0n && (!revoked || sum(legs, "user") === 0n);
        },
      ),
      { numRuns: 500 },
    );
  });
});
