/**
 * The HTTP snapshots that show a pair's market before its socket answers (spec §7): book, day
 * market, recent deals. The screens no longer call these themselves; the market store does, once
 * per pair however many screens show it.
 */
import { call, client } from "../api.ts";

type PairQuery = { currency_id: number; legal_id: number };
const q = (p: PairQuery) => ({ currency_id: String(p.currency_id), legal_id: String(p.legal_id) });

export const loadBook = (query: PairQuery, signal?: AbortSignal) =>
  call((o) => client.api.currency.depth.$get({ query: q(query) }, o), { notify: false, signal });

export const loadTicker = (query: PairQuery, signal?: AbortSignal) =>
  call((o) => client.api.currency.day_market.$get({ query: q(query) }, o), { notify: false, signal });

export const loadDeals = (query: PairQuery, signal?: AbortSignal) =>
  call((o) => client.api.currency.new_tradehistory.$get({ query: q(query) }, o), { notify: false, signal });
