/**
 * The cover's rule as pure functions (no I/O), the one schemas/insurance.ts states:
 *   value = insured + net, where net is the result (wins − stakes lost − fees) of the user's seconds
 *   contracts in the cover's currency opened from `measured_from` (the later of the cover's start
 *   and the user's last claim), settled in order;
 *   claimable when value ≤ 50 % of insured (2·net ≤ −insured) and no contract is open;
 *   ended ("profit") once the running value has reached 200 % (peak net ≥ insured), or "expired"
 *   at end_at; premium = insured × premium rate rounded up, cover = insured × cover rate rounded down.
 */
import type { InsuranceStatus } from "../../../schemas/insurance.ts";

const DAY_MS = 86_400_000;

/** The premium of an insured amount: rounded up to the unit (the user is told it before paying). */
export function premiumOf(insured: bigint, premiumBps: number): bigint {
  return (insured * BigInt(premiumBps) + 9999n) / 10000n;
}

/** What a claim pays: rounded down to the unit, never above half the insured amount (cover_bps ≤ 5000). */
export function coverOf(insured: bigint, coverBps: number): bigint {
  return (insured * BigInt(coverBps)) / 10000n;
}

/** 00:00 UTC of the day after `now`: a cover bought today is in force from then (T+1). */
export function nextUtcDay(now: number): number {
  return Math.floor(now / DAY_MS) * DAY_MS + DAY_MS;
}

export function addDays(ms: number, days: number): number {
  return ms + days * DAY_MS;
}

/** The UTC calendar day of a moment, "YYYY-MM-DD". */
export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** The UTC day after a "YYYY-MM-DD" day. */
export function dayAfter(day: string): string {
  return utcDay(Date.parse(`${day}T00:00:00Z`) + DAY_MS);
}

/** The value at or below which a claim pays: half the insured amount (rounded down: value ≤ it ⇔ 2·value ≤ insured). */
export const claimAtValue = (insured: bigint): bigint => insured / 2n;
/** The value at which the cover ends: twice the insured amount (+100 %). */
export const endAtValue = (insured: bigint): bigint => insured * 2n;

/** The measurement of one cover's window: net result now, the highest running net, open contracts. */
export interface Path {
  net: bigint;
  peak: bigint;
  openContracts: number;
}

/** Whether the loss condition holds: the value is at or below 50 % of the insured amount. */
export function lossReached(insured: bigint, net: bigint): boolean {
  return 2n * (insured + net) <= insured;
}

/** Whether the value has reached +100 % at some point of the window. */
export function profitReached(insured: bigint, peak: bigint): boolean {
  return peak >= insured;
}

export interface CoverFacts {
  status: 0 | 1 | 2 | 3;
  insured: bigint;
  startAt: number;
  endAt: number;
}

/** Why a live cover (status 0) must end now, or null. */
export function dueEnd(c: CoverFacts, path: Path | null, now: number): "profit" | "expired" | null {
  if (c.status !== 0) return null;
  if (path && now >= c.startAt && profitReached(c.insured, path.peak)) return "profit";
  if (now >= c.endAt) return "expired";
  return null;
}

/** The status a user sees. */
export function statusOf(c: CoverFacts, path: Path | null, now: number): InsuranceStatus {
  if (c.status === 1) return "processing";
  if (c.status === 2) return "paid";
  if (c.status === 3 || dueEnd(c, path, now) !== null) return "ended";
  if (now < c.startAt) return "pending";
  if (path && lossReached(c.insured, path.net)) return "claimable";
  return "active";
}
