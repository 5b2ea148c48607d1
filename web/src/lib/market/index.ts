/**
 * Live market data in one place: one store per pair (./store.ts) fed by the pair's one socket
 * (../realtime.ts), read by every screen through the hooks below. The exchange, the chart and any
 * later trading screen show the same book, ticker and deals without each keeping its own copy.
 *
 *   useBook(pair)       6 levels a side, at most one render per animation frame
 *   useTicker(pair)     24 h statistics (last price, change, high, low, volume)
 *   useDeals(pair)      the newest 20 deals, newest first
 *   useCandle(pair, p)  the open bar of period p (the chart draws history itself)
 */
import { useStore } from "@nanostores/react";
import { atom, type ReadableAtom } from "nanostores";
import type { Bar, DayMarket, Deal, KlinePeriodName } from "../../../../schemas/realtime.ts";
import { requestSnapshot, subscribeTopic, type TopicMessage } from "../realtime.ts";
import { loadBook, loadDeals, loadTicker } from "./snapshots.ts";
import { PairMarket, type MarketIo, type MarketPair } from "./store.ts";
import type { Book, MarketMessage } from "./reducers.ts";

export { bestPrices, depthRows, type Book, type DepthRow, type Level } from "./reducers.ts";
export type { MarketPair } from "./store.ts";

const isMarketMessage = (msg: TopicMessage): msg is MarketMessage =>
  msg.type === "market_depth" || msg.type === "market_detail" || msg.type === "kline" || msg.type === "daymarket";

/**
 * The next frame, or (in a hidden tab, where frames stop) a short timer so the state is current
 * the moment the tab shows again.
 */
function nextFrame(commit: () => void) {
  if (typeof requestAnimationFrame === "function" && document.visibilityState !== "hidden") requestAnimationFrame(commit);
  else setTimeout(commit, 100);
}

function browserIo(pair: MarketPair): MarketIo {
  const q = { currency_id: pair.currency_id, legal_id: pair.legal_id };
  return {
    subscribe: (topic, onMessage) =>
      subscribeTopic(pair.id, topic, (msg) => {
        if (isMarketMessage(msg)) onMessage(msg);
      }),
    resubscribe: (topic) => requestSnapshot(pair.id, topic),
    loadBook: (signal) => loadBook(q, signal),
    loadTicker: (signal) => loadTicker(q, signal),
    loadDeals: (signal) => loadDeals(q, signal),
    schedule: nextFrame,
  };
}

const markets = new Map<string, PairMarket>();

/** The store of a pair (created on first use; it holds nothing while nobody listens). */
export function marketOf(pair: MarketPair): PairMarket {
  const key = `${pair.id}:${pair.currency_id}:${pair.legal_id}`;
  let market = markets.get(key);
  if (!market) {
    market = new PairMarket({ id: pair.id, currency_id: pair.currency_id, legal_id: pair.legal_id }, browserIo(pair));
    markets.set(key, market);
  }
  return market;
}

const nothing: ReadableAtom<null> = atom(null);
const notFailed: ReadableAtom<boolean> = atom(false);

/** The pair's book (null while loading), and whether it could not be loaded. */
export function useBook(pair: MarketPair | null): { book: Book | null; failed: boolean } {
  const market = pair ? marketOf(pair) : null;
  const book = useStore(market ? market.$book : nothing);
  const failed = useStore(market ? market.$bookFailed : notFailed);
  return { book, failed };
}

/** The pair's 24 h statistics from real trades (null while loading). */
export function useTicker(pair: MarketPair | null): DayMarket | null {
  return useStore(pair ? marketOf(pair).$ticker : nothing);
}

/** The pair's newest deals, newest first (null while loading). */
export function useDeals(pair: MarketPair | null): Deal[] | null {
  return useStore(pair ? marketOf(pair).$deals : nothing);
}

/** The open bar of one period (null until the first arrives). */
export function useCandle(pair: MarketPair | null, period: KlinePeriodName): Bar | null {
  return useStore(pair ? marketOf(pair).candle(period) : nothing);
}
