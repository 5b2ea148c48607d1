/**
 * State of the seconds screens beyond single queries: the selected pair, a pair's live index price
 * (from the shared market store: no socket of our own), a clock for countdowns, the running list
 * with settlement (events and refetches until the final record), and the risk acknowledgement.
 */
import { useCallback, useEffect, useMemo, useState } from "react";
import { useQueryClient } from "@tanstack/react-query";
import { useSession } from "../../lib/session.ts";
import { selectCurrency } from "../../lib/market.ts";
import { bestPrices, useBook, useTicker } from "../../lib/market/index.ts";
import { sharedKeys } from "../../lib/query.ts";
import { secondsKeys, useRunning, usePairs, type PairRow, type SecondsOrder } from "./api.ts";
import { awaitingResult, emptyRunning, indexPrice, onClosed, onDismiss, onRunningList, runningView, type RunningState } from "./logic.ts";

/** The pair picked last (session currentCurrencyID, shared with spot and the chart), among the open pairs. */
export function useCurrentPair() {
  const session = useSession();
  const currencyId = Number(session.currentCurrencyID) || 1;
  const pairs = usePairs();
  const list = pairs.data ?? null;
  const pair = list?.find((p) => p.currency_id === currencyId) ?? null;
  useEffect(() => {
    if (list && list.length > 0 && !pair && list[0]) selectCurrency(list[0]);
  }, [list, pair]);
  const choose = useCallback((row: PairRow) => selectCurrency(row), []);
  return { pairs: list, pair, error: pairs.error, reload: pairs.reload, choose };
}

/** A pair's index price now, from the live book and last trade of the market store; null without a two-sided book. */
export function useIndexPrice(pair: PairRow | null): { index: string | null; last: string | null; change: string | null; loading: boolean } {
  const { book } = useBook(pair);
  const day = useTicker(pair);
  const { bestBid, bestAsk } = useMemo(() => bestPrices(book), [book]);
  const last = day ? day.close : pair && !/^0*(\.0*)?$/.test(pair.now_price) ? pair.now_price : null;
  const change = last === null ? null : day ? day.change : (pair?.change ?? null);
  return { index: indexPrice(last, bestBid, bestAsk), last, change, loading: book === null };
}

/** The local clock, re-read every `everyMs` (spec §9: clock refresh 200 ms) while `on`. */
export function useNow(everyMs = 200, on = true): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!on) return;
    const t = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(t);
  }, [everyMs, on]);
  return now;
}

/**
 * The running contracts as the screen shows them. The list is fetched every 15 s, and every
 * second while a contract waits for its result (its countdown ended, or the server says
 * settling) until the final record is there; a `closed_microorder` event (`onClosedEvent`)
 * replaces the running order at once. A finished contract stays with its result (logic.ts
 * SETTLED_KEEP_MS) until its owner dismisses it.
 */
export function useRunningOrders() {
  const client = useQueryClient();
  const [waiting, setWaiting] = useState(false);
  const running = useRunning(waiting);
  const rows = running.data?.rows;
  const [state, setState] = useState<RunningState>(emptyRunning);
  const [offset, setOffset] = useState(0);
  const measured = running.data?.offset ?? null;

  useEffect(() => {
    if (rows) setState((s) => onRunningList(s, rows, Date.now()));
  }, [rows]);
  useEffect(() => {
    if (measured !== null) setOffset(measured);
  }, [measured]);

  const now = useNow(200);
  const serverNow = now + offset;
  const view = useMemo(() => runningView(state, rows ?? [], now), [state, rows, now]);
  const awaiting = awaitingResult(view, serverNow);
  useEffect(() => {
    setWaiting(awaiting);
    if (awaiting) void client.refetchQueries({ queryKey: secondsKeys.running, exact: true });
  }, [awaiting, client]);

  /** The final record (event or otherwise): shown at once; balances and history are stale now. */
  const onClosedEvent = useCallback(
    (order: SecondsOrder) => {
      setState((s) => onClosed(s, order, Date.now()));
      void client.invalidateQueries({ queryKey: sharedKeys.balances });
      void client.invalidateQueries({ queryKey: secondsKeys.history });
    },
    [client],
  );

  /** A contract just bought: shown before the list is fetched again. */
  const add = useCallback(
    (order: SecondsOrder) => {
      client.setQueryData<{ rows: SecondsOrder[]; offset: number | null }>(secondsKeys.running, (cur) => ({
        rows: [order, ...(cur?.rows ?? []).filter((r) => r.id !== order.id)],
        offset: cur?.offset ?? null,
      }));
      if (order.status === 1 && order.remain_milli_seconds > 0) setOffset(order.end_at - order.remain_milli_seconds - Date.now());
    },
    [client],
  );

  // A contract that finished since the last answer: the micro balance changed.
  const closedCount = state.closed.size;
  useEffect(() => {
    if (closedCount > 0) void client.invalidateQueries({ queryKey: sharedKeys.balances });
  }, [closedCount, client]);

  /** The owner dismisses a finished contract from the list. */
  const dismiss = useCallback((id: number) => setState((s) => onDismiss(s, id)), []);

  /** The latest known record of a contract (the modal follows it through settlement). */
  const find = useCallback((id: number) => state.closed.get(id)?.order ?? rows?.find((r) => r.id === id) ?? null, [state, rows]);

  return { view, serverNow, error: running.error, loading: running.loading, reload: running.reload, add, onClosedEvent, find, dismiss };
}

const riskKey = (userId: string) => `seconds_risk_accepted:${userId || "anonymous"}`;

/**
 * Whether this user accepted the risk disclosure on this device. Kept per user in localStorage:
 * another user of the same browser sees it again; clearing site data shows it again.
 */
export function useRiskAccepted(): [boolean, () => void] {
  const { user_id } = useSession();
  const [accepted, setAccepted] = useState(() => {
    try {
      return localStorage.getItem(riskKey(user_id)) === "1";
    } catch {
      return false;
    }
  });
  useEffect(() => {
    try {
      setAccepted(localStorage.getItem(riskKey(user_id)) === "1");
    } catch {
      setAccepted(false);
    }
  }, [user_id]);
  const accept = useCallback(() => {
    try {
      localStorage.setItem(riskKey(user_id), "1");
    } catch {
      // private mode: accepted for this visit only
    }
    setAccepted(true);
  }, [user_id]);
  return [accepted, accept];
}
