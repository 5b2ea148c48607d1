/** All quoted pairs, grouped by quote currency (spec §7 GET /api/currency/quotation_new), and the user's favourites (issue #30). */
import type { QuotationGroup } from "../../../../schemas/content.ts";
import { useQuery } from "@tanstack/react-query";
import { call, client } from "../../lib/api.ts";
import { cachedFor, useCallMutation, useScreenQuery } from "../../lib/query.ts";

export type { QuotationGroup };

export const fetchQuotations = (signal: AbortSignal) =>
  call((o) => client.api.currency.quotation_new.$get({}, o), { notify: false, signal });

/** Spec §9: quotations refresh every 10 s. */
export const QUOTATIONS_REFRESH_MS = 10_000;

export const useQuotations = () =>
  useScreenQuery({ queryKey: ["quotations"], queryFn: ({ signal }) => fetchQuotations(signal), refetchInterval: QUOTATIONS_REFRESH_MS, ...cachedFor(QUOTATIONS_REFRESH_MS) });

const FAVOURITES = ["favourites"] as const;

/** The signed-in user's starred pair ids (nothing is asked for a guest). */
export function useFavourites(loggedIn: boolean): number[] | undefined {
  const q = useQuery({
    queryKey: FAVOURITES,
    queryFn: ({ signal }) => call((o) => client.api.market.favourites.$get({}, o), { notify: false, signal }),
    enabled: loggedIn,
  });
  return loggedIn ? q.data?.pair_ids : undefined;
}

/** Stars or unstars a pair; the favourites are read again. */
export const useSetFavourite = () =>
  useCallMutation((pairId: number, on: boolean) => call((o) => client.api.market.favourites.$post({ json: { pair_id: pairId, on } }, o)), [FAVOURITES]);
