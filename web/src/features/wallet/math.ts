/**
 * The numbers the money screens show before anything is sent, computed exactly as the server
 * will (bigint minimal units, rounding down): withdrawal fee / received / total frozen from the
 * published fee table, and the flash-exchange quote at the last traded price with its fee tier.
 * Pure functions: tested in tests/web/wallet-math.test.ts.
 */
import { checkAmount } from "../../../../schemas/wallet.ts";
import { decimalsOf, fromUnits, toUnits } from "../../lib/amount.ts";

// ── withdrawal ───────────────────────────────────────────────────────────────────────────────

export interface Terms {
  fee: string;
  min: string;
  max: string;
}

interface InfoLike {
  rate: string;
  min: string;
  max: string;
  networks: { type: number; fee: string; min: string; max: string }[];
}

/**
 * The terms of a withdrawal on a network (spec §4): the network's fee when it is above zero,
 * otherwise the general rate; min and max of that network (or the general ones).
 */
export function withdrawalTerms(info: InfoLike, network: number | null): Terms {
  const n = network === null ? undefined : info.networks.find((x) => x.type === network);
  if (!n) return { fee: info.rate, min: info.min, max: info.max };
  const scale = Math.max(decimalsOf(n.fee), decimalsOf(info.rate));
  const fee = toUnits(n.fee, scale) ?? 0n;
  return { fee: fee > 0n ? n.fee : info.rate, min: n.min, max: n.max };
}

export type WithdrawProblem = "invalid_amount" | "amount_positive" | "too_many_decimals" | "amount_too_large" | "below_min" | "above_max" | "insufficient_balance";

export interface WithdrawPreview {
  /** What leaves the address book side: the amount typed (the fee comes on top). */
  received: string;
  fee: string;
  /** amount + fee: what is frozen now and debited on success. */
  total: string;
  problem: WithdrawProblem | null;
}

/** The live summary under the amount field. `amount` "" gives zeros and no problem. */
export function withdrawalPreview(amount: string, terms: Terms, available: string, scale: number): WithdrawPreview {
  const fee = toUnits(terms.fee, scale) ?? 0n;
  const zero = fromUnits(0n, scale);
  // Nothing (valid) typed yet: nothing would be frozen.
  if (amount.trim() === "") return { received: zero, fee: fromUnits(fee, scale), total: zero, problem: null };
  const check = checkAmount(amount, scale);
  if (!check.ok) return { received: zero, fee: fromUnits(fee, scale), total: zero, problem: check.key };
  const units = check.units;
  const total = units + fee;
  let problem: WithdrawProblem | null = null;
  const min = toUnits(terms.min, scale);
  const max = toUnits(terms.max, scale);
  const avail = toUnits(available, scale) ?? 0n;
  if (min !== null && units < min) problem = "below_min";
  else if (max !== null && units > max) problem = "above_max";
  else if (total > avail) problem = "insufficient_balance";
  return { received: fromUnits(units, scale), fee: fromUnits(fee, scale), total: fromUnits(total, scale), problem };
}

/** The "all" button: everything available minus the fee (never negative), capped at the maximum. */
export function withdrawAll(available: string, terms: Terms, scale: number): string {
  const avail = toUnits(available, scale) ?? 0n;
  const fee = toUnits(terms.fee, scale) ?? 0n;
  const max = toUnits(terms.max, scale);
  let units = avail - fee;
  if (units < 0n) units = 0n;
  if (max !== null && units > max) units = max;
  return trimZeros(fromUnits(units, scale));
}

export function trimZeros(s: string): string {
  return s.includes(".") ? s.replace(/\.?0+$/, "") : s;
}

// ── flash exchange ───────────────────────────────────────────────────────────────────────────

export interface Price {
  num: bigint;
  dec: number;
}

/** A positive decimal price; null for anything else (including "0" and a missing price). */
export function parsePrice(text: string | null | undefined): Price | null {
  if (!text) return null;
  const m = /^(\d{1,30})(?:\.(\d{1,30}))?$/.exec(text.trim());
  if (!m) return null;
  const frac = m[2] ?? "";
  const num = BigInt((m[1] ?? "0") + frac);
  return num > 0n ? { num, dec: frac.length } : null;
}

const pow10 = (n: number) => 10n ** BigInt(n);

/** A percent string ("0.2") as parts per 10^8. */
export function percentToPpb(percent: string): bigint | null {
  const m = /^(\d{1,3})(?:\.(\d{1,6}))?$/.exec(percent.trim());
  if (!m) return null;
  return BigInt(m[1] ?? "0") * 1_000_000n + BigInt((m[2] ?? "").padEnd(6, "0"));
}

