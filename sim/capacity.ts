/**
 * The object protocol at scale (issue #28, "a table of calls per object per action and a capacity
 * model"): P pair objects, U account objects (M market-maker accounts quoting every pair, many
 * ordinary users), N fee shards and N treasury shards, each running the real money core
 * (durable/money/) over its own SQLite, as sim/world.ts does. A seeded load with the e2e load's
 * mix (limit orders resting and crossing, cancels, batches of 20, seconds contracts, lever opens
 * and closes, transfers) runs for some simulated seconds; every call an object receives is counted
 * per object, per action and per simulated second.
 *
 * What each action calls, at once (the Worker's calls, as docs/architecture/account-objects.md
 * "Calls per object per action" describes them):
 * - a spot order: the account reserves (`spot_order:{id}`), then the pair places it (matching
 *   here is a small price-time book; each fill is `tradeLegs`: buyer, seller, fee shard);
 * - a batch of 20: one reserve call holding 20, one pair call;
 * - a cancel: one pair call (its release leg goes back through the outbox);
 * - a seconds contract: the account reserves the stake, the treasury shard the cover, the pair
 *   accepts; each second the pair settles what expired (`secondsSettleLegs`);
 * - a lever open: the same three calls with the margin; a close: one pair call (`leverCloseLegs`);
 * - a transfer between one's own accounts: one account call.
 * Legs leave through each pair's outbox on its delivery round (its alarm, every `roundMs`): the
 * core's `deliverDue` sends each destination all its due legs in one call (bounded: 256 legs per
 * call, 64 destinations per step, over the oldest 1,024 due legs).
 *
 * Checked at the end (a failure throws): every balance equals a model kept from the events, no
 * leg refused, every outbox empty, every committed leg's key recorded once by its receiver (with
 * `duplicates`, some calls are delivered twice and must answer `seen`), per currency the objects
 * hold exactly the opening total, and the read model (the drains) equals the objects.
 */
import { MoneyCore, migrateMoney } from "../durable/money/index.ts";
import { SYSTEM, leverCloseLegs, releaseLeg, secondsSettleLegs, tradeLegs, type Covered, type Trade } from "../durable/money/legs.ts";
import type { Mutations } from "../durable/money/ports.ts";
import type { HoldRequest, Leg, MoneyEvent, Op } from "../durable/money/types.ts";
import { Prng } from "./prng.ts";
import { ResidentPool } from "./resident.ts";
import { NodeSql } from "./sqlite.ts";

export interface CapacityOptions {
  seed: number;
  /** P: pair objects. */
  pairs: number;
  /** U: ordinary users' account objects (each trades its home pair, user i → pair i mod P). */
  accounts: number;
  /** M: market-maker accounts; maker m quotes the pairs p with p mod M = m. */
  makers: number;
  /** N: fee shards, and as many treasury shards. */
  shards: number;
  /** How a trade picks its fee shard (and a contract or position its treasury shard). */
  shardBy: "pair" | "id";
  /** Simulated seconds of load. */
  seconds: number;
  /** Users' actions per pair per second (the mix below); the makers' quotes come on top. */
  actionsPerPair: number;
  /** A pair's delivery round (its alarm): every due leg leaves, one call per destination. */
  roundMs: number;
  /** Share of leg deliveries sent twice (a retry whose answer was lost): each must answer `seen`. */
  duplicates: number;
  /** Account objects kept in memory at once (the rest evicted, storage kept: sim/resident.ts). */
  resident: number;
  /** Open every account object before the load (as the migration leaves them), not at its first call. */
  openAll: boolean;
  /** A known bug switched on in every object's core (tests: the checks must catch it). */
  mutations?: Mutations;
}

export const DEFAULTS: CapacityOptions = {
  seed: 1,
  pairs: 100,
  accounts: 100_000,
  makers: 1,
  shards: 4,
  shardBy: "pair",
  seconds: 10,
  actionsPerPair: 100,
  roundMs: 100,
  duplicates: 0.01,
  resident: 3_000,
  openAll: true,
};

/** The users' mix, weights out of 100 (bench/e2e-load.mjs: crossing and resting limits, batches; plus the other products). */
export const MIX = {
  cross: 40,
  rest: 22,
  cancel: 10,
  batch: 5,
  seconds: 10,
  leverOpen: 5,
  leverClose: 4,
  transfer: 4,
} as const;
export type ActionKind = keyof typeof MIX | "quote";

/** What a call is: a Worker's call into an object, or a delivery round's call with legs. */
export type CallKind = "reserve" | "reserveMany" | "transfer" | "place" | "placeMany" | "cancel" | "accept" | "open" | "close" | "legs" | "legs (again)";
export type ObjectClass = "account" | "maker" | "pair" | "fees" | "treasury";

const USDT = "USDT";
const FEE_BPS = 10;
/** A maker quotes again on a pair when a side has fewer resting quotes than this. */
const QUOTE_LOW = 4;
const QUOTES_PER_SIDE = 10;
/** The price grid: the makers quote bid 990–999 and ask 1001–1010; a crossing order reaches 15 steps. */
const MID = 1_000;
const DRAIN_DELAY_MS = 500;

interface Order {
  id: number;
  pair: number;
  owner: string;
  side: "buy" | "sell";
  price: number;
  qty: number;
  hold: string;
  /** What is left of the hold (quote units for a buy, base units for a sell). */
  held: number;
}

interface Position {
  c: Covered;
  pair: number;
  /** For a contract: the second it settles. */
  expires: number;
}

