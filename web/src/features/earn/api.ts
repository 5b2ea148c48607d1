/**
 * Savings' server state (issue #19 §1): the open products (GET /api/earn/products, with one's open
 * principal per product), one's positions (GET /api/earn/positions), one's spot balances (the
 * subscription's source), and the two actions that move money, subscribe and redeem, which
 * invalidate balances, products and positions.
 */
import type { EarnPosition, EarnProduct } from "../../../../schemas/earn.ts";
import { call, client } from "../../lib/api.ts";
import { sharedKeys, useCallMutation, useScreenQuery } from "../../lib/query.ts";
import { useLoggedIn } from "../../lib/session.ts";

export type { EarnPosition, EarnProduct };

const EARN = "earn";
const PRODUCTS = [EARN, "products"] as const;
const POSITIONS = [EARN, "positions"] as const;
/** The budget's remainder moves as others subscribe: read it again every 30 s while the screen is open. */
const PRODUCTS_REFRESH_MS = 30_000;

export const fetchProducts = (signal?: AbortSignal) => call((o) => client.api.earn.products.$get({}, o), { notify: false, signal });
export const fetchPositions = (signal?: AbortSignal) => call((o) => client.api.earn.positions.$get({}, o), { notify: false, signal });
/** One's spot balances (the subscription is paid from the spot account). */
export const fetchSpot = (signal?: AbortSignal) => call((o) => client.api.user.user_wallet.$get({}, o), { notify: false, signal });

export const subscribe = (product_id: number, amount: string) => call((o) => client.api.earn.subscribe.$post({ json: { product_id, amount } }, o));
export const redeem = (position_id: number) => call((o) => client.api.earn.redeem.$post({ json: { position_id } }, o));

export const useProducts = () => useScreenQuery({ queryKey: PRODUCTS, queryFn: ({ signal }) => fetchProducts(signal), refetchInterval: PRODUCTS_REFRESH_MS });
export const usePositions = () => useScreenQuery({ queryKey: POSITIONS, queryFn: ({ signal }) => fetchPositions(signal) });
/** One's spot balances; a guest (the product page is open to guests) has none to ask for. */
export const useSpot = () => {
  const loggedIn = useLoggedIn();
  return useScreenQuery({ queryKey: [...sharedKeys.balances, "spot"], queryFn: ({ signal }) => fetchSpot(signal), enabled: loggedIn });
};

export const useSubscribe = () => useCallMutation(subscribe, [sharedKeys.balances, [EARN]]);
export const useRedeem = () => useCallMutation(redeem, [sharedKeys.balances, [EARN]]);
