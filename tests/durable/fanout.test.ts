import { describe, expect, it, vi } from "vitest";
import type { CommandResult } from "../../durable/engine/index.ts";
import { CONFLATE_MS, MAX_CONFLATE_MS, conflationWindow, createFanout, type FanoutHost, type PairSocketState } from "../../durable/pair/fanout.ts";

/** A socket double with the hibernation API's attachment calls. */
function fakeSocket(topics: string[] = []) {
  let attachment: unknown = { topics } satisfies PairSocketState;
  const sent: any[] = [];
  return {
    sent,
    serializeAttachment: (v: unknown) => (attachment = structuredClone(v)),
    deserializeAttachment: () => structuredClone(attachment),
    send: (m: string) => sent.push(JSON.parse(m)),
  };
}

/** A host with no pair loaded yet (the protocol's bookkeeping needs none). */
const emptyHost = () => ({ pairInfo: null, book: null, sockets: () => [] }) as unknown as FanoutHost;

describe("pair socket protocol", () => {
  it("has no login: a pair socket stays public", async () => {
    const protocol = createFanout(emptyHost());
    const ws = fakeSocket();
    await protocol.onMessage(ws as unknown as WebSocket, JSON.stringify({ type: "login", token: "t".repeat(43) }));
    expect(ws.sent).toEqual([{ type: "error", message: "bad message" }]);
    expect(ws.deserializeAttachment()).toEqual({ topics: [] });
  });

  it("refuses more than 16 topics on one socket", async () => {
    const protocol = createFanout(emptyHost());
    const ws = fakeSocket();
    for (let i = 0; i < 17; i++) await protocol.onMessage(ws as unknown as WebSocket, JSON.stringify({ type: "sub", topic: `kline_${i}_3_1min` }));
    expect((ws.deserializeAttachment() as PairSocketState).topics).toHaveLength(16);
    expect(ws.sent.at(-1)).toEqual({ type: "error", message: "too many topics" });
  });
});

/** A pair whose best bid the test sets; counters live in a map like the object's meta rows. */
function market() {
  const book = { bid: "100.00" };
  const counters = new Map<string, number>();
  const sockets: ReturnType<typeof fakeSocket>[] = [];
  const host = {
    pairInfo: { pairId: 1, currencyId: 1, legalId: 3 },
    book: {},
    sockets: () => sockets,
    depthLevels: () => ({ bids: [[book.bid, "1.000000"]], asks: [] }),
    deals: () => [],
    dayMarket: () => ({ open: "1", high: "1", low: "1", close: book.bid, volume: "1", change: "0" }),
    currentBars: () => [],
    price: (u: number) => String(u),
    qty: (u: number) => String(u),
    counter: (k: string) => counters.get(k) ?? 0,
    setCounter: (k: string, v: number) => void counters.set(k, v),
  } as unknown as FanoutHost;
  return { book, sockets, host };
}

/** What the engine reports for a command that changed the book (and, optionally, traded). */
const bookChanged = (fill = false) =>
  [
    {
      ok: true,
      seq: 1,
      depth: [{ side: "buy", price: 1, qty: 1 }],
      events: fill ? [{ type: "fill", tradeId: 1, price: 10000, qty: 5, takerSide: "buy", takerId: 1, makerId: 2, takerOwner: 1, makerOwner: 2, takerRemaining: 0, makerRemaining: 0 }] : [],
    },
  ] as unknown as Extract<CommandResult, { ok: true }>[];