export interface CapacityResult {
  options: CapacityOptions;
  /** Actions done, per kind (a batch counts once; `orders` counts its 20). */
  actions: Record<string, number>;
  orders: number;
  trades: number;
  /** Legs committed, per receiving class. */
  legs: Record<ObjectClass, number>;
  /** Calls received, per class and kind. */
  calls: Record<ObjectClass, Partial<Record<CallKind, number>>>;
  /** The Worker's calls per action kind, per class (counted at the call). */
  callsPerAction: Record<string, Partial<Record<ObjectClass, number>>>;
  /** Legs committed per action kind (the taker's action for a trade), per receiving class. */
  legsPerAction: Record<string, Partial<Record<ObjectClass, number>>>;
  /** Read-model batches (D1) opened per simulated second. */
  drainsPerSecond: number[];
  /** The busiest object of each class in its busiest simulated second: [name, calls in that second]. */
  peak: Record<ObjectClass, { name: string; perSecond: number; second: number }>;
  /** Per class: objects that took any call, and the mean calls per second over those objects. */
  spread: Record<ObjectClass, { objects: number; meanPerSecond: number }>;
  /** Delivery rounds (pair alarms that sent legs) and deliverDue steps (64 destinations each at most). */
  rounds: number;
  steps: number;
  maxSteps: number;
  /** Calls to one destination in one round: the busiest destination's, summed over rounds, and the most (absent in runs saved before session 14). */
  destCalls?: number;
  maxDestCalls?: number;
  /** The busiest object of each class in its busiest second, first leg deliveries only (no repeats). */
  peakDeliveries: Record<ObjectClass, number>;
  /** Read-model batches to D1 (one per object per drain window with movements) and their movements. */
  drains: { batches: number; movements: number };
  /**
   * The same drain windows handed to K collector objects (durable/account/collector.ts: object
   * name hashed mod K, one D1 batch per collector per COLLECT_MS window, one statement per batch since
   * session 16: migrations/0054), for several K (absent in runs saved before session 15).
   */
  collectors?: CollectorCount[];
  /** Refused reservations (insufficient funds: nothing moved). */
  insufficient: number;
  resident: { restores: number; evictions: number };
  checks: string[];
  ms: number;
  cpuMs: number;
}

/** One K of `CapacityResult.collectors`. */
export interface CollectorCount {
  k: number;
  /** D1 batches the collectors wrote, and their statements (one per batch: the `read_model_batches` row, migrations/0054). */
  batches: number;
  statements: number;
  /** The busiest simulated second: D1 statements from all collectors, and calls (hand-overs) to the busiest collector. */
  peakStatementsPerSecond: number;
  peakCallsPerSecond: number;
}

/** How long a collector gathers before it writes, and the rows of one D1 batch at most (durable/account/collector.ts COLLECT_MS, COLLECT_ROWS). */
const COLLECT_MS = 500;
const COLLECT_ROWS = 4_000;

/** A name's collector (a stable hash of the object's name, mod k). */
function collectorOf(name: string, k: number): number {
  let h = 0;
  for (let i = 0; i < name.length; i++) h = (Math.imul(h, 31) + name.charCodeAt(i)) | 0;
  return (h >>> 0) % k;
}

/**
 * Replays the drain windows' hand-overs (at the time each window ends) through k collectors: a
 * collector opens a window at a hand-over that finds none open and writes one batch COLLECT_MS later.
 */
export function countCollectors(handOvers: readonly { at: number; name: string; system: boolean; rows: number }[], k: number): CollectorCount {
  const open = new Map<number, { closeAt: number; user: number; system: number }>();
  const statementsIn: number[] = [];
  const callsIn = new Map<string, number>();
  let batches = 0;
  let statements = 0;
  // A window past COLLECT_ROWS rows is written as several batches, each one statement.
  const close = (w: { closeAt: number; user: number; system: number }) => {
    const n = Math.max(1, Math.ceil((w.user + w.system) / COLLECT_ROWS));
    batches += n;
    statements += n;
    const sec = Math.floor(w.closeAt / 1_000);
    statementsIn[sec] = (statementsIn[sec] ?? 0) + n;
  };
  for (const h of [...handOvers].sort((a, b) => a.at - b.at)) {
    const c = collectorOf(h.name, k);
    const calls = `${c}|${Math.floor(h.at / 1_000)}`;
    callsIn.set(calls, (callsIn.get(calls) ?? 0) + 1);
    let w = open.get(c);
    if (w && h.at >= w.closeAt) {
      close(w);
      w = undefined;
    }
    if (!w) {
      w = { closeAt: h.at + COLLECT_MS, user: 0, system: 0 };
      open.set(c, w);
    }
    // A window that moved nothing still hands over once (a row at least).
    if (h.system) w.system += Math.max(1, h.rows);
    else w.user += Math.max(1, h.rows);
  }
  for (const w of open.values()) close(w);
  return {
    k,
    batches,
    statements,
    peakStatementsPerSecond: Math.max(0, ...statementsIn.filter((v) => v !== undefined)),
    peakCallsPerSecond: Math.max(0, ...callsIn.values()),
  };
}

/** Thrown when an invariant fails: the run's answer is wrong. */
export class CapacityViolation extends Error {}

const classOf = (name: string): ObjectClass =>
  name.startsWith("pair:") ? "pair" : name.startsWith("fees:") ? "fees" : name.startsWith("treasury:") ? "treasury" : name.startsWith("mm:") ? "maker" : "account";

