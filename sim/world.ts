/**
 * One simulated schedule: a seeded world of account objects, a pair's desks (spot, seconds,
 * lever), a C2C desk, an earn desk and sharded system accounts (fees, treasury, deposits), each
 * running the real money core (durable/money/) over its own SQLite. The seed picks every action
 * and every fault: crashes (memory lost, SQLite kept) after a commit and after an apply,
 * duplicated, reordered and delayed messages, alarm retries, rolled-back transactions and
 * refused calls. After every step the invariants are checked; after the world goes quiet, the
 * stronger ones (exactly once, holds = reservations, a model of every balance, the read model).
 *
 * The desks here are small stand-ins for the products' rules (matching, settlement, pnl): what is
 * under test is the money they move, through the leg builders of durable/money/legs.ts.
 */
import { MoneyCore, RETRY_BASE_MS, RETRY_CAP_MS, migrateMoney, netByCurrency } from "../durable/money/index.ts";
import {
  SYSTEM,
  depositEvent,
  escrowReleaseLegs,
  escrowReturnLegs,
  interestLegs,
  leverCloseLegs,
  openFeeLegs,
  releaseLeg,
  secondsSettleLegs,
  subscriptionEndLegs,
  tradeLegs,
  type Covered,
  type Escrow,
} from "../durable/money/legs.ts";
import type { Mutations } from "../durable/money/ports.ts";
import type { HoldRequest, Leg, MoneyEvent, Op } from "../durable/money/types.ts";
import { Prng } from "./prng.ts";
import { NodeSql, RolledBack } from "./sqlite.ts";

