/** Identity verification and the receiving bank card (spec §7 /api/user/center, real_name, bank_name, cash_save). */
import type { BankCardView, UserCenter } from "../../../../schemas/kyc.ts";
import { call, client } from "../../lib/api.ts";
import { sharedKeys, useCallMutation, useScreenQuery } from "../../lib/query.ts";

export type Center = UserCenter;

export const fetchCenter = (signal?: AbortSignal) => call((o) => client.api.user.center.$get({}, o), { notify: false, signal });

export interface IdentitySubmission {
  level: 1 | 2 | 3;
  name?: string;
  type?: 1 | 2 | 3;
  card_id?: string;
  front_pic?: string;
  reverse_pic?: string;
  hand_pic?: string;
  asset_pic?: string;
}
export const submitIdentity = (body: IdentitySubmission) => call((o) => client.api.user.real_name.$post({ json: body }, o));

export const lookupBank = (card: string, signal?: AbortSignal) =>
  call((o) => client.api.user.bank_name.$get({ query: { card } }, o), { notify: false, signal });

export const saveBankCard = (body: BankCardView) => call((o) => client.api.user.cash_save.$post({ json: body }, o));

export const useCenter = () => useScreenQuery({ queryKey: sharedKeys.center, queryFn: ({ signal }) => fetchCenter(signal) });

/** Saving the receiving card changes the user centre (bank fields). */
export const useSaveBankCard = () => useCallMutation(saveBankCard, [sharedKeys.center]);
/** A submission moves the review status, which the user centre shows. */
export const useSubmitIdentity = () => useCallMutation(submitIdentity, [sharedKeys.center]);
