/**
 * Quotation rows as the API sends them (home index, /api/currency/quotation_new) and the
 * "current currency" the chart and trading screens open with (spec §3 currentCurrencyID,
 * currentCurrency). Shared by the home and quotations features.
 */
import { patchSession } from "./session.ts";

export interface QuotationRow {
  id: number;
  currency_id: number;
  currency_name: string;
  legal_name: string;
  now_price: string;
  change: string;
  volume: string;
  high?: string;
  low?: string;
  logo?: string | null;
}

/** Remembers the pair the user tapped; the chart page reads it. */
export function selectCurrency(row: Pick<QuotationRow, "currency_id" | "currency_name" | "legal_name">) {
  patchSession({
    currentCurrencyID: String(row.currency_id),
    currentCurrency: row.currency_name,
    legal_name: row.legal_name || "USDT",
  });
}
