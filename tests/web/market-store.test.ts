/**
 * The per-pair market store (web/src/lib/market/): socket messages and HTTP snapshots reduced to
 * book, ticker, deals and candles; a gap in the book's `seq` asks for a fresh snapshot; a burst of
 * depth updates is shown once per frame.
 */
import { describe, expect, it } from "vitest";
import type { DayMarket, Deal } from "../../schemas/realtime.ts";
import { DEALS_KEPT, depthRows, emptyMarket, reduceBatch, reduceMarket, seedBook, type Book, type MarketMessage } from "../../web/src/lib/market/reducers.ts";
import { PairMarket, type MarketIo } from "../../web/src/lib/market/store.ts";

const TOPIC = "market_depth_1_3";

function depth(seq: number, over: Partial<Extract<MarketMessage, { type: "market_depth" }>> = {}): MarketMessage {
  return { type: "market_depth", topic: TOPIC, snapshot: false, seq, currency_id: 1, legal_id: 3, bids: [[`${100 - seq}.00`, "1"]], asks: [[`${101 + seq}.00`, "2"]], ...over };
}

function deal(price: string, time = 1): Deal {
  return { time, direction: "buy", price, amount: "0.1" };
}

const ticker = (close: string): DayMarket => ({ open: "1", high: "2", low: "0.5", close, volume: "10", quote_volume: "15.00", change: "1.00" });

describe("book reducer", () => {
  it("shows a snapshot, then each next update", () => {
    let s = reduceMarket(emptyMarket(), depth(5, { snapshot: true })).state;
    expect(s.book?.seq).toBe(5);
    const r = reduceMarket(s, depth(6));
    s = r.state;
    expect(s.book).toEqual({ seq: 6, bids: [["94.00", "1"]], asks: [["107.00", "2"]] });
    expect(r.effects).toEqual([]);
  });

  it("asks for a fresh snapshot when an update skips a seq, and shows the newer view meanwhile", () => {
    const s = reduceMarket(emptyMarket(), depth(5, { snapshot: true })).state;
    const r = reduceMarket(s, depth(8));
    expect(r.effects).toEqual([{ type: "resubscribe", topic: TOPIC }]);
    expect(r.state.book?.seq).toBe(8);
  });

  it("drops an update at or below the shown seq (stale, or sent twice)", () => {
    const s = reduceMarket(emptyMarket(), depth(5, { snapshot: true })).state;
    for (const seq of [5, 3]) {
      const r = reduceMarket(s, depth(seq));
      expect(r.state).toBe(s);
      expect(r.effects).toEqual([]);
    }
  });

  it("takes a snapshot even when its seq is lower (the pair's object restarted)", () => {
    const s = reduceMarket(emptyMarket(), depth(50, { snapshot: true })).state;
    expect(reduceMarket(s, depth(2, { snapshot: true })).state.book?.seq).toBe(2);
  });

  it("keeps an HTTP snapshot only when it is newer than what the socket already showed", () => {
    const live: Book = { seq: 9, bids: [], asks: [] };
    expect(seedBook(live, { seq: 7, bids: [["1", "1"]], asks: [] })).toBe(live);
    expect(seedBook(live, { seq: 10, bids: [["1", "1"]], asks: [] }).seq).toBe(10);
    expect(seedBook(null, { seq: 1, bids: [], asks: [] }).seq).toBe(1);
  });

  it("conflates a burst: the batch ends on the newest view, and reports each gap once", () => {
    const start = reduceMarket(emptyMarket(), depth(1, { snapshot: true })).state;
    const r = reduceBatch(start, [depth(2), depth(3), depth(2), depth(6), depth(7)]);
    expect(r.state.book?.seq).toBe(7);
    expect(r.effects).toEqual([{ type: "resubscribe", topic: TOPIC }]);
  });
});