export interface ConversionTerms {
  shandui_sxf1: string;
  shandui_sxf2: string;
  shandui_sxf_money: string;
  shanduiMin: string;
  shanduiMax: string;
}

export type ConversionProblem = "invalid_amount" | "amount_positive" | "too_many_decimals" | "amount_too_large" | "below_min" | "above_max" | "insufficient_balance" | "no_price";

export interface ConversionQuote {
  /** USDT value before the fee (what min/max and the fee tier apply to). */
  usdtValue: string;
  fee: string;
  feePercent: string;
  /** Received, at the target's scale, and shown to 5 decimals. */
  received: string;
  receivedDisplay: string;
  /** Units of target per 1 source, 8 decimals. */
  rate: string;
  problem: ConversionProblem | null;
}

/**
 * The quote the server will make (worker/domain/conversion/quote.ts) for `money` of the source currency:
 * coin → USDT: value = amount × price, fee = value × tier %, received = value − fee;
 * USDT → coin: fee = amount × tier %, received = (amount − fee) ÷ price. Everything rounds down.
 */
export function conversionQuote(args: {
  direction: "coin_to_usdt" | "usdt_to_coin";
  money: string;
  price: string | null;
  coinScale: number;
  usdtScale: number;
  available: string;
  terms: ConversionTerms;
}): ConversionQuote | null {
  const { direction, money, coinScale, usdtScale, terms } = args;
  const price = parsePrice(args.price);
  const fromScale = direction === "coin_to_usdt" ? coinScale : usdtScale;
  const toScale = direction === "coin_to_usdt" ? usdtScale : coinScale;
  const empty = (problem: ConversionProblem | null): ConversionQuote => ({
    usdtValue: fromUnits(0n, usdtScale),
    fee: fromUnits(0n, usdtScale),
    feePercent: terms.shandui_sxf1,
    received: fromUnits(0n, toScale),
    receivedDisplay: fromUnits(0n, toScale, 5),
    rate: price ? rate8(direction, price) : "--",
    problem,
  });
  if (!price) return empty("no_price");
  if (money.trim() === "") return empty(null);
  const check = checkAmount(money, fromScale);
  if (!check.ok) return empty(check.key);
  const units = check.units;
  const threshold = toUnits(terms.shandui_sxf_money, usdtScale) ?? 0n;
  const tier = (value: bigint) => (value > threshold ? terms.shandui_sxf2 : terms.shandui_sxf1);
  let usdtValue: bigint;
  let fee: bigint;
  let received: bigint;
  let feePercent: string;
  if (direction === "coin_to_usdt") {
    usdtValue = (units * price.num * pow10(usdtScale)) / pow10(coinScale + price.dec);
    feePercent = tier(usdtValue);
    fee = (usdtValue * (percentToPpb(feePercent) ?? 0n)) / 100_000_000n;
    received = usdtValue - fee;
  } else {
    usdtValue = units;
    feePercent = tier(units);
    fee = (units * (percentToPpb(feePercent) ?? 0n)) / 100_000_000n;
    received = ((units - fee) * pow10(price.dec + coinScale)) / (price.num * pow10(usdtScale));
  }
  let problem: ConversionProblem | null = null;
  const min = toUnits(terms.shanduiMin, usdtScale);
  const max = toUnits(terms.shanduiMax, usdtScale);
  const avail = toUnits(args.available, fromScale) ?? 0n;
  if ((min !== null && usdtValue < min) || received <= 0n) problem = "below_min";
  else if (max !== null && usdtValue > max) problem = "above_max";
  else if (units > avail) problem = "insufficient_balance";
  return {
    usdtValue: fromUnits(usdtValue, usdtScale),
    fee: fromUnits(fee, usdtScale),
    feePercent,
    received: fromUnits(received, toScale),
    receivedDisplay: fromUnits(received, toScale, 5),
    rate: rate8(direction, price),
    problem,
  };
}

/** Units of the target per 1 unit of the source, to 8 decimals (spec §5 "rate shown to 8 decimals"). */
export function rate8(direction: "coin_to_usdt" | "usdt_to_coin", price: Price): string {
  const one = pow10(8);
  const units = direction === "coin_to_usdt" ? (one * price.num * pow10(8)) / pow10(8 + price.dec) : (one * pow10(price.dec + 8)) / (price.num * pow10(8));
  return fromUnits(units, 8);
}
