/** Spot trading calls (spec §7): balances, book, orders, records. Amounts stay decimal strings. */
import type { SpotOpenOrder, SpotRecord } from "../../../../schemas/spot.ts";
import type { DayMarket, Deal } from "../../../../schemas/realtime.ts";
import { api } from "../../lib/api.ts";
import type { QuotationRow } from "../../lib/market.ts";

/** USDT: the only quote currency of spot pairs (spec §9 legal currency id 3). */
export const LEGAL_ID = 3;

export type Side = "buy" | "sell";
/** 1 market (immediate-or-cancel within the band), 2 limit. */
export type OrderMode = 1 | 2;

/** GET /api/transaction/balance: the user's change-account balances for one pair, with its precision. */
export interface SpotBalance {
  user_currency: string;
  user_legal: string;
  lock_currency: string;
  lock_legal: string;
  cny_price: string | null;
  price_decimals: number;
  qty_decimals: number;
  min_notional: string;
}

export interface DepthSnapshot {
  seq: number;
  bids: [string, string][];
  asks: [string, string][];
}

export interface PairRow extends QuotationRow {
  legal_id: number;
}

interface QuotationGroup {
  id: number;
  name: string;
  quotation: PairRow[];
}

export interface PlacedOrder {
  order_id: string;
  status: "open" | "filled" | "cancelled" | "rejected";
  filled: string;
  remaining: string;
}

export interface OrderRequest {
  currency_id: number;
  legal_id: number;
  price?: string;
  num: string;
  mode: OrderMode;
  client_oid: string;
}

const pairQuery = (currencyId: number) => ({ currency_id: currencyId, legal_id: LEGAL_ID });

/** Every open USDT pair, for the pair drawer and to find a pair's socket id. */
export async function fetchPairs(signal?: AbortSignal): Promise<PairRow[]> {
  const groups = await api.get<QuotationGroup[]>("/api/currency/quotation_new", { notify: false, signal });
  return (Array.isArray(groups) ? groups : []).flatMap((g) => g.quotation ?? []).filter((p) => p.legal_id === LEGAL_ID);
}

export const fetchBalance = (currencyId: number, signal?: AbortSignal) =>
  api.get<SpotBalance>("/api/transaction/balance", { query: pairQuery(currencyId), notify: false, signal });

export const fetchDepth = (currencyId: number, signal?: AbortSignal) =>
  api.get<DepthSnapshot>("/api/currency/depth", { query: pairQuery(currencyId), notify: false, signal });

export const fetchDayMarket = (currencyId: number, signal?: AbortSignal) =>
  api.get<DayMarket>("/api/currency/day_market", { query: pairQuery(currencyId), notify: false, signal });

export const fetchDeals = (currencyId: number, signal?: AbortSignal) =>
  api.get<Deal[]>("/api/currency/new_tradehistory", { query: pairQuery(currencyId), notify: false, signal });

export const fetchOpenOrders = (currencyId: number, signal?: AbortSignal) =>
  api.get<{ total: number; lists: SpotOpenOrder[] }>("/api/new/transaction/index", { query: { currency_id: currencyId }, notify: false, signal });

export const PAGE_SIZE = 15;

export const fetchRecords = (page: number, signal?: AbortSignal) =>
  api.get<{ total: number; lists: SpotRecord[] }>("/api/new/transaction/lists", { query: { page, limit: PAGE_SIZE }, notify: false, signal });

/** walletIn (buy) / walletOut (sell). The API client shows the server's message on failure. */
export const placeOrder = (side: Side, body: OrderRequest) =>
  api.post<PlacedOrder>(side === "buy" ? "/api/transaction/walletIn" : "/api/transaction/walletOut", body);

export const cancelOrder = (id: string, side: Side) =>
  api.post<string>("/api/transaction_del", { id, type: side === "buy" ? "in" : "out" }, { notify: false });
