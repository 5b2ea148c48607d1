/** Conditional spot orders (stop-limit, OCO, trailing stop) and cancel-all: calls, query and mutations. */
import type { ConditionalOrderOut } from "../../../../schemas/spot-conditional.ts";
import { call, client } from "../../lib/api.ts";
import { sharedKeys, useCallMutation, useScreenQuery } from "../../lib/query.ts";
import { LEGAL_ID, type Side } from "./api.ts";

export type { ConditionalOrderOut };
export type ConditionalType = ConditionalOrderOut["type"];

export interface ConditionalRequest {
  currency_id: number;
  legal_id: number;
  side: Side;
  type: ConditionalType;
  num: string;
  price: string;
  stop_price?: string;
  limit_price?: string;
  callback_bps?: number;
  activation_price?: string;
  client_oid: string;
}

export const conditionalKey = (currencyId: number) => ["spot", "conditional", currencyId] as const;

export const placeConditional = (body: ConditionalRequest) => call((o) => client.api.transaction.conditional.$post({ json: body }, o));
export const cancelConditional = (id: string) => call((o) => client.api.transaction.conditional.cancel.$post({ json: { id } }, o), { notify: false });
export const cancelAll = (currencyId: number) => call((o) => client.api.transaction.cancel_all.$post({ json: { currency_id: currencyId, legal_id: LEGAL_ID } }, o), { notify: false });

/** The open conditional orders of one pair; polled while the screen shows them (a trigger is a trade away). */
export const useOpenConditional = (currencyId: number, enabled: boolean) =>
  useScreenQuery({
    queryKey: conditionalKey(currencyId),
    queryFn: ({ signal }) =>
      call((o) => client.api.transaction.conditional.$get({ query: { status: "open", currency_id: String(currencyId), legal_id: String(LEGAL_ID) } }, o), { notify: false, signal }),
    enabled,
    refetchInterval: 4000,
  });

const changes = [sharedKeys.balances, ["spot"]] as const;
export const usePlaceConditional = () => useCallMutation(placeConditional, changes);
export const useCancelConditional = () => useCallMutation(cancelConditional, changes);
export const useCancelAll = () => useCallMutation(cancelAll, changes);
