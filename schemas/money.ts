/**
 * Decimal strings on the wire, bigint fixed-point inside. Amounts are stored in a currency's
 * minimal units (10^-scale); nothing here ever goes through a JS number.
 */
import { z } from "zod";
import { DECIMAL_RE } from "./decimal.ts";
import { decimalInput } from "./strict.ts";

// The bigint helpers live in ./decimal.ts (no zod) and are re-exported here for the worker and the
// schemas; the web app imports ./decimal.ts itself, so its formatting never pulls in zod.
export { MAX_UNITS, formatUnits, formatUnitsTrim, mulDiv, parseUnits } from "./decimal.ts";

/**
 * A non-negative decimal string such as "12.5": a JSON number or a plain decimal string
 * (schemas/strict.ts), at most 20 integer digits and 30 decimals. Built in a pure call, so a
 * bundle that does not validate amounts leaves zod out.
 */
export const decimalStringSchema = /* @__PURE__ */ (() => decimalInput().pipe(z.string().regex(DECIMAL_RE, { message: "invalid_amount" })))();
