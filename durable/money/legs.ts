/**
 * Each product's money as legs: the pure rules that turn a trade, a settlement, a close, a C2C
 * decision or an interest day into the legs its owner commits. Every event here balances per
 * currency by construction (the core checks it again at commit), and every debit of a user
 * spends a hold of its own id, so a leg can never overdraw. Keys are the event's, per role.
 */
import type { Mutations } from "./ports.ts";
import type { Leg, Op } from "./types.ts";

/** System accounts live under this kind in their shard objects. */
export const SYSTEM = "system";

/** Leaves out zero-amount ops and legs left with none. */
function leg(key: string, to: string, ops: (Op | false)[]): Leg[] {
  const kept = ops.filter((op): op is Op => op !== false && op.amt > 0);
  return kept.length ? [{ key, to, ops: kept }] : [];
}

export interface TradeSide {
  /** The account object. */
  to: string;
  hold: string;
  /** What is left of the hold to release when this fill ends the order (0 if it goes on). */
  rest: number;
}

export interface Trade {
  id: string;
  kind: string;
  base: string;
  quote: string;
  buyer: TradeSide;
  seller: TradeSide;
  qty: number;
  cost: number;
  feeBase: number;
  feeQuote: number;
  /** The fee shard for this trade. */
  fees: string;
}

/** A fill: the buyer's quote hold pays the seller, the seller's base hold pays the buyer, fees to a shard. */
export function tradeLegs(t: Trade, m: Mutations = {}): Leg[] {
  // The overspend mutation charges the buyer's fee from its hold on top of the cost.
  const extra = m.overspendHold ? t.feeQuote : 0;
  return [
    ...leg(`trade:${t.id}:buyer`, t.buyer.to, [
      { t: "spend", hold: t.buyer.hold, cur: t.quote, amt: t.cost + extra },
      { t: "credit", kind: t.kind, cur: t.base, amt: t.qty - t.feeBase },
      { t: "release", hold: t.buyer.hold, cur: t.quote, amt: t.buyer.rest },
    ]),
    ...leg(`trade:${t.id}:seller`, t.seller.to, [
      { t: "spend", hold: t.seller.hold, cur: t.base, amt: t.qty },
      { t: "credit", kind: t.kind, cur: t.quote, amt: t.cost - t.feeQuote },
      { t: "release", hold: t.seller.hold, cur: t.base, amt: t.seller.rest },
    ]),
    ...(m.skipFeeLeg
      ? []
      : leg(`trade:${t.id}:fee`, t.fees, [
          { t: "credit", kind: SYSTEM, cur: t.base, amt: t.feeBase },
          { t: "credit", kind: SYSTEM, cur: t.quote, amt: t.feeQuote + extra },
        ])),
  ];
}

/** Gives a hold back whole (a cancel, a refused command, a C2C return). */
export function releaseLeg(key: string, to: string, hold: string, cur: string, amt: number): Leg[] {
  return leg(key, to, [{ t: "release", hold, cur, amt }]);
}

/** Both sides of a reservation pair: the user's stake or margin and the treasury's cover for it. */
export interface Covered {
  id: string;
  cur: string;
  user: string;
  kind: string;
  hold: string;
  amt: number;
  treasury: string;
  treasuryHold: string;
  treasuryAmt: number;
}

/**
 * An open fee taken when the desk accepts a contract or a position (the wired desks'
 * `secondsOpenLegs`, `leverOpenLegs`): the user's hold, made with the stake and the fee, spends the
 * fee to a fee shard; the settle or close later resolves the rest of the same hold, so the two
 * events' legs to the user may land in either order.
 */
export function openFeeLegs(key: string, c: Covered, fee: number, fees: string): Leg[] {
  return [...leg(`${key}:user`, c.user, [{ t: "spend", hold: c.hold, cur: c.cur, amt: fee }]), ...leg(`${key}:fee`, fees, [{ t: "credit", kind: SYSTEM, cur: c.cur, amt: fee }])];
}

/** A seconds contract settles: a win is paid from the treasury's hold, a lost stake goes to the treasury. */
export function secondsLegs(c: Covered, won: boolean): Leg[] {
  const key = `contract:${c.id}:settle`;
  if (won)
    return [
      ...leg(`${key}:user`, c.user, [
        { t: "release", hold: c.hold, cur: c.cur, amt: c.amt },
        { t: "credit", kind: c.kind, cur: c.cur, amt: c.treasuryAmt },
      ]),
      ...leg(`${key}:treasury`, c.treasury, [{ t: "spend", hold: c.treasuryHold, cur: c.cur, amt: c.treasuryAmt }]),
    ];
  return [
    ...leg(`${key}:user`, c.user, [{ t: "spend", hold: c.hold, cur: c.cur, amt: c.amt }]),
    ...leg(`${key}:treasury`, c.treasury, [
      { t: "release", hold: c.treasuryHold, cur: c.cur, amt: c.treasuryAmt },
      { t: "credit", kind: SYSTEM, cur: c.cur, amt: c.amt },
    ]),
  ];
}

