/**
 * Property tests: random command sequences run through the engine and a naive reference book
 * (reference-book.ts), with every invariant checked after every command:
 * the book is never crossed; the engine's fills, completions and book equal the reference;
 * fills happen at the maker's price, within the taker's limit, in strict priority (FIFO) order;
 * quantity is conserved per order; funds are conserved per currency through the settlement
 * deltas, and frozen balances equal the reservations of open orders; replaying the journal and
 * restoring a snapshot both reproduce the state hash, and a restored engine behaves the same.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  SpotEngine,
  releaseDelta,
  reservationFor,
  settleFill,
  type AccountDelta,
  type AccountId,
  type Command,
  type EngineEvent,
  type OrderId,
  type PairConfig,
} from "../../durable/engine/index.ts";
import { OrderIndex, hashId } from "../../durable/engine/order-index.ts";
import { Order } from "../../durable/engine/book.ts";
import { RefBook } from "./reference-book.ts";

const PAIR: PairConfig = {
  symbol: "TEST/USDT",
  tickSize: 5,
  lotSize: 10,
  minNotional: 1000,
  makerFeeBps: 100,
  takerFeeBps: 250,
  feeAccount: "fees",
  baseUnitsPerLot: 3n,
  quoteUnitsPerTickLot: 2n,
};
const OWNERS: AccountId[] = [1, 2, "carol", "dave"];
const INITIAL = 10n ** 15n;

// ------------------------------------------------------------------ command templates
type Template =
  | { k: "limit"; buy: boolean; tick: number; offGrid: boolean; lots: number; offLot: boolean; owner: number; ioc: boolean }
  | { k: "market"; buy: boolean; lots: number; owner: number; budget: number | null }
  | { k: "cancel"; pick: number; owner: number | null; unknown: boolean }
  | { k: "dup"; pick: number };

const templateArb: fc.Arbitrary<Template> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      k: fc.constant("limit" as const),
      buy: fc.boolean(),
      tick: fc.integer({ min: 8, max: 32 }),
      offGrid: fc.integer({ min: 0, max: 19 }).map((x) => x === 0),
      lots: fc.integer({ min: 1, max: 20 }),
      offLot: fc.integer({ min: 0, max: 19 }).map((x) => x === 0),
      owner: fc.integer({ min: 0, max: OWNERS.length - 1 }),
      ioc: fc.integer({ min: 0, max: 4 }).map((x) => x === 0),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      k: fc.constant("market" as const),
      buy: fc.boolean(),
      lots: fc.integer({ min: 1, max: 40 }),
      owner: fc.integer({ min: 0, max: OWNERS.length - 1 }),
      budget: fc.option(fc.integer({ min: 0, max: 8_000 }), { freq: 2 }),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      k: fc.constant("cancel" as const),
      pick: fc.nat(),
      owner: fc.option(fc.integer({ min: 0, max: OWNERS.length - 1 }), { freq: 3 }),
      unknown: fc.integer({ min: 0, max: 9 }).map((x) => x === 0),
    }),
  },
  { weight: 1, arbitrary: fc.record({ k: fc.constant("dup" as const), pick: fc.nat() }) },
);

/** Turns templates into concrete commands; ids alternate between numbers and strings. */
class CommandMaker {
  private n = 0;
  readonly seen: OrderId[] = [];

  make(t: Template, engine: SpotEngine): Command {
    const id = (): OrderId => {
      const n = ++this.n;
      const v = n % 2 === 0 ? n : `o${n}`;
      this.seen.push(v);
      return v;
    };
    switch (t.k) {
      case "limit": {
        const price = t.tick * PAIR.tickSize + (t.offGrid ? 1 : 0);
        const qty = t.lots * PAIR.lotSize + (t.offLot ? 3 : 0);
        return { type: "limit", id: id(), owner: OWNERS[t.owner]!, side: t.buy ? "buy" : "sell", price, qty, tif: t.ioc ? "IOC" : "GTC" };
      }
      case "market": {
        const cmd: Command = { type: "market", id: id(), owner: OWNERS[t.owner]!, side: t.buy ? "buy" : "sell", qty: t.lots * PAIR.lotSize };
        // Budgets mostly on buys; the odd one on a sell must be rejected.
        if (t.budget !== null && (t.buy || t.budget % 7 === 0)) cmd.budget = t.budget;
        return cmd;
      }
      case "cancel": {
        const open = engine.openOrders();
        const target = t.unknown || open.length === 0 ? (this.seen[t.pick % Math.max(1, this.seen.length)] ?? "none") : open[t.pick % open.length]!.id;
        return t.owner === null ? { type: "cancel", id: target } : { type: "cancel", id: target, owner: OWNERS[t.owner]! };
      }
      case "dup": {
        const open = engine.openOrders();
        const target = open.length ? open[t.pick % open.length]!.id : id();
        return { type: "limit", id: target, owner: OWNERS[0]!, side: "buy", price: 50, qty: 100 };
      }
    }
  }
}