describe("deals, ticker and candles", () => {
  it("puts new deals on top and keeps the newest 20", () => {
    let s = reduceMarket(emptyMarket(), { type: "market_detail", topic: "market_detail_1_3", snapshot: true, data: Array.from({ length: 20 }, (_, i) => deal(`${i}`)) }).state;
    s = reduceMarket(s, { type: "market_detail", topic: "market_detail_1_3", snapshot: false, data: [deal("new-1"), deal("new-2")] }).state;
    expect(s.deals).toHaveLength(DEALS_KEPT);
    expect(s.deals?.slice(0, 3).map((d) => d.price)).toEqual(["new-1", "new-2", "0"]);
  });

  it("replaces the ticker and the open bar of the message's period only", () => {
    let s = reduceMarket(emptyMarket(), { type: "daymarket", topic: "daymarket_1_3", snapshot: false, currency_id: 1, legal_id: 3, data: ticker("1.5") }).state;
    const bar = { time: 60_000, open: "1", high: "2", low: "1", close: "1.5", volume: "3" };
    s = reduceMarket(s, { type: "kline", topic: "kline_1_3_1min", snapshot: true, period: "1min", bar }).state;
    expect(s.ticker?.close).toBe("1.5");
    expect(s.candles).toEqual({ "1min": bar });
  });
});

describe("depth bars", () => {
  it("sizes each bar by the cumulative amount from the best price", () => {
    const rows = depthRows([["10", "1"], ["9", "1"], ["8", "2"]], 6);
    expect(rows.map((r) => r.share)).toEqual([0.25, 0.5, 1]);
    expect(rows[0]).toMatchObject({ price: "10", amount: "1" });
    expect(depthRows([["10", "0"]], 6)[0]?.share).toBe(0);
  });
});

/** A fake socket, HTTP and frame clock for one pair's store. */
function fakeIo() {
  const handlers = new Map<string, (msg: MarketMessage) => void>();
  const frames: (() => void)[] = [];
  const resubscribed: string[] = [];
  let bookAnswer: (b: Book) => void = () => undefined;
  const io: MarketIo = {
    subscribe(topic, onMessage) {
      handlers.set(topic, onMessage);
      return () => handlers.delete(topic);
    },
    resubscribe: (topic) => resubscribed.push(topic),
    loadBook: () => new Promise<Book>((resolve) => (bookAnswer = resolve)),
    loadTicker: () => Promise.resolve(ticker("1")),
    loadDeals: () => Promise.resolve([]),
    schedule: (commit) => frames.push(commit),
  };
  return {
    io,
    handlers,
    resubscribed,
    answerBook: (b: Book) => bookAnswer(b),
    send: (topic: string, msg: MarketMessage) => handlers.get(topic)?.(msg),
    frame: () => frames.splice(0).forEach((f) => f()),
    pendingFrames: () => frames.length,
  };
}

describe("PairMarket", () => {
  const pair = { id: 7, currency_id: 1, legal_id: 3 };

  it("subscribes the depth topic only while someone shows the book", () => {
    const fake = fakeIo();
    const market = new PairMarket(pair, fake.io);
    expect(fake.handlers.has(TOPIC)).toBe(false);
    const stop = market.$book.listen(() => undefined);
    expect(fake.handlers.has(TOPIC)).toBe(true);
    stop();
  });

  it("renders a burst of depth updates once, on the next frame, with the newest book", () => {
    const fake = fakeIo();
    const market = new PairMarket(pair, fake.io);
    const seen: (number | undefined)[] = [];
    const stop = market.$book.listen((b) => seen.push(b?.seq));
    fake.send(TOPIC, depth(1, { snapshot: true }));
    for (let seq = 2; seq <= 30; seq++) fake.send(TOPIC, depth(seq));
    expect(seen).toEqual([]);
    expect(fake.pendingFrames()).toBe(1);
    fake.frame();
    expect(seen).toEqual([30]);
    stop();
  });

  it("resubscribes after a seq gap and shows the snapshot that answers it", () => {
    const fake = fakeIo();
    const market = new PairMarket(pair, fake.io);
    const stop = market.$book.listen(() => undefined);
    fake.send(TOPIC, depth(1, { snapshot: true }));
    fake.send(TOPIC, depth(4));
    expect(fake.resubscribed).toEqual([TOPIC]);
    fake.send(TOPIC, depth(4, { snapshot: true, bids: [["50", "5"]] }));
    fake.frame();
    expect(market.$book.get()?.bids).toEqual([["50", "5"]]);
    stop();
  });

  it("ignores an HTTP book that answers after newer socket updates", async () => {
    const fake = fakeIo();
    const market = new PairMarket(pair, fake.io);
    const stop = market.$book.listen(() => undefined);
    fake.send(TOPIC, depth(12, { snapshot: true }));
    fake.answerBook({ seq: 10, bids: [["1", "1"]], asks: [] });
    await Promise.resolve();
    fake.frame();
    expect(market.$book.get()?.seq).toBe(12);
    stop();
  });
});
