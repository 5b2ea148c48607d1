/**
 * Quotation rows as the API sends them (home index, /api/currency/quotation_new) and the
 * "current currency" the chart and trading screens open with (spec §3 currentCurrencyID,
 * currentCurrency). Shared by the home and quotations features.
 */
import type { Quotation } from "../../../schemas/content.ts";
import { patchSession } from "./session.ts";

/** One pair of the quotation list (schemas/content.ts). */
export type QuotationRow = Quotation;

/** Remembers the pair the user tapped; the chart page reads it. */
export function selectCurrency(row: Pick<QuotationRow, "currency_id" | "currency_name" | "legal_name">) {
  patchSession({
    currentCurrencyID: String(row.currency_id),
    currentCurrency: row.currency_name,
    legal_name: row.legal_name || "USDT",
  });
}