async function until<T>(read: () => T | undefined, ms = 1000): Promise<T> {
  for (let i = 0; i < ms / 5; i++) {
    const v = read();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error("state never reached");
}

describe("pair fan-out conflation", () => {
  it("sends the first depth change at once, then at most one update per window with the latest book and the next seq", async () => {
    const m = market();
    const now = 1_000_000;
    const fanout = createFanout(m.host, () => now);
    const ws = fakeSocket(["market_depth_1_3"]);
    m.sockets.push(ws);
    fanout.publish(bookChanged());
    expect(ws.sent).toEqual([expect.objectContaining({ type: "market_depth", snapshot: false, seq: 1, bids: [["100.00", "1.000000"]] })]);
    // Three more changes inside the window: nothing yet, then one message with the last state.
    for (const bid of ["101.00", "102.00", "103.00"]) {
      m.book.bid = bid;
      fanout.publish(bookChanged());
    }
    expect(ws.sent).toHaveLength(1);
    const update = await until(() => ws.sent[1]);
    expect(update).toMatchObject({ type: "market_depth", snapshot: false, seq: 2, bids: [["103.00", "1.000000"]] });
    await new Promise((r) => setTimeout(r, 150));
    expect(ws.sent).toHaveLength(2);
    expect(fanout.depthSeq()).toBe(2);
  });

  it("gives a socket that subscribes while an update is pending that update as its snapshot, and nothing older", async () => {
    const m = market();
    const fanout = createFanout(m.host, () => 5_000);
    const first = fakeSocket(["market_depth_1_3"]);
    m.sockets.push(first);
    fanout.publish(bookChanged());
    m.book.bid = "99.00";
    fanout.publish(bookChanged());
    const late = fakeSocket();
    m.sockets.push(late);
    await fanout.onMessage(late as unknown as WebSocket, JSON.stringify({ type: "sub", topic: "market_depth_1_3" }));
    expect(late.sent).toEqual([]);
    const snap = await until(() => late.sent[0]);
    expect(snap).toMatchObject({ type: "market_depth", snapshot: true, seq: 2, bids: [["99.00", "1.000000"]] });
    expect(first.sent.at(-1)).toMatchObject({ snapshot: false, seq: 2 });
  });

  it("sends every batch of deals while the day market is conflated", async () => {
    const m = market();
    const fanout = createFanout(m.host, () => 9_000);
    const ws = fakeSocket(["market_detail_1_3", "daymarket_1_3"]);
    m.sockets.push(ws);
    for (let i = 0; i < 4; i++) fanout.publish(bookChanged(true));
    expect(ws.sent.filter((x) => x.type === "market_detail")).toHaveLength(4);
    expect(ws.sent.filter((x) => x.type === "daymarket")).toEqual([expect.objectContaining({ seq: 1, snapshot: false })]);
    await until(() => ws.sent.find((x) => x.type === "daymarket" && x.seq === 2));
    expect(ws.sent.filter((x) => x.type === "daymarket")).toHaveLength(2);
  });

  it("widens the window with the audience: 100 ms up to 250 followers, 400 ms for 1,000, never beyond a second", async () => {
    expect([1, 250, 251, 1000, 2500, 100_000].map(conflationWindow)).toEqual([CONFLATE_MS, 100, 101, 400, MAX_CONFLATE_MS, MAX_CONFLATE_MS]);
    const m = market();
    const now = 2_000_000;
    const fanout = createFanout(m.host, () => now);
    const crowd = Array.from({ length: 1000 }, () => fakeSocket(["market_depth_1_3"]));
    m.sockets.push(...crowd);
    const timers = vi.spyOn(globalThis, "setTimeout");
    try {
      fanout.publish(bookChanged());
      m.book.bid = "104.00";
      fanout.publish(bookChanged());
      // The first change went to all at once; the second waits for the crowd's window.
      expect(crowd.every((ws) => ws.sent.length === 1)).toBe(true);
      expect(timers.mock.calls.at(-1)?.[1]).toBe(400);
    } finally {
      timers.mockRestore();
    }
    await until(() => (crowd.every((ws) => ws.sent.length === 2) ? true : undefined), 5000);
    expect(crowd[999]!.sent[1]).toMatchObject({ seq: 2, bids: [["104.00", "1.000000"]] });
  });

  it("sends a topic only to the sockets that follow it, including ones that subscribed after a restart, and nothing to a closed one", async () => {
    const m = market();
    // One socket from before a restart (its topics live only in its attachment) and a crowd that follows nothing.
    const old = fakeSocket(["market_detail_1_3"]);
    const idle = Array.from({ length: 50 }, () => fakeSocket());
    m.sockets.push(old, ...idle);
    const fanout = createFanout(m.host, () => 9_000);
    const fresh = fakeSocket();
    m.sockets.push(fresh);
    await fanout.onMessage(fresh as unknown as WebSocket, JSON.stringify({ type: "sub", topic: "market_detail_1_3" }));
    fanout.publish(bookChanged(true));
    expect(old.sent.filter((x) => x.type === "market_detail")).toHaveLength(1);
    expect(fresh.sent.filter((x) => x.type === "market_detail" && !x.snapshot)).toHaveLength(1);
    expect(idle.every((ws) => ws.sent.length === 0)).toBe(true);
    // The old one closes: the next deals reach only the fresh one.
    fanout.forget(old as unknown as WebSocket);
    fanout.publish(bookChanged(true));
    expect(old.sent.filter((x) => x.type === "market_detail")).toHaveLength(1);
    expect(fresh.sent.filter((x) => x.type === "market_detail" && !x.snapshot)).toHaveLength(2);
  });
});
