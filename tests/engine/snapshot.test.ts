/**
 * Rebuilding state after a Durable Object eviction: snapshot/restore and journal replay must
 * reproduce the book exactly (same state hash) and behave the same afterwards; a snapshot that
 * does not describe a valid book is refused loudly.
 */
import { describe, expect, it } from "vitest";
import { CorruptSnapshotError, Fnv1a64, SpotEngine, fnv1a64Utf8, type Command, type EngineSnapshot } from "../../durable/engine/index.ts";
import { cancel, limit, makePair, market } from "./helpers.ts";

const pair = makePair({ tickSize: 5, lotSize: 2, makerFeeBps: 10, takerFeeBps: 20 });

function session(): Command[] {
  return [
    limit({ id: 1, owner: "a", side: "buy", price: 100, qty: 4 }),
    limit({ id: 2, owner: "b", side: "buy", price: 100, qty: 2 }),
    limit({ id: 3, owner: "c", side: "sell", price: 110, qty: 6 }),
    limit({ id: "x", owner: "a", side: "sell", price: 120, qty: 2 }),
    market({ id: 4, owner: "c", side: "sell", qty: 2 }),
    cancel(2),
    limit({ id: 5, owner: "b", side: "buy", price: 95, qty: 8 }),
  ];
}

describe("snapshot and replay", () => {
  it("replaying the journal yields the same state hash", () => {
    const live = new SpotEngine(pair);
    const journal = session();
    for (const c of journal) live.execute(c);
    expect(SpotEngine.replay(pair, journal).stateHash()).toBe(live.stateHash());
  });

  it("restores a snapshot with the same hash, book and subsequent fills", () => {
    const live = SpotEngine.replay(pair, session());
    const snap: EngineSnapshot = JSON.parse(JSON.stringify(live.snapshot()));
    const copy = SpotEngine.restore(pair, snap);
    expect(copy.stateHash()).toBe(live.stateHash());
    expect(copy.depth()).toEqual(live.depth());
    expect([copy.seq, copy.tradeSeq]).toEqual([live.seq, live.tradeSeq]);
    const next = market({ id: 9, owner: "z", side: "sell", qty: 10 });
    expect(copy.execute(next)).toEqual(live.execute(next));
    expect(copy.stateHash()).toBe(live.stateHash());
  });

  it("keeps time priority inside a level across a restore", () => {
    const live = SpotEngine.replay(pair, [
      limit({ id: 11, owner: "a", side: "buy", price: 100, qty: 2 }),
      limit({ id: 12, owner: "b", side: "buy", price: 95, qty: 2 }),
      limit({ id: 13, owner: "c", side: "buy", price: 100, qty: 2 }),
      limit({ id: 14, owner: "d", side: "buy", price: 100, qty: 2 }),
      cancel(11),
      limit({ id: 15, owner: "e", side: "buy", price: 100, qty: 2 }),
    ]);
    const copy = SpotEngine.restore(pair, live.snapshot());
    const sweep = market({ id: 10, owner: "z", side: "sell", qty: 8 });
    const ids = (e: SpotEngine) => e.execute(sweep).events.flatMap((ev) => (ev.type === "fill" ? [ev.makerId] : []));
    expect(ids(copy)).toEqual([13, 14, 15, 12]);
    expect(ids(live)).toEqual([13, 14, 15, 12]);
  });

  it("gives different hashes to books that differ in any order detail", () => {
    const base = () => [limit({ id: 1, owner: "a", price: 100, qty: 2 }), limit({ id: 2, owner: "b", price: 100, qty: 2 })];
    const h = (cmds: Command[]) => SpotEngine.replay(pair, cmds).stateHash();
    const ref = h(base());
    expect(h(base())).toBe(ref);
    expect(h([limit({ id: 2, owner: "b", price: 100, qty: 2 }), limit({ id: 1, owner: "a", price: 100, qty: 2 })])).not.toBe(ref);
    expect(h([limit({ id: 1, owner: "a", price: 100, qty: 4 }), limit({ id: 2, owner: "b", price: 100, qty: 2 })])).not.toBe(ref);
    expect(h([limit({ id: 1, owner: "c", price: 100, qty: 2 }), limit({ id: 2, owner: "b", price: 100, qty: 2 })])).not.toBe(ref);
    expect(h([limit({ id: "1", owner: "a", price: 100, qty: 2 }), limit({ id: 2, owner: "b", price: 100, qty: 2 })])).not.toBe(ref);
    expect(h([...base(), cancel(99)])).toBe(ref); // a rejected command changes nothing
  });

  it("refuses a crossed, unordered, duplicated or off-grid snapshot", () => {
    const good: EngineSnapshot = { version: 1, seq: 3, tradeSeq: 0, bids: [[1, "a", 100, 2]], asks: [[2, "b", 105, 2]] };
    expect(SpotEngine.restore(pair, good).orderCount).toBe(2);
    const bad: Array<Partial<EngineSnapshot>> = [
      { asks: [[2, "b", 100, 2]] },
      { bids: [[1, "a", 95, 2], [3, "a", 100, 2]] },
      { asks: [[1, "b", 105, 2]] },
      { bids: [[1, "a", 101, 2]] },
      { bids: [[1, "a", 100, 3]] },
      { bids: [[1, "", 100, 2]] },
      { seq: -1 },
      { version: 2 as 1 },
    ];
    for (const b of bad) expect(() => SpotEngine.restore(pair, { ...good, ...b })).toThrow(CorruptSnapshotError);
  });
});

describe("state hash", () => {
  it("implements 64-bit FNV-1a (published test vectors)", () => {
    expect(fnv1a64Utf8("")).toBe("cbf29ce484222325");
    expect(fnv1a64Utf8("a")).toBe("af63dc4c8601ec8c");
    expect(fnv1a64Utf8("foobar")).toBe("85944171f73967e8");
  });

  it("matches a bigint FNV-1a over random bytes", () => {
    let seed = 12345;
    for (let run = 0; run < 50; run++) {
      const h = new Fnv1a64();
      let ref = 0xcbf29ce484222325n;
      for (let i = 0; i < 200; i++) {
        seed = (seed * 1103515245 + 12345) % 2147483648;
        const b = seed & 0xff;
        h.byte(b);
        ref = ((ref ^ BigInt(b)) * 0x100000001b3n) & 0xffffffffffffffffn;
      }
      expect(h.digest()).toBe(ref.toString(16).padStart(16, "0"));
    }
  });
});
