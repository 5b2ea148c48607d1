/**
 * The pair's reference price (DESIGN §7): index = median(last trade, best bid, best ask), in price
 * ticks. A book that is not two-sided has no index, and no seconds contract is accepted on it
 * ("no market price"). Because the index is a median with both sides of the book, a single small
 * trade printed far from the book cannot move it past the best bid or ask.
 *
 * A deployment may plug in an external feed instead: anything that implements `IndexSource`
 * (the pair object asks it for the current index after every spot commit and on its heartbeat).
 */

/** What the book offers as inputs, in price ticks (null = none). */
export interface BookTop {
  last: number | null;
  bestBid: number | null;
  bestAsk: number | null;
}

/** A source of the pair's index price; `read` answers the current index in price ticks, or null for none. */
export interface IndexSource {
  readonly name: string;
  read(top: BookTop): number | null;
}

/** median(last, bid, ask) of a two-sided book; with no trade yet, the median of (bid, ask, mid) = mid (rounded down). */
export function bookIndex(top: BookTop): number | null {
  const { bestBid: bid, bestAsk: ask } = top;
  if (bid === null || ask === null) return null;
  const last = top.last ?? Math.floor((bid + ask) / 2);
  const [, median] = [last, bid, ask].sort((a, b) => a - b);
  return median!;
}

/** The default source: the pair's own book. */
export const bookIndexSource: IndexSource = { name: "book", read: bookIndex };

/** Whether a new tick is to be recorded: the value changed, or the newest tick is at least `everyMs` old. */
export function tickDue(last: { price: number; at: number } | null, index: number | null, now: number, everyMs = 1000): boolean {
  if (index === null) return false;
  return last === null || last.price !== index || now - last.at >= everyMs;
}

/**
 * Every limit order's price must lie within this many basis points of the pair's index when it
 * arrives (like Binance's PERCENT_PRICE): two accounts of one person can no longer print a trade
 * at any price they like. Market orders have their own band around the best opposite price.
 */
export const PRICE_BAND_BPS = 1000;

/** The prices (in ticks) a limit order may have around `index`: [low, high], both inclusive. */
export function priceBand(index: number, bps = PRICE_BAND_BPS): { low: number; high: number } {
  return { low: Math.max(1, Math.ceil((index * (10_000 - bps)) / 10_000)), high: Math.floor((index * (10_000 + bps)) / 10_000) };
}