export const FAULT_KINDS = [
  "crash_after_commit",
  "crash_after_apply",
  "crash",
  "duplicate",
  "reorder",
  "delay",
  "alarm_retry",
  "rollback",
  "overload",
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export interface ScheduleOptions {
  seed: number;
  steps: number;
  mutations?: Mutations;
  /** Called with a line per step, fault, commit and delivery (`npm run sim -- --seed S --trace`). */
  trace?: (line: string) => void;
}

/** Events committed per product (a schedule that moved no money proves little). */
export type EventCounts = Record<string, number>;

export type ScheduleResult =
  | { ok: true; seed: number; faults: Set<FaultKind>; events: EventCounts }
  | { ok: false; seed: number; faults: Set<FaultKind>; events: EventCounts; step: number; failure: string };

/** A broken invariant (or an error no correct run throws): the schedule fails here. */
export class Violation extends Error {}

const USERS = ["u0", "u1", "u2", "u3"];
const PAIR = "pair";
const C2C = "c2c";
const EARN = "earn";
const FEES = ["fees0", "fees1"];
const TREASURY = ["treasury0", "treasury1"];
const DEPOSITS = ["deposits0", "deposits1"];
const OBJECTS = [...USERS, PAIR, C2C, EARN, ...FEES, ...TREASURY, ...DEPOSITS];
const HOLDERS = [...USERS, ...TREASURY];
const USDT = "USDT";
const BTC = "BTC";
/** An open hold older than this is asked about by the orphan sweep. */
const SWEEP_AGE = 3_000;
const SECONDS_MS = 1_000;
const DAY_MS = 1_000;
const C2C_TIMEOUT = 4_000;

/** Fault odds, per chance to fault. */
const P = { overload: 0.05, workerDies: 0.04, rollback: 0.07, crashAfterCommit: 0.07, crashAfterApply: 0.15, duplicate: 0.1, delay: 0.1 };

interface HoldRef {
  obj: string;
  hold: string;
  cur: string;
  left: number;
}
interface Rec {
  product: string;
  status: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  data: any;
}
type Cmd = { t: string; id: string; holds?: HoldRef[]; [k: string]: unknown };
type Msg =
  | { kind: "legs"; from: string; to: string; legs: Leg[]; at: number }
  | { kind: "ack"; from: string; to: string; keys: string[]; at: number }
  | { kind: "cmd"; from: string; to: string; cmd: Cmd; at: number };

/** A contract's or position's open fee (2 % of the stake or margin, at least 1): the user's hold is made with it on top. */
function withOpenFee(holds: (HoldRequest & { obj: string })[], amt: number): number {
  const fee = Math.floor(amt / 50) + 1;
  holds[0]!.amt = amt + fee;
  return fee;
}

/** What every schedule starts from: the opening balances, made once per pool. */
interface Opening {
  shadow: Map<string, number>;
  initial: Map<string, number>;
  totals: Map<string, Map<string, number>>;
}

/**
 * The databases of one process, reused by every schedule it runs: the opening balances are
 * written once, and each schedule runs inside a transaction that is rolled back after it
 * (opening a database and its schema costs more than a whole schedule).
 */
export class Pool {
  readonly sql = new Map<string, NodeSql>();
  readonly rm = new NodeSql();
  opening: Opening | undefined;
  private marked = false;

  constructor() {
    for (const name of OBJECTS) {
      const sql = new NodeSql();
      migrateMoney(sql);
      sql.run("CREATE TABLE sim_records (id TEXT PRIMARY KEY, product TEXT NOT NULL, status TEXT NOT NULL, data TEXT NOT NULL)");
      this.sql.set(name, sql);
    }
    this.rm.db.exec(`CREATE TABLE rm_balances (obj TEXT, kind TEXT, currency TEXT, available INTEGER NOT NULL, frozen INTEGER NOT NULL, PRIMARY KEY (obj, kind, currency)) WITHOUT ROWID;
      CREATE TABLE rm_seen (obj TEXT, seq INTEGER, ref TEXT NOT NULL, kind TEXT, currency TEXT, d_available INTEGER, d_frozen INTEGER, PRIMARY KEY (obj, seq)) WITHOUT ROWID;
      CREATE TRIGGER rm_apply AFTER INSERT ON rm_seen BEGIN
        INSERT INTO rm_balances (obj, kind, currency, available, frozen) VALUES (NEW.obj, NEW.kind, NEW.currency, NEW.d_available, NEW.d_frozen)
          ON CONFLICT DO UPDATE SET available = available + NEW.d_available, frozen = frozen + NEW.d_frozen;
      END`);
  }

  /** Every database back to the opening state, and marked again for the next schedule. */
  reset(): void {
    if (!this.opening) this.opening = new World({ seed: 0, steps: 0 }, this).setup();
    for (const sql of [...this.sql.values(), this.rm]) {
      if (this.marked) sql.restore();
      sql.mark();
    }
    this.marked = true;
  }
}

let shared: Pool | undefined;

/** Runs one schedule; never throws (a failure is the answer's `failure`). */
export function runSchedule(opts: ScheduleOptions, pool: Pool = (shared ??= new Pool())): ScheduleResult {
  pool.reset();
  const w = new World(opts, pool);
  let step = -1;
  try {
    for (step = 0; step < opts.steps; step++) {
      w.step(step);
      w.checkStep();
    }
    step = opts.steps;
    w.quiesce();
    w.checkQuiet();
    return { ok: true, seed: opts.seed, faults: w.faults, events: w.events };
  } catch (e) {
    const failure = e instanceof Violation ? e.message : `unexpected ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`;
    return { ok: false, seed: opts.seed, faults: w.faults, events: w.events, step, failure };
  }
}

/** "trade", "contract settle", "subscription day"…: what an event key says it is. */
function eventName(ev: MoneyEvent): string {
  const [product, id, what] = ev.key.split(":");
  if (id === "refused") return "refused command";
  if (product === "order" && what === "accept") return ev.legs.length ? "order trades" : "order rests";
  return product === "deposit" ? "deposit" : `${product} ${what}`;
}

class World {
  readonly faults = new Set<FaultKind>();
  readonly events: EventCounts = {};
  private readonly rnd: Prng;
  private readonly m: Mutations;
  private now = 1_000_000;
  private calm = false;
  private readonly cores = new Map<string, MoneyCore>();
  private net: Msg[] = [];
  private touched = new Set<string>();
  /** Owners that may have legs in their outbox (the delivery of the quiet phase visits only these). */
  private readonly senders = new Set<string>();
  private ids = 0;
  private readonly issued: Record<string, string[]> = { order: [], position: [], escrow: [], subscription: [], launch: [] };
  // What every balance must be once the world is quiet, kept beside the objects.
  private readonly shadow: Map<string, number> = new Map();
  private readonly shadowHolds = new Map<string, { kind: string; cur: string; left: number }>();
  private readonly committedLegs = new Map<string, string>();
  private readonly initial: Map<string, number> = new Map();
  private readonly totals: Map<string, Map<string, number>> = new Map();
  private readonly outboxes = new Map<string, { key: string; dest: string; net: Map<string, number>; holds: Map<string, number> }[]>();
  /** Per leg's ops, parsed once: the net change per currency, and what it takes from each hold. */
  private readonly nets = new Map<string, { net: Map<string, number>; holds: Map<string, number> }>();

  private readonly pool: Pool;
  private readonly trace: ((line: string) => void) | undefined;

  constructor(opts: ScheduleOptions, pool: Pool) {
    this.pool = pool;
    this.trace = opts.trace;
    this.rnd = new Prng(opts.seed);
    this.m = opts.mutations ?? {};
    for (const name of OBJECTS) this.cores.set(name, this.newCore(name));
    if (pool.opening) {
      this.shadow = new Map(pool.opening.shadow);
      this.initial = new Map(pool.opening.initial);
      this.totals = new Map(pool.opening.totals);
    }
  }

  private count(what: string): void {
    this.events[what] = (this.events[what] ?? 0) + 1;
  }

  private newCore(name: string): MoneyCore {
    return new MoneyCore(name, {
      sql: this.sql(name),
      clock: { now: () => this.now },
      random: { next: () => this.rnd.next() },
      transport: { send: (from, to, legs) => this.send({ kind: "legs", from, to, legs, at: 0 }) },
      mutations: this.m,
    });
  }

  private sql(name: string): NodeSql {
    return this.pool.sql.get(name)!;
  }

  private core(name: string): MoneyCore {
    this.touched.add(name);
    return this.cores.get(name)!;
  }

  private fault(kind: FaultKind, p: number): boolean {
    if (this.calm || !this.rnd.chance(p)) return false;
    this.faults.add(kind);
    this.trace?.(`  fault: ${kind}`);
    return true;
  }

  // ---- the world's start --------------------------------------------------------------------

  /** Opening balances (once per pool): the deposit shards hold the money outside, the treasury its reserve, users some of each. */
  setup(): Opening {
    this.calm = true;
    const opening = (obj: string, rows: [string, string, number][]) =>
      this.sql(obj).transaction(() => rows.forEach(([kind, cur, amt], i) => this.open(obj, `opening:${i}`, kind, cur, amt)));
    for (const d of DEPOSITS)
      opening(d, [
        [SYSTEM, USDT, 100_000_000],
        [SYSTEM, BTC, 10_000_000],
      ]);
    for (const t of TREASURY) opening(t, [[SYSTEM, USDT, 10_000_000]]);
    for (const u of USERS)
      opening(u, [
        ["spot", USDT, 12_000],
        ["spot", BTC, 2_000],
        ["lever", USDT, 4_000],
        ["funding", USDT, 4_000],
      ]);
    for (const obj of OBJECTS) this.drain(obj, 256);
    this.checkStep();
    return { shadow: this.shadow, initial: this.initial, totals: this.totals };
  }

  private open(obj: string, key: string, kind: string, cur: string, amt: number): void {
    this.core(obj).open(key, kind, cur, amt);
    this.add(obj, kind, cur, amt, 0);
    this.initial.set(cur, (this.initial.get(cur) ?? 0) + amt);
  }

  // ---- one step -----------------------------------------------------------------------------

  /** Actions with their weights (out of 100). */
  private readonly actions: [number, string, () => void][] = [
    [12, "place an order", () => this.placeOrder()],
    [3, "cancel an order", () => this.cancelOrder()],
    [4, "open a seconds contract", () => this.openContract()],
    [3, "open a position", () => this.openPosition()],
    [3, "close a position", () => this.closePosition()],
    [2, "open a C2C escrow", () => this.openEscrow()],
    [3, "release or return an escrow", () => this.decideEscrow()],
    [3, "transfer between own accounts", () => this.userTransfer()],
    [2, "subscribe", () => this.subscribe()],
    [1, "redeem a subscription", () => this.redeem()],
    [2, "deposit", () => this.userDeposit()],
    [2, "commit to a launch", () => this.commitLaunch()],
    [2, "claim a launch's locked tokens", () => this.claimLaunch()],
    [29, "deliver a message", () => this.deliverOne()],
    [8, "an alarm", () => void this.alarm(this.rnd.pick(OBJECTS))],
    [8, "a desk's timer", () => this.cron(this.rnd.int(0, 3))],
    [3, "the orphan sweep", () => this.sweep(this.rnd.pick(HOLDERS))],
    [3, "a crash", () => this.crash(this.rnd.pick(OBJECTS), "crash")],
    [4, "a read-model drain", () => void this.drain(this.rnd.pick(OBJECTS), 16)],
    [4, "time jumps", () => void (this.now += this.rnd.int(500, 3_000))],
  ];

  step(i: number): void {
    this.now += this.rnd.int(0, 400);
    let r = this.rnd.int(0, 99);
    for (const [weight, name, run] of this.actions) {
      if ((r -= weight) >= 0) continue;
      this.trace?.(`step ${i} at ${this.now}: ${name} (${this.net.length} messages in flight)`);
      return run();
    }
  }

  private nextId(prefix: string): string {
    return `${prefix}${++this.ids}`;
  }

  /**
   * The Worker's part of opening anything: reserve every hold (a refused call or a shortfall stops
   * it; what was reserved stays as an orphan for the sweep), then send the command to the desk.
   */
  private begin(desk: string, cmd: Cmd, holds: (HoldRequest & { obj: string })[]): void {
    const refs: HoldRef[] = [];
    for (const h of holds) {
      if (this.fault("overload", P.overload)) return;
      const r = this.core(h.obj).reserve(h);
      if (r === "insufficient") return;
      if (r === "reserved") {
        this.add(h.obj, h.kind, h.cur, -h.amt, h.amt);
        this.shadowHolds.set(`${h.obj}|${h.key}`, { kind: h.kind, cur: h.cur, left: h.amt });
      }
      refs.push({ obj: h.obj, hold: h.key, cur: h.cur, left: h.amt });
    }
    if (this.fault("crash", P.workerDies)) return; // the Worker dies before the desk hears of it
    this.send({ kind: "cmd", from: "worker", to: desk, cmd: { ...cmd, holds: refs }, at: 0 });
  }

  private placeOrder(): void {
    const id = this.nextId("o");
    const user = this.rnd.pick(USERS);
    const side = this.rnd.chance(0.5) ? "buy" : "sell";
    const price = this.rnd.int(5, 15);
    const qty = this.rnd.int(10, 100);
    const cur = side === "buy" ? USDT : BTC;
    this.issued.order!.push(id);
    const amt = side === "buy" ? price * qty : qty;
    this.begin(PAIR, { t: "place", id, user, side, price, qty }, [{ obj: user, key: `order:${id}`, kind: "spot", cur, amt, forKind: "order", forId: id }]);
  }

  private cancelOrder(): void {
    if (this.issued.order!.length === 0) return;
    this.send({ kind: "cmd", from: "worker", to: PAIR, cmd: { t: "cancel", id: this.rnd.pick(this.issued.order!) }, at: 0 });
  }

  /** A product whose user hold is covered by a treasury hold (contracts, positions, subscriptions). */
  private covered(prefix: string, forKind: string, kind: string, amt: number, cover: number): { c: Covered; holds: (HoldRequest & { obj: string })[] } {
    const id = this.nextId(prefix);
    const user = this.rnd.pick(USERS);
    const treasury = TREASURY[this.ids % 2]!;
    const hold = `${forKind}:${id}`;
    const c: Covered = { id, cur: USDT, user, kind, hold, amt, treasury, treasuryHold: hold, treasuryAmt: cover };
    return {
      c,
      holds: [
        { obj: user, key: hold, kind, cur: USDT, amt, forKind, forId: id },
        { obj: treasury, key: hold, kind: SYSTEM, cur: USDT, amt: cover, forKind, forId: id },
      ],
    };
  }

  private openContract(): void {
    const stake = this.rnd.int(50, 500);
    const { c, holds } = this.covered("c", "contract", "spot", stake, Math.floor((stake * 4) / 5));
    this.begin(PAIR, { t: "contract", id: c.id, c, fee: withOpenFee(holds, stake) }, holds);
  }

  private openPosition(): void {
    const margin = this.rnd.int(50, 500);
    const { c, holds } = this.covered("p", "position", "lever", margin, margin);
    this.issued.position!.push(c.id);
    this.begin(PAIR, { t: "position", id: c.id, c, fee: withOpenFee(holds, margin) }, holds);
  }

  /**
   * The desk accepts a contract or a position: its open fee leaves the user's hold for a fee shard in
   * the acceptance's event (openFeeLegs), and the record reserves the rest (the stake or margin,
   * which the settle or close resolves).
   */
  private acceptCovered(cmd: Cmd, product: string, data: Record<string, unknown>): boolean {
    const c = cmd.c as Covered;
    const fee = cmd.fee as number;
    const key = `${product}:${cmd.id}:open`;
    const holds = cmd.holds!.map((h) => (h.obj === c.user && h.hold === c.hold ? { ...h, left: h.left - fee } : h));
    return this.commit(PAIR, { key, legs: openFeeLegs(key, c, fee, FEES[Number(cmd.id.slice(1)) % 2]!) }, () => this.put(PAIR, cmd.id, product, "open", { c, holds, ...data }));
  }

  private closePosition(): void {
    if (this.issued.position!.length === 0) return;
    this.send({ kind: "cmd", from: "worker", to: PAIR, cmd: { t: "close", id: this.rnd.pick(this.issued.position!) }, at: 0 });
  }

  private openEscrow(): void {
    const id = this.nextId("e");
    const seller = this.rnd.pick(USERS);
    const buyer = this.rnd.pick(USERS.filter((u) => u !== seller));
    const amt = this.rnd.int(50, 500);
    const e: Escrow = { id, cur: USDT, seller, buyer, kind: "funding", hold: `escrow:${id}`, amt };
    this.issued.escrow!.push(id);
    this.begin(C2C, { t: "escrow", id, e }, [{ obj: seller, key: e.hold, kind: "funding", cur: USDT, amt, forKind: "escrow", forId: id }]);
  }

  private decideEscrow(): void {
    if (this.issued.escrow!.length === 0) return;
    this.send({ kind: "cmd", from: "worker", to: C2C, cmd: { t: this.rnd.chance(0.7) ? "release" : "return", id: this.rnd.pick(this.issued.escrow!) }, at: 0 });
  }

  private subscribe(): void {
    const principal = this.rnd.int(100, 1_000);
    const days = this.rnd.int(1, 3);
    const daily = Math.floor(principal / 100) + 1;
    const { c, holds } = this.covered("s", "subscription", "spot", principal, days * daily);
    this.issued.subscription!.push(c.id);
    this.begin(EARN, { t: "subscribe", id: c.id, c, days, daily }, holds);
  }

  /** A launch commitment: the user's payment held, and the treasury's tokens for it (a launch's reserve). */
  private commitLaunch(): void {
    const amt = this.rnd.int(100, 1_000);
    const { c, holds } = this.covered("l", "launch", "spot", amt, amt);
    this.issued.launch!.push(c.id);
    this.begin(EARN, { t: "launch", id: c.id, c }, holds);
  }

  private claimLaunch(): void {
    if (this.issued.launch!.length === 0) return;
    this.send({ kind: "cmd", from: "worker", to: EARN, cmd: { t: "claim", id: this.rnd.pick(this.issued.launch!) }, at: 0 });
  }

  /**
   * A launch settles (price 1): the cost spent from the payment's hold and the rest released; the
   * tokens allocated are credited straight into a new hold of the user's (the money core's `lock`
   * op: locked until claimed); the treasury takes the cost, spends the tokens from its reserve and
   * releases the rest.
   */
  private allotLaunch(id: string, r: Rec): boolean {
    const c = r.data.c as Covered;
    const alloc = Math.floor((c.amt * this.rnd.int(0, 100)) / 100);
    const locked = `locked:${id}`;
    const user: Op[] = [
      { t: "spend", hold: c.hold, cur: c.cur, amt: alloc },
      { t: "release", hold: c.hold, cur: c.cur, amt: c.amt - alloc },
    ];
    if (alloc > 0) user.push({ t: "lock", hold: locked, kind: c.kind, cur: c.cur, amt: alloc, forKind: "locked", forId: id });
    const house: Op[] = [
      { t: "credit", kind: SYSTEM, cur: c.cur, amt: alloc },
      { t: "spend", hold: c.treasuryHold, cur: c.cur, amt: alloc },
      { t: "release", hold: c.treasuryHold, cur: c.cur, amt: c.treasuryAmt - alloc },
    ];
    const legs: Leg[] = [
      { key: `launch:${id}:allot:user`, to: c.user, ops: user.filter((op) => op.amt > 0) },
      { key: `launch:${id}:allot:treasury`, to: c.treasury, ops: house.filter((op) => op.amt > 0) },
    ];
    const holds: HoldRef[] = alloc > 0 ? [{ obj: c.user, hold: locked, cur: c.cur, left: alloc }] : [];
    return this.commit(EARN, { key: `launch:${id}:allot`, legs }, () => this.put(EARN, id, "launch", alloc > 0 ? "open" : "allotted", { ...r.data, phase: "locked", alloc, holds }));
  }

  private redeem(): void {
    if (this.issued.subscription!.length === 0) return;
    this.send({ kind: "cmd", from: "worker", to: EARN, cmd: { t: "redeem", id: this.rnd.pick(this.issued.subscription!) }, at: 0 });
  }

  private userTransfer(): void {
    const user = this.rnd.pick(USERS);
    const [from, to] = this.rnd.pick([
      ["spot", "lever"],
      ["lever", "spot"],
      ["spot", "funding"],
      ["funding", "spot"],
    ] as const);
    const key = this.nextId("t");
    const amt = this.rnd.int(50, 2_000);
    if (this.fault("overload", P.overload)) return;
    this.transfer(user, key, from, to, USDT, amt);
    // The client retries with the same key (its answer was lost): nothing moves twice.
    if (this.fault("duplicate", P.duplicate)) this.transfer(user, key, from, to, USDT, amt);
  }

  private transfer(user: string, key: string, from: string, to: string, cur: string, amt: number): void {
    if (this.core(user).transfer(key, from, to, cur, amt) !== "moved") return;
    this.count("transfer");
    this.add(user, from, cur, -amt, 0);
    this.add(user, to, cur, amt, 0);
  }

  private userDeposit(): void {
    this.deposit(this.rnd.pick(DEPOSITS), this.rnd.pick(USERS), this.rnd.chance(0.5) ? USDT : BTC, this.rnd.int(100, 5_000));
  }

  private deposit(shard: string, user: string, cur: string, amt: number): void {
    this.commit(shard, depositEvent(this.nextId("d"), user, "spot", cur, amt));
  }

  // ---- desks --------------------------------------------------------------------------------

  private rec(desk: string, id: string): Rec | undefined {
    const row = this.sql(desk).query<{ product: string; status: string; data: string }>("SELECT product, status, data FROM sim_records WHERE id = ?", id)[0];
    return row && { product: row.product, status: row.status, data: JSON.parse(row.data) };
  }

  private put(desk: string, id: string, product: string, status: string, data: unknown): void {
    this.sql(desk).run("INSERT OR REPLACE INTO sim_records (id, product, status, data) VALUES (?, ?, ?, ?)", id, product, status, JSON.stringify(data));
  }

  private open_(desk: string, product: string): { id: string; data: Rec["data"] }[] {
    return this.sql(desk)
      .query<{ id: string; data: string }>("SELECT id, data FROM sim_records WHERE product = ? AND status = 'open'", product)
      .map((r) => ({ id: r.id, data: JSON.parse(r.data) }));
  }

  /**
   * An owner commits an event (with its own writes) in one transaction, then sends its legs.
   * Faults: the transaction rolls back; the owner crashes after the commit, before sending.
   * Answers false when the transaction rolled back (the caller retries).
   */
  private commit(owner: string, ev: MoneyEvent, write?: () => void): boolean {
    if (this.fault("rollback", P.rollback)) this.sql(owner).failNextCommit = true;
    let r: "committed" | "exists";
    try {
      r = this.core(owner).commit(ev, write);
    } catch (e) {
      if (e instanceof RolledBack) return false;
      throw e;
    }
    if (r === "exists") return true;
    this.senders.add(owner);
    this.trace?.(`  ${owner} commits ${ev.key}: ${ev.legs.map((l) => `${l.key} → ${l.to}`).join(", ") || "no legs"}`);
    this.count(eventName(ev));
    this.applyShadow(owner, ev.local ?? []);
    for (const leg of ev.legs) {
      this.committedLegs.set(leg.key, leg.to);
      this.applyShadow(leg.to, leg.ops);
    }
    if (this.fault("crash_after_commit", P.crashAfterCommit)) this.crash(owner, "crash_after_commit");
    else this.core(owner).deliverDue();
    return true;
  }

  /** A desk takes a command; false when its transaction rolled back (the caller sends it again). */
  private handle(desk: string, cmd: Cmd): boolean {
    const known = this.rec(desk, cmd.id);
    if (cmd.holds) {
      if (known?.status === "tombstone") {
        // The sweep gave up on this id and released its holds; the desk refuses it and releases
        // them again, which a resolved hold answers without moving anything.
        const legs = cmd.holds.flatMap((h, i) => releaseLeg(`${cmd.id}:refused:${i}`, h.obj, h.hold, h.cur, h.left));
        return this.commit(desk, { key: `${cmd.id}:refused`, legs });
      }
      if (known) return true; // a duplicate of a command already taken
    }
    switch (cmd.t) {
      case "place":
        return this.match(cmd);
      case "contract":
        return this.acceptCovered(cmd, "contract", { expires: this.now + SECONDS_MS });
      case "position":
        return this.acceptCovered(cmd, "position", {});
      case "escrow":
        return this.commit(C2C, { key: `escrow:${cmd.id}:open`, legs: [] }, () => this.put(C2C, cmd.id, "escrow", "open", { e: cmd.e, holds: cmd.holds, at: this.now }));
      case "subscribe":
        return this.commit(EARN, { key: `subscription:${cmd.id}:open`, legs: [] }, () =>
          this.put(EARN, cmd.id, "subscription", "open", { c: cmd.c, holds: cmd.holds, start: this.now, days: cmd.days, daily: cmd.daily, paid: 0 }),
        );
      case "cancel": {
        if (known?.status !== "open") return true;
        const h = known.data.holds[0] as HoldRef;
        return this.commit(PAIR, { key: `order:${cmd.id}:cancel`, legs: releaseLeg(`order:${cmd.id}:cancel`, h.obj, h.hold, h.cur, h.left) }, () =>
          this.put(PAIR, cmd.id, "order", "cancelled", { ...known.data, holds: [{ ...h, left: 0 }] }),
        );
      }
      case "close":
        if (known?.status !== "open") return true;
        return this.closePositionAt(cmd.id, known, this.rnd.int(-known.data.c.amt, known.data.c.amt), "close");
      case "release":
      case "return": {
        if (known?.status !== "open") return true;
        const e = known.data.e as Escrow;
        const legs = cmd.t === "release" ? escrowReleaseLegs(e) : escrowReturnLegs(e);
        return this.commit(C2C, { key: `escrow:${cmd.id}:${cmd.t}`, legs }, () => this.put(C2C, cmd.id, "escrow", cmd.t, { ...known.data, holds: [] }));
      }
      case "redeem":
        if (known?.status !== "open") return true;
        return this.endSubscription(cmd.id, known);
      case "launch":
        return this.commit(EARN, { key: `launch:${cmd.id}:open`, legs: [] }, () => this.put(EARN, cmd.id, "launch", "open", { c: cmd.c, holds: cmd.holds, phase: "committed", at: this.now }));
      case "claim": {
        if (known?.status !== "open" || known.data.phase !== "locked") return true;
        // The lock must have landed first (a release of a hold not yet made is refused): the claim waits while its allocation is in the outbox.
        if (this.sql(EARN).query("SELECT 1 FROM money_outbox WHERE key = ?", `launch:${cmd.id}:allot:user`).length > 0) return true;
        const c = known.data.c as Covered;
        return this.commit(EARN, { key: `launch:${cmd.id}:claim`, legs: releaseLeg(`launch:${cmd.id}:claim`, c.user, `locked:${cmd.id}`, c.cur, known.data.alloc) }, () =>
          this.put(EARN, cmd.id, "launch", "claimed", { ...known.data, holds: [] }),
        );
      }
    }
    throw new Violation(`unknown command ${cmd.t}`);
  }

  /** The spot desk: a new order trades with resting ones at their price, then rests or ends. */
  private match(cmd: Cmd): boolean {
    // Copies: a rolled-back match leaves the command as it came, for the retry.
    const taker = { user: cmd.user as string, side: cmd.side as string, price: cmd.price as number, qty: cmd.qty as number, holds: cmd.holds!.map((h) => ({ ...h })) };
    const book = this.open_(PAIR, "order")
      .filter((o) => o.data.side !== taker.side && (taker.side === "buy" ? o.data.price <= taker.price : o.data.price >= taker.price))
      .sort((a, b) => (taker.side === "buy" ? a.data.price - b.data.price : b.data.price - a.data.price));
    const legs: Leg[] = [];
    const makers: { id: string; data: Rec["data"]; done: boolean }[] = [];
    let n = 0;
    for (const maker of book) {
      if (taker.qty === 0) break;
      const qty = Math.min(taker.qty, maker.data.qty);
      const price = maker.data.price as number;
      const cost = price * qty;
      const [buyer, seller] = taker.side === "buy" ? [taker, maker.data] : [maker.data, taker];
      buyer.qty -= qty;
      seller.qty -= qty;
      const bh = buyer.holds[0] as HoldRef;
      const sh = seller.holds[0] as HoldRef;
      bh.left -= cost;
      sh.left -= qty;
      const id = `${cmd.id}.${++n}`;
      legs.push(
        ...tradeLegs(
          {
            id,
            kind: "spot",
            base: BTC,
            quote: USDT,
            buyer: { to: buyer.user, hold: bh.hold, rest: buyer.qty === 0 ? bh.left : 0 },
            seller: { to: seller.user, hold: sh.hold, rest: seller.qty === 0 ? sh.left : 0 },
            qty,
            cost,
            feeBase: Math.floor(qty / 50),
            feeQuote: Math.floor(cost / 50),
            fees: FEES[(this.ids + n) % 2]!,
          },
          this.m,
        ),
      );
      if (buyer.qty === 0) bh.left = 0;
      if (seller.qty === 0) sh.left = 0;
      makers.push({ id: maker.id, data: maker.data, done: maker.data.qty === 0 });
    }
    return this.commit(PAIR, { key: `order:${cmd.id}:accept`, legs }, () => {
      for (const mk of makers) this.put(PAIR, mk.id, "order", mk.done ? "filled" : "open", mk.data);
      this.put(PAIR, cmd.id, "order", taker.qty === 0 ? "filled" : "open", taker);
    });
  }

  private closePositionAt(id: string, r: Rec, pnl: number, why: "close" | "liquidation"): boolean {
    const c = r.data.c as Covered;
    const fee = why === "liquidation" ? Math.floor(c.amt / 20) : 0;
    return this.commit(PAIR, { key: `position:${id}:end`, legs: leverCloseLegs(c, pnl, fee, FEES[this.ids % 2]!, why) }, () =>
      this.put(PAIR, id, "position", why, { ...r.data, holds: [] }),
    );
  }

  private endSubscription(id: string, r: Rec): boolean {
    const c = r.data.c as Covered;
    const left = (r.data.days - r.data.paid) * r.data.daily;
    return this.commit(EARN, { key: `subscription:${id}:end`, legs: subscriptionEndLegs(c, left) }, () => this.put(EARN, id, "subscription", "ended", { ...r.data, holds: [] }));
  }

  /** The desks' timers: seconds settle, liquidations, interest days, C2C timeouts (an alarm may fire twice). */
  private cron(which: number): void {
    if (which === 0) {
      // Contracts settle per expiry second, once the second is over: one event, one leg per account.
      const bySecond = new Map<number, { id: string; data: Rec["data"] }[]>();
      for (const o of this.open_(PAIR, "contract")) {
        const second = Math.floor(o.data.expires / SECONDS_MS);
        if ((second + 1) * SECONDS_MS > this.now) continue;
        bySecond.set(second, [...(bySecond.get(second) ?? []), o]);
      }
      for (const [second, due] of bySecond) {
        const settled = due.map((o) => ({ c: o.data.c as Covered, won: this.rnd.chance(0.45) }));
        const done = this.commit(PAIR, { key: `seconds:${second}:settle`, legs: secondsSettleLegs(PAIR, second, settled) }, () => {
          for (const o of due) this.put(PAIR, o.id, "contract", "settled", { ...o.data, holds: [] });
        });
        if (done) for (let i = 0; i < due.length; i++) this.count("contract settled");
      }
    }
    if (which === 1) for (const o of this.open_(PAIR, "position")) if (this.rnd.chance(0.3)) this.closePositionAt(o.id, { product: "position", status: "open", data: o.data }, -o.data.c.amt, "liquidation");
    if (which === 2)
      for (const o of this.open_(EARN, "subscription")) {
        const due = Math.min(o.data.days, Math.floor((this.now - o.data.start) / DAY_MS));
        let data = o.data;
        for (let day = data.paid + 1; day <= due; day++) {
          const c = data.c as Covered;
          const holds = (data.holds as HoldRef[]).map((h) => (h.obj === c.treasury ? { ...h, left: h.left - data.daily } : h));
          const next = { ...data, paid: day, holds };
          if (!this.commit(EARN, { key: `subscription:${o.id}:day:${day}`, legs: interestLegs(c, day, data.daily) }, () => this.put(EARN, o.id, "subscription", "open", next))) break;
          data = next;
        }
        if (data.paid === data.days) this.endSubscription(o.id, { product: "subscription", status: "open", data });
      }
    if (which === 2)
      for (const o of this.open_(EARN, "launch")) if (o.data.phase === "committed" && this.now - o.data.at > 500) this.allotLaunch(o.id, { product: "launch", status: "open", data: o.data });
    if (which === 3)
      for (const o of this.open_(C2C, "escrow"))
        if (this.now - o.data.at > C2C_TIMEOUT)
          this.commit(C2C, { key: `escrow:${o.id}:return`, legs: escrowReturnLegs(o.data.e) }, () => this.put(C2C, o.id, "escrow", "timeout", { ...o.data, holds: [] }));
  }

  // ---- delivery, alarms, crashes, the sweep, the read model ----------------------------------

  private send(msg: Msg): void {
    msg.at = this.fault("delay", P.delay) ? this.now + this.rnd.int(300, 6_000) : this.now;
    this.net.push(msg);
  }

  /** Delivers one message that is due: any of them (reordered), maybe twice, maybe refused. */
  private deliverOne(): void {
    const due: number[] = [];
    this.net.forEach((m, i) => m.at <= this.now && due.push(i));
    if (due.length === 0) return;
    const i = this.rnd.pick(due);
    if (i !== due[0]) this.faults.add("reorder");
    this.deliver(i);
  }

  private deliver(i: number): void {
    const msg = this.net[i]!;
    this.trace?.(`  deliver ${msg.kind} ${msg.from} → ${msg.to}: ${msg.kind === "legs" ? msg.legs.map((l) => l.key).join(", ") : msg.kind === "ack" ? msg.keys.join(", ") : `${msg.cmd.t} ${msg.cmd.id}`}`);
    if (this.fault("duplicate", P.duplicate)) this.net.push({ ...msg });
    this.net.splice(i, 1);
    if (this.fault("overload", P.overload)) return; // the receiver refused the call
    if (msg.kind === "ack") return this.core(msg.to).acknowledge(msg.keys);
    if (msg.kind === "cmd") {
      // A command whose transaction rolled back is sent again by its caller.
      if (!this.handle(msg.to, msg.cmd)) this.net.push(msg);
      return;
    }
    if (this.fault("rollback", P.rollback)) this.sql(msg.to).failNextCommit = true;
    let results;
    try {
      results = this.core(msg.to).receive(msg.legs);
    } catch (e) {
      if (e instanceof RolledBack) return; // no answer: the sender's alarm sends it again
      throw e;
    }
    results.forEach((r, j) => {
      if (r === "refused") throw new Violation(`${msg.to} refused leg ${msg.legs[j]!.key}: ${this.cores.get(msg.to)!.refused().find((x) => x.key === msg.legs[j]!.key)?.reason}`);
    });
    if (this.fault("crash_after_apply", P.crashAfterApply)) return this.crash(msg.to, "crash_after_apply");
    this.send({ kind: "ack", from: msg.to, to: msg.from, keys: msg.legs.map((l) => l.key), at: 0 });
  }

  /** The object's alarm runs its delivery loop; answers how many legs left. */
  private alarm(obj: string): number {
    // The answered legs' rows go first (the pair deletes them with its next write, or when a delivery run ends).
    this.cores.get(obj)!.flushAnswered();
    const { sent, retries } = this.cores.get(obj)!.deliverDue();
    if (sent > 0) this.touched.add(obj);
    if (retries > 0) this.faults.add("alarm_retry");
    return sent;
  }

  /** Memory is lost, SQLite is kept: the object starts again from its storage. */
  private crash(obj: string, kind: FaultKind): void {
    this.faults.add(kind);
    this.cores.set(obj, this.newCore(obj));
  }

  /** Releases open holds whose owner never took them (the owner tombstones the id first). */
  private sweep(obj: string): void {
    for (const h of this.core(obj).openHolds(this.now - SWEEP_AGE)) {
      const desk = h.for_kind === "escrow" ? C2C : h.for_kind === "subscription" || h.for_kind === "launch" || h.for_kind === "locked" ? EARN : PAIR;
      const known = this.rec(desk, h.for_id);
      if (known && known.status !== "tombstone") continue;
      if (!known) this.put(desk, h.for_id, h.for_kind, "tombstone", {});
      if (this.core(obj).releaseRest(`sweep:${h.hold}`, h.hold) !== "released") continue;
      this.applyShadow(obj, [{ t: "release", hold: h.hold, cur: h.currency, amt: h.amount - h.spent - h.released }]);
      this.count("orphan hold released");
    }
  }

  /** Feeds the read model from an object's movements: idempotent by (object, seq), so a re-send adds nothing. */
  private drain(obj: string, limit: number): number {
    const rows = this.cores.get(obj)!.undrained().slice(0, limit);
    if (rows.length === 0) return 0;
    const rm = this.pool.rm;
    rm.transaction(() => {
      // A movement seen before is ignored, and the trigger adds only what is inserted.
      for (const r of rows)
        rm.run("INSERT INTO rm_seen VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING", obj, r.seq, r.ref, r.kind, r.currency, r.d_available, r.d_frozen);
    });
    if (this.fault("crash", P.crashAfterCommit)) {
      this.crash(obj, "crash");
      return rows.length;
    }
    this.cores.get(obj)!.markDrained(rows[rows.length - 1]!.seq);
    return rows.length;
  }

  private deliverAll(): void {
    for (let round = 0; round < 100; round++) {
      let sent = 0;
      for (const obj of this.senders) sent += this.alarm(obj);
      while (this.net.length) {
        this.now = Math.max(this.now, Math.min(...this.net.map((m) => m.at)));
        this.deliver(this.net.findIndex((m) => m.at <= this.now));
        sent++;
      }
      if (sent === 0) {
        for (const obj of this.senders) if (this.sql(obj).query("SELECT 1 FROM money_outbox LIMIT 1").length === 0) this.senders.delete(obj);
        if (this.senders.size === 0) return;
      }
      this.now += RETRY_CAP_MS + RETRY_BASE_MS;
    }
    throw new Violation("the world did not go quiet after 100 rounds of delivery");
  }

  /** No new actions, no faults: time passes, the sweep runs, every leg and ack is delivered. */
  quiesce(): void {
    this.calm = true;
    this.trace?.(`the world goes quiet at ${this.now} (${this.net.length} messages in flight)`);
    // What is due now arrives; then time passes and the sweep runs before what was delayed: a
    // command still in flight finds its id tombstoned and its holds released.
    for (let i = this.net.findIndex((m) => m.at <= this.now); i >= 0; i = this.net.findIndex((m) => m.at <= this.now)) this.deliver(i);
    this.now += 10_000;
    for (const obj of HOLDERS) this.sweep(obj);
    this.deliverAll();
    // The timers fire once more: contracts settle, positions may be liquidated, days are paid
    // (C2C timeouts are left to the steps, so open escrows stay to be checked against their holds).
    for (let which = 0; which < 3; which++) this.cron(which);
    this.deliverAll();
    // Half of the launches whose tokens are locked now claim them (their allocation has landed).
    for (const o of this.open_(EARN, "launch")) if (o.data.phase === "locked" && this.rnd.chance(0.5)) this.handle(EARN, { t: "claim", id: o.id });
    this.deliverAll();
    for (const obj of OBJECTS) while (this.drain(obj, 256) === 256);
    this.checkStep();
  }

  // ---- the model of every balance ----------------------------------------------------------

  private add(obj: string, kind: string, cur: string, dAvailable: number, dFrozen: number): void {
    const k = `${obj}|${kind}|${cur}`;
    this.shadow.set(`${k}|a`, (this.shadow.get(`${k}|a`) ?? 0) + dAvailable);
    this.shadow.set(`${k}|f`, (this.shadow.get(`${k}|f`) ?? 0) + dFrozen);
  }

  /** The ops as a correct core applies them (a release of a resolved hold moves nothing). */
  private applyShadow(obj: string, ops: readonly Op[]): void {
    for (const op of ops) {
      if (op.t === "credit") this.add(obj, op.kind, op.cur, op.amt, 0);
      else if (op.t === "debit") this.add(obj, op.kind, op.cur, -op.amt, 0);
      else if (op.t === "lock") {
        this.add(obj, op.kind, op.cur, 0, op.amt);
        this.shadowHolds.set(`${obj}|${op.hold}`, { kind: op.kind, cur: op.cur, left: op.amt });
      }
      else {
        const h = this.shadowHolds.get(`${obj}|${op.hold}`);
        if (!h || (h.left === 0 && op.t === "release")) continue;
        h.left -= op.amt;
        this.add(obj, h.kind, h.cur, op.t === "release" ? op.amt : 0, -op.amt);
      }
    }
  }

  // ---- invariants ---------------------------------------------------------------------------

  /**
   * After every step, over the objects the step touched (the others did not change): no balance
   * or hold below zero, frozen = the open holds, and per currency the objects plus the legs still in
   * flight (in an outbox, not yet applied by their receiver) are constant.
   */
  checkStep(): void {
    for (const obj of this.touched) {
      const sql = this.sql(obj);
      const t = new Map<string, number>();
      for (const b of sql.query<{ kind: string; currency: string; available: number; frozen: number; held: number; least: number | null }>(
        "SELECT kind, currency, available, frozen, (SELECT COALESCE(SUM(amount - spent - released), 0) FROM money_holds h WHERE h.state = 'open' AND h.kind = b.kind AND h.currency = b.currency) AS held, (SELECT MIN(amount - spent - released) FROM money_holds) AS least FROM money_balances b",
      )) {
        if (b.available < 0 || b.frozen < 0) throw new Violation(`${obj} ${b.kind} ${b.currency} below zero: ${b.available}/${b.frozen}`);
        if (b.least !== null && b.least < 0) throw new Violation(`${obj} has a hold below zero: ${b.least}`);
        if (b.frozen !== b.held) throw new Violation(`${obj} ${b.kind} ${b.currency}: frozen ${b.frozen} but its open holds are ${b.held}`);
        t.set(b.currency, (t.get(b.currency) ?? 0) + b.available + b.frozen);
      }
      this.totals.set(obj, t);
      this.outboxes.set(
        obj,
        sql.query<{ key: string; dest: string; ops: string }>("SELECT key, dest, ops FROM money_outbox").map((r) => {
          let parsed = this.nets.get(r.ops);
          if (!parsed) {
            const ops = JSON.parse(r.ops) as Op[];
            const holds = new Map<string, number>();
            // A lock in flight makes a hold its record already counts: what it will add is taken off.
            for (const op of ops)
              if (op.t === "spend" || op.t === "release") holds.set(op.hold, (holds.get(op.hold) ?? 0) + op.amt);
              else if (op.t === "lock") holds.set(op.hold, (holds.get(op.hold) ?? 0) - op.amt);
            this.nets.set(r.ops, (parsed = { net: netByCurrency(ops), holds }));
          }
          return { key: r.key, dest: r.dest, ...parsed };
        }),
      );
    }
    const desks = [PAIR, C2C, EARN].filter((d) => this.touched.has(d));
    this.touched.clear();
    for (const desk of desks) this.checkReservations(desk);
    const sum = new Map<string, number>();
    for (const t of this.totals.values()) for (const [cur, v] of t) sum.set(cur, (sum.get(cur) ?? 0) + v);
    for (const rows of this.outboxes.values())
      for (const r of rows) {
        if (r.net.size === 0 || this.sql(r.dest).query("SELECT 1 FROM money_keys WHERE key = ?", r.key).length > 0) continue;
        for (const [cur, v] of r.net) sum.set(cur, (sum.get(cur) ?? 0) + v);
      }
    for (const [cur, v] of this.initial)
      if (sum.get(cur) !== v) throw new Violation(`${cur} not conserved: objects + legs in flight = ${sum.get(cur)}, expected ${v}`);
  }

  /**
   * A desk whose records changed: each open reservation's holds have exactly what it has left
   * plus what its legs still in flight will take from them.
   */
  private checkReservations(desk: string): void {
    const inFlight = new Map<string, number>();
    for (const r of this.outboxes.get(desk) ?? [])
      if (r.holds.size && !this.sql(r.dest).query("SELECT 1 FROM money_keys WHERE key = ?", r.key).length)
        for (const [hold, amt] of r.holds) inFlight.set(`${r.dest}|${hold}`, (inFlight.get(`${r.dest}|${hold}`) ?? 0) + amt);
    for (const r of this.sql(desk).query<{ id: string; data: string }>("SELECT id, data FROM sim_records WHERE status = 'open'"))
      for (const h of JSON.parse(r.data).holds as HoldRef[]) {
        const expected = h.left + (inFlight.get(`${h.obj}|${h.hold}`) ?? 0);
        if (expected === 0) continue;
        const row = this.cores.get(h.obj)!.hold(h.hold);
        const left = row && row.state === "open" ? row.amount - row.spent - row.released : 0;
        if (left !== expected) throw new Violation(`${r.id} reserves ${h.left} (+${expected - h.left} in flight) in ${h.obj}'s hold ${h.hold}, which has ${left}`);
      }
  }

  /** Once quiet: every leg applied exactly once, holds = what they reserve for, the model, the read model. */
  checkQuiet(): void {
    if (this.net.length) throw new Violation(`${this.net.length} messages still in flight after the drain`);
    for (const obj of OBJECTS) {
      const q = this.sql(obj).query<{ outbox: number; refused: number; stuck: number }>(
        "SELECT (SELECT COUNT(*) FROM money_outbox) AS outbox, (SELECT COUNT(*) FROM money_refused) AS refused, (SELECT COUNT(*) FROM money_holds WHERE state = 'open' AND amount - spent - released <= 0) AS stuck",
      )[0]!;
      if (q.outbox > 0) throw new Violation(`${obj} still has ${q.outbox} legs in its outbox after the drain`);
      if (q.refused > 0) throw new Violation(`${obj} refused a leg: ${this.cores.get(obj)!.refused()[0]!.reason}`);
      if (q.stuck > 0) throw new Violation(`${obj} has an open hold with nothing left`);
    }
    for (const [key, dest] of this.committedLegs) if (!this.cores.get(dest)!.hasKey(key)) throw new Violation(`leg ${key} was never applied by ${dest}`);
    const dup = this.pool.rm.query<{ obj: string; ref: string }>("SELECT obj, ref FROM rm_seen GROUP BY obj, ref HAVING COUNT(*) > 1 LIMIT 1")[0];
    if (dup) throw new Violation(`${dup.obj} applied ${dup.ref} more than once`);
    this.checkHolds();
    const rm = new Map<string, number>();
    for (const r of this.pool.rm.query<{ obj: string; kind: string; currency: string; available: number; frozen: number }>("SELECT * FROM rm_balances")) {
      rm.set(`${r.obj}|${r.kind}|${r.currency}|a`, r.available);
      rm.set(`${r.obj}|${r.kind}|${r.currency}|f`, r.frozen);
    }
    const seen = new Set<string>();
    for (const obj of OBJECTS)
      for (const b of this.cores.get(obj)!.balances()) {
        for (const [s, v] of [
          ["a", b.available],
          ["f", b.frozen],
        ] as const) {
          const k = `${obj}|${b.kind}|${b.currency}|${s}`;
          seen.add(k);
          const what = `${obj}'s ${b.kind} ${b.currency} ${s === "a" ? "available" : "frozen"}`;
          if ((this.shadow.get(k) ?? 0) !== v) throw new Violation(`${what}: the object has ${v}, its events say ${this.shadow.get(k) ?? 0}`);
          if ((rm.get(k) ?? 0) !== v) throw new Violation(`${what}: the object has ${v}, the read model ${rm.get(k) ?? 0}`);
        }
      }
    for (const [k, v] of this.shadow) if (v !== 0 && !seen.has(k)) throw new Violation(`${k.replaceAll("|", " ")}: its events say ${v}, the object has none`);
  }

  /** Every open reservation of a desk has its holds open with exactly what it has left, and no other hold is open. */
  private checkHolds(): void {
    const expected = new Set<string>();
    for (const desk of [PAIR, C2C, EARN])
      for (const r of this.sql(desk).query<{ id: string; data: string }>("SELECT id, data FROM sim_records WHERE status = 'open'"))
        for (const h of JSON.parse(r.data).holds as HoldRef[]) {
          if (h.left === 0) continue;
          expected.add(`${h.obj}|${h.hold}`);
          const row = this.cores.get(h.obj)!.hold(h.hold);
          const left = row && row.state === "open" ? row.amount - row.spent - row.released : 0;
          if (left !== h.left) throw new Violation(`${r.id} reserves ${h.left} in ${h.obj}'s hold ${h.hold}, which has ${left}`);
        }
    for (const obj of HOLDERS)
      for (const h of this.cores.get(obj)!.openHolds())
        if (!expected.has(`${obj}|${h.hold}`)) throw new Violation(`${obj}'s hold ${h.hold} is open but reserves for nothing open`);
  }
}
