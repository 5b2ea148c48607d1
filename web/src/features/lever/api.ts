/** Leveraged-contract calls (spec §7 /api/lever/*): settings and balance, positions, open, close, cancel, stops. */
import type { LeverPosition, LeverPositionDetail } from "../../../../schemas/lever.ts";
import { call, client } from "../../lib/api.ts";
import { sharedKeys, useCallMutation, useScreenQuery } from "../../lib/query.ts";

export type { LeverPosition, LeverPositionDetail };

/** USDT (spec §9 legal currency id 3): the margin currency. */
export const LEGAL_ID = 3;

const keys = {
  deal: (currencyId: number) => ["lever", "deal", currencyId] as const,
  positions: ["lever", "positions"] as const,
};

export const fetchDeal = (currencyId: number, signal?: AbortSignal) =>
  call((o) => client.api.lever.deal.$get({ query: { currency_id: String(currencyId), legal_id: String(LEGAL_ID) } }, o), { notify: false, signal });

/** Status 1 pending, 2 trading, 4 closed (history); all pairs. */
export const fetchPositions = (status: 1 | 2 | 4, signal?: AbortSignal) =>
  call((o) => client.api.lever.my_trade.$post({ query: { status: String(status), legal_id: String(LEGAL_ID), page: "1", limit: "100" } }, o), { notify: false, signal });

/** One of one's positions with its open and close ticks and the price its close rule crossed (its check). */
export const fetchPosition = (id: number, signal?: AbortSignal) => call((o) => client.api.lever.position.$get({ query: { id: String(id) } }, o), { notify: false, signal });

/** One position; asked again every 2 s until it is closed or revoked (its check needs the close); not after a failure. */
export const usePosition = (id: number | null) =>
  useScreenQuery({
    queryKey: ["lever", "position", id ?? 0],
    queryFn: ({ signal }) => fetchPosition(id!, signal),
    enabled: id !== null,
    refetchInterval: (q) => (q.state.error || (q.state.data && q.state.data.status >= 4) ? false : 2000),
  });

/** The pair's settings, index and one's lever balance, refreshed every 2 s (the index moves). */
export const useDeal = (currencyId: number) =>
  useScreenQuery({ queryKey: keys.deal(currencyId), queryFn: ({ signal }) => fetchDeal(currencyId, signal), refetchInterval: 2000 });

/** One list of positions; trading ones carry live P/L at the index, so they refresh every 2 s. */
export const usePositions = (status: 1 | 2 | 4) =>
  useScreenQuery({ queryKey: [...keys.positions, status], queryFn: ({ signal }) => fetchPositions(status, signal), refetchInterval: status === 4 ? 15_000 : 2000 });

export interface SubmitBody {
  currency_id: number;
  type: 1 | 2;
  share: number;
  multiple: number;
  target_price?: string;
  /** a market open: the index the user confirmed */
  index_price?: string;
  stop_profit?: string;
  stop_loss?: string;
}

const changed = [["lever"], sharedKeys.balances] as const;

/** Errors are the caller's to show: a price_moved refusal keeps the confirm dialog open with the new figures. */
export const useSubmit = () => useCallMutation((body: SubmitBody) => call((o) => client.api.lever.submit.$post({ json: { legal_id: LEGAL_ID, ...body } }, o), { notify: false }), changed);
export const useClose = () => useCallMutation((id: number) => call((o) => client.api.lever.close.$post({ json: { id } }, o)), changed);
export const useCloseAll = () => useCallMutation(() => call((o) => client.api.lever.batch_close.$post({ json: { legal_id: LEGAL_ID } }, o)), changed);
export const useCancel = () => useCallMutation((id: number) => call((o) => client.api.lever.cancel.$post({ json: { id } }, o)), changed);
export const useSetStops = () =>
  useCallMutation((id: number, stop_profit: string, stop_loss: string) => call((o) => client.api.lever.setstop.$post({ json: { id, stop_profit: stop_profit.trim() || "0", stop_loss: stop_loss.trim() || "0" } }, o)), changed);
