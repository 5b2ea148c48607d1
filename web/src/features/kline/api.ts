/** Chart page calls (spec §7): pairs (for the socket's pair id), candles, day market, recent deals. */
import type { Bar, KlinePeriodName } from "../../../../schemas/realtime.ts";
import type { Quotation } from "../../../../schemas/content.ts";
import { call, client } from "../../lib/api.ts";

export const LEGAL_ID = 3;

export type ChartPair = Quotation;

export async function fetchChartPairs(signal?: AbortSignal): Promise<ChartPair[]> {
  const groups = await call((o) => client.api.currency.quotation_new.$get({}, o), { notify: false, signal });
  return groups.flatMap((g) => g.quotation).filter((p) => p.legal_id === LEGAL_ID);
}

/** Candles of one period, oldest first. This endpoint answers `{code: 1, data}` rather than the usual envelopes. */
export async function fetchBars(symbol: string, period: KlinePeriodName, from: number, to: number, signal?: AbortSignal): Promise<Bar[]> {
  const res = await call((o) => client.api.currency.new_timeshar.$get({ query: { symbol, period, from: String(from), to: String(to) } }, o), { notify: false, signal });
  return res.data;
}

const pairQuery = (currencyId: number) => ({ currency_id: String(currencyId), legal_id: String(LEGAL_ID) });

export const fetchDayMarket = (currencyId: number, signal?: AbortSignal) =>
  call((o) => client.api.currency.day_market.$get({ query: pairQuery(currencyId) }, o), { notify: false, signal });

export const fetchRecentDeals = (currencyId: number, signal?: AbortSignal) =>
  call((o) => client.api.currency.new_tradehistory.$get({ query: pairQuery(currencyId) }, o), { notify: false, signal });