class Capacity {
  readonly o: CapacityOptions;
  private readonly rnd: Prng;
  private now = 0;
  private readonly pool: ResidentPool;
  /** Pairs and shards: few, always in memory. */
  private readonly fixed = new Map<string, NodeSql>();
  private readonly books: { bids: Order[]; asks: Order[] }[] = [];
  private readonly restingByPair: Map<number, Order>[] = [];
  private readonly contracts: Position[][] = [];
  private readonly positions: Map<string, Position>[] = [];
  private readonly quoting = new Set<number>();
  private ids = 0;
  // Counting.
  readonly actions: Record<string, number> = {};
  orders = 0;
  trades = 0;
  readonly legs: Record<ObjectClass, number> = { account: 0, maker: 0, pair: 0, fees: 0, treasury: 0 };
  readonly calls: Record<ObjectClass, Partial<Record<CallKind, number>>> = { account: {}, maker: {}, pair: {}, fees: {}, treasury: {} };
  readonly callsPerAction: Record<string, Partial<Record<ObjectClass, number>>> = {};
  readonly legsPerAction: Record<string, Partial<Record<ObjectClass, number>>> = {};
  /** D1 batches of the read model per simulated second (a drain window opens one). */
  readonly drainsPerSecond: number[] = [];
  private readonly thisSecond = new Map<string, number>();
  private second = 0;
  readonly peak: CapacityResult["peak"] = {
    account: { name: "", perSecond: 0, second: 0 },
    maker: { name: "", perSecond: 0, second: 0 },
    pair: { name: "", perSecond: 0, second: 0 },
    fees: { name: "", perSecond: 0, second: 0 },
    treasury: { name: "", perSecond: 0, second: 0 },
  };
  private readonly totalCalls = new Map<string, number>();
  /** First deliveries only (no repeats), per object in the current second, and the busiest per class. */
  private readonly deliveriesThisSecond = new Map<string, number>();
  readonly peakDeliveries: Record<ObjectClass, number> = { account: 0, maker: 0, pair: 0, fees: 0, treasury: 0 };
  rounds = 0;
  steps = 0;
  /** The most steps one round needed (64 destinations per step). */
  maxSteps = 0;
  destCalls = 0;
  maxDestCalls = 0;
  /** Calls per destination in the round being delivered. */
  private roundCalls: Map<string, number> | null = null;
  insufficient = 0;
  private action: string = "";
  // Drains: per object, when its pending drain runs (a window), and the read model.
  private readonly drainAt = new Map<string, number>();
  private readonly drainQueue = new Map<number, string[]>();
  readonly drains = { batches: 0, movements: 0 };
  /** Each drain window as a hand-over to a collector: when it ends, whose it is. */
  readonly handOvers: { at: number; name: string; system: boolean; rows: number }[] = [];
  /** The hand-over an object's open window will make (its rows are counted when it drains). */
  private readonly handingOver = new Map<string, { rows: number }>();
  private readonly readModel = new Map<string, number>();
  // The model of every balance and hold, kept from the events.
  private readonly shadow = new Map<string, number>();
  private readonly shadowHolds = new Map<string, { kind: string; cur: string; left: number }>();
  private readonly initial = new Map<string, number>();
  /** Keys each object must have recorded once: legs sent to it, its transfers, its openings. */
  private readonly expectedKeys = new Map<string, number>();
  private readonly opened = new Set<string>();

  constructor(o: CapacityOptions) {
    this.o = o;
    this.rnd = new Prng(o.seed);
    this.pool = new ResidentPool(o.resident, (name, sql) => this.drainNow(name, sql));
    for (let p = 0; p < o.pairs; p++) {
      this.fixed.set(`pair:${p}`, this.newFixed());
      this.books.push({ bids: [], asks: [] });
      this.restingByPair.push(new Map());
      this.contracts.push([]);
      this.positions.push(new Map());
    }
    for (let k = 0; k < o.shards; k++) {
      this.fixed.set(`fees:${k}`, this.newFixed());
      this.fixed.set(`treasury:${k}`, this.newFixed());
      this.openAccount(`treasury:${k}`, [[SYSTEM, USDT, 1e14]]);
    }
    for (let m = 0; m < o.makers; m++) {
      const rows: [string, string, number][] = [["spot", USDT, 1e14]];
      for (let p = m; p < o.pairs; p += o.makers) rows.push(["spot", `B${p}`, 1e13]);
      this.openAccount(`mm:${m}`, rows);
    }
    // Every account object exists before the load, opened and drained (the migration's work: not counted).
    if (o.openAll) for (let i = 0; i < o.accounts; i++) this.user(i);
    // (An evicted one was drained when its memory went.)
    for (const name of this.drainAt.keys()) if (this.fixed.has(name) || this.pool.isLive(name)) this.drainNow(name, this.sqlOf(name));
    this.drainAt.clear();
    this.drainQueue.clear();
    this.drains.batches = 0;
    this.handOvers.length = 0;
    this.handingOver.clear();
    this.drainsPerSecond.length = 0;
  }

  /** A pair or a shard: few of them, each with its own database for the whole run. */
  private newFixed(): NodeSql {
    const sql = new NodeSql();
    migrateMoney(sql);
    return sql;
  }

  // ---- objects -------------------------------------------------------------------------------

  private sqlOf(name: string): NodeSql {
    const f = this.fixed.get(name);
    if (f) return f;
    return this.pool.get(name).sql;
  }

