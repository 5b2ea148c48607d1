/**
 * The C2C state machines as pure tables (DESIGN §8): orders (`is_sure`), adverts and merchant
 * applications. No I/O and no Workers imports, so the tables are property-tested in plain Node
 * (tests/unit/c2c-machine.test.ts). The SQL in this folder asks `decideOrder` what an action
 * does, then applies it as one D1 batch guarded on the state it read; migrations/0012_c2c.sql
 * holds the same edges as triggers, so the database refuses any other edge.
 *
 * Escrow rule: an order's coins leave escrow exactly once, by "release" (to the buyer) or
 * "return" (to the seller or the advert they came from), and only on the edge into a final state.
 */
import type { IsSure } from "../../../schemas/c2c.ts";

export type OrderState = IsSure;
export type OrderAction = "pay" | "cancel" | "expire" | "confirm" | "release" | "return";
/** Who acts: the order's buyer or seller, an operator deciding an appeal, or the expiry job. */
export type Actor = "buyer" | "seller" | "operator" | "system";
export type EscrowEffect = "none" | "release" | "return";
/** When an edge may be taken: before the payment deadline, at or after it, or with an open appeal. */
export type Condition = "before_deadline" | "after_deadline" | "appeal_open";

export interface OrderTransition {
  from: OrderState;
  action: OrderAction;
  actors: readonly Actor[];
  to: OrderState;
  escrow: EscrowEffect;
  when?: Condition;
}

/** Spec §4: 0 unpaid → 3 paid → 1 finished; 0 → 2 cancelled (buyer or window); 3 → 1/2 on appeal. */
export const ORDER_TRANSITIONS: readonly OrderTransition[] = [
  { from: 0, action: "pay", actors: ["buyer"], to: 3, escrow: "none", when: "before_deadline" },
  { from: 0, action: "cancel", actors: ["buyer"], to: 2, escrow: "return" },
  // The expiry job, or either party's client at countdown zero (handle_one): the server decides.
  { from: 0, action: "expire", actors: ["system", "buyer", "seller"], to: 2, escrow: "return", when: "after_deadline" },
  { from: 3, action: "confirm", actors: ["seller"], to: 1, escrow: "release" },
  { from: 3, action: "release", actors: ["operator"], to: 1, escrow: "release", when: "appeal_open" },
  { from: 3, action: "return", actors: ["operator"], to: 2, escrow: "return", when: "appeal_open" },
];

export const FINAL_STATES: readonly OrderState[] = [1, 2];
export const isFinal = (s: OrderState) => FINAL_STATES.includes(s);

export interface OrderContext {
  now: number;
  payDeadline: number;
  appealOpen: boolean;
}

export type Refusal = "state" | "actor" | "window_closed" | "window_open" | "no_appeal";
export type OrderDecision = { ok: true; transition: OrderTransition } | { ok: false; reason: Refusal };

function conditionHolds(when: Condition | undefined, ctx: OrderContext): Refusal | null {
  if (when === "before_deadline" && ctx.now >= ctx.payDeadline) return "window_closed";
  if (when === "after_deadline" && ctx.now < ctx.payDeadline) return "window_open";
  if (when === "appeal_open" && !ctx.appealOpen) return "no_appeal";
  return null;
}

/** What `action` by `actor` does to an order in `state`, or why it is refused. */
export function decideOrder(state: OrderState, action: OrderAction, actor: Actor, ctx: OrderContext): OrderDecision {
  const edges = ORDER_TRANSITIONS.filter((t) => t.from === state && t.action === action);
  if (edges.length === 0) return { ok: false, reason: "state" };
  const edge = edges.find((t) => t.actors.includes(actor));
  if (!edge) return { ok: false, reason: "actor" };
  const refusal = conditionHolds(edge.when, ctx);
  return refusal ? { ok: false, reason: refusal } : { ok: true, transition: edge };
}

/** Either party may appeal a paid order once the seller has had `afterMs` to confirm; one appeal per order. */
export function canAppeal(state: OrderState, paidAt: number | null, now: number, afterMs: number, hasAppeal: boolean): "ok" | "state" | "too_early" | "exists" {
  if (hasAppeal) return "exists";
  if (state !== 3 || paidAt === null) return "state";
  return now - paidAt >= afterMs ? "ok" : "too_early";
}

// ── Adverts ─────────────────────────────────────────────────────────────────────────────────────

/** 1 on shelf, 2 off shelf, 3 withdrawn, 4 abnormal (schemas/c2c.ts ADVERT_STATUS). */
export type AdvertState = 1 | 2 | 3 | 4;
export type AdvertAction = "off" | "on" | "withdraw" | "abnormal";

export interface AdvertTransition {
  from: readonly AdvertState[];
  action: AdvertAction;
  actor: "merchant" | "operator";
  to: AdvertState;
  /** only when no order of the advert is unpaid or paid */
  idle: boolean;
  /** a sell advert's remaining escrow goes back to the merchant's available balance */
  returnsEscrow: boolean;
}

/** Spec §4: taken off → no new orders; withdrawn only after being taken off and while no trade runs; abnormal by an operator. */
export const ADVERT_TRANSITIONS: readonly AdvertTransition[] = [
  { from: [1], action: "off", actor: "merchant", to: 2, idle: false, returnsEscrow: false },
  { from: [2], action: "on", actor: "merchant", to: 1, idle: false, returnsEscrow: false },
  { from: [2, 4], action: "withdraw", actor: "merchant", to: 3, idle: true, returnsEscrow: true },
  { from: [1, 2], action: "abnormal", actor: "operator", to: 4, idle: true, returnsEscrow: false },
];

export type AdvertDecision = { ok: true; transition: AdvertTransition } | { ok: false; reason: "state" | "withdraw_off_first" | "running" };

export function decideAdvert(state: AdvertState, action: AdvertAction, runningOrders: number): AdvertDecision {
  const edge = ADVERT_TRANSITIONS.find((t) => t.action === action);
  if (!edge) return { ok: false, reason: "state" };
  if (!edge.from.includes(state)) return { ok: false, reason: action === "withdraw" && state === 1 ? "withdraw_off_first" : "state" };
  if (edge.idle && runningOrders > 0) return { ok: false, reason: "running" };
  return { ok: true, transition: edge };
}

/** Whether a new order may be placed on an advert in this state. */
export const advertTakesOrders = (s: AdvertState) => s === 1;

// ── Merchant applications ───────────────────────────────────────────────────────────────────────

/** 0 applying, 1 approved, 2 rejected, 3 left. The deposit is frozen in 0 and 1 only. */
export type MerchantState = 0 | 1 | 2 | 3;
export type MerchantAction = "approve" | "reject" | "leave";

export const MERCHANT_TRANSITIONS: readonly { from: readonly MerchantState[]; action: MerchantAction; to: MerchantState; releasesDeposit: boolean }[] = [
  { from: [0], action: "approve", to: 1, releasesDeposit: false },
  { from: [0], action: "reject", to: 2, releasesDeposit: true },
  { from: [0, 1], action: "leave", to: 3, releasesDeposit: true },
];

export function decideMerchant(state: MerchantState, action: MerchantAction) {
  const edge = MERCHANT_TRANSITIONS.find((t) => t.action === action && t.from.includes(state));
  return edge ? ({ ok: true, transition: edge } as const) : ({ ok: false, reason: "state" } as const);
}

/** The deposit is held while the application is pending or approved. */
export const depositHeld = (s: MerchantState) => s === 0 || s === 1;
