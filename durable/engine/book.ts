/**
 * Book storage: resting orders, price levels (FIFO queues) and the two sides of the book.
 *
 * Shaped by the workload a pair sees: a few hundred resting orders, with trading concentrated
 * at the best levels of a moving mid. So each side is a plain array of levels sorted worst → best:
 * the best level is the last element, so matching reads and pops it in O(1), and new levels
 * usually land near the end, so inserting moves few elements. A price index finds an existing
 * level in O(1). Each level is an intrusive doubly-linked list of orders, which gives FIFO and
 * O(1) unlink on cancel. Plain numbers and monomorphic classes throughout; nothing here allocates
 * per operation except a new level (order objects are recycled by matching.ts).
 */
import { hashId } from "./order-index.ts";
import type { AccountId, OrderId } from "./types.ts";

/** Internal side codes used on the hot path. */
export const BUY = 0;
export const SELL = 1;
/** 0 = buy, 1 = sell. */
export type SideCode = 0 | 1;

/** A resting order. Mutable; owned by exactly one Level while it rests. */
export class Order {
  id: OrderId;
  /** hashId(id), cached for the order index. */
  hash: number;
  owner: AccountId;
  side: SideCode;
  price: number;
  /** Remaining (unfilled) quantity. */
  qty: number;
  prev: Order | null = null;
  next: Order | null = null;
  level: Level | null = null;

  constructor(id: OrderId, owner: AccountId, side: SideCode, price: number, qty: number, hash = hashId(id)) {
    this.id = id;
    this.hash = hash;
    this.owner = owner;
    this.side = side;
    this.price = price;
    this.qty = qty;
  }

  /** Re-initialises a recycled (unlinked) order object. */
  reset(id: OrderId, owner: AccountId, side: SideCode, price: number, qty: number, hash: number): this {
    this.id = id;
    this.hash = hash;
    this.owner = owner;
    this.side = side;
    this.price = price;
    this.qty = qty;
    return this;
  }
}

/** All orders resting at one price, oldest first. */
export class Level {
  /** Sort key: price for bids, -price for asks, so that on both sides a larger key is better. */
  key: number;
  price: number;
  /** hashId(price), cached for the level index. */
  hash: number;
  /** Sum of the remaining quantity of the orders in the level. */
  total = 0;
  count = 0;
  head: Order | null = null;
  tail: Order | null = null;

  constructor(price: number, key: number) {
    this.price = price;
    this.key = key;
    this.hash = hashId(price);
  }

  /** Appends an order at the back of the queue (newest). */
  push(o: Order): void {
    o.level = this;
    o.prev = this.tail;
    o.next = null;
    if (this.tail === null) this.head = o;
    else this.tail.next = o;
    this.tail = o;
    this.total += o.qty;
    this.count++;
  }

  /** Removes an order from anywhere in the queue; subtracts its remaining quantity. */
  unlink(o: Order): void {
    const p = o.prev;
    const n = o.next;
    if (p === null) this.head = n;
    else p.next = n;
    if (n === null) this.tail = p;
    else n.prev = p;
    o.prev = null;
    o.next = null;
    o.level = null;
    this.total -= o.qty;
    this.count--;
  }
}

/** An array of n nulls built by push, so V8 keeps it packed (`new Array(n).fill` stays holey). */
function packedNulls(n: number): (Level | null)[] {
  const a: (Level | null)[] = [];
  for (let i = 0; i < n; i++) a.push(null);
  return a;
}

/**
 * Levels of one side by price: open addressing like OrderIndex, so finding the level for a new
 * order is O(1). Books keep far more levels than the few near the mid that trade (stale orders
 * stay behind as the price walks; about 180 levels per side on the benchmark workload), and a
 * binary search over the sorted array per new order measured about 8% slower overall.
 */
class LevelIndex {
  private slots: (Level | null)[] = packedNulls(256);
  private mask = 255;
  private size = 0;

  /** Number of levels indexed. */
  get count(): number {
    return this.size;
  }

  find(price: number): Level | undefined {
    const slots = this.slots;
    const mask = this.mask;
    let i = hashId(price) & mask;
    for (;;) {
      const l = slots[i]!;
      if (l === null) return undefined;
      if (l.price === price) return l;
      i = (i + 1) & mask;
    }
  }

  add(l: Level): void {
    if ((this.size + 1) * 2 > this.slots.length) this.grow();
    const slots = this.slots;
    const mask = this.mask;
    let i = l.hash & mask;
    while (slots[i] !== null) i = (i + 1) & mask;
    slots[i] = l;
    this.size++;
  }

  remove(l: Level): void {
    const slots = this.slots;
    const mask = this.mask;
    let i = l.hash & mask;
    while (slots[i] !== l) i = (i + 1) & mask;
    let j = i;
    for (;;) {
      j = (j + 1) & mask;
      const s = slots[j]!;
      if (s === null) break;
      const home = s.hash & mask;
      const inRange = i <= j ? home > i && home <= j : home > i || home <= j;
      if (!inRange) {
        slots[i] = s;
        i = j;
      }
    }
    slots[i] = null;
    this.size--;
  }

  private grow(): void {
    const old = this.slots;
    this.slots = packedNulls(old.length * 2);
    this.mask = this.slots.length - 1;
    this.size = 0;
    for (const l of old) if (l !== null) this.add(l);
  }
}

/** One side of the book: levels sorted by key ascending, best level last, plus a price index. */
export class BookSide {
  readonly side: SideCode;
  readonly levels: Level[] = [];
  private readonly index = new LevelIndex();
  /** +1 for bids (key = price), -1 for asks (key = -price). */
  private readonly sign: number;

  constructor(side: SideCode) {
    this.side = side;
    this.sign = side === BUY ? 1 : -1;
  }

  /** Best level, or undefined when the side is empty. */
  best(): Level | undefined {
    return this.levels[this.levels.length - 1];
  }

  /** Index of the first level whose key is >= `key` (binary search). */
  private lowerBound(key: number): number {
    const levels = this.levels;
    let lo = 0;
    let hi = levels.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (levels[mid]!.key < key) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The level at `price`, or undefined. */
  find(price: number): Level | undefined {
    return this.index.find(price);
  }

  /** Number of levels in the price index (equals `levels.length` when consistent). */
  get indexedLevels(): number {
    return this.index.count;
  }

  /** The level at `price`, created (and inserted in order) if missing. */
  getOrCreate(price: number): Level {
    const found = this.index.find(price);
    if (found !== undefined) return found;
    const levels = this.levels;
    const key = this.sign * price;
    const n = levels.length;
    const l = new Level(price, key);
    this.index.add(l);
    // Fast path: a new best level, where many new levels appear.
    if (n === 0 || levels[n - 1]!.key < key) {
      levels.push(l);
      return l;
    }
    const i = this.lowerBound(key);
    // Open a gap at i by hand: Array.prototype.splice allocates a result array on every call.
    levels.push(levels[n - 1]!);
    for (let j = n - 1; j > i; j--) levels[j] = levels[j - 1]!;
    levels[i] = l;
    return l;
  }

  /** Removes an (empty) level from the side. */
  remove(level: Level): void {
    this.index.remove(level);
    const levels = this.levels;
    const last = levels.length - 1;
    if (levels[last] === level) {
      levels.pop();
      return;
    }
    for (let j = this.lowerBound(level.key); j < last; j++) levels[j] = levels[j + 1]!;
    levels.pop();
  }

  /** Removes the best level (which the caller has emptied). */
  popBest(): void {
    this.index.remove(this.levels.pop()!);
  }
}