  /** The object's money core over its storage (built per call: it keeps nothing in memory that matters). */
  /** The pairs' cores are kept (a sender remembers what was answered and when to retry); the accounts' are made per call. */
  private readonly senders = new Map<string, MoneyCore>();

  private core(name: string): MoneyCore {
    const kept = this.senders.get(name);
    if (kept) return kept;
    const core = this.newCore(name);
    if (name.startsWith("pair:")) this.senders.set(name, core);
    return core;
  }

  private newCore(name: string): MoneyCore {
    return new MoneyCore(name, {
      sql: this.sqlOf(name),
      clock: { now: () => this.now },
      random: { next: () => this.rnd.next() },
      transport: { send: (from, to, legs) => this.deliver(from, to, legs) },
      mutations: this.o.mutations,
    });
  }

  /** A user's account object, opened with its starting balances the first time anything calls it. */
  private user(i: number): string {
    const name = `user:${i}`;
    if (!this.opened.has(name)) {
      const home = i % this.o.pairs;
      this.openAccount(name, [
        ["spot", USDT, 1_000_000_000],
        ["spot", `B${home}`, 1_000_000_000],
        ["lever", USDT, 100_000_000],
        ["micro", USDT, 100_000_000],
      ]);
    }
    return name;
  }

  private openAccount(name: string, rows: [string, string, number][]): void {
    this.opened.add(name);
    const sql = this.sqlOf(name);
    const core = this.core(name);
    sql.transaction(() => rows.forEach(([kind, cur, amt], i) => core.open(`opening:${i}`, kind, cur, amt)));
    for (const [kind, cur, amt] of rows) {
      this.add(name, kind, cur, amt, 0);
      this.initial.set(cur, (this.initial.get(cur) ?? 0) + amt);
    }
    this.expect(name, rows.length);
    this.wrote(name);
  }

  private expect(name: string, keys: number): void {
    this.expectedKeys.set(name, (this.expectedKeys.get(name) ?? 0) + keys);
  }

  /** Counts one call into an object: per class and kind, per action, per simulated second. */
  private count(name: string, kind: CallKind): void {
    const cls = classOf(name);
    this.calls[cls][kind] = (this.calls[cls][kind] ?? 0) + 1;
    if (kind !== "legs" && kind !== "legs (again)") {
      const row = (this.callsPerAction[this.action] ??= {});
      row[cls] = (row[cls] ?? 0) + 1;
    }
    if (kind === "legs") this.deliveriesThisSecond.set(name, (this.deliveriesThisSecond.get(name) ?? 0) + 1);
    const n = (this.thisSecond.get(name) ?? 0) + 1;
    this.thisSecond.set(name, n);
    this.totalCalls.set(name, (this.totalCalls.get(name) ?? 0) + 1);
  }

  private closeSecond(): void {
    for (const [name, n] of this.thisSecond) {
      const p = this.peak[classOf(name)];
      if (n > p.perSecond) Object.assign(p, { name, perSecond: n, second: this.second });
    }
    this.thisSecond.clear();
    for (const [name, n] of this.deliveriesThisSecond) this.peakDeliveries[classOf(name)] = Math.max(this.peakDeliveries[classOf(name)], n);
    this.deliveriesThisSecond.clear();
    this.second++;
  }

  // ---- the read model's drain ------------------------------------------------------------------

  /** An object wrote movements: its drain runs DRAIN_DELAY_MS later unless one is already set (one D1 batch per window). */
  private wrote(name: string): void {
    if (this.drainAt.has(name)) return;
    const at = this.now + DRAIN_DELAY_MS;
    this.drainAt.set(name, at);
    const q = this.drainQueue.get(at) ?? [];
    q.push(name);
    this.drainQueue.set(at, q);
    this.drains.batches++;
    const cls = classOf(name);
    const handOver = { at, name, system: cls === "fees" || cls === "treasury", rows: 0 };
    this.handOvers.push(handOver);
    this.handingOver.set(name, handOver);
    const second = Math.floor(at / 1_000);
    this.drainsPerSecond[second] = (this.drainsPerSecond[second] ?? 0) + 1;
  }

  /** Moves what is new into the read model (the batch was counted when its window opened). */
  private drainNow(name: string, sql: NodeSql): void {
    const core = new MoneyCore(name, { sql, clock: { now: () => this.now }, random: { next: () => 0 }, transport: { send: () => {} } });
    for (let rows = core.undrained(); rows.length; rows = core.undrained()) {
      for (const r of rows) {
        const k = `${name}|${r.kind}|${r.currency}`;
        this.readModel.set(`${k}|a`, (this.readModel.get(`${k}|a`) ?? 0) + r.d_available);
        this.readModel.set(`${k}|f`, (this.readModel.get(`${k}|f`) ?? 0) + r.d_frozen);
      }
      this.drains.movements += rows.length;
      const h = this.handingOver.get(name);
      if (h) h.rows += rows.length;
      core.markDrained(rows[rows.length - 1]!.seq);
    }
  }

  private runDrains(at: number): void {
    const q = this.drainQueue.get(at);
    if (!q) return;
    this.drainQueue.delete(at);
    for (const name of q) {
      this.drainAt.delete(name);
      if (this.fixed.has(name) || this.pool.isLive(name)) this.drainNow(name, this.sqlOf(name));
      this.handingOver.delete(name);
      // An evicted object was drained when its memory went (sim/resident.ts onEvict).
    }
  }

  // ---- the model of every balance ---------------------------------------------------------------

