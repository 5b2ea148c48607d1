/**
 * Decimal strings on the wire, bigint fixed-point inside. Amounts are stored in a currency's
 * minimal units (10^-scale); nothing here ever goes through a JS number.
 */
import { z } from "zod";
import { DECIMAL_RE } from "./decimal.ts";

// The bigint helpers live in ./decimal.ts (no zod) and are re-exported here for the worker and the
// schemas; the web app imports ./decimal.ts itself, so its formatting never pulls in zod.
export { MAX_UNITS, formatUnits, formatUnitsTrim, mulDiv, parseUnits } from "./decimal.ts";

/**
 * A non-negative decimal string such as "12.5"; no sign, no exponent, no spaces. Built in a pure
 * call, so a bundle that does not validate amounts leaves zod out.
 */
export const decimalStringSchema = /* @__PURE__ */ (() =>
  z
    .union([z.string(), z.number()], { message: "invalid_amount" })
    .transform((v) => (typeof v === "number" ? numberToPlainString(v) : v.trim()))
    .pipe(z.string().regex(DECIMAL_RE, { message: "invalid_amount" })))();

function numberToPlainString(n: number): string {
  // Clients may send JSON numbers; accept only those that print exactly as plain decimals.
  if (!Number.isFinite(n) || n < 0) return "invalid";
  const s = String(n);
  return /e/i.test(s) ? "invalid" : s;
}
