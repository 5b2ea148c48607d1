/**
 * Savings in the console (issue #19 §1, §5; /api/admin/earn/*): every product with its budget,
 * reserved, paid, released and remaining amounts and its open positions; publishing a product
 * (its budget frozen from the treasury) and closing one. Both actions carry a reason and are
 * audited by the server. Kept apart from api.ts like invitations.
 */
import type { EarnProductCreate } from "../../../../schemas/earn.ts";
import { call, client } from "../../lib/api.ts";
import { useCallMutation, useScreenQuery } from "../../lib/query.ts";

const earn = client.api.admin.earn;
/** Under the console's root ("operator", api.ts). */
const KEY = ["operator", "earn"] as const;

export const fetchEarnProducts = (signal?: AbortSignal) => call((o) => earn.products.$get({}, o), { notify: false, signal });
export const createEarnProduct = (body: EarnProductCreate) => call((o) => earn.products.$post({ json: body }, o));
export const closeEarnProduct = (product_id: number, reason: string) => call((o) => earn.close.$post({ json: { product_id, reason } }, o));
/** The coins a product may pay in (the wallet's shown currencies). */
export const fetchEarnCurrencies = (signal?: AbortSignal) => call((o) => client.api.user.user_wallet.$get({}, o), { notify: false, signal });

export const useEarnProducts = () => useScreenQuery({ queryKey: [...KEY, "products"], queryFn: ({ signal }) => fetchEarnProducts(signal) });
export const useEarnCurrencies = () => useScreenQuery({ queryKey: [...KEY, "currencies"], queryFn: ({ signal }) => fetchEarnCurrencies(signal) });
export const useCreateEarnProduct = () => useCallMutation(createEarnProduct, [KEY]);
export const useCloseEarnProduct = () => useCallMutation(closeEarnProduct, [KEY]);
