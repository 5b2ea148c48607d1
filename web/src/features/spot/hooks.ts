/**
 * The spot screens' own data: the pair list and the user's balances and open orders, which reload
 * whenever one of the user's own order events arrives (and after a reconnect). Book, day market
 * and deals are the shared market store's (lib/market).
 */
import { useCallback, useEffect, useRef, useState } from "react";
import type { SpotOpenOrder } from "../../../../schemas/spot.ts";
import { ApiFailure } from "../../lib/api.ts";
import { useOrderEvents, useSocketStatus, type SocketStatus } from "../../lib/realtime.ts";
import { useSession } from "../../lib/session.ts";
import { selectCurrency } from "../../lib/market.ts";
import { fetchBalance, fetchOpenOrders, fetchPairs, type PairRow, type SpotBalance } from "./api.ts";

function asFailure(err: unknown): ApiFailure {
  return err instanceof ApiFailure ? err : new ApiFailure("error", String(err));
}

/** The pair the user picked last (session currentCurrencyID), resolved against the open pairs. */
export function useCurrentPair() {
  const session = useSession();
  const currencyId = Number(session.currentCurrencyID) || 1;
  const [pairs, setPairs] = useState<PairRow[] | null>(null);
  const [error, setError] = useState<ApiFailure | null>(null);
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    const controller = new AbortController();
    setError(null);
    fetchPairs(controller.signal)
      .then(setPairs)
      .catch((err: unknown) => {
        if (!controller.signal.aborted) setError(asFailure(err));
      });
    return () => controller.abort();
  }, [attempt]);

  const pair = pairs?.find((p) => p.currency_id === currencyId) ?? null;
  const choose = useCallback((row: PairRow) => selectCurrency(row), []);
  const reload = useCallback(() => setAttempt((a) => a + 1), []);
  // The remembered currency is not an open USDT pair (delisted, or not tradable): fall back to the first.
  useEffect(() => {
    if (pairs && pairs.length > 0 && !pair && pairs[0]) selectCurrency(pairs[0]);
  }, [pairs, pair]);
  return { pairs, pair, currencyId, error, reload, choose };
}

/** Refetch delays after an own order event: the fill reaches the ledger a moment after the event. */
const SETTLE_DELAYS_MS = [500, 1500, 3500];
/** Events closer together than this belong to one burst. */
const BURST_MS = 400;

/**
 * The user's balances and open orders on a pair. Both reload after the user's own order events
 * (fills and cancels push through the socket), after a reconnect, and on request.
 */
export function useAccount(pair: PairRow | null, enabled = true) {
  const [balance, setBalance] = useState<SpotBalance | null>(null);
  const [orders, setOrders] = useState<SpotOpenOrder[] | null>(null);
  const [balanceError, setBalanceError] = useState<ApiFailure | null>(null);
  const [ordersError, setOrdersError] = useState<ApiFailure | null>(null);
  /** Orders known to be finished: a reload that races the ledger must not bring them back. */
  const done = useRef(new Set<string>());
  const timers = useRef<ReturnType<typeof setTimeout>[]>([]);
  const currencyId = pair?.currency_id ?? null;
  /** Request counters: only the newest answer is applied, so a slow stale reply never wins. */
  const balanceSeq = useRef(0);
  const ordersSeq = useRef(0);

  const loadBalance = useCallback(() => {
    if (currencyId === null || !enabled) return;
    const seq = ++balanceSeq.current;
    fetchBalance(currencyId)
      .then((b) => {
        if (seq !== balanceSeq.current) return;
        setBalance(b);
        setBalanceError(null);
      })
      .catch((err: unknown) => {
        if (seq === balanceSeq.current) setBalanceError(asFailure(err));
      });
  }, [currencyId, enabled]);

  const loadOrders = useCallback(() => {
    if (currencyId === null || !enabled) return;
    const seq = ++ordersSeq.current;
    fetchOpenOrders(currencyId)
      .then((r) => {
        if (seq !== ordersSeq.current) return;
        setOrders((r.lists ?? []).filter((o) => !done.current.has(o.id)));
        setOrdersError(null);
      })
      .catch((err: unknown) => {
        if (seq === ordersSeq.current) setOrdersError(asFailure(err));
      });
  }, [currencyId, enabled]);

  const refresh = useCallback(() => {
    loadBalance();
    loadOrders();
  }, [loadBalance, loadOrders]);

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

  useEffect(() => {
    setBalance(null);
    setOrders(null);
    setBalanceError(null);
    setOrdersError(null);
    done.current.clear();
    refresh();
    return () => {
      for (const t of timers.current) clearTimeout(t);
    };
  }, [refresh]);

  useOrderEvents(enabled ? (pair?.id ?? null) : null, (ev) => {
    const id = String(ev.order_id);
    if (ev.status === "filled" || ev.status === "cancelled") {
      done.current.add(id);
      setOrders((cur) => cur?.filter((o) => o.id !== id) ?? cur);
    }
    refreshSettled();
  });

  const markDone = useCallback((id: string) => {
    done.current.add(id);
    setOrders((cur) => cur?.filter((o) => o.id !== id) ?? cur);
  }, []);

  return { balance, orders, balanceError, ordersError, refresh, refreshSettled, markDone };
}

/** The pair's socket state; anything pushed while it was down is fetched again on reconnect. */
export function useLiveStatus(pair: PairRow | null, onReopen: () => void): SocketStatus {
  return useSocketStatus(pair?.id ?? null, onReopen);
}
