/** All quoted pairs, grouped by quote currency (spec §7 GET /api/currency/quotation_new). */
import type { QuotationGroup } from "../../../../schemas/content.ts";
import { call, client } from "../../lib/api.ts";
import { cachedFor, useScreenQuery } from "../../lib/query.ts";

export type { QuotationGroup };

export const fetchQuotations = (signal: AbortSignal) =>
  call((o) => client.api.currency.quotation_new.$get({}, o), { notify: false, signal });

/** Spec §9: quotations refresh every 10 s. */
export const QUOTATIONS_REFRESH_MS = 10_000;

export const useQuotations = () =>
  useScreenQuery({ queryKey: ["quotations"], queryFn: ({ signal }) => fetchQuotations(signal), refetchInterval: QUOTATIONS_REFRESH_MS, ...cachedFor(QUOTATIONS_REFRESH_MS) });
