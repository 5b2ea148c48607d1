/**
 * Open orders by id: an open-addressing hash table (linear probing, backward-shift deletion)
 * storing the Order objects themselves.
 *
 * Why not a Map: a book churns ids constantly (every order is inserted once and deleted once,
 * ids never repeat), and V8's Map leaves a tombstone per delete and rehashes the whole table
 * every few hundred inserts. Measured on the benchmark workload, those rehashes were most of the
 * operations slower than 5 µs. This table never rehashes at a steady size (deletion leaves no
 * tombstones) and only grows when the number of open orders doubles.
 */
import type { Order } from "./book.ts";
import type { OrderId } from "./types.ts";

const INITIAL_CAPACITY = 1024;

/** 32-bit hash of an order id (safe integer or string). Deterministic across runtimes. */
export function hashId(id: OrderId): number {
  let h: number;
  if (typeof id === "number" && (id | 0) === id) {
    h = Math.imul(id, 0x9e3779b1); // 32-bit integers: the common case, no float division
  } else if (typeof id === "number") {
    const lo = id >>> 0;
    const hi = Math.floor(id / 0x100000000) | 0;
    h = Math.imul(lo ^ Math.imul(hi, 0x85ebca6b), 0x9e3779b1);
  } else {
    h = 0x811c9dc5;
    for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193);
  }
  h ^= h >>> 15;
  h = Math.imul(h, 0x2c1b3c6d);
  return (h ^ (h >>> 12)) >>> 0;
}

/** Hash table of open orders keyed by `order.id` (uses the cached `order.hash`). */
export class OrderIndex {
  private slots: (Order | null)[];
  private mask: number;
  private _size = 0;

  constructor(capacity = INITIAL_CAPACITY) {
    let cap = 16;
    while (cap < capacity) cap *= 2;
    this.slots = [];
    for (let i = 0; i < cap; i++) this.slots.push(null); // packed, unlike new Array(n).fill
    this.mask = cap - 1;
  }

  /** Number of orders stored. */
  get size(): number {
    return this._size;
  }

  /** The order with this id, or undefined. */
  get(id: OrderId): Order | undefined {
    return this.find(id, hashId(id));
  }

  /** Like `get`, with `hash` = hashId(id) already computed. */
  find(id: OrderId, hash: number): Order | undefined {
    const slots = this.slots;
    const mask = this.mask;
    let i = hash & mask;
    for (;;) {
      const o = slots[i]!;
      if (o === null) return undefined;
      if (o.id === id) return o;
      i = (i + 1) & mask;
    }
  }

  /** True if an order with this id is stored. */
  has(id: OrderId): boolean {
    return this.get(id) !== undefined;
  }

  /** Stores an order; its id must not be present (checked by the caller) and `o.hash` must be hashId(o.id). */
  add(o: Order): void {
    if ((this._size + 1) * 2 > this.slots.length) this.grow();
    const slots = this.slots;
    const mask = this.mask;
    let i = o.hash & mask;
    while (slots[i] !== null) i = (i + 1) & mask;
    slots[i] = o;
    this._size++;
  }

  /** Removes and returns the order with this id, or undefined. */
  take(id: OrderId): Order | undefined {
    const slots = this.slots;
    const mask = this.mask;
    let i = hashId(id) & mask;
    for (;;) {
      const s = slots[i]!;
      if (s === null) return undefined;
      if (s.id === id) {
        this.removeAt(i);
        return s;
      }
      i = (i + 1) & mask;
    }
  }

  /** Removes this exact order object; returns false if it was not stored. */
  remove(o: Order): boolean {
    const slots = this.slots;
    const mask = this.mask;
    let i = o.hash & mask;
    for (;;) {
      const s = slots[i]!;
      if (s === null) return false;
      if (s === o) break;
      i = (i + 1) & mask;
    }
    this.removeAt(i);
    return true;
  }

  private removeAt(i: number): void {
    const slots = this.slots;
    const mask = this.mask;
    // Backward-shift deletion: pull later members of the probe run into the hole.
    let j = i;
    for (;;) {
      j = (j + 1) & mask;
      const s = slots[j]!;
      if (s === null) break;
      const home = s.hash & mask;
      // Move s into the hole at i unless its home lies cyclically in (i, j].
      const inRange = i <= j ? home > i && home <= j : home > i || home <= j;
      if (!inRange) {
        slots[i] = s;
        i = j;
      }
    }
    slots[i] = null;
    this._size--;
  }

  /** Calls f for every stored order (table order, not book order). */
  forEach(f: (o: Order) => void): void {
    for (const o of this.slots) if (o !== null) f(o);
  }

  private grow(): void {
    const old = this.slots;
    const cap = old.length * 2;
    this.slots = [];
    for (let i = 0; i < cap; i++) this.slots.push(null);
    this.mask = cap - 1;
    this._size = 0;
    for (const o of old) if (o !== null) this.add(o);
  }
}
