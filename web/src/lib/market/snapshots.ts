/**
 * The HTTP snapshots that show a pair's market before its socket answers (spec §7): book, day
 * market, recent deals. The screens no longer call these themselves; the market store does, once
 * per pair however many screens show it.
 */
import type { DayMarket, Deal } from "../../../../schemas/realtime.ts";
import { api } from "../api.ts";
import type { Book } from "./reducers.ts";

type PairQuery = { currency_id: number; legal_id: number };

export const loadBook = (query: PairQuery, signal?: AbortSignal) => api.get<Book>("/api/currency/depth", { query, notify: false, signal });

export const loadTicker = (query: PairQuery, signal?: AbortSignal) => api.get<DayMarket>("/api/currency/day_market", { query, notify: false, signal });

export const loadDeals = (query: PairQuery, signal?: AbortSignal) => api.get<Deal[]>("/api/currency/new_tradehistory", { query, notify: false, signal });