  private add(obj: string, kind: string, cur: string, dA: number, dF: number): void {
    const k = `${obj}|${kind}|${cur}`;
    if (dA) this.shadow.set(`${k}|a`, (this.shadow.get(`${k}|a`) ?? 0) + dA);
    if (dF) this.shadow.set(`${k}|f`, (this.shadow.get(`${k}|f`) ?? 0) + dF);
  }

  private applyShadow(obj: string, ops: readonly Op[]): void {
    for (const op of ops) {
      if (op.t === "credit") this.add(obj, op.kind, op.cur, op.amt, 0);
      else if (op.t === "debit") this.add(obj, op.kind, op.cur, -op.amt, 0);
      else {
        const h = this.shadowHolds.get(`${obj}|${op.hold}`)!;
        if (h.left === 0 && op.t === "release") continue;
        h.left -= op.amt;
        this.add(obj, h.kind, h.cur, op.t === "release" ? op.amt : 0, -op.amt);
      }
    }
  }

  // ---- the Worker's calls -----------------------------------------------------------------------

  /** Reserves in one call (one transaction); answers false and moves nothing when any is short. */
  private reserve(obj: string, holds: HoldRequest[]): boolean {
    this.count(obj, holds.length > 1 ? "reserveMany" : "reserve");
    const core = this.core(obj);
    const sql = this.sqlOf(obj);
    let ok = true;
    try {
      sql.transaction(() => {
        for (const h of holds) if (core.reserve(h) !== "reserved") throw new Short();
      });
    } catch (e) {
      if (!(e instanceof Short)) throw e;
      ok = false;
    }
    if (!ok) {
      this.insufficient++;
      return false;
    }
    for (const h of holds) {
      this.add(obj, h.kind, h.cur, -h.amt, h.amt);
      this.shadowHolds.set(`${obj}|${h.key}`, { kind: h.kind, cur: h.cur, left: h.amt });
    }
    this.wrote(obj);
    return true;
  }

  /** A pair commits an event with its legs (its delivery round sends them). */
  private commit(pair: number, ev: MoneyEvent): void {
    const name = `pair:${pair}`;
    if (this.core(name).commit(ev) !== "committed") throw new CapacityViolation(`event ${ev.key} committed twice`);
    const row = (this.legsPerAction[this.action] ??= {});
    for (const leg of ev.legs) {
      this.legs[classOf(leg.to)]++;
      row[classOf(leg.to)] = (row[classOf(leg.to)] ?? 0) + 1;
      this.expect(leg.to, 1);
      this.applyShadow(leg.to, leg.ops);
    }
  }

  // ---- delivery -------------------------------------------------------------------------------

  /** One call: the receiver applies the legs in one transaction; its answer acknowledges them. */
  private deliver(from: string, to: string, legs: Leg[]): void {
    this.count(to, "legs");
    this.roundCalls?.set(to, (this.roundCalls.get(to) ?? 0) + 1);
    const results = this.core(to).receive(legs);
    results.forEach((r, i) => {
      if (r !== "applied") throw new CapacityViolation(`${to} answered ${r} to leg ${legs[i]!.key} on its first delivery`);
    });
    this.wrote(to);
    if (this.rnd.chance(this.o.duplicates)) {
      // The answer was lost and the round sends the same legs again: nothing applies twice.
      this.count(to, "legs (again)");
      const again = this.core(to).receive(legs);
      again.forEach((r, i) => {
        if (r !== "seen") throw new CapacityViolation(`${to} answered ${r} to leg ${legs[i]!.key} sent again`);
      });
    }
    this.core(from).acknowledge(legs.map((l) => l.key));
  }

  /** A pair's alarm: every due leg leaves, all of a destination's in one call (bounded). */
  private round(pair: number): void {
    const core = this.core(`pair:${pair}`);
    let sent = 0;
    let steps = 0;
    this.roundCalls = new Map();
    for (let r = core.deliverDue(); r.sent > 0; r = core.deliverDue()) {
      sent += r.sent;
      steps++;
    }
    // The run ends: the answered legs' rows go (the pair's delivery does this when no commit follows at once).
    core.flushAnswered();
    const most = Math.max(0, ...this.roundCalls.values());
    this.roundCalls = null;
    this.steps += steps;
    this.maxSteps = Math.max(this.maxSteps, steps);
    this.destCalls += most;
    this.maxDestCalls = Math.max(this.maxDestCalls, most);
    if (sent > 0) this.rounds++;
  }

  // ---- actions --------------------------------------------------------------------------------

  private pickUser(pair: number): number {
    const perPair = Math.max(1, Math.floor(this.o.accounts / this.o.pairs));
    return pair + this.o.pairs * this.rnd.int(0, perPair - 1);
  }

  private tally(kind: ActionKind): void {
    this.action = kind;
    this.actions[kind] = (this.actions[kind] ?? 0) + 1;
  }

  private fees(pair: number, id: number): string {
    return `fees:${(this.o.shardBy === "pair" ? pair : id) % this.o.shards}`;
  }

  private treasury(pair: number, id: number): string {
    return `treasury:${(this.o.shardBy === "pair" ? pair : id) % this.o.shards}`;
  }

  /** A new order's hold request. */
  private orderHold(o: Order): HoldRequest {
    return { key: o.hold, kind: "spot", cur: o.side === "buy" ? USDT : `B${o.pair}`, amt: o.held, forKind: "spot_order", forId: String(o.id) };
  }

