/**
 * Rates on screen. The API sends a rate as a decimal fraction string ("0.20" = 20 %, "0.005" =
 * 0.5 %); people read and type percents. Both ways are exact (bigint), never through a JS number,
 * so "0.0125" is "1.25 %" and a typed "1.25" is sent as "0.0125", not 0.012499999.
 */
import { formatUnitsTrim, parseUnits } from "../../../schemas/decimal.ts";

/** Enough decimals for any rate the API sends (it allows 4) shown as a percent. */
const SCALE = 8;

/** A fraction as a percent without the sign: "0.20" → "20", "0.005" → "0.5", "1" → "100"; null when not a decimal. */
export function rateToPercent(rate: string | null | undefined): string | null {
  if (rate === null || rate === undefined) return null;
  const units = parseUnits(rate, SCALE);
  if (units === null) return null;
  return formatUnitsTrim(units * 100n, SCALE);
}

/** A rate for the eye: "0.20" → "20%", "0.005" → "0.5%"; "--" when the API sent no decimal. */
export function formatRate(rate: string | null | undefined): string {
  const p = rateToPercent(rate);
  return p === null ? "--" : `${p}%`;
}

/**
 * A typed percent as the fraction the API takes: "20" → "0.2", "0.5" → "0.005", "1.25" →
 * "0.0125". Null when it is not a plain decimal with at most `decimals` places (2: a rate of
 * at most 4 decimals, what the API accepts) or is above 100.
 */
export function percentToRate(percent: string, decimals = 2): string | null {
  const units = parseUnits(percent, decimals);
  if (units === null || units > 100n * 10n ** BigInt(decimals)) return null;
  return formatUnitsTrim(units, decimals + 2);
}
