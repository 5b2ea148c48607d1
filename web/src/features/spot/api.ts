/** Spot trading calls (spec §7): balances, book, orders, records, with their queries and mutations. Amounts stay decimal strings. */
import type { Quotation } from "../../../../schemas/content.ts";
import type { DepthSnapshot, OrderState, PlacedOrder, SpotBalance, SpotRecord } from "../../../../schemas/spot.ts";
import { call, client } from "../../lib/api.ts";
import { pagesById, sharedKeys, useCallMutation, usePagedQuery, useScreenQuery } from "../../lib/query.ts";
import { pairsRefresh } from "./refresh.ts";
import { shiftingPagesView } from "./paging.ts";

export type { DepthSnapshot, PlacedOrder, SpotBalance };

/** USDT: the only quote currency of spot pairs (spec §9 legal currency id 3). */
export const LEGAL_ID = 3;

export type Side = "buy" | "sell";
/** 1 market (immediate-or-cancel within the band), 2 limit. */
export type OrderMode = 1 | 2;

export type PairRow = Quotation;

export interface OrderRequest {
  currency_id: number;
  legal_id: number;
  price?: string;
  /** base quantity; or `total` (USDT to spend) for a market buy */
  num?: string;
  total?: string;
  mode: OrderMode;
  client_oid: string;
}

const pairQuery = (currencyId: number) => ({ currency_id: String(currencyId), legal_id: String(LEGAL_ID) });

/** Every open USDT pair, for the pair drawer and to find a pair's socket id. */
export async function fetchPairs(signal?: AbortSignal): Promise<PairRow[]> {
  const groups = await call((o) => client.api.currency.quotation_new.$get({}, o), { notify: false, signal });
  return groups.flatMap((g) => g.quotation).filter((p) => p.legal_id === LEGAL_ID);
}

export const fetchBalance = (currencyId: number, signal?: AbortSignal) =>
  call((o) => client.api.transaction.balance.$get({ query: pairQuery(currencyId) }, o), { notify: false, signal });

export const fetchDepth = (currencyId: number, signal?: AbortSignal) =>
  call((o) => client.api.currency.depth.$get({ query: pairQuery(currencyId) }, o), { notify: false, signal });

export const fetchDayMarket = (currencyId: number, signal?: AbortSignal) =>
  call((o) => client.api.currency.day_market.$get({ query: pairQuery(currencyId) }, o), { notify: false, signal });

export const fetchDeals = (currencyId: number, signal?: AbortSignal) =>
  call((o) => client.api.currency.new_tradehistory.$get({ query: pairQuery(currencyId) }, o), { notify: false, signal });

export const fetchOpenOrders = (currencyId: number, signal?: AbortSignal) =>
  call((o) => client.api.new.transaction.index.$get({ query: { currency_id: String(currencyId) } }, o), { notify: false, signal });

export const PAGE_SIZE = 15;

export const fetchRecords = (page: number, signal?: AbortSignal) =>
  call((o) => client.api.new.transaction.lists.$get({ query: { page: String(page), limit: String(PAGE_SIZE) } }, o), { notify: false, signal });

/** One's orders with their final state, newest first; `currencyId`/`state` null = all. */
export const fetchOrderHistory = (page: number, filter: { currencyId: number | null; state: OrderState | null }, signal?: AbortSignal) =>
  call(
    (o) =>
      client.api.new.transaction.orders.$get(
        {
          query: {
            page: String(page),
            limit: String(PAGE_SIZE),
            ...(filter.currencyId !== null ? { currency_id: String(filter.currencyId) } : {}),
            ...(filter.state !== null ? { status: filter.state } : {}),
          },
        },
        o,
      ),
    { notify: false, signal },
  );

/** walletIn (buy) / walletOut (sell). The API client shows the server's message on failure. */
export const placeOrder = (side: Side, body: OrderRequest) =>
  call((o) => (side === "buy" ? client.api.transaction.walletIn.$post({ json: body }, o) : client.api.transaction.walletOut.$post({ json: body }, o)));

export const cancelOrder = (id: string, side: Side) =>
  call((o) => client.api.transaction_del.$post({ json: { id, type: side === "buy" ? "in" : "out" } }, o), { notify: false });

// ── queries and mutations ────────────────────────────────────────────────────────────────────

export const spotKeys = {
  /** The open pairs with their last price and change: the pair drawer's list. */
  pairs: ["spot", "pairs"] as const,
  /** Under the shared balances root: a transfer or deposit elsewhere makes it stale too. */
  balance: (currencyId: number | null) => [...sharedKeys.balances, "spot", currencyId] as const,
  openOrders: (currencyId: number | null) => ["spot", "openOrders", currencyId] as const,
  records: ["spot", "records"] as const,
  orders: (currencyId: number | null, state: OrderState | null) => ["spot", "orders", currencyId, state] as const,
};

export const usePairs = () => useScreenQuery({ queryKey: spotKeys.pairs, queryFn: ({ signal }) => fetchPairs(signal), ...pairsRefresh });

const recordsView = (pages: readonly { total: number; lists: SpotRecord[] }[]) => shiftingPagesView(pages, PAGE_SIZE);

/** The user's trades, newest first, page by page (rows have no id: overlap is worked out from the totals). */
/** One's orders with their final state, by pair and state (ids are unique: rows never repeat). */
export const useOrderHistory = (currencyId: number | null, state: OrderState | null) =>
  usePagedQuery({ queryKey: spotKeys.orders(currencyId, state), fetchPage: (page, signal) => fetchOrderHistory(page, { currencyId, state }, signal), view: pagesById });

export const useSpotRecords = () => usePagedQuery({ queryKey: spotKeys.records, fetchPage: fetchRecords, view: recordsView });

/** What an order changes: every balance, the open orders and the trade history. */
const ordered = [sharedKeys.balances, ["spot"]] as const;
export const usePlaceOrder = () => useCallMutation(placeOrder, ordered);
export const useCancelOrder = () => useCallMutation(cancelOrder, ordered);