// ------------------------------------------------------------------ balance model
interface Bal {
  baseA: bigint;
  baseF: bigint;
  quoteA: bigint;
  quoteF: bigint;
}

class Balances {
  readonly accounts = new Map<string, Bal>();
  users = 0;
  feesBase = 0n;
  feesQuote = 0n;

  private key(a: AccountId): string {
    return `${typeof a}:${a}`;
  }

  get(a: AccountId): Bal {
    let b = this.accounts.get(this.key(a));
    if (!b) {
      const isFee = a === PAIR.feeAccount;
      b = isFee ? { baseA: 0n, baseF: 0n, quoteA: 0n, quoteF: 0n } : { baseA: INITIAL, baseF: 0n, quoteA: INITIAL, quoteF: 0n };
      if (!isFee) this.users++;
      this.accounts.set(this.key(a), b);
    }
    return b;
  }

  apply(d: AccountDelta): void {
    const b = this.get(d.account);
    b.baseA += d.base.available;
    b.baseF += d.base.frozen;
    b.quoteA += d.quote.available;
    b.quoteF += d.quote.frozen;
  }

  totals(): { base: bigint; quote: bigint } {
    let base = 0n;
    let quote = 0n;
    for (const b of this.accounts.values()) {
      base += b.baseA + b.baseF;
      quote += b.quoteA + b.quoteF;
    }
    return { base, quote };
  }
}

function sumDeltas(ds: AccountDelta[]): { base: bigint; quote: bigint } {
  let base = 0n;
  let quote = 0n;
  for (const d of ds) {
    base += d.base.available + d.base.frozen;
    quote += d.quote.available + d.quote.frozen;
  }
  return { base, quote };
}

// ------------------------------------------------------------------ the scenario runner
interface Tracked {
  side: "buy" | "sell";
  limit: number | null;
  qty: number;
  filled: number;
  closed: number | null;
}

function levelMap(e: SpotEngine): Map<string, number> {
  const d = e.depth(Number.MAX_SAFE_INTEGER);
  const m = new Map<string, number>();
  for (const [p, q] of d.bids) m.set(`buy:${p}`, q);
  for (const [p, q] of d.asks) m.set(`sell:${p}`, q);
  return m;
}

/** Outcome counts over all scenarios, to show the generator reaches every path. */
export const coverage = new Map<string, number>();
function count(k: string): void {
  coverage.set(k, (coverage.get(k) ?? 0) + 1);
}

