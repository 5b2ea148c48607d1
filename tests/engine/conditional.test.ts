/**
 * Property tests of conditional orders (durable/engine/triggers.ts, conditional.ts): random
 * trades, stops and trailing stops against a naive reference that scans every condition per trade;
 * and random mixes of ordinary and conditional orders through the real engine, with after every
 * step: each conditional order fires at most once, an OCO never keeps both legs alive, a triggered
 * order matched exactly as the same limit order sent directly, and the frozen funds equal what the
 * open orders and open conditional orders hold.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SpotEngine, releaseDelta, settleFill, type AccountDelta, type Command, type CommandResult, type PairConfig } from "../../durable/engine/index.ts";
import { TriggerBook, type Fired, type TriggerSpec } from "../../durable/engine/triggers.ts";
import { ConditionalBook, childId, conditionalHolds, limitHold, type ConditionalOrder, type ConditionalPorts } from "../../durable/engine/conditional.ts";

// ------------------------------------------------------------------ the trigger book against a naive scan

type Op = { k: "add"; spec: TriggerSpec } | { k: "remove"; pick: number } | { k: "trade"; price: number };

/** The naive reference: every condition checked at every trade. */
class NaiveTriggers {
  private items: { spec: TriggerSpec; seq: number; active: boolean; extreme: number | null }[] = [];
  private seq = 0;
  add(spec: TriggerSpec, last: number | null) {
    const extreme = spec.kind === "trail" ? (spec.extreme ?? (spec.activation === null ? last : null)) : null;
    this.items.push({ spec, seq: ++this.seq, active: spec.kind === "stop" || extreme !== null, extreme });
  }
  remove(id: number) {
    const n = this.items.length;
    this.items = this.items.filter((i) => i.spec.id !== id);
    return this.items.length < n;
  }
  ids() {
    return this.items.map((i) => i.spec.id);
  }
  onTrade(price: number): number[] {
    const out: number[] = [];
    for (const side of ["sell", "buy"] as const) {
      const sign = side === "sell" ? 1 : -1;
      const q = sign * price;
      const hits: { id: number; level: number; seq: number }[] = [];
      for (const it of this.items) {
        const s = it.spec;
        if (s.side !== side) continue;
        if (s.kind === "stop") {
          if (q * 10_000 <= sign * s.stop * 10_000) hits.push({ id: s.id, level: sign * s.stop * 10_000, seq: it.seq });
          continue;
        }
        if (!it.active) {
          if (q >= sign * s.activation!) {
            it.active = true;
            it.extreme = price;
          }
          continue;
        }
        if (q > sign * it.extreme!) it.extreme = price;
        const f = side === "sell" ? 10_000 - s.callbackBps : 10_000 + s.callbackBps;
        const level = sign * it.extreme! * f;
        if (q * 10_000 <= level) hits.push({ id: s.id, level, seq: it.seq });
      }
      hits.sort((a, b) => b.level - a.level || a.seq - b.seq);
      for (const h of hits) out.push(h.id);
      const fired = new Set(hits.map((h) => h.id));
      this.items = this.items.filter((i) => !fired.has(i.spec.id));
    }
    return out;
  }
}

const opArb: fc.Arbitrary<Op> =
  fc.oneof(
    {
      weight: 3,
      arbitrary: fc.record({ side: fc.constantFrom("buy" as const, "sell" as const), stop: fc.integer({ min: 80, max: 120 }) }).map(({ side, stop }) => ({ k: "add" as const, spec: { kind: "stop" as const, id: 0, side, stop } })),
    },
    {
      weight: 3,
      arbitrary: fc
        .record({ side: fc.constantFrom("buy" as const, "sell" as const), cb: fc.integer({ min: 10, max: 2000 }), activation: fc.option(fc.integer({ min: 80, max: 120 }), { freq: 2 }) })
        .map(({ side, cb, activation }) => ({ k: "add" as const, spec: { kind: "trail" as const, id: 0, side, callbackBps: cb, activation, extreme: null } })),
    },
    { weight: 1, arbitrary: fc.nat().map((pick) => ({ k: "remove" as const, pick })) },
    { weight: 6, arbitrary: fc.integer({ min: 75, max: 125 }).map((price) => ({ k: "trade" as const, price })) },
  );

