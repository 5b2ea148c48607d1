/** Chart page calls (spec §7): pairs (for the socket's pair id), candles, day market, recent deals. */
import type { Bar, DayMarket, Deal, KlinePeriodName } from "../../../../schemas/realtime.ts";
import { api } from "../../lib/api.ts";
import { getAppLocale } from "../../i18n/index.ts";
import type { QuotationRow } from "../../lib/market.ts";

export const LEGAL_ID = 3;

export interface ChartPair extends QuotationRow {
  legal_id: number;
}

export async function fetchChartPairs(signal?: AbortSignal): Promise<ChartPair[]> {
  const groups = await api.get<{ id: number; quotation: ChartPair[] }[]>("/api/currency/quotation_new", { notify: false, signal });
  return (Array.isArray(groups) ? groups : []).flatMap((g) => g.quotation ?? []).filter((p) => p.legal_id === LEGAL_ID);
}

/**
 * Candles of one period, oldest first. This endpoint answers `{code: 1, data}` rather than the
 * usual envelopes, so it is read with fetch; failures reject like the API client's.
 */
export async function fetchBars(symbol: string, period: KlinePeriodName, from: number, to: number, signal?: AbortSignal): Promise<Bar[]> {
  const url = `/api/currency/new_timeshar?${new URLSearchParams({ symbol, period, from: String(from), to: String(to) })}`;
  // The same 5 s limit as every other call (spec §7).
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), 5000);
  const onAbort = () => controller.abort();
  signal?.addEventListener("abort", onAbort);
  try {
    const res = await fetch(url, { signal: controller.signal, cache: "no-store", headers: { accept: "application/json", lang: getAppLocale() } });
    const json = (await res.json()) as { code?: number; data?: Bar[]; message?: string };
    if (json.code !== 1 || !Array.isArray(json.data)) throw new Error(json.message ?? "bars");
    return json.data;
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort);
  }
}

const pairQuery = (currencyId: number) => ({ currency_id: currencyId, legal_id: LEGAL_ID });

export const fetchDayMarket = (currencyId: number, signal?: AbortSignal) =>
  api.get<DayMarket>("/api/currency/day_market", { query: pairQuery(currencyId), notify: false, signal });

export const fetchRecentDeals = (currencyId: number, signal?: AbortSignal) =>
  api.get<Deal[]>("/api/currency/new_tradehistory", { query: pairQuery(currencyId), notify: false, signal });
