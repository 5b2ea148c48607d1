/**
 * One market store per pair (nanostores): atoms for the book, the ticker, the deals and the open
 * candle of each period, fed by the pair's one socket. Each atom subscribes its topic (and loads
 * its HTTP snapshot) when the first component listens and lets go when the last one leaves, so a
 * screen pays only for what it shows, and two screens showing the same thing share it.
 *
 * Book, ticker and deals are committed at most once per animation frame: messages are reduced
 * as they arrive and the newest state is set when the frame comes (a burst of depth updates costs
 * one render). Candles are committed at once, because the chart draws every bar it is given.
 *
 * The socket, the HTTP calls and the frame scheduler are passed in, so the batching is tested in
 * Node with fakes; `index.ts` wires the real ones.
 */
import { atom, onMount, type ReadableAtom, type WritableAtom } from "nanostores";
import type { Bar, DayMarket, Deal, KlinePeriodName } from "../../../../schemas/realtime.ts";
import {
  emptyMarket,
  reduceMarket,
  seedBook,
  seedDeals,
  seedTicker,
  type Book,
  type MarketMessage,
  type MarketState,
} from "./reducers.ts";

/** What a pair's store needs from the outside. */
export interface MarketIo {
  /** Listens to a topic of the pair's socket; returns the unsubscribe. */
  subscribe(topic: string, onMessage: (msg: MarketMessage) => void): () => void;
  /** Asks the server for a fresh snapshot of a topic (after a gap in `seq`). */
  resubscribe(topic: string): void;
  loadBook(signal: AbortSignal): Promise<Book>;
  loadTicker(signal: AbortSignal): Promise<DayMarket>;
  loadDeals(signal: AbortSignal): Promise<Deal[]>;
  /** Runs `commit` before the next paint (requestAnimationFrame in the browser). */
  schedule(commit: () => void): void;
}

/** The pair a store belongs to: `id` names its socket, currency and legal ids its topics. */
export interface MarketPair {
  id: number;
  currency_id: number;
  legal_id: number;
}

export const topicsOf = (c: number, l: number) => ({
  depth: `market_depth_${c}_${l}`,
  deals: `market_detail_${c}_${l}`,
  day: `daymarket_${c}_${l}`,
  kline: (period: string) => `kline_${c}_${l}_${period}`,
});

type Slice = "book" | "ticker" | "deals";

export class PairMarket {
  /** The reduced state, ahead of the atoms until the next frame. */
  private state: MarketState = emptyMarket();
  private scheduled = false;
  readonly $book: WritableAtom<Book | null> = atom(null);
  readonly $ticker: WritableAtom<DayMarket | null> = atom(null);
  readonly $deals: WritableAtom<Deal[] | null> = atom(null);
  /** True once the HTTP snapshot of the book failed and nothing came from the socket either. */
  readonly $bookFailed: WritableAtom<boolean> = atom(false);
  private readonly candles = new Map<KlinePeriodName, WritableAtom<Bar | null>>();
  private readonly topics: ReturnType<typeof topicsOf>;

  constructor(
    readonly pair: MarketPair,
    private readonly io: MarketIo,
  ) {
    this.topics = topicsOf(pair.currency_id, pair.legal_id);
    this.follow(this.$book, "book", this.topics.depth, (signal) =>
      io.loadBook(signal).then(
        (b) => this.seed("book", seedBook(this.state.book, b)),
        () => {
          if (!signal.aborted && this.state.book === null) this.$bookFailed.set(true);
        },
      ),
    );
    this.follow(this.$ticker, "ticker", this.topics.day, (signal) =>
      io.loadTicker(signal).then((t) => this.seed("ticker", seedTicker(this.state.ticker, t)), () => undefined),
    );
    this.follow(this.$deals, "deals", this.topics.deals, (signal) =>
      io.loadDeals(signal).then(
        (d) => this.seed("deals", seedDeals(this.state.deals, d)),
        () => !signal.aborted && this.seed("deals", seedDeals(this.state.deals, [])),
      ),
    );
  }

  /** The open bar of a period; listening subscribes the period's kline topic. */
  candle(period: KlinePeriodName): ReadableAtom<Bar | null> {
    let $c = this.candles.get(period);
    if (!$c) {
      const store = atom<Bar | null>(null);
      onMount(store, () => {
        const off = this.io.subscribe(this.topics.kline(period), (msg) => {
          this.state = reduceMarket(this.state, msg).state;
          store.set(this.state.candles[period] ?? null);
        });
        return () => {
          off();
          store.set(null);
          const { [period]: _dropped, ...rest } = this.state.candles;
          this.state = { ...this.state, candles: rest };
        };
      });
      this.candles.set(period, store);
      $c = store;
    }
    return $c;
  }

  /** Subscribes a slice's topic and loads its snapshot while anyone listens to its atom. */
  private follow(store: WritableAtom<unknown>, slice: Slice, topic: string, load: (signal: AbortSignal) => Promise<unknown>) {
    onMount(store, () => {
      const controller = new AbortController();
      const off = this.io.subscribe(topic, (msg) => this.receive(msg));
      void load(controller.signal);
      return () => {
        controller.abort();
        off();
        // Nobody shows it any more: the next screen starts from a fresh snapshot, not old data.
        this.state = { ...this.state, [slice]: null };
        store.set(null);
        if (slice === "book") this.$bookFailed.set(false);
      };
    });
  }

  /** A socket message: reduced now, shown on the next frame. */
  receive(msg: MarketMessage) {
    const { state, effects } = reduceMarket(this.state, msg);
    this.state = state;
    for (const e of effects) this.io.resubscribe(e.topic);
    if (msg.type === "market_depth") this.$bookFailed.set(false);
    this.requestCommit();
  }

  private seed<K extends Slice>(slice: K, value: MarketState[K]) {
    this.state = { ...this.state, [slice]: value };
    this.requestCommit();
  }

  private requestCommit() {
    if (this.scheduled) return;
    this.scheduled = true;
    this.io.schedule(() => this.commit());
  }

  /** Shows the newest state: each atom changes (and its screens render) only if its slice did. */
  commit() {
    this.scheduled = false;
    const { book, ticker, deals } = this.state;
    if (this.$book.get() !== book) this.$book.set(book);
    if (this.$ticker.get() !== ticker) this.$ticker.set(ticker);
    if (this.$deals.get() !== deals) this.$deals.set(deals);
  }
}
