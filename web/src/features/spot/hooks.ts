/**
 * The spot screens' own data: the pair list, and the user's balances and open orders as queries
 * that reload whenever one of the user's own order events arrives on the user's channel (and after
 * a reconnect). Book, day market and deals are the shared market store's (lib/market).
 */
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { useSocketStatus, type SocketStatus } from "../../lib/realtime.ts";
import { useUserEvent } from "../../lib/userChannel.ts";
import { useSession } from "../../lib/session.ts";
import { selectCurrency } from "../../lib/market.ts";
import { useQueryClient } from "@tanstack/react-query";
import { useScreenQuery } from "../../lib/query.ts";
import { fetchBalance, fetchOpenOrders, spotKeys, usePairs, type PairRow } from "./api.ts";

/**
 * The pair the user picked last (session currentCurrencyID), resolved against the open pairs. The
 * list refreshes itself while visible (api.ts pairsRefresh), so the drawer's prices stay live.
 */
export function useCurrentPair() {
  const session = useSession();
  const currencyId = Number(session.currentCurrencyID) || 1;
  const q = usePairs();
  const pairs = q.data ?? null;
  const pair = pairs?.find((p) => p.currency_id === currencyId) ?? null;
  const choose = useCallback((row: PairRow) => selectCurrency(row), []);
  // The remembered currency is not an open USDT pair (delisted, or not tradable): fall back to the first.
  useEffect(() => {
    if (pairs && pairs.length > 0 && !pair && pairs[0]) selectCurrency(pairs[0]);
  }, [pairs, pair]);
  return { pairs, pair, currencyId, error: q.error, reload: q.reload, choose };
}

/**
 * Refetch delays after submitting an order or an own order event: an order's fills reach the
 * ledger a moment after the answer (the channel's events themselves come once they are there).
 */
const SETTLE_DELAYS_MS = [500, 1500, 3500];
/** Events closer together than this belong to one burst. */
const BURST_MS = 400;

/**
 * The user's balances and open orders on a pair (queries under `spotKeys`, so placing or
 * cancelling an order elsewhere invalidates them too). Both reload after the user's own order
 * events on this pair (fills and cancels push through the user's channel), after either socket
 * reconnects, and on request; a reload
 * supersedes one still running, so a slow stale reply never wins.
 */
export function useAccount(pair: PairRow | null, enabled = true) {
  const client = useQueryClient();
  const currencyId = pair?.currency_id ?? null;
  const live = enabled && currencyId !== null;
  const balanceQ = useScreenQuery({
    queryKey: spotKeys.balance(currencyId),
    queryFn: ({ signal }) => fetchBalance(currencyId ?? 0, signal),
    enabled: live,
  });
  const ordersQ = useScreenQuery({
    queryKey: spotKeys.openOrders(currencyId),
    queryFn: async ({ signal }) => (await fetchOpenOrders(currencyId ?? 0, signal)).lists ?? [],
    enabled: live,
  });
  /** Orders known to be finished (per pair): a reload that races the ledger must not bring them back. */
  const [done, setDone] = useState<{ currencyId: number | null; ids: ReadonlySet<string> }>({ currencyId, ids: new Set() });
  const doneIds = done.currencyId === currencyId ? done.ids : null;
  const timers = useRef<ReturnType<typeof setTimeout>[]>([]);

  const refresh = useCallback(() => {
    if (!live) return;
    void client.refetchQueries({ queryKey: spotKeys.balance(currencyId), exact: true });
    void client.refetchQueries({ queryKey: spotKeys.openOrders(currencyId), exact: true });
  }, [client, currencyId, live]);

  const lastImmediate = useRef(0);
  /**
   * Reload now and again shortly after, once the engine's outbox has reached the ledger. A market
   * order that walks the book sends a burst of events: immediate reloads are spaced at least
   * BURST_MS apart, and the delayed ones count from the last event.
   */
  const refreshSettled = useCallback(() => {
    const now = Date.now();
    if (now - lastImmediate.current > BURST_MS) {
      lastImmediate.current = now;
      refresh();
    }
    for (const t of timers.current) clearTimeout(t);
    timers.current = SETTLE_DELAYS_MS.map((ms) => setTimeout(refresh, ms));
  }, [refresh]);

  useEffect(
    () => () => {
      for (const t of timers.current) clearTimeout(t);
    },
    [refresh],
  );

  const markDone = useCallback(
    (id: string) =>
      setDone((cur) => {
        const ids = new Set(cur.currencyId === currencyId ? cur.ids : []);
        ids.add(id);
        return { currencyId, ids };
      }),
    [currencyId],
  );

  const pairId = pair?.id ?? null;
  useUserEvent(
    enabled && pairId !== null ? "order" : null,
    (ev) => {
      if (ev.pair_id !== pairId) return;
      if (ev.status === "filled" || ev.status === "cancelled") markDone(String(ev.order_id));
      refreshSettled();
    },
    refresh,
  );

  const orderRows = ordersQ.data;
  const orders = useMemo(() => (orderRows ? orderRows.filter((o) => !doneIds?.has(o.id)) : null), [orderRows, doneIds]);

  return {
    balance: balanceQ.data ?? null,
    orders,
    balanceError: balanceQ.error,
    ordersError: ordersQ.error,
    refresh,
    refreshSettled,
    markDone,
  };
}

/** The pair's socket state; anything pushed while it was down is fetched again on reconnect. */
export function useLiveStatus(pair: PairRow | null, onReopen: () => void): SocketStatus {
  return useSocketStatus(pair?.id ?? null, onReopen);
}
