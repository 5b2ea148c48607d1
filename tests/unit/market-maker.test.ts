// The demo market maker's decisions (scripts/market-maker-core.mjs) against a small in-memory
// exchange that behaves like ours where it matters: funds frozen per order and refused when short,
// the open-order list shows only the newest 100, market orders take the best opposite prices.
import { describe, expect, it } from "vitest";
import { LEVELS, SCALE, planSide, prng, sizeQuotes, spacingFor, step, takerSide, toUnits, valueOf } from "../../scripts/market-maker-core.mjs";

type Side = "buy" | "sell";
interface Rest { id: string; owner: "maker" | "taker"; side: Side; price: bigint; qty: bigint }
interface Wallet { base: bigint; quote: bigint; heldBase: bigint; heldQuote: bigint }

const rules = { pd: 2, qd: 4, minNotional: toUnits("5", 2) };
const unitBase = (qty: bigint) => (qty * 10n ** BigInt(SCALE)) / 10n ** BigInt(rules.qd);

type Start = { base: string; quote: string };
function makeExchange(maker: Start, taker: Start = maker) {
  const wallet = (s: Start): Wallet => ({ base: toUnits(s.base, SCALE), quote: toUnits(s.quote, SCALE), heldBase: 0n, heldQuote: 0n });
  const wallets = { maker: wallet(maker), taker: wallet(taker) };
  const book: Rest[] = [];
  let seq = 0;
  const cost = (side: Side, price: bigint, qty: bigint) => (side === "buy" ? valueOf(rules, price, qty) : unitBase(qty));
  const api = {
    async openOrders() {
      // like GET /api/new/transaction/index: newest first, at most 100
      return book.filter((o) => o.owner === "maker").sort((a, b) => Number(b.id) - Number(a.id)).slice(0, 100).map(({ id, side, price }) => ({ id, side, price }));
    },
    async balance(_p: unknown, who: "maker" | "taker") {
      return { ...wallets[who] };
    },
    async cancel(ids: string[]) {
      expect(ids.length).toBeLessThanOrEqual(20);
      for (const id of ids) {
        const i = book.findIndex((o) => o.id === id);
        if (i < 0) continue;
        const [o] = book.splice(i, 1);
        const w = wallets[o!.owner];
        const c = cost(o!.side, o!.price, o!.qty);
        if (o!.side === "buy") { w.heldQuote -= c; w.quote += c; }
        else { w.heldBase -= c; w.base += c; }
      }
    },
    async place(_p: unknown, quotes: { side: Side; price: bigint; qty: bigint }[]) {
      expect(quotes.length).toBeLessThanOrEqual(20);
      const w = wallets.maker;
      for (const q of quotes) {
        const c = cost(q.side, q.price, q.qty);
        if (q.side === "buy" ? w.quote < c : w.base < c) continue; // refused: insufficient balance
        const crosses = book.some((o) => o.side !== q.side && (q.side === "buy" ? o.price <= q.price : o.price >= q.price));
        if (crosses) continue; // self-trade prevention expires it
        if (q.side === "buy") { w.quote -= c; w.heldQuote += c; }
        else { w.base -= c; w.heldBase += c; }
        book.push({ id: String(++seq), owner: "maker", ...q });
      }
    },
    async market(_p: unknown, side: Side, qty: bigint) {
      const t = wallets.taker;
      const m = wallets.maker;
      let left = qty;
      const opposite = book.filter((o) => o.side !== side).sort((a, b) => (side === "buy" ? Number(a.price - b.price) : Number(b.price - a.price)));
      for (const o of opposite) {
        if (left === 0n) break;
        const fill = o.qty < left ? o.qty : left;
        const value = valueOf(rules, o.price, fill);
        if (side === "buy") {
          if (t.quote < value) break;
          t.quote -= value; t.base += unitBase(fill); m.heldBase -= unitBase(fill); m.quote += value;
        } else {
          if (t.base < unitBase(fill)) break;
          t.base -= unitBase(fill); t.quote += value; m.heldQuote -= value; m.base += unitBase(fill);
        }
        o.qty -= fill;
        left -= fill;
        if (o.qty === 0n) book.splice(book.indexOf(o), 1);
      }
    },
  };
  return { api, book, wallets };
}

