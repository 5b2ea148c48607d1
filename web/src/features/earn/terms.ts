/**
 * The arithmetic the savings screens show before anything moves (pure, unit-tested in
 * tests/web/earn.test.ts): a day's interest = amount × APR / 365 rounded down to the unit, the
 * term's interest, the day a fixed position pays out, and whether a typed amount is within the
 * product's limits. The server computes the same; these only preview it. Bigint throughout.
 */
import { fromUnitsTrim, toUnits } from "../../lib/amount.ts";

/** Savings amounts are held at the coin's scale; the API sends the products' amounts trimmed, the screens parse at this scale. */
export const EARN_SCALE = 8;

/** One full day's interest on `amount` at `aprBps` basis points, rounded down to the unit; null for an amount that is not one. */
export function dailyInterest(amount: string, aprBps: number, scale = EARN_SCALE): string | null {
  const units = toUnits(amount, scale);
  if (units === null || units <= 0n) return null;
  return fromUnitsTrim((units * BigInt(aprBps)) / 3_650_000n, scale);
}

/** A fixed term's interest (the day's interest × days), or null. */
export function termInterest(amount: string, aprBps: number, days: number, scale = EARN_SCALE): string | null {
  const d = dailyInterest(amount, aprBps, scale);
  if (d === null) return null;
  return fromUnitsTrim(toUnits(d, scale)! * BigInt(days), scale);
}

/** When a fixed position subscribed at `now` has held its `days` interest days (each 24 hours of holding): principal and interest are paid then. */
export function maturityAt(now: number, days: number): number {
  return now + days * 86_400_000;
}

export type AmountProblem = "invalid" | "below_min" | "above_room" | "above_budget" | "above_balance" | null;

/** Why a typed amount cannot be subscribed, in the order the server checks (null: it can). */
export function amountProblem(amount: string, p: { min_amount: string; max_amount: string; my_open: string; budget_covers: string }, available: string | null, scale = EARN_SCALE): AmountProblem {
  const a = toUnits(amount, scale);
  if (a === null || a <= 0n || amount.trim().startsWith("-")) return "invalid";
  if (a < toUnits(p.min_amount, scale)!) return "below_min";
  if (a + toUnits(p.my_open, scale)! > toUnits(p.max_amount, scale)!) return "above_room";
  if (a > toUnits(p.budget_covers, scale)!) return "above_budget";
  if (available !== null && a > (toUnits(available, scale) ?? 0n)) return "above_balance";
  return null;
}

/** Days of interest a flexible position keeps reserved ahead while the budget renews it (FLEX_RESERVE_DAYS in schemas/earn.ts). */
export const FLEX_RESERVE_DAYS = 30;

/** Whether a flexible position's reserve has fallen below its days ahead: the budget no longer renews it. */
export function reserveLow(reserved: string, daily: string, scale = EARN_SCALE): boolean {
  const r = toUnits(reserved, scale);
  const d = toUnits(daily, scale);
  return r !== null && d !== null && d > 0n && r < d * BigInt(FLEX_RESERVE_DAYS);
}
