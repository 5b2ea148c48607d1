/**
 * Flash exchange (spec "shandui"): a coin ↔ USDT conversion in which the exchange itself is the
 * counterparty, through its treasury account, at the coin's LAST TRADED price (no spread, no
 * invented price: without a trade there is no conversion). The fee is a published percentage of
 * the USDT value, taken in USDT and paid to the fee account.
 *
 * Rounding (exact bigint maths, documented for users):
 * - the fee is rounded DOWN (never more than the published percent);
 * - the amount received is rounded DOWN to the received currency's minimal unit, so the user
 *   gets at most 1 minimal unit less than the exact figure, and the treasury never pays out
 *   value it did not receive.
 * - the value checked against min/max and the fee tier is the USDT value BEFORE the fee
 *   (for a coin source: amount × last price).
 */
import { USDT_ID } from "../../../schemas/wallet.ts";
import { divPrice, mulPrice, type Price } from "../spot/prices.ts";
import { settings } from "../wallet/currency.ts";

export const CONVERSION_DEFAULTS = {
  shandui_sxf1: "0.2",
  shandui_sxf2: "0.1",
  shandui_sxf_money: "10000",
  shanduiMin: "10",
  shanduiMax: "100000",
  shandui_time: "0",
} as const;
export type ConversionSettings = Record<keyof typeof CONVERSION_DEFAULTS, string>;

export async function conversionSettings(db: D1Database): Promise<ConversionSettings> {
  return (await settings(db, { ...CONVERSION_DEFAULTS })) as ConversionSettings;
}

/** A percent string ("0.2") as parts per 10^8 of the whole (0.2 % → 200_000). */
export function percentToPpb(percent: string): bigint {
  const m = /^(\d{1,3})(?:\.(\d{1,6}))?$/.exec(percent.trim());
  if (!m) throw new Error(`bad percent setting: ${percent}`);
  return BigInt(m[1]!) * 1_000_000n + BigInt((m[2] ?? "").padEnd(6, "0"));
}

export interface Quote {
  /** USDT value (USDT minimal units) of the amount paid, before the fee. */
  usdtValue: bigint;
  /** Fee in USDT minimal units. */
  fee: bigint;
  feePercent: string;
  /** Amount received, minimal units of the target currency. */
  received: bigint;
  /** What the treasury pays out (USDT for a coin source, the coin for a USDT source). */
  treasuryOut: bigint;
  /** Units of target per 1 source, as 10^-8 units (shown with 8 decimals). */
  rate8: bigint;
}

/**
 * Quotes a conversion of `money` (minimal units of the source) at `price` (coin/USDT).
 * `coinScale` and `usdtScale` are the currencies' scales.
 */
export function quote(
  direction: "coin_to_usdt" | "usdt_to_coin",
  money: bigint,
  price: Price,
  coinScale: number,
  usdtScale: number,
  s: ConversionSettings,
  usdtUnits: (decimal: string) => bigint,
): Quote {
  const threshold = usdtUnits(s.shandui_sxf_money);
  if (direction === "coin_to_usdt") {
    const gross = mulPrice(money, coinScale, price, usdtScale);
    const feePercent = gross > threshold ? s.shandui_sxf2 : s.shandui_sxf1;
    const fee = (gross * percentToPpb(feePercent)) / 100_000_000n;
    return { usdtValue: gross, fee, feePercent, received: gross - fee, treasuryOut: gross, rate8: mulPrice(10n ** 8n, 8, price, 8) };
  }
  const feePercent = money > threshold ? s.shandui_sxf2 : s.shandui_sxf1;
  const fee = (money * percentToPpb(feePercent)) / 100_000_000n;
  const coins = divPrice(money - fee, usdtScale, price, coinScale);
  return { usdtValue: money, fee, feePercent, received: coins, treasuryOut: coins, rate8: divPrice(10n ** 8n, 8, price, 8) };
}

export const conversionDirection = (from: number, to: number) =>
  from === USDT_ID && to !== USDT_ID ? "usdt_to_coin" : to === USDT_ID && from !== USDT_ID ? "coin_to_usdt" : null;