const makePair = (overrides: Partial<{ mid: bigint; seed: number }> = {}) => ({
  ...rules,
  name: "ETH",
  mid: overrides.mid ?? toUnits("3500", rules.pd),
  rand: prng(overrides.seed ?? 7),
  tick: 0,
});

describe("the demo market maker", () => {
  it("keeps both sides of the book quoted for a long run, with one ladder's worth of orders at most", async () => {
    // Little ETH to start with: the old loop leaked forgotten orders and ran the asks dry.
    const ex = makeExchange({ base: "4", quote: "40000" });
    const p = makePair();
    for (let i = 0; i < 1500; i++) {
      await step(p, ex.api);
      const asks = ex.book.filter((o) => o.side === "sell").length;
      const bids = ex.book.filter((o) => o.side === "buy").length;
      expect({ step: i, asks: asks > 0, bids: bids > 0 }).toEqual({ step: i, asks: true, bids: true });
      // never more than one ladder's worth of resting orders: nothing is forgotten on the book
      expect(asks + bids).toBeLessThanOrEqual(2 * LEVELS);
    }
  });

  it("refills a side it has run out of: with almost no ETH it gets asks back within a few minutes and keeps them", async () => {
    // as after a run where the taker bought the maker's ETH
    const ex = makeExchange({ base: "0.004", quote: "40000" }, { base: "10", quote: "5000" });
    const p = makePair({ seed: 11 });
    const asksAt: boolean[] = [];
    for (let i = 0; i < 600; i++) {
      await step(p, ex.api);
      asksAt.push(ex.book.some((o) => o.side === "sell"));
    }
    expect(asksAt.slice(0, 3)).toEqual([false, false, false]);
    expect(asksAt.slice(300).every(Boolean)).toBe(true);
  });

  it("cancels open orders it did not place this run, and everything on the wrong side of the mid", () => {
    const mid = toUnits("100", 2);
    const s = spacingFor(mid);
    const open = [
      { id: "1", side: "buy" as const, price: mid - s },
      { id: "2", side: "buy" as const, price: mid - s }, // a second order on level 1
      { id: "3", side: "buy" as const, price: mid + s }, // a bid above the mid
      { id: "4", side: "buy" as const, price: mid - s * 40n }, // far below the ladder (a leftover)
      { id: "5", side: "sell" as const, price: mid + 2n * s },
    ];
    const buys = planSide({ mid, side: "buy", open });
    expect(buys.cancel).toEqual(["2", "3", "4"]);
    expect(buys.missing).toEqual([2n, 3n, 4n, 5n, 6n].map((n) => mid - s * n));
    const sells = planSide({ mid, side: "sell", open });
    expect(sells.cancel).toEqual([]);
    expect(sells.missing).toHaveLength(LEVELS - 1);
  });

  it("sizes a side's new quotes within half of the free balance and leaves out levels it cannot pay for", () => {
    const mid = toUnits("3500", 2);
    const prices = [1n, 2n, 3n].map((n) => mid + spacingFor(mid) * n);
    const free = toUnits("0.01", SCALE); // 0.01 ETH: 35 USDT, room for one 5 USDT order per level at most
    const quotes = sizeQuotes({ rules, side: "sell", prices, available: free, rand: () => 0.99 });
    const frozen = quotes.reduce((sum, q) => sum + unitBase(q.qty), 0n);
    expect(frozen).toBeLessThanOrEqual(free / 2n);
    for (const q of quotes) expect(valueOf(rules, q.price, q.qty)).toBeGreaterThanOrEqual(toUnits("5", SCALE));
    expect(sizeQuotes({ rules, side: "sell", prices, available: toUnits("0.001", SCALE), rand: () => 0.5 })).toEqual([]);
  });

  it("sends the taker to refill the maker's short side, and never to a side it cannot pay", () => {
    const can = { buy: true, sell: true };
    expect(takerSide({ makerBaseValue: 10n, makerQuote: 90n, rand: () => 0.1, takerCan: can })).toBe("sell");
    expect(takerSide({ makerBaseValue: 90n, makerQuote: 10n, rand: () => 0.9, takerCan: can })).toBe("buy");
    expect(takerSide({ makerBaseValue: 10n, makerQuote: 90n, rand: () => 0.1, takerCan: { buy: true, sell: false } })).toBe("buy");
    expect(takerSide({ makerBaseValue: 50n, makerQuote: 50n, rand: () => 0.1, takerCan: { buy: false, sell: false } })).toBeNull();
  });
});