  private newOrder(pair: number, owner: string, side: "buy" | "sell", price: number, qty: number): Order {
    const id = ++this.ids;
    return { id, pair, owner, side, price, qty, hold: `spot_order:${id}`, held: side === "buy" ? qty * price : qty };
  }

  /** The Worker's part of a spot order or a batch: one reserve call, then one pair call. */
  private place(pair: number, orders: Order[], kind: ActionKind): void {
    this.tally(kind);
    if (!this.reserve(orders[0]!.owner, orders.map((o) => this.orderHold(o)))) return;
    this.count(`pair:${pair}`, orders.length > 1 ? "placeMany" : "place");
    this.orders += orders.length;
    for (const o of orders) this.match(o);
  }

  /** Price-time matching on the pair's book; each fill is one trade event (its legs in the outbox). */
  private match(o: Order): void {
    const book = this.books[o.pair]!;
    const against = o.side === "buy" ? book.asks : book.bids;
    while (o.qty > 0 && against.length) {
      const m = against[0]!;
      if (o.side === "buy" ? m.price > o.price : m.price < o.price) break;
      const qty = Math.min(o.qty, m.qty);
      const cost = qty * m.price;
      const buyer = o.side === "buy" ? o : m;
      const seller = o.side === "buy" ? m : o;
      o.qty -= qty;
      m.qty -= qty;
      buyer.held -= cost;
      seller.held -= qty;
      const id = ++this.ids;
      const t: Trade = {
        id: String(id),
        kind: "spot",
        base: `B${o.pair}`,
        quote: USDT,
        buyer: { to: buyer.owner, hold: buyer.hold, rest: buyer.qty === 0 ? buyer.held : 0 },
        seller: { to: seller.owner, hold: seller.hold, rest: seller.qty === 0 ? seller.held : 0 },
        qty,
        cost,
        feeBase: Math.floor((qty * FEE_BPS) / 10_000),
        feeQuote: Math.floor((cost * FEE_BPS) / 10_000),
        fees: this.fees(o.pair, id),
      };
      if (buyer.qty === 0) buyer.held = 0;
      if (seller.qty === 0) seller.held = 0;
      this.commit(o.pair, { key: `trade:${id}`, legs: tradeLegs(t, this.o.mutations) });
      this.trades++;
      if (m.qty === 0) {
        against.shift();
        this.restingByPair[o.pair]!.delete(m.id);
      }
    }
    if (o.qty === 0) return;
    const side = o.side === "buy" ? book.bids : book.asks;
    // Price-time: after every order at this price or better.
    let i = side.length;
    while (i > 0 && (o.side === "buy" ? side[i - 1]!.price < o.price : side[i - 1]!.price > o.price)) i--;
    side.splice(i, 0, o);
    if (!o.owner.startsWith("mm:")) this.restingByPair[o.pair]!.set(o.id, o);
  }

  private userOrder(pair: number, crossing: boolean, owner = this.user(this.pickUser(pair))): Order {
    const side = this.rnd.chance(0.5) ? "buy" : "sell";
    const steps = crossing ? 15 : this.rnd.int(12, 40);
    // A crossing order reaches past the best quote; a resting one waits below the bids / above the asks.
    const price = side === "buy" ? (crossing ? MID + steps : MID - steps) : crossing ? MID - steps : MID + steps;
    return this.newOrder(pair, owner, side, price, this.rnd.int(10, 200) * 100);
  }

  private cancel(pair: number): void {
    const resting = this.restingByPair[pair]!;
    if (resting.size === 0) return;
    this.tally("cancel");
    // The oldest resting user order (a cancel of an id the pair no longer has is a pair call that moves nothing).
    const o = resting.values().next().value as Order;
    this.count(`pair:${pair}`, "cancel");
    resting.delete(o.id);
    const book = this.books[pair]!;
    const side = o.side === "buy" ? book.bids : book.asks;
    side.splice(side.indexOf(o), 1);
    const cur = o.side === "buy" ? USDT : `B${pair}`;
    this.commit(pair, { key: `order:${o.id}:cancel`, legs: releaseLeg(`order:${o.id}:cancel`, o.owner, o.hold, cur, o.held) });
    o.held = 0;
    o.qty = 0;
  }

  /** A contract or a position: the user's stake or margin and the treasury's cover, then the pair. */
  private covered(pair: number, kind: "seconds" | "leverOpen"): void {
    this.tally(kind);
    const user = this.user(this.pickUser(pair));
    const id = ++this.ids;
    const forKind = kind === "seconds" ? "seconds" : "lever_margin";
    const amt = this.rnd.int(10, 100) * 1_000;
    const cover = kind === "seconds" ? Math.floor((amt * 85) / 100) : amt;
    const hold = `${forKind}:${id}`;
    const treasury = this.treasury(pair, id);
    const c: Covered = { id: String(id), cur: USDT, user, kind: kind === "seconds" ? "micro" : "lever", hold, amt, treasury, treasuryHold: hold, treasuryAmt: cover };
    if (!this.reserve(user, [{ key: hold, kind: c.kind, cur: USDT, amt, forKind, forId: c.id }])) return;
    if (!this.reserve(treasury, [{ key: hold, kind: SYSTEM, cur: USDT, amt: cover, forKind, forId: c.id }])) throw new CapacityViolation(`${treasury} ran out`);
    this.count(`pair:${pair}`, kind === "seconds" ? "accept" : "open");
    if (kind === "seconds") this.contracts[pair]!.push({ c, pair, expires: this.second + this.rnd.int(1, 3) });
    else this.positions[pair]!.set(c.id, { c, pair, expires: 0 });
  }