function runScenario(templates: Template[], cut: number): void {
  const engine = new SpotEngine(PAIR);
  const ref = new RefBook(PAIR);
  const maker = new CommandMaker();
  const balances = new Balances();
  const tracked = new Map<OrderId, Tracked>();
  const journal: Command[] = [];
  let restored: SpotEngine | null = null;
  const replica = new SpotEngine(PAIR);

  templates.forEach((t, i) => {
    const cmd = maker.make(t, engine);
    const before = engine.openOrders();
    const levelsBefore = levelMap(engine);
    const r = engine.execute(cmd);
    const rr = ref.execute(cmd);
    journal.push(cmd);
    if (!r.ok) count(`reject:${r.code}`);
    for (const e of r.events) count(e.type === "done" ? `done:${e.reason}` : e.type);

    // Engine output equals the reference.
    expect(r.ok).toBe(rr.ok);
    if (!r.ok || !rr.ok) {
      expect(r.ok ? "ok" : r.code).toBe(rr.ok ? "ok" : rr.code);
    } else {
      const fills = r.events.filter((e) => e.type === "fill");
      expect(fills.map((f) => ({ takerId: f.takerId, makerId: f.makerId, price: f.price, qty: f.qty }))).toEqual(rr.fills);
      const done = r.events.filter((e) => e.type === "done");
      expect(done.map((d) => ({ id: d.id, reason: d.reason, remaining: d.remaining, released: d.releasedReservation }))).toEqual(rr.done);
      const booked = r.events.find((e) => e.type === "booked");
      expect(booked ? { id: booked.id, remaining: booked.remaining } : null).toEqual(rr.booked);
    }
    const mine = engine.openOrders().map((o) => [o.id, o.owner, o.side, o.price, o.remaining]);
    const theirs = [...ref.sideOrders("buy"), ...ref.sideOrders("sell")].map((o) => [o.id, o.owner, o.side, o.price, o.remaining]);
    expect(mine).toEqual(theirs);

    // Never crossed; internal structure consistent.
    const bid = engine.bestBid();
    const ask = engine.bestAsk();
    if (bid !== null && ask !== null) expect(bid).toBeLessThan(ask);
    engine.checkInvariants();

    if (r.ok) {
      checkEvents(r.events, cmd, before, tracked, balances);
      // Every changed level is reported, with its new total.
      const after = levelMap(engine);
      const reported = new Map(r.depth.map((c) => [`${c.side}:${c.price}`, c.qty]));
      for (const [k, q] of reported) expect(after.get(k) ?? 0).toBe(q);
      for (const k of new Set([...levelsBefore.keys(), ...after.keys()])) {
        if ((levelsBefore.get(k) ?? 0) !== (after.get(k) ?? 0)) expect(reported.has(k)).toBe(true);
      }
    } else {
      expect(r.depth).toEqual([]);
    }

    // Quantity conservation: original = filled + open remaining + remaining at completion.
    const unbalanced: string[] = [];
    for (const [id, o] of tracked) {
      const open = engine.order(id);
      if (o.closed !== null && open !== undefined) unbalanced.push(`${id} is open after completion`);
      if (o.qty !== o.filled + (open?.remaining ?? 0) + (o.closed ?? 0)) unbalanced.push(`${id} quantity not conserved`);
    }
    expect(unbalanced).toEqual([]);

    // Funds conservation and frozen = open reservations.
    const totals = balances.totals();
    const users = BigInt(balances.users);
    expect(totals).toEqual({ base: INITIAL * users, quote: INITIAL * users });
    const frozen = new Map<string, { base: bigint; quote: bigint }>();
    for (const o of engine.openOrders()) {
      const k = `${typeof o.owner}:${o.owner}`;
      const f = frozen.get(k) ?? { base: 0n, quote: 0n };
      if (o.side === "buy") f.quote += BigInt(o.reservation) * 2n;
      else f.base += BigInt(o.reservation) * 3n;
      frozen.set(k, f);
    }
    const wrong: string[] = [];
    for (const [k, b] of balances.accounts) {
      const f = frozen.get(k) ?? { base: 0n, quote: 0n };
      if (b.baseF !== f.base || b.quoteF !== f.quote) wrong.push(`${k} frozen ${b.baseF}/${b.quoteF}, open orders ${f.base}/${f.quote}`);
      if (b.baseA < 0n || b.quoteA < 0n) wrong.push(`${k} overdrawn`);
    }
    expect(wrong).toEqual([]);
    const fee = balances.accounts.get(`string:${PAIR.feeAccount}`);
    if (fee) expect([fee.baseA, fee.quoteA]).toEqual([balances.feesBase, balances.feesQuote]);

    // Replaying the journal into a fresh engine yields the same state: `replica` is a fresh
    // engine fed the journal command by command; the whole journal is replayed again at the end.
    replica.execute(cmd);
    expect(replica.stateHash()).toBe(engine.stateHash());
    // Snapshot → restore yields the same state (through JSON, as stored).
    const snap = JSON.parse(JSON.stringify(engine.snapshot()));
    expect(SpotEngine.restore(PAIR, snap).stateHash()).toBe(engine.stateHash());
    // ... and the same behaviour afterwards.
    if (restored !== null) {
      expect(restored.execute(cmd)).toEqual(r);
      expect(restored.stateHash()).toBe(engine.stateHash());
    }
    if (i === cut) restored = SpotEngine.restore(PAIR, snap);
  });
  expect(SpotEngine.replay(PAIR, journal).stateHash()).toBe(engine.stateHash());
  expect(SpotEngine.replay(PAIR, journal).snapshot()).toEqual(engine.snapshot());
}

