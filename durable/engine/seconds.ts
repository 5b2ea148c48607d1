/**
 * Seconds contracts, as money (DESIGN §7). The house (treasury) is the counterparty.
 *
 * Settlement is a function of (direction, entry price, exit price, ratio, stake) and nothing else:
 * there is no parameter through which a user, an order id, a time or a setting could reach it.
 * Up wins only when exit > entry; down wins when exit ≤ entry. A win pays stake × ratio (cut to
 * minimal units) on top of the returned stake; a loss gives the stake to the house.
 *
 * At acceptance the stake is frozen, the fee (stake × fee%, rounded UP) is booked once, and the
 * house holds the maximum payout (stake × ratio, cut) so every win can be paid. The ledger legs
 * below are per role (the user's micro account, the fee account, the house); each set of legs nets
 * to zero, and open + settle nets to: user result − fee, house −result, fees +fee.
 */

/** 1 up, 2 down (spec §3 `type`). */
export type SecondsDirection = 1 | 2;

/** Ratios and fees in basis points of the stake: 8500 = 85 %. */
const BPS = 10_000n;

/** The money of one contract, fixed at acceptance. */
export interface SecondsMoney {
  stake: bigint;
  /** stake × fee% rounded up to minimal units */
  fee: bigint;
  /** the most the house can owe: stake × ratio% cut to minimal units */
  hold: bigint;
}

/** The result of a settled contract. */
export interface SecondsResult {
  won: boolean;
  /** + stake × ratio% on a win, − stake on a loss (minimal units) */
  result: bigint;
}

export type SecondsRole = "user" | "fees" | "house";

/** One leg of a movement: a role's change of available and frozen funds. */
export interface SecondsLeg {
  role: SecondsRole;
  dAvailable: bigint;
  dFrozen: bigint;
}

function checkBps(name: string, bps: number): void {
  if (!Number.isSafeInteger(bps) || bps < 0 || bps > 100_000) throw new RangeError(`${name} ${bps} bps is out of range`);
}

/** What accepting a contract holds: the stake, the fee on top (rounded up) and the house's hold. */
export function acceptanceMoney(stake: bigint, ratioBps: number, feeBps: number): SecondsMoney {
  if (stake <= 0n) throw new RangeError("stake must be positive");
  checkBps("ratio", ratioBps);
  checkBps("fee", feeBps);
  const feeNum = stake * BigInt(feeBps);
  return { stake, fee: (feeNum + BPS - 1n) / BPS, hold: (stake * BigInt(ratioBps)) / BPS };
}

/** Whether the direction won: up only when exit > entry; down when exit ≤ entry. */
export function wins(direction: SecondsDirection, entry: number | bigint, exit: number | bigint): boolean {
  return direction === 1 ? exit > entry : exit <= entry;
}

/** The settlement of a contract: a pure function of (direction, entry, exit, ratio, stake) only. */
export function settleSeconds(direction: SecondsDirection, entry: number | bigint, exit: number | bigint, ratioBps: number, stake: bigint): SecondsResult {
  const won = wins(direction, entry, exit);
  return { won, result: won ? acceptanceMoney(stake, ratioBps, 0).hold : -stake };
}

/** Acceptance: the user's stake + fee leave available, the stake is frozen, the fee is booked, the house holds the payout. */
export function openLegs(m: SecondsMoney): SecondsLeg[] {
  return [
    { role: "user", dAvailable: -(m.stake + m.fee), dFrozen: m.stake },
    { role: "fees", dAvailable: m.fee, dFrozen: 0n },
    { role: "house", dAvailable: -m.hold, dFrozen: m.hold },
  ];
}

/** Settlement: both holds are released and the result paid, in one movement. */
export function settleLegs(m: SecondsMoney, r: SecondsResult): SecondsLeg[] {
  return [
    { role: "user", dAvailable: m.stake + r.result, dFrozen: -m.stake },
    { role: "house", dAvailable: m.hold - r.result, dFrozen: -m.hold },
  ];
}

/** A refused contract (no index, exposure, a crash before the object saw it): everything goes back. */
export function refundLegs(m: SecondsMoney): SecondsLeg[] {
  return openLegs(m).map((l) => ({ role: l.role, dAvailable: -l.dAvailable, dFrozen: -l.dFrozen }));
}

/** Basis points as the percent text shown to users ("85", "82.5"). */
export function bpsToPercent(bps: number): string {
  const whole = Math.trunc(bps / 100);
  const frac = bps % 100;
  return frac === 0 ? String(whole) : `${whole}.${String(frac).padStart(2, "0").replace(/0$/, "")}`;
}

/** Percent text ("85", "82.5", "2") as basis points; null when it is not a percent with at most 2 decimals. */
export function percentToBps(text: string): number | null {
  const m = /^(\d{1,5})(?:\.(\d{1,2}))?$/.exec(text.trim());
  if (!m) return null;
  return Number(m[1]) * 100 + Number((m[2] ?? "").padEnd(2, "0"));
}