describe("the trigger book", () => {
  it("fires each condition once, in trigger-price order, exactly when a naive scan says", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 90, max: 110 }),
        fc.array(opArb, { minLength: 20, maxLength: 200 }),
        (first, templates) => {
          // Unique ids: the op's position.
          const ops = templates.map((op, i): Op => (op.k === "add" ? { k: "add", spec: { ...op.spec, id: i + 1 } } : op));
          const book = new TriggerBook();
          const naive = new NaiveTriggers();
          let last = first;
          const firedEver = new Set<number>();
          for (const op of ops) {
            if (op.k === "add") {
              book.add(op.spec, last);
              naive.add(op.spec, last);
            } else if (op.k === "remove") {
              const ids = naive.ids();
              const id = ids.length ? ids[op.pick % ids.length]! : -1;
              expect(book.remove(id)).toBe(naive.remove(id));
            } else {
              last = op.price;
              const got = book.onTrade(op.price).map((f: Fired) => f.id);
              expect(got).toEqual(naive.onTrade(op.price));
              for (const id of got) {
                expect(firedEver.has(id)).toBe(false);
                firedEver.add(id);
              }
            }
            expect(book.size).toBe(naive.ids().length);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it("keeps a trailing sell's high across rising trades and fires on the callback from it", () => {
    const book = new TriggerBook();
    book.add({ kind: "trail", id: 1, side: "sell", callbackBps: 500, activation: null, extreme: null }, 100);
    expect(book.onTrade(110)).toEqual([]);
    expect(book.extreme(1)).toBe(110);
    expect(book.onTrade(105)).toEqual([]); // 110 × 0.95 = 104.5
    expect(book.onTrade(104).map((f) => f.id)).toEqual([1]);
    expect(book.onTrade(90)).toEqual([]);
  });
});

// ------------------------------------------------------------------ conditional orders through the engine

const PAIR: PairConfig = {
  symbol: "TEST/USDT",
  tickSize: 1,
  lotSize: 1,
  minNotional: 1,
  makerFeeBps: 10,
  takerFeeBps: 20,
  feeAccount: 0,
  baseUnitsPerLot: 3n,
  quoteUnitsPerTickLot: 2n,
};
const F = { basePerLot: 3n, quotePerTickLot: 2n };
const OWNERS = [1, 2, 3];

type Step =
  | { k: "limit"; owner: number; buy: boolean; price: number; qty: number }
  | { k: "cond"; owner: number; buy: boolean; type: ConditionalOrder["type"]; price: number; stop: number; limit: number; cb: number; activation: number | null; qty: number }
  | { k: "cancel"; pick: number };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ k: fc.constant("limit" as const), owner: fc.constantFrom(...OWNERS), buy: fc.boolean(), price: fc.integer({ min: 90, max: 110 }), qty: fc.integer({ min: 1, max: 6 }) }) },
  {
    weight: 3,
    arbitrary: fc.record({
      k: fc.constant("cond" as const),
      owner: fc.constantFrom(...OWNERS),
      buy: fc.boolean(),
      type: fc.constantFrom("stop_limit" as const, "oco" as const, "trailing" as const),
      price: fc.integer({ min: 90, max: 110 }),
      stop: fc.integer({ min: 90, max: 110 }),
      limit: fc.integer({ min: 90, max: 110 }),
      cb: fc.integer({ min: 10, max: 800 }),
      activation: fc.option(fc.integer({ min: 90, max: 110 })),
      qty: fc.integer({ min: 1, max: 6 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ k: fc.constant("cancel" as const), pick: fc.nat() }) },
);

/** A minimal desk: engine, conditional book, frozen funds per (owner, currency) and the journal of engine commands. */
class MiniDesk {
  engine = new SpotEngine(PAIR);
  cond = new ConditionalBook();
  frozen = new Map<string, bigint>();
  journal: Command[] = [];
  fired = new Map<number, number>();
  /** OCO ids whose stop fired / whose leg traded */
  stopFired = new Set<number>();
  legTraded = new Set<number>();
  last: number | null = null;
  childResults: [CommandResult, CommandResult, number][] = [];
  lastResult: CommandResult | null = null;
  private nextId = 1;

  private freeze(owner: number, side: "buy" | "sell", units: bigint) {
    const k = `${owner}:${side === "buy" ? "quote" : "base"}`;
    this.frozen.set(k, (this.frozen.get(k) ?? 0n) + units);
  }
  private apply(d: AccountDelta) {
    for (const [cur, ch] of [
      ["base", d.base],
      ["quote", d.quote],
    ] as const) {
      if (d.account === 0 || ch.frozen === 0n) continue;
      const k = `${String(d.account)}:${cur}`;
      this.frozen.set(k, (this.frozen.get(k) ?? 0n) + ch.frozen);
    }
  }

  exec(cmd: Command) {
    this.journal.push(cmd);
    const r = this.engine.execute(cmd);
    this.lastResult = r;
    if (!r.ok) {
      // A refused child: its hold goes back (the desk's refuse()).
      if (cmd.type === "limit") this.freeze(Number(cmd.owner), cmd.side, -limitHold(F, cmd.side, cmd.price, cmd.qty));
      return;
    }
    for (const e of r.events) {
      if (e.type === "fill") {
        const s = settleFill(this.engine.pair, e);
        this.apply(s.buyer);
        this.apply(s.seller);
        this.last = e.price;
        if (this.cond.isLeg(Number(e.makerId))) this.legTraded.add(Number(e.makerId));
        if (this.cond.isLeg(Number(e.takerId))) this.legTraded.add(Number(e.takerId));
        this.cond.noteFill(e.price, Number(e.makerId), Number(e.takerId));
      } else if (e.type === "done") this.apply(releaseDelta(this.engine.pair, e));
    }
  }

  private ports: ConditionalPorts = {
    cancelLeg: (legId, owner) => {
      this.stopFired.add(legId);
      if (this.engine.order(legId)) this.exec({ type: "cancel", id: legId, owner });
    },
    triggered: (o) => {
      this.fired.set(o.id, (this.fired.get(o.id) ?? 0) + 1);
      const h = conditionalHolds(F, o);
      this.freeze(o.owner, o.side, h.child - h.own);
    },
    placeChild: (o, id, price) => {
      const cmd: Command = { type: "limit", id, owner: o.owner, side: o.side, price, qty: o.qty, tif: "GTC" };
      // The same limit order sent to a copy of the book directly: the same events.
      const direct = SpotEngine.restore(PAIR, this.engine.snapshot()).execute(cmd);
      const before = this.engine.seq;
      this.exec(cmd);
      this.childResults.push([direct, this.lastResult!, before]);
    },
    ocoFilled: (o) => {
      this.freeze(o.owner, o.side, -conditionalHolds(F, o).own);
    },
  };

  step(s: Step) {
    if (s.k === "limit") {
      const side = s.buy ? "buy" : "sell";
      this.freeze(s.owner, side, limitHold(F, side, s.price, s.qty));
      this.exec({ type: "limit", id: this.nextId++, owner: s.owner, side, price: s.price, qty: s.qty, tif: "GTC" });
    } else if (s.k === "cond") {
      const side = s.buy ? "buy" : "sell";
      const id = this.nextId++;
      // Placement rules of the Worker: a stop must not already be met, a trailing stop needs a price to start from.
      if (s.type === "trailing" && s.activation === null && this.last === null) return;
      if (s.type !== "trailing" && this.last !== null && (side === "buy" ? this.last >= s.stop : this.last <= s.stop)) return;
      const o: ConditionalOrder = {
        id,
        owner: s.owner,
        side,
        type: s.type,
        qty: s.qty,
        price: s.price,
        stop: s.type === "trailing" ? null : s.stop,
        limitPrice: s.type === "oco" ? s.limit : null,
        callbackBps: s.type === "trailing" ? s.cb : null,
        activation: s.type === "trailing" ? s.activation : null,
      };
      const h = conditionalHolds(F, o);
      this.freeze(s.owner, side, h.total);
      this.cond.add(o, this.last);
      if (o.type === "oco") this.exec({ type: "limit", id, owner: o.owner, side, price: o.price, qty: o.qty, tif: "GTC" });
    } else {
      const ids = [...this.cond.open.keys()];
      if (ids.length === 0) return;
      const o = this.cond.remove(ids[s.pick % ids.length]!)!;
      this.freeze(o.owner, o.side, -conditionalHolds(F, o).own);
      if (o.type === "oco" && this.engine.order(o.id)) this.exec({ type: "cancel", id: o.id, owner: o.owner });
    }
    this.cond.settle(this.ports);
  }

  /** What open orders and open conditional orders hold, per (owner, currency). */
  held(): Map<string, bigint> {
    const out = new Map<string, bigint>();
    const add = (owner: number, side: "buy" | "sell", units: bigint) => {
      const k = `${owner}:${side === "buy" ? "quote" : "base"}`;
      out.set(k, (out.get(k) ?? 0n) + units);
    };
    for (const o of this.engine.openOrders()) add(Number(o.owner), o.side, limitHold(F, o.side, o.price, o.remaining));
    for (const o of this.cond.open.values()) add(o.owner, o.side, conditionalHolds(F, o).own);
    return out;
  }
}

const nonZero = (m: Map<string, bigint>) => new Map([...m].filter(([, v]) => v !== 0n));

describe("conditional orders through the engine", () => {
  it("fire once, keep one OCO leg at most, match as ordinary orders, and hold exactly what is open", () => {
    fc.assert(
      fc.property(fc.array(stepArb, { minLength: 1, maxLength: 120 }), (steps) => {
        const desk = new MiniDesk();
        for (const s of steps) {
          desk.step(s);
          for (const n of desk.fired.values()) expect(n).toBe(1);
          for (const id of desk.stopFired) expect(desk.engine.order(id)).toBeUndefined();
          for (const id of desk.legTraded) expect(desk.cond.has(id)).toBe(false);
          for (const id of desk.fired.keys()) expect(desk.cond.has(id)).toBe(false);
          expect(nonZero(desk.frozen)).toEqual(nonZero(desk.held()));
          desk.engine.checkInvariants();
        }
        for (const [direct, placed] of desk.childResults) expect(placed.ok ? placed.events : placed).toEqual(direct.ok ? direct.events : direct);
        // The children are ordinary limit orders: the same commands sent directly give the same book.
        expect(SpotEngine.replay(PAIR, desk.journal).stateHash()).toBe(desk.engine.stateHash());
        for (const id of desk.fired.keys()) expect(desk.journal.some((c) => c.type === "limit" && c.id === childId(id))).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});