function checkEvents(
  events: EngineEvent[],
  cmd: Command,
  before: ReturnType<SpotEngine["openOrders"]>,
  tracked: Map<OrderId, Tracked>,
  balances: Balances,
): void {
  const fills = events.filter((e) => e.type === "fill");
  for (const ev of events) {
    switch (ev.type) {
      case "accepted": {
        if (cmd.type === "cancel") throw new Error("cancel accepted as an order");
        const res = reservationFor(PAIR, cmd);
        expect([ev.reservation, ev.reservationAsset]).toEqual([res.amount, res.asset]);
        const b = balances.get(ev.owner);
        if (res.asset === "base") {
          b.baseA -= res.units;
          b.baseF += res.units;
        } else {
          b.quoteA -= res.units;
          b.quoteF += res.units;
        }
        tracked.set(ev.id, { side: ev.side, limit: ev.price, qty: ev.qty, filled: 0, closed: null });
        break;
      }
      case "fill": {
        const taker = tracked.get(ev.takerId)!;
        const mk = tracked.get(ev.makerId)!;
        // At the maker's price, never beyond the taker's limit.
        expect(ev.price).toBe(mk.limit);
        if (taker.limit !== null) {
          if (taker.side === "buy") expect(ev.price).toBeLessThanOrEqual(taker.limit);
          else expect(ev.price).toBeGreaterThanOrEqual(taker.limit);
        }
        expect(ev.makerOwner).not.toEqual(ev.takerOwner);
        // Fees: floor(received · bps / 10000), taker rate for the taker, maker rate for the maker.
        const buyerBps = BigInt(ev.takerSide === "buy" ? PAIR.takerFeeBps : PAIR.makerFeeBps);
        const sellerBps = BigInt(ev.takerSide === "sell" ? PAIR.takerFeeBps : PAIR.makerFeeBps);
        expect(ev.buyerFee).toBe((BigInt(ev.qty) * 3n * buyerBps) / 10000n);
        expect(ev.sellerFee).toBe((BigInt(ev.price * ev.qty) * 2n * sellerBps) / 10000n);
        taker.filled += ev.qty;
        mk.filled += ev.qty;
        const s = settleFill(PAIR, ev);
        expect(sumDeltas([s.buyer, s.seller, s.fee])).toEqual({ base: 0n, quote: 0n });
        balances.apply(s.buyer);
        balances.apply(s.seller);
        balances.apply(s.fee);
        balances.feesBase += ev.buyerFee;
        balances.feesQuote += ev.sellerFee;
        break;
      }
      case "done": {
        const o = tracked.get(ev.id)!;
        o.closed = ev.remaining;
        balances.apply(releaseDelta(PAIR, ev));
        break;
      }
      case "booked":
      case "rejected":
        break;
    }
  }
  // Strict priority: the makers are a prefix of the opposite side's queue as it stood before
  // the command, each one used up except possibly the last.
  if (fills.length > 0) {
    const oppSide = fills[0]!.takerSide === "buy" ? "sell" : "buy";
    const queue = before.filter((o) => o.side === oppSide).map((o) => o.id);
    expect(fills.map((f) => f.makerId)).toEqual(queue.slice(0, fills.length));
    fills.slice(0, -1).forEach((f) => expect(f.makerRemaining).toBe(0));
  }
}

describe("engine against the reference book", () => {
  it("keeps every invariant after every command of random sequences", () => {
    fc.assert(
      fc.property(fc.array(templateArb, { minLength: 1, maxLength: 120, size: "max" }), fc.nat(), (templates, cutSeed) => {
        runScenario(templates, cutSeed % templates.length);
      }),
      { numRuns: 150 },
    );
  }, 120_000);

  it("keeps every invariant on a crowded book with long sweeps", () => {
    // Many passive orders first, then aggressive ones: deep books, multi-level sweeps, budgets.
    const passive = templateArb.filter((t) => t.k === "limit" && !t.ioc);
    fc.assert(
      fc.property(
        fc.array(passive, { minLength: 40, maxLength: 80, size: "max" }),
        fc.array(templateArb, { minLength: 10, maxLength: 60, size: "max" }),
        fc.nat(),
        (a, b, cutSeed) => runScenario([...a, ...b], cutSeed % (a.length + b.length)),
      ),
      { numRuns: 40 },
    );
    if (process.env.ENGINE_COVERAGE) console.log(Object.fromEntries([...coverage].sort()));
  }, 120_000);
});

describe("order index", () => {
  it("behaves like a Map under random inserts and deletes of number and string ids", () => {
    const op = fc.oneof(
      fc.record({ add: fc.constant(true), key: fc.oneof(fc.integer({ min: -50, max: 3000 }), fc.string({ maxLength: 3 })) }),
      fc.record({ add: fc.constant(false), pick: fc.nat() }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 600 }), (ops) => {
        const idx = new OrderIndex(16);
        const model = new Map<OrderId, Order>();
        for (const o of ops) {
          if (o.add) {
            if (model.has(o.key)) continue;
            const order = new Order(o.key, 0, 0, 1, 1);
            expect(order.hash).toBe(hashId(o.key));
            idx.add(order);
            model.set(o.key, order);
          } else if (model.size > 0) {
            const key = [...model.keys()][o.pick % model.size]!;
            expect(idx.remove(model.get(key)!)).toBe(true);
            model.delete(key);
          }
          expect(idx.size).toBe(model.size);
        }
        for (const [k, v] of model) expect(idx.get(k)).toBe(v);
        expect(idx.get("missing-key")).toBeUndefined();
        let n = 0;
        idx.forEach(() => n++);
        expect(n).toBe(model.size);
      }),
      { numRuns: 200 },
    );
  });
});
