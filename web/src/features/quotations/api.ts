/** All quoted pairs, grouped by quote currency (spec §7 GET /api/currency/quotation_new). */
import type { QuotationGroup } from "../../../../schemas/content.ts";
import { call, client } from "../../lib/api.ts";

export type { QuotationGroup };

export const fetchQuotations = (signal: AbortSignal) =>
  call((o) => client.api.currency.quotation_new.$get({}, o), { notify: false, signal });
