/** Calls of the personal centre (spec §7): the profile with identity and security flags, and wallet totals. */
import type { WalletList } from "../../../../schemas/assets.ts";
import { call, client } from "../../lib/api.ts";
import { sharedKeys, useScreenQuery } from "../../lib/query.ts";

export type WalletTotals = WalletList;

export const fetchCenter = (signal?: AbortSignal) => call((o) => client.api.user.center.$get({}, o), { notify: false, signal });
export const fetchTotals = (signal?: AbortSignal) => call((o) => client.api.wallet.list.$post({}, o), { notify: false, signal });
/** Ends the session on the server; an already dead session is not an error here. */
export const endSession = () => call((o) => client.api.user.logout.$post({}, o), { notify: false, special: false });

/** Spec §9 greeting: hours 6-12 morning, 12-18 afternoon, otherwise evening. */
export function greetingPart(hour: number): "morning" | "afternoon" | "evening" {
  if (hour >= 6 && hour < 12) return "morning";
  if (hour >= 12 && hour < 18) return "afternoon";
  return "evening";
}

export const useCenter = () => useScreenQuery({ queryKey: sharedKeys.center, queryFn: ({ signal }) => fetchCenter(signal) });
export const useTotals = () => useScreenQuery({ queryKey: [...sharedKeys.balances, "wallets"], queryFn: ({ signal }) => fetchTotals(signal) });
