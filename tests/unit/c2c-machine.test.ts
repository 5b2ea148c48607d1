// The C2C order machine as a pure table (worker/domain/c2c/machine.ts): whatever the actors do, in
// whatever order, with stale reads racing each other, an order's escrow leaves exactly once when
// the order ends and never while it runs, and every running order can still end.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  ADVERT_TRANSITIONS,
  decideAdvert,
  decideMerchant,
  decideOrder,
  depositHeld,
  isFinal,
  ORDER_TRANSITIONS,
  type Actor,
  type OrderAction,
  type OrderState,
  type OrderTransition,
} from "../../worker/domain/c2c/machine.ts";

const actions: OrderAction[] = ["pay", "cancel", "expire", "confirm", "release", "return"];
const actors: Actor[] = ["buyer", "seller", "operator", "system"];
const DEADLINE = 900_000;

interface Sim {
  state: OrderState;
  now: number;
  appealOpen: boolean;
  escrowHeld: boolean;
  released: number;
  returned: number;
}

/** Applies a decision made on a possibly stale read, the way the guarded UPDATE does: only from the state it was decided on. */
function apply(sim: Sim, t: OrderTransition): boolean {
  if (sim.state !== t.from) return false;
  sim.state = t.to;
  if (t.escrow !== "none") {
    // A movement keyed by the order: applying a second one would be a double spend.
    expect(sim.escrowHeld, `escrow moved twice (${t.action})`).toBe(true);
    sim.escrowHeld = false;
    if (t.escrow === "release") sim.released++;
    else sim.returned++;
  }
  return true;
}

const step = fc.record({
  action: fc.constantFrom(...actions),
  actor: fc.constantFrom(...actors),
  advance: fc.integer({ min: 0, max: 400_000 }),
  appeal: fc.boolean(),
  /** decide now but apply later (a request that read the state before others committed) */
  stale: fc.boolean(),
});

describe("C2C order machine", () => {
  it("moves escrow at most once, exactly when the order ends, whatever the sequence and interleaving", () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 40 }), (steps) => {
        const sim: Sim = { state: 0, now: 0, appealOpen: false, escrowHeld: true, released: 0, returned: 0 };
        const pending: OrderTransition[] = [];
        for (const s of steps) {
          sim.now += s.advance;
          if (s.appeal && sim.state === 3) sim.appealOpen = true;
          const d = decideOrder(sim.state, s.action, s.actor, { now: sim.now, payDeadline: DEADLINE, appealOpen: sim.appealOpen });
          if (!d.ok) continue;
          if (s.stale) pending.push(d.transition);
          else apply(sim, d.transition);
          // Some stale requests land now, in arrival order.
          while (pending.length > 0 && s.advance % 2 === 0) apply(sim, pending.shift()!);
        }
        for (const t of pending) apply(sim, t);
        expect(sim.released + sim.returned).toBe(isFinal(sim.state) ? 1 : 0);
        expect(sim.escrowHeld).toBe(!isFinal(sim.state));
        if (sim.state === 1) expect(sim.released).toBe(1);
        if (sim.state === 2) expect(sim.returned).toBe(1);
      }),
      { numRuns: 2000 },
    );
  });

  it("never strands escrow: every running order has a way to end", () => {
    for (const state of [0, 3] as OrderState[]) {
      const ways = ORDER_TRANSITIONS.filter((t) => t.from === state && isFinal(t.to));
      expect(ways.length, `state ${state}`).toBeGreaterThan(0);
    }
    // Unpaid: the expiry job ends it once the window is over, with nobody online.
    expect(decideOrder(0, "expire", "system", { now: DEADLINE, payDeadline: DEADLINE, appealOpen: false })).toMatchObject({ ok: true, transition: { to: 2, escrow: "return" } });
    // Paid: the seller confirms, or an operator decides the appeal either way.
    expect(decideOrder(3, "confirm", "seller", { now: 0, payDeadline: DEADLINE, appealOpen: false })).toMatchObject({ ok: true, transition: { to: 1, escrow: "release" } });
    expect(decideOrder(3, "release", "operator", { now: 0, payDeadline: DEADLINE, appealOpen: true })).toMatchObject({ ok: true, transition: { to: 1 } });
    expect(decideOrder(3, "return", "operator", { now: 0, payDeadline: DEADLINE, appealOpen: true })).toMatchObject({ ok: true, transition: { to: 2 } });
    // Final states have no way out.
    for (const state of [1, 2] as OrderState[]) {
      for (const action of actions) for (const actor of actors) expect(decideOrder(state, action, actor, { now: 0, payDeadline: 0, appealOpen: true }).ok).toBe(false);
    }
  });

  it("marks paid only before the window ends, and expires only after it", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 * DEADLINE }), (now) => {
        const ctx = { now, payDeadline: DEADLINE, appealOpen: false };
        expect(decideOrder(0, "pay", "buyer", ctx).ok).toBe(now < DEADLINE);
        expect(decideOrder(0, "expire", "system", ctx).ok).toBe(now >= DEADLINE);
      }),
    );
  });

  it("lets each side do only its own part", () => {
    const ctx = { now: 0, payDeadline: DEADLINE, appealOpen: false };
    expect(decideOrder(0, "pay", "seller", ctx)).toEqual({ ok: false, reason: "actor" });
    expect(decideOrder(0, "cancel", "seller", ctx)).toEqual({ ok: false, reason: "actor" });
    expect(decideOrder(3, "confirm", "buyer", ctx)).toEqual({ ok: false, reason: "actor" });
    expect(decideOrder(3, "cancel", "buyer", ctx)).toEqual({ ok: false, reason: "state" });
    expect(decideOrder(3, "release", "operator", ctx)).toEqual({ ok: false, reason: "no_appeal" });
    expect(decideOrder(3, "release", "seller", { ...ctx, appealOpen: true })).toEqual({ ok: false, reason: "actor" });
  });
});

describe("C2C advert and merchant machines", () => {
  it("returns a sell advert's escrow once: withdrawn is final and needs an idle, taken-off advert", () => {
    expect(ADVERT_TRANSITIONS.filter((t) => t.from.includes(3))).toEqual([]);
    expect(ADVERT_TRANSITIONS.filter((t) => t.returnsEscrow).map((t) => t.to)).toEqual([3]);
    expect(decideAdvert(1, "withdraw", 0)).toEqual({ ok: false, reason: "withdraw_off_first" });
    expect(decideAdvert(2, "withdraw", 1)).toEqual({ ok: false, reason: "running" });
    expect(decideAdvert(2, "withdraw", 0).ok).toBe(true);
    expect(decideAdvert(4, "withdraw", 0).ok).toBe(true);
    expect(decideAdvert(1, "abnormal", 2)).toEqual({ ok: false, reason: "running" });
    expect(decideAdvert(3, "on", 0)).toEqual({ ok: false, reason: "state" });
    expect(decideAdvert(4, "on", 0)).toEqual({ ok: false, reason: "state" });
  });

  it("holds a merchant's deposit from application until rejection or leaving, and releases it once", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom("approve", "reject", "leave") as fc.Arbitrary<"approve" | "reject" | "leave">, { maxLength: 10 }), (seq) => {
        let state: 0 | 1 | 2 | 3 = 0;
        let released = 0;
        for (const a of seq) {
          const d = decideMerchant(state, a);
          if (!d.ok) continue;
          if (d.transition.releasesDeposit) released++;
          state = d.transition.to;
        }
        expect(released).toBe(depositHeld(state) ? 0 : 1);
      }),
    );
  });
});