  private leverClose(pair: number): void {
    const open = this.positions[pair]!;
    if (open.size === 0) return;
    this.tally("leverClose");
    const [id, p] = open.entries().next().value as [string, Position];
    open.delete(id);
    this.count(`pair:${pair}`, "close");
    const pnl = this.rnd.int(-p.c.amt, p.c.amt);
    const fee = pnl < 0 ? Math.floor(-pnl / 10) : 0;
    this.commit(pair, { key: `position:${id}:close`, legs: leverCloseLegs(p.c, pnl, fee, this.fees(pair, Number(id)), "close") });
  }

  /** Each second the pair's seconds desk settles what expired: one leg per account (and per treasury shard). */
  private settle(pair: number): void {
    const list = this.contracts[pair]!;
    const due = list.filter((c) => c.expires <= this.second);
    if (due.length === 0) return;
    this.contracts[pair] = list.filter((c) => c.expires > this.second);
    // The legs' keys name the pair (`seconds:{pair}:{second}:{first id}:{account}`): a treasury shard
    // takes the settlements of many pairs in the same second, each applied once.
    const settled = due.map((d) => ({ c: d.c, won: this.rnd.chance(0.45) }));
    this.commit(pair, { key: `seconds:${this.second}`, legs: secondsSettleLegs(`pair:${pair}`, this.second, settled) });
  }

  private transfer(pair: number): void {
    this.tally("transfer");
    const user = this.user(this.pickUser(pair));
    const [from, to] = this.rnd.pick([
      ["spot", "lever"],
      ["lever", "spot"],
      ["spot", "micro"],
      ["micro", "spot"],
    ] as const);
    const key = `transfer:${++this.ids}`;
    const amt = this.rnd.int(1, 100) * 1_000;
    this.count(user, "transfer");
    if (this.core(user).transfer(key, from, to, USDT, amt) !== "moved") {
      this.insufficient++;
      return;
    }
    this.expect(user, 1);
    this.add(user, from, USDT, -amt, 0);
    this.add(user, to, USDT, amt, 0);
    this.wrote(user);
  }

  /** The maker keeps quotes on both sides: a batch of 20 whenever a side runs low. */
  private quote(pair: number): void {
    const book = this.books[pair]!;
    const mm = `mm:${pair % this.o.makers}`;
    const mine = (side: Order[]) => side.reduce((n, o) => n + (o.owner === mm ? 1 : 0), 0);
    if (mine(book.bids) >= QUOTE_LOW && mine(book.asks) >= QUOTE_LOW) return;
    const orders: Order[] = [];
    for (let i = 0; i < QUOTES_PER_SIDE; i++) {
      orders.push(this.newOrder(pair, mm, "buy", MID - 1 - (i % 10), 100 * this.rnd.int(50, 300)));
      orders.push(this.newOrder(pair, mm, "sell", MID + 1 + (i % 10), 100 * this.rnd.int(50, 300)));
    }
    this.place(pair, orders, "quote");
  }

  private act(pair: number): void {
    let r = this.rnd.int(0, 99);
    for (const [kind, weight] of Object.entries(MIX) as [keyof typeof MIX, number][]) {
      if ((r -= weight) >= 0) continue;
      switch (kind) {
        case "cross":
        case "rest":
          return this.place(pair, [this.userOrder(pair, kind === "cross")], kind);
        case "batch": {
          const first = this.userOrder(pair, true);
          const orders = [first];
          for (let i = 1; i < 20; i++) orders.push(this.userOrder(pair, i % 2 === 0, first.owner));
          return this.place(pair, orders, "batch");
        }
        case "cancel":
          return this.cancel(pair);
        case "seconds":
        case "leverOpen":
          return this.covered(pair, kind);
        case "leverClose":
          return this.leverClose(pair);
        case "transfer":
          return this.transfer(pair);
      }
    }
  }

  // ---- the run -------------------------------------------------------------------------------

  run(): void {
    const { pairs, seconds, actionsPerPair, roundMs } = this.o;
    const perMs = new Map<number, number[]>();
    // Each pair's actions at seeded times within each second.
    for (let s = 0; s < seconds; s++)
      for (let p = 0; p < pairs; p++) {
        const n = Math.floor(actionsPerPair) + (this.rnd.chance(actionsPerPair % 1) ? 1 : 0);
        for (let i = 0; i < n; i++) {
          const at = s * 1_000 + this.rnd.int(0, 999);
          const list = perMs.get(at) ?? [];
          list.push(p);
          perMs.set(at, list);
        }
      }
    // Each pair's delivery round at its own phase in the round.
    const phase = Array.from({ length: pairs }, () => this.rnd.int(0, roundMs - 1));
    for (this.now = 0; this.now < seconds * 1_000; this.now++) {
      if (this.now > 0 && this.now % 1_000 === 0) {
        this.closeSecond();
        this.action = "seconds settlement";
        for (let p = 0; p < pairs; p++) this.settle(p);
      }
      for (const p of perMs.get(this.now) ?? []) {
        this.act(p);
        this.quote(p);
      }
      for (let p = 0; p < pairs; p++) if (this.now % roundMs === phase[p]) this.round(p);
      this.runDrains(this.now);
    }
    // The load stops: what is still open settles and every leg arrives.
    this.closeSecond();
    this.second += 10;
    this.action = "seconds settlement";
    for (let p = 0; p < pairs; p++) this.settle(p);
    for (let extra = 0; extra < 3; extra++) {
      for (let p = 0; p < pairs; p++) this.round(p);
      this.now += roundMs;
    }
    for (const at of [...this.drainQueue.keys()].sort((a, b) => a - b)) this.runDrains(at);
    this.closeSecond();
  }

