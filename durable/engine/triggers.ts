/**
 * The triggers of conditional spot orders (stop-limit, the stop leg of an OCO, trailing stops),
 * pure and in price ticks. A trade at price p is checked in O(log n) plus O(log n) per order it
 * fires: nothing scans the resting conditions.
 *
 * Each side works in its own "q space" so that every condition reads the same way: a sell side
 * has q = p, a buy side q = −p. Then
 *   - a stop fires when q·10⁴ ≤ its level (level = q_stop·10⁴): a sell stop when p ≤ stop, a buy
 *     stop when p ≥ stop;
 *   - a trailing stop tracks H, the highest q since it became active (a sell: the highest price; a
 *     buy: minus the lowest), and fires when q·10⁴ ≤ H·f with f = 10⁴ − callback (sell) or
 *     10⁴ + callback (buy): a sell when the price fell `callback` basis points from its high, a
 *     buy when it rose that much from its low;
 *   - a trailing stop with an activation price A starts tracking at the first trade with q ≥ q_A
 *     (a sell: p ≥ A; a buy: p ≤ A), with H = that trade's q.
 * Stops rest in a max-heap by level. Active trailing stops are grouped by H: a trade with q above
 * some groups' H merges them into one group at H = q (union-find for "which H is mine", a pairing
 * heap of members by callback for "who in the group fires first", since within a group the
 * smallest callback fires first). Each trade makes at most one group, so merges are amortised
 * O(log n) per trade. Removal is lazy: a removed id is skipped when it surfaces.
 *
 * For one trade, the sell side fires first, then the buy side; within a side in trigger-price
 * order (the level the trade crossed first, stop or trailing alike), ties by placement order.
 */

const SCALE = 10_000;

export type TriggerSide = "buy" | "sell";

/** A condition to watch. `extreme`: a trailing stop's tracked high (sell) or low (buy) in ticks, null while not active. */
export type TriggerSpec =
  | { kind: "stop"; id: number; side: TriggerSide; stop: number }
  | { kind: "trail"; id: number; side: TriggerSide; callbackBps: number; activation: number | null; extreme: number | null };

/** An order whose condition a trade met, with the price (ticks) of that trade and its trigger level. */
export interface Fired {
  id: number;
  side: TriggerSide;
  /** the trade price that fired it */
  price: number;
  /** the trigger price in ticks (a stop's stop price; a trailing stop's extreme moved by its callback, cut to a tick) */
  trigger: number;
}

// ---------------------------------------------------------------- a binary heap with a comparator

class Heap<T> {
  private items: T[] = [];
  constructor(private readonly before: (a: T, b: T) => boolean) {}
  get size() {
    return this.items.length;
  }
  peek(): T | undefined {
    return this.items[0];
  }
  push(x: T): void {
    const a = this.items;
    a.push(x);
    let i = a.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.before(a[i]!, a[parent]!)) break;
      [a[i], a[parent]] = [a[parent]!, a[i]!];
      i = parent;
    }
  }
  pop(): T | undefined {
    const a = this.items;
    const top = a[0];
    const last = a.pop();
    if (a.length > 0 && last !== undefined) {
      a[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < a.length && this.before(a[l]!, a[m]!)) m = l;
        if (r < a.length && this.before(a[r]!, a[m]!)) m = r;
        if (m === i) break;
        [a[i], a[m]] = [a[m]!, a[i]!];
        i = m;
      }
    }
    return top;
  }
}

// ---------------------------------------------------------------- a pairing heap (mergeable)

interface PNode {
  member: Member;
  child: PNode | null;
  next: PNode | null;
}

/** Smaller callback first, then placement order. */
const memberBefore = (a: Member, b: Member) => a.cb < b.cb || (a.cb === b.cb && a.seq < b.seq);

function meld(a: PNode | null, b: PNode | null): PNode | null {
  if (!a) return b;
  if (!b) return a;
  if (memberBefore(b.member, a.member)) [a, b] = [b, a];
  b.next = a.child;
  a.child = b;
  return a;
}

function popRoot(root: PNode): PNode | null {
  // Two-pass pairing of the root's children.
  const pairs: PNode[] = [];
  let c = root.child;
  while (c) {
    const a = c;
    const b = c.next;
    c = b ? b.next : null;
    a.next = null;
    if (b) b.next = null;
    pairs.push(meld(a, b)!);
  }
  let out: PNode | null = null;
  for (let i = pairs.length - 1; i >= 0; i--) out = meld(pairs[i]!, out);
  return out;
}

