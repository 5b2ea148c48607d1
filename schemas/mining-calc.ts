/**
 * Mining's payout rule and break-even calculator (issue #20 §1; schemas/mining.ts states the rule),
 * with no zod so the web app's mining screens import this file alone. Money is bigint inside and
 * decimal strings outside; nothing here uses a float.
 */
import { formatUnitsTrim } from "./decimal.ts";

export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;
/** Per-share amounts are shown with this many decimals beyond the payout currency's scale (a ratio: truncated). */
export const PER_SHARE_EXTRA = 4;

// ---- the payout rule (shared by the cron and the screens) ----

/** A holder's gross and net of one hour's amount, and the fee: all bigint minimal units. */
export function holderShare(amount: bigint, held: bigint, totalShares: bigint, feeBps: number): { gross: bigint; fee: bigint; net: bigint } {
  const gross = (amount * held) / totalShares;
  const net = (gross * BigInt(10_000 - feeBps)) / 10_000n;
  return { gross, fee: gross - net, net };
}

/** amount ÷ shares as a decimal string, PER_SHARE_EXTRA decimals beyond the currency's scale (truncated). */
export function perShare(amount: bigint, shares: number, scale: number): string {
  return formatUnitsTrim((amount * 10n ** BigInt(PER_SHARE_EXTRA)) / BigInt(shares), scale + PER_SHARE_EXTRA);
}

// ---- the break-even calculator (decimal strings in and out, bigint inside; no floats) ----

const CALC_SCALE = 18;
const ONE = 10n ** BigInt(CALC_SCALE);

/** A non-negative decimal string as a fixed-point bigint at 18 decimals (more decimals are cut), or null. */
function fx(v: string): bigint | null {
  const m = /^(\d{1,20})(?:\.(\d{1,40}))?$/.exec(v.trim());
  if (!m) return null;
  return BigInt(m[1]!) * ONE + BigInt((m[2] ?? "").slice(0, CALC_SCALE).padEnd(CALC_SCALE, "0") || "0");
}
const mul = (a: bigint, b: bigint) => (a * b) / ONE;
const div = (a: bigint, b: bigint) => (a * ONE) / b;
const show = (v: bigint, decimals: number) => {
  const neg = v < 0n;
  const s = formatUnitsTrim((neg ? -v : v) / 10n ** BigInt(CALC_SCALE - decimals), decimals);
  return (neg && s !== "0" ? "-" : "") + s;
};

export interface CalcInput {
  shares: string;
  /** price of one share (price currency) */
  price: string;
  fee_bps: number;
  days: number;
  /** what the pool pays per share per day before the fee (payout currency): the user's assumption */
  per_share_day: string;
  /** the payout currency's price in the price currency: the user's assumption */
  coin_price: string;
  /** decimals to show: payout currency, price currency */
  payout_decimals: number;
  price_decimals: number;
}

export interface CalcResult {
  cost: string;
  net_day: string;
  fee_day: string;
  net_term: string;
  value_term: string;
  /** value over the term − cost, signed */
  result_term: string;
  /** the payout currency's price at which the term's payouts equal the cost; null: nothing is paid */
  break_even_price: string | null;
  /** days until the payouts' value equals the cost at these assumptions; null: never */
  break_even_days: number | null;
  /** whether that is within the term */
  within_term: boolean;
}

/** The break-even calculator: null when an input is not a valid non-negative decimal (or shares not a whole number ≥ 1). */
export function breakEven(i: CalcInput): CalcResult | null {
  if (!/^\d{1,9}$/.test(i.shares.trim()) || Number(i.shares) < 1) return null;
  const shares = fx(i.shares);
  const price = fx(i.price);
  const pps = fx(i.per_share_day);
  const coin = fx(i.coin_price);
  if (shares === null || price === null || pps === null || coin === null) return null;
  const cost = mul(shares, price);
  const grossDay = mul(shares, pps);
  const netDay = (grossDay * BigInt(10_000 - i.fee_bps)) / 10_000n;
  const netTerm = netDay * BigInt(i.days);
  const valueTerm = mul(netTerm, coin);
  const valueDay = mul(netDay, coin);
  const days = valueDay > 0n ? (cost + valueDay - 1n) / valueDay : null;
  return {
    cost: show(cost, i.price_decimals),
    net_day: show(netDay, i.payout_decimals + PER_SHARE_EXTRA),
    fee_day: show(grossDay - netDay, i.payout_decimals + PER_SHARE_EXTRA),
    net_term: show(netTerm, i.payout_decimals),
    value_term: show(valueTerm, i.price_decimals),
    result_term: show(valueTerm - cost, i.price_decimals),
    break_even_price: netTerm > 0n ? show(div(cost, netTerm), i.price_decimals) : null,
    break_even_days: days === null || days > 1_000_000n ? null : Number(days),
    within_term: days !== null && days <= BigInt(i.days),
  };
}
