/**
 * Pure reducers of a pair's live market data: raw socket messages (and the HTTP snapshots that
 * seed a screen before the socket answers) → book, ticker, deals and the open candle of each
 * period. No I/O and no timers here, so every rule is tested in plain Node (tests/web/).
 *
 * The book follows DESIGN §5: a snapshot replaces it; an update carries the next `seq`. An update
 * at or below the shown `seq` is stale and dropped; one that skips numbers means updates were
 * missed, so it is shown (it is a whole 6-level view, never a diff) and the reducer asks for a
 * fresh snapshot (`resubscribe`).
 */
import type { Bar, DayMarket, Deal, KlinePeriodName, ServerMessage } from "../../../../schemas/realtime.ts";

/** Price and amount of one level, decimal strings as on the wire. */
export type Level = [string, string];

export interface Book {
  seq: number;
  bids: Level[];
  asks: Level[];
}

export interface MarketState {
  book: Book | null;
  /** 24 h open/high/low/last/volume/change from real trades. */
  ticker: DayMarket | null;
  /** Newest first, at most DEALS_KEPT. */
  deals: Deal[] | null;
  /** The open bar of each period that has been received. */
  candles: Partial<Record<KlinePeriodName, Bar | null>>;
}

/** A topic message of a pair's socket (private and control messages never reach the store). */
export type MarketMessage = Extract<ServerMessage, { type: "market_depth" | "market_detail" | "kline" | "daymarket" }>;

/** What the store has to do after a message, besides showing the new state. */
export type MarketEffect = { type: "resubscribe"; topic: string };

export const DEALS_KEPT = 20;

export const emptyMarket = (): MarketState => ({ book: null, ticker: null, deals: null, candles: {} });

/** Applies one depth message; `gap` is true when updates were missed (ask for a snapshot). */
export function reduceDepth(book: Book | null, msg: Extract<MarketMessage, { type: "market_depth" }>): { book: Book | null; gap: boolean } {
  const next: Book = { seq: msg.seq, bids: msg.bids, asks: msg.asks };
  if (msg.snapshot || book === null) return { book: next, gap: false };
  if (msg.seq <= book.seq) return { book, gap: false };
  return { book: next, gap: msg.seq > book.seq + 1 };
}

/** Applies one deals message: a snapshot replaces the list, an update puts its deals on top. */
export function reduceDeals(deals: Deal[] | null, msg: Extract<MarketMessage, { type: "market_detail" }>): Deal[] {
  return (msg.snapshot ? msg.data : [...msg.data, ...(deals ?? [])]).slice(0, DEALS_KEPT);
}

/** Applies one socket message to a pair's state. Returns the same object when nothing changed. */
export function reduceMarket(state: MarketState, msg: MarketMessage): { state: MarketState; effects: MarketEffect[] } {
  switch (msg.type) {
    case "market_depth": {
      const { book, gap } = reduceDepth(state.book, msg);
      const effects: MarketEffect[] = gap ? [{ type: "resubscribe", topic: msg.topic }] : [];
      return { state: book === state.book ? state : { ...state, book }, effects };
    }
    case "market_detail":
      return { state: { ...state, deals: reduceDeals(state.deals, msg) }, effects: [] };
    case "daymarket":
      return { state: { ...state, ticker: msg.data }, effects: [] };
    case "kline":
      return { state: { ...state, candles: { ...state.candles, [msg.period]: msg.bar } }, effects: [] };
  }
}

/** Applies a batch of messages in order (what arrives between two animation frames). */
export function reduceBatch(state: MarketState, msgs: readonly MarketMessage[]): { state: MarketState; effects: MarketEffect[] } {
  const effects: MarketEffect[] = [];
  let s = state;
  for (const msg of msgs) {
    const r = reduceMarket(s, msg);
    s = r.state;
    effects.push(...r.effects);
  }
  return { state: s, effects };
}

/**
 * An HTTP book snapshot, which may answer after the socket already delivered newer state:
 * it is shown only when it is newer than what is shown.
 */
export function seedBook(book: Book | null, snapshot: Book): Book {
  return book && book.seq >= snapshot.seq ? book : snapshot;
}

/** HTTP ticker and deals only fill a gap: anything from the socket is at least as new. */
export function seedTicker(ticker: DayMarket | null, snapshot: DayMarket): DayMarket {
  return ticker ?? snapshot;
}

export function seedDeals(deals: Deal[] | null, snapshot: Deal[]): Deal[] {
  return deals ?? snapshot.slice(0, DEALS_KEPT);
}

/** Best bid and best ask (null when that side is empty). */
export function bestPrices(book: Book | null): { bestBid: string | null; bestAsk: string | null } {
  return { bestBid: book?.bids[0]?.[0] ?? null, bestAsk: book?.asks[0]?.[0] ?? null };
}

export interface DepthRow {
  price: string;
  amount: string;
  /** Cumulative amount from the best price as a share of the side's total, 0..1 (drawing only). */
  share: number;
}

/**
 * The rows of one side of the book with depth-bar shares. Amounts become numbers only to size a
 * bar; every figure shown stays the wire's decimal string.
 */
export function depthRows(levels: readonly Level[], max: number): DepthRow[] {
  const top = levels.slice(0, max);
  let cum = 0;
  const cums = top.map(([, a]) => (cum += Number(a)));
  const total = cums[cums.length - 1] ?? 0;
  return top.map(([price, amount], i) => ({ price, amount, share: total > 0 ? (cums[i] ?? 0) / total : 0 }));
}