// ---------------------------------------------------------------- one side

interface Member {
  id: number;
  seq: number;
  cb: number;
  /** the group it joined (follow `parent` to the live one) */
  group: Group;
}

interface Group {
  h: number;
  root: PNode | null;
  parent: Group | null;
  /** bumped whenever its first member or H changes: older level entries are stale */
  version: number;
}

interface StopEntry {
  level: number;
  seq: number;
  id: number;
}
interface GroupLevel {
  level: number;
  seq: number;
  group: Group;
  version: number;
}
interface Pending {
  qa: number;
  seq: number;
  id: number;
  cb: number;
}

function findGroup(g: Group): Group {
  let root = g;
  while (root.parent) root = root.parent;
  while (g.parent && g.parent !== root) {
    const next: Group = g.parent;
    g.parent = root;
    g = next;
  }
  return root;
}

class SideTriggers {
  private readonly sign: 1 | -1;
  private readonly stops = new Heap<StopEntry>((a, b) => a.level > b.level || (a.level === b.level && a.seq < b.seq));
  private readonly pending = new Heap<Pending>((a, b) => a.qa < b.qa || (a.qa === b.qa && a.seq < b.seq));
  private readonly byHigh = new Heap<{ group: Group; version: number }>((a, b) => a.group.h < b.group.h);
  private readonly levels = new Heap<GroupLevel>((a, b) => a.level > b.level || (a.level === b.level && a.seq < b.seq));
  /** live ids → what they are (a removed id is gone from here and skipped when met) */
  readonly live = new Map<number, { kind: "stop" } | { kind: "pending" } | { kind: "member"; member: Member }>();

  constructor(readonly side: TriggerSide) {
    this.sign = side === "sell" ? 1 : -1;
  }

  private factor(cb: number) {
    return this.side === "sell" ? SCALE - cb : SCALE + cb;
  }

  addStop(id: number, seq: number, stop: number) {
    this.live.set(id, { kind: "stop" });
    this.stops.push({ level: this.sign * stop * SCALE, seq, id });
  }

  addPending(id: number, seq: number, cb: number, activation: number) {
    this.live.set(id, { kind: "pending" });
    this.pending.push({ qa: this.sign * activation, seq, id, cb });
  }

  /** An active trailing stop with its extreme (in ticks). */
  addActive(id: number, seq: number, cb: number, extreme: number) {
    const group = this.newGroup(this.sign * extreme);
    this.join(group, id, seq, cb);
    this.touch(group);
  }

  private newGroup(h: number): Group {
    return { h, root: null, parent: null, version: 0 };
  }

  private join(group: Group, id: number, seq: number, cb: number) {
    const member: Member = { id, seq, cb, group };
    this.live.set(id, { kind: "member", member });
    group.root = meld(group.root, { member, child: null, next: null });
  }

  /** Re-announces a group's H and its first member's level after a change. */
  private touch(group: Group) {
    group.version++;
    if (!group.root) return;
    this.byHigh.push({ group, version: group.version });
    const first = group.root.member;
    this.levels.push({ level: group.h * this.factor(first.cb), seq: first.seq, group, version: group.version });
  }

  remove(id: number): boolean {
    return this.live.delete(id);
  }

  /** The tracked extreme of an active trailing stop, in ticks; null if pending or not a trailing stop. */
  extreme(id: number): number | null {
    const e = this.live.get(id);
    return e?.kind === "member" ? this.sign * findGroup(e.member.group).h : null;
  }