/**
 * Every contract a pair's desk settles in one step, as one leg per account: 10,000 contracts
 * become a few hundred legs, each listing the holds it resolves. The key names the pair, the
 * second and the step's first contract, `seconds:{pair}:{second}:{first id}:{account}` (as the
 * wired desk keys its chunks, durable/pair/desks/seconds-objects.ts): a treasury or fee shard
 * takes legs from many pairs in the same second, and a key without the pair would make the second
 * pair's leg a `seen` repeat of the first's (its money lost). A contract is settled by one step
 * only, so its first id names the step for ever.
 */
export function secondsSettleLegs(pair: string, second: number, settled: readonly { c: Covered; won: boolean }[]): Leg[] {
  if (settled.length === 0) return [];
  const byAccount = new Map<string, Op[]>();
  for (const { c, won } of settled)
    for (const l of secondsLegs(c, won)) {
      const ops = byAccount.get(l.to) ?? [];
      ops.push(...l.ops);
      byAccount.set(l.to, ops);
    }
  const event = `seconds:${pair}:${second}:${settled[0]!.c.id}`;
  return [...byAccount].map(([to, ops]) => ({ key: `${event}:${to}`, to, ops }));
}

/**
 * A leveraged position closes with pnl in [-margin, treasury cover]: a profit is paid from the
 * treasury's hold, a loss goes to the treasury, less a liquidation fee to a fee shard.
 */
export function leverCloseLegs(p: Covered, pnl: number, fee: number, fees: string, why: "close" | "liquidation"): Leg[] {
  const key = `position:${p.id}:${why}`;
  if (pnl >= 0)
    return [
      ...leg(`${key}:user`, p.user, [
        { t: "release", hold: p.hold, cur: p.cur, amt: p.amt },
        { t: "credit", kind: p.kind, cur: p.cur, amt: pnl },
      ]),
      ...leg(`${key}:treasury`, p.treasury, [
        { t: "spend", hold: p.treasuryHold, cur: p.cur, amt: pnl },
        { t: "release", hold: p.treasuryHold, cur: p.cur, amt: p.treasuryAmt - pnl },
      ]),
    ];
  const loss = -pnl;
  return [
    ...leg(`${key}:user`, p.user, [
      { t: "spend", hold: p.hold, cur: p.cur, amt: loss },
      { t: "release", hold: p.hold, cur: p.cur, amt: p.amt - loss },
    ]),
    ...leg(`${key}:treasury`, p.treasury, [
      { t: "release", hold: p.treasuryHold, cur: p.cur, amt: p.treasuryAmt },
      { t: "credit", kind: SYSTEM, cur: p.cur, amt: loss - fee },
    ]),
    ...leg(`${key}:fee`, fees, [{ t: "credit", kind: SYSTEM, cur: p.cur, amt: fee }]),
  ];
}

export interface Escrow {
  id: string;
  cur: string;
  seller: string;
  buyer: string;
  kind: string;
  hold: string;
  amt: number;
}

/** The seller releases: the escrow is spent and the buyer credited. */
export function escrowReleaseLegs(e: Escrow): Leg[] {
  return [
    ...leg(`escrow:${e.id}:release:seller`, e.seller, [{ t: "spend", hold: e.hold, cur: e.cur, amt: e.amt }]),
    ...leg(`escrow:${e.id}:release:buyer`, e.buyer, [{ t: "credit", kind: e.kind, cur: e.cur, amt: e.amt }]),
  ];
}

/** The order is cancelled or times out: the escrow goes back to the seller. */
export function escrowReturnLegs(e: Escrow): Leg[] {
  return releaseLeg(`escrow:${e.id}:return`, e.seller, e.hold, e.cur, e.amt);
}

/** One day of a subscription's interest, paid from the treasury's hold for it (keyed by the day). */
export function interestLegs(s: Covered, day: number, amt: number): Leg[] {
  const key = `subscription:${s.id}:day:${day}`;
  return [
    ...leg(`${key}:user`, s.user, [{ t: "credit", kind: s.kind, cur: s.cur, amt }]),
    ...leg(`${key}:treasury`, s.treasury, [{ t: "spend", hold: s.treasuryHold, cur: s.cur, amt }]),
  ];
}

/** The subscription ends: the principal goes back, and what the treasury reserved and did not pay. */
export function subscriptionEndLegs(s: Covered, treasuryLeft: number): Leg[] {
  const key = `subscription:${s.id}:end`;
  return [...releaseLeg(`${key}:user`, s.user, s.hold, s.cur, s.amt), ...releaseLeg(`${key}:treasury`, s.treasury, s.treasuryHold, s.cur, treasuryLeft)];
}

/** A deposit shard pays a user: its own debit (local op) and the user's credit (leg). */
export function depositEvent(id: string, user: string, kind: string, cur: string, amt: number): { key: string; local: Op[]; legs: Leg[] } {
  return {
    key: `deposit:${id}`,
    local: [{ t: "debit", kind: SYSTEM, cur, amt }],
    legs: leg(`deposit:${id}:user`, user, [{ t: "credit", kind, cur, amt }]),
  };
}
