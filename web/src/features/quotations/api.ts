/** All quoted pairs, grouped by quote currency (spec §7 GET /api/currency/quotation_new). */
import { api } from "../../lib/api.ts";
import { getAppLocale } from "../../i18n/index.ts";
import type { QuotationRow } from "../../lib/market.ts";

export interface QuotationGroup {
  id: number;
  name: string;
  quotation: QuotationRow[];
}

export const fetchQuotations = (signal: AbortSignal) =>
  api.get<QuotationGroup[]>("/api/currency/quotation_new", { query: { lang: getAppLocale() }, notify: false, signal });