  /** Applies one trade price; returns what it fired, in trigger order. */
  onTrade(price: number, out: Fired[]): void {
    const q = this.sign * price;
    // Activations and new highs: every group below q, and every trailing stop activated now, join one group at H = q.
    let merged: Group | null = null;
    const target = () => (merged ??= this.newGroup(q));
    for (let p = this.pending.peek(); p && p.qa <= q; p = this.pending.peek()) {
      this.pending.pop();
      if (this.live.get(p.id)?.kind !== "pending") continue;
      this.join(target(), p.id, p.seq, p.cb);
    }
    for (let top = this.byHigh.peek(); top && top.group.h < q; top = this.byHigh.peek()) {
      this.byHigh.pop();
      const g = top.group;
      if (g.parent || top.version !== g.version || !g.root) continue;
      const m = target();
      m.root = meld(m.root, g.root);
      g.root = null;
      g.parent = m;
      g.version++;
    }
    if (merged) this.touch(merged);
    // Fire, highest level first: stops and groups' first members alike.
    const bar = q * SCALE;
    for (;;) {
      const s = this.skipDeadStops();
      const g = this.skipStaleLevels();
      const sFires = s !== undefined && s.level >= bar;
      const gFires = g !== undefined && g.level >= bar;
      if (!sFires && !gFires) return;
      const takeStop = sFires && (!gFires || s.level > g.level || (s.level === g.level && s.seq < g.seq));
      if (takeStop) {
        this.stops.pop();
        this.live.delete(s.id);
        out.push({ id: s.id, side: this.side, price, trigger: (this.sign * s.level) / SCALE });
      } else {
        this.levels.pop();
        const group = g!.group;
        const first = group.root!.member;
        group.root = popRoot(group.root!);
        this.touch(group);
        if (this.live.get(first.id)?.kind !== "member") continue;
        this.live.delete(first.id);
        // The trigger price cut to a tick towards the trade (what the user's rule said, rounded in their favour never).
        const level = g!.level;
        const trigger = this.side === "sell" ? Math.floor(level / SCALE) : Math.ceil(-level / SCALE);
        out.push({ id: first.id, side: this.side, price, trigger });
      }
    }
  }

  private skipDeadStops(): StopEntry | undefined {
    for (let s = this.stops.peek(); s; s = this.stops.peek()) {
      if (this.live.get(s.id)?.kind === "stop") return s;
      this.stops.pop();
    }
    return undefined;
  }

  private skipStaleLevels(): GroupLevel | undefined {
    for (let g = this.levels.peek(); g; g = this.levels.peek()) {
      if (!g.group.parent && g.version === g.group.version && g.group.root) {
        // A removed first member: drop it and re-announce the group.
        const first = g.group.root.member;
        if (this.live.get(first.id)?.kind === "member") return g;
        this.levels.pop();
        g.group.root = popRoot(g.group.root);
        this.touch(g.group);
        continue;
      }
      this.levels.pop();
    }
    return undefined;
  }
}

/** Every conditional order's trigger of one pair. */
export class TriggerBook {
  private readonly sell = new SideTriggers("sell");
  private readonly buy = new SideTriggers("buy");
  private seq = 0;

  private sideOf(side: TriggerSide) {
    return side === "sell" ? this.sell : this.buy;
  }

  /** Number of conditions watched (removed ones excluded). */
  get size(): number {
    return this.sell.live.size + this.buy.live.size;
  }

  has(id: number): boolean {
    return this.sell.live.has(id) || this.buy.live.has(id);
  }

  /**
   * Starts watching a condition (call in placement order: ties fire in that order). A trailing
   * stop with neither an extreme nor an activation price is active from `last` (the last trade).
   */
  add(spec: TriggerSpec, last: number | null = null): void {
    if (this.has(spec.id)) throw new Error(`trigger ${spec.id} already watched`);
    const side = this.sideOf(spec.side);
    const seq = ++this.seq;
    if (spec.kind === "stop") return side.addStop(spec.id, seq, spec.stop);
    const extreme = spec.extreme ?? (spec.activation === null ? last : null);
    if (extreme !== null) side.addActive(spec.id, seq, spec.callbackBps, extreme);
    else if (spec.activation !== null) side.addPending(spec.id, seq, spec.callbackBps, spec.activation);
    else throw new Error(`trailing stop ${spec.id} has no price to start from`);
  }

  /** Stops watching; false if it was not watched (fired or removed before). */
  remove(id: number): boolean {
    return this.sell.remove(id) || this.buy.remove(id);
  }

  /** A trailing stop's tracked extreme (its high for a sell, low for a buy), null if not active. */
  extreme(id: number): number | null {
    return this.sell.extreme(id) ?? this.buy.extreme(id);
  }

  /** Applies one trade; returns what it fired (each id once, ever), sell side first, each side in trigger order. */
  onTrade(price: number): Fired[] {
    const out: Fired[] = [];
    this.sell.onTrade(price, out);
    this.buy.onTrade(price, out);
    return out;
  }
}