  // ---- the checks ----------------------------------------------------------------------------

  check(): string[] {
    const out: string[] = [];
    const totals = new Map<string, number>();
    const names = [...this.fixed.keys(), ...this.pool.names()];
    let keys = 0;
    const seen = new Set<string>();
    for (const name of names) {
      // An evicted object is read from its kept rows (loading 100,000 objects back costs more than the run).
      const rows = <T,>(table: "money_outbox" | "money_refused" | "money_keys" | "money_balances"): T[] =>
        (this.fixed.has(name) ? undefined : this.pool.storedRows(name, table)) as T[] | undefined ?? this.sqlOf(name).query<T>(`SELECT * FROM ${table}`);
      const outbox = rows("money_outbox").length;
      if (outbox) throw new CapacityViolation(`${name} still has ${outbox} legs in its outbox`);
      if (rows("money_refused").length) throw new CapacityViolation(`${name} refused a leg`);
      const recorded = rows("money_keys").length;
      const expected = this.expectedKeys.get(name) ?? 0;
      // A pair records its own events' keys too: only receivers are counted exactly.
      if (!name.startsWith("pair:") && recorded !== expected) throw new CapacityViolation(`${name} recorded ${recorded} keys, expected ${expected} (each leg once)`);
      keys += recorded;
      for (const b of rows<{ kind: string; currency: string; available: number; frozen: number }>("money_balances")) {
        const k = `${name}|${b.kind}|${b.currency}`;
        seen.add(`${k}|a`).add(`${k}|f`);
        if ((this.shadow.get(`${k}|a`) ?? 0) !== b.available || (this.shadow.get(`${k}|f`) ?? 0) !== b.frozen)
          throw new CapacityViolation(`${k}: the object has ${b.available}/${b.frozen}, its events say ${this.shadow.get(`${k}|a`) ?? 0}/${this.shadow.get(`${k}|f`) ?? 0}`);
        if ((this.readModel.get(`${k}|a`) ?? 0) !== b.available || (this.readModel.get(`${k}|f`) ?? 0) !== b.frozen)
          throw new CapacityViolation(`${k}: the object has ${b.available}/${b.frozen}, the read model ${this.readModel.get(`${k}|a`) ?? 0}/${this.readModel.get(`${k}|f`) ?? 0}`);
        totals.set(b.currency, (totals.get(b.currency) ?? 0) + b.available + b.frozen);
      }
    }
    for (const [k, v] of this.shadow) if (v !== 0 && !seen.has(k)) throw new CapacityViolation(`${k}: its events say ${v}, the object has no such balance`);
    for (const [cur, v] of this.initial) if (totals.get(cur) !== v) throw new CapacityViolation(`${cur} not conserved: ${totals.get(cur)} against ${v}`);
    out.push(`conservation: ${this.initial.size} currencies, every object's total as opened`);
    out.push(`exactly once: ${keys.toLocaleString("en")} keys, each leg recorded once by its receiver; every repeated delivery answered seen`);
    out.push(`balances: every object equals the model of its events, and the read model equals every object`);
    out.push(`${names.length.toLocaleString("en")} objects checked, no outbox left, no leg refused`);
    return out;
  }

  spread(): CapacityResult["spread"] {
    const acc: Record<ObjectClass, { objects: number; calls: number }> = {
      account: { objects: 0, calls: 0 },
      maker: { objects: 0, calls: 0 },
      pair: { objects: 0, calls: 0 },
      fees: { objects: 0, calls: 0 },
      treasury: { objects: 0, calls: 0 },
    };
    for (const [name, n] of this.totalCalls) {
      const a = acc[classOf(name)];
      a.objects++;
      a.calls += n;
    }
    return Object.fromEntries(
      Object.entries(acc).map(([k, a]) => [k, { objects: a.objects, meanPerSecond: a.objects ? a.calls / a.objects / this.o.seconds : 0 }]),
    ) as CapacityResult["spread"];
  }

  poolStats() {
    return this.pool.stats;
  }
}

class Short extends Error {}

/** Runs the load and the checks; throws CapacityViolation when an invariant fails. */
export function runCapacity(opts: Partial<CapacityOptions> = {}): CapacityResult {
  const o = { ...DEFAULTS, ...opts };
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const w = new Capacity(o);
  w.run();
  const checks = w.check();
  const cpu = process.cpuUsage(c0);
  return {
    options: o,
    actions: w.actions,
    orders: w.orders,
    trades: w.trades,
    legs: w.legs,
    calls: w.calls,
    callsPerAction: w.callsPerAction,
    legsPerAction: w.legsPerAction,
    drainsPerSecond: w.drainsPerSecond,
    peak: w.peak,
    spread: w.spread(),
    rounds: w.rounds,
    steps: w.steps,
    maxSteps: w.maxSteps,
    destCalls: w.destCalls,
    maxDestCalls: w.maxDestCalls,
    peakDeliveries: w.peakDeliveries,
    drains: w.drains,
    collectors: [1, 2, 4, 8, 16, 32, 64, 128].map((k) => countCollectors(w.handOvers, k)),
    insufficient: w.insufficient,
    resident: w.poolStats(),
    checks,
    ms: performance.now() - t0,
    cpuMs: (cpu.user + cpu.system) / 1000,
  };
}
