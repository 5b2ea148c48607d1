/**
 * The money core of one object (an account, a pair's desk, a system shard): its accounts, holds,
 * keys, outbox and movements, in its own SQLite, reached only through the ports.
 *
 * It owns the protocol of holds and legs (DESIGN.md §12, bench/README.md "The plan past one D1"):
 * - a hold reserves funds keyed by what it is for; it is checked when made and resolved (spent in
 *   part, released) without ever going below zero, and a release of a resolved hold does nothing
 *   (TigerBeetle's pending transfers: a second void is answered, not applied);
 * - an event is committed with its legs in one transaction, and its legs must balance per currency;
 * - legs leave through the outbox at least once, with retries, until the receiver acknowledges;
 * - a receiver applies a leg and records its key in one transaction; a key seen again is
 *   acknowledged without applying anything.
 * It holds nothing in memory that matters: a crash loses nothing committed.
 */
import type { Mutations, Ports, SqlPort } from "./ports.ts";
import {
  MoneyRefusal,
  type BalanceRow,
  type HoldRequest,
  type HoldRow,
  type Leg,
  type LegResult,
  type MoneyEvent,
  type MovementRow,
  type Op,
  type OutboxRow,
} from "./types.ts";

/** First retry after this many ms, doubling per attempt up to RETRY_CAP_MS (plus jitter). */
export const RETRY_BASE_MS = 100;
export const RETRY_CAP_MS = 5_000;
/** Delivery: due legs one step looks at (oldest first), receivers it calls at once, legs per call. */
export const STEP_WINDOW = 1_024;
export const STEP_DESTINATIONS = 64;
export const CALL_LEGS = 256;

const NONE: Mutations = {};

/** Refuses anything but a non-negative safe integer: money is never a float here. */
export function units(n: number, what = "amount"): number {
  if (!Number.isSafeInteger(n) || n < 0) throw new MoneyRefusal(`${what} is not a non-negative integer: ${n}`);
  return n;
}

/** Net change of the total per currency that ops make (a release only moves frozen to available). */
export function netByCurrency(ops: readonly Op[], into = new Map<string, number>()): Map<string, number> {
  for (const op of ops) {
    const d = op.t === "credit" || op.t === "lock" ? op.amt : op.t === "debit" || op.t === "spend" ? -op.amt : 0;
    if (d !== 0) into.set(op.cur, (into.get(op.cur) ?? 0) + d);
  }
  return into;
}

export class MoneyCore {
  readonly name: string;
  private readonly ports: Ports;
  private readonly sql: SqlPort;
  private readonly m: Mutations;
  /** Only with the legsInMemory mutation: legs waiting for the next delivery, lost at a crash. */
  private buffered: { key: string; dest: string; ops: string }[] = [];
  /**
   * The retry schedule of legs sent and not yet answered, in memory only: sending writes nothing.
   * A restart forgets it, and every leg still in the outbox is due at once (the receiver answers
   * "seen" for one it already applied).
   */
  private readonly retry = new Map<string, { at: number; attempts: number }>();
  /**
   * Legs answered whose outbox rows are not deleted yet: they go with this object's next commit
   * (`flushAnswered`), so an answer costs no write of its own. Never sent again meanwhile; after a
   * restart they are sent once more and answered "seen".
   */
  private readonly answered = new Set<string>();

  constructor(name: string, ports: Ports) {
    this.name = name;
    this.ports = ports;
    this.sql = ports.sql;
    this.m = ports.mutations ?? NONE;
  }

  // ---- accounts and holds -------------------------------------------------------------------

  /** Opening balance of a system account (the deposits shard's supply from outside). Keyed. */
  open(key: string, kind: string, cur: string, amt: number): "opened" | "seen" {
    units(amt);
    return this.sql.transaction(() => {
      if (!this.claimKey(key)) return "seen";
      this.applyOps(key, [{ t: "credit", kind, cur, amt }]);
      return "opened";
    });
  }

  /** Moves funds from available into a hold; a hold key seen again answers "exists" and moves nothing. */
  reserve(h: HoldRequest): "reserved" | "exists" | "insufficient" {
    if (units(h.amt) === 0) throw new MoneyRefusal("a hold reserves a positive amount");
    return this.sql.transaction(() => {
      if (this.sql.query("SELECT 1 FROM money_holds WHERE hold = ?", h.key).length > 0) return "exists";
      const moved = this.sql.run(
        "UPDATE money_balances SET available = available - ?1, frozen = frozen + ?1 WHERE kind = ?2 AND currency = ?3 AND available >= ?1",
        h.amt,
        h.kind,
        h.cur,
      );
      if (moved === 0) return "insufficient";
      this.sql.run(
        "INSERT INTO money_holds (hold, kind, currency, amount, for_kind, for_id, state, created_at) VALUES (?, ?, ?, ?, ?, ?, 'open', ?)",
        h.key,
        h.kind,
        h.cur,
        h.amt,
        h.forKind,
        h.forId,
        this.ports.clock.now(),
      );
      this.movement(`${h.key}:reserve`, h.kind, h.cur, -h.amt, h.amt);
      return "reserved";
    });
  }

  /**
   * Several holds in one transaction, each answered as `reserve` one after another would answer it
   * (an earlier one's funds are gone for a later one; a key already held, or met earlier in the
   * list, answers "exists"), in a few statements: the keys and balances read once, one balance
   * update and one movement per account and currency, the holds inserted in one statement.
   * An "insufficient" answer carries what was available to it.
   */
  reserveMany(hs: readonly HoldRequest[]): { result: "reserved" | "exists" | "insufficient"; available: number; at: number }[] {
    for (const h of hs) if (units(h.amt) === 0) throw new MoneyRefusal("a hold reserves a positive amount");
    return this.sql.transaction(() => {
      const at = this.ports.clock.now();
      const held = new Set(this.sql.query<{ hold: string }>("SELECT hold FROM money_holds WHERE hold IN (SELECT value FROM json_each(?))", JSON.stringify(hs.map((h) => h.key))).map((r) => r.hold));
      const accounts = [...new Map(hs.map((h) => [`${h.kind}\u0000${h.cur}`, [h.kind, h.cur]])).values()];
      const available = new Map(
        this.sql
          .query<{ kind: string; currency: string; available: number }>(
            "SELECT kind, currency, available FROM money_balances WHERE (kind, currency) IN (SELECT value ->> 0, value ->> 1 FROM json_each(?))",
            JSON.stringify(accounts),
          )
          .map((b) => [`${b.kind}\u0000${b.currency}`, b.available]),
      );
      // What the holds take, per account and currency: one balance update and one movement each,
      // named after its first hold (`{hold}:reserve`, as a batch's freeze is one line in D1's ledger).
      const taken = new Map<string, { kind: string; cur: string; amt: number; ref: string }>();
      const holds: [string, string, string, number, string, string][] = [];
      const answers = hs.map((h) => {
        const k = `${h.kind}\u0000${h.cur}`;
        const left = available.get(k) ?? 0;
        if (held.has(h.key)) return { result: "exists" as const, available: left, at };
        if (left < h.amt) return { result: "insufficient" as const, available: left, at };
        held.add(h.key);
        available.set(k, left - h.amt);
        const t = taken.get(k) ?? { kind: h.kind, cur: h.cur, amt: 0, ref: `${h.key}:reserve` };
        t.amt += h.amt;
        taken.set(k, t);
        holds.push([h.key, h.kind, h.cur, h.amt, h.forKind, h.forId]);
        return { result: "reserved" as const, available: left - h.amt, at };
      });
      for (const t of taken.values())
        if (this.sql.run("UPDATE money_balances SET available = available - ?1, frozen = frozen + ?1 WHERE kind = ?2 AND currency = ?3 AND available >= ?1", t.amt, t.kind, t.cur) === 0)
          throw new MoneyRefusal(`${t.kind} ${t.cur} changed under its own transaction`);
      if (holds.length > 0)
        this.sql.run(
          `INSERT INTO money_holds (hold, kind, currency, amount, for_kind, for_id, state, created_at)
           SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4, value ->> 5, 'open', ? FROM json_each(?) WHERE true ORDER BY key`,
          at,
          JSON.stringify(holds),
        );
      this.movements([...taken.values()].map((t): [string, string, string, number, number] => [t.ref, t.kind, t.cur, -t.amt, t.amt]));
      return answers;
    });
  }

  /** Releases what is left of a hold here (an orphan whose owner never took it). Keyed. */
  releaseRest(key: string, hold: string): "released" | "seen" | "resolved" {
    return this.sql.transaction(() => {
      const h = this.hold(hold);
      if (!h) throw new MoneyRefusal(`no hold ${hold}`);
      if (!this.claimKey(key)) return "seen";
      if (h.state === "resolved") return "resolved";
      this.applyOps(key, [{ t: "release", hold, cur: h.currency, amt: h.amount - h.spent - h.released }]);
      return "released";
    });
  }

  /** Moves funds between two accounts of this object in one transaction (no legs). Keyed. */
  transfer(key: string, from: string, to: string, cur: string, amt: number): "moved" | "seen" | "insufficient" {
    units(amt);
    try {
      return this.sql.transaction(() => {
        if (!this.claimKey(key)) return "seen" as const;
        const debited = this.sql.run(
          "UPDATE money_balances SET available = available - ?1 WHERE kind = ?2 AND currency = ?3 AND available >= ?1",
          amt,
          from,
          cur,
        );
        if (debited === 0) throw new Insufficient();
        this.movement(key, from, cur, -amt, 0);
        this.credit(`${key}#to`, to, cur, amt);
        return "moved" as const;
      });
    } catch (e) {
      if (e instanceof Insufficient) return "insufficient";
      throw e;
    }
  }

  // ---- events and the outbox (the sending side) -----------------------------------------------

  /**
   * Commits an event: its key, its own ops and its legs in the outbox, plus the caller's writes
   * (`write`, e.g. the desk's order rows), all in one transaction. The event's ops and legs must
   * balance per currency. An event key seen before answers "exists" and writes nothing.
   */
  commit(ev: MoneyEvent, write?: () => void): "committed" | "exists" {
    const net = netByCurrency(ev.local ?? []);
    for (const leg of ev.legs) {
      if (leg.ops.some((op) => op.t === "debit")) throw new MoneyRefusal(`leg ${leg.key}: a debit only as the sender's own op`);
      netByCurrency(leg.ops, net);
    }
    for (const [cur, d] of net) if (d !== 0) throw new MoneyRefusal(`event ${ev.key} does not balance in ${cur}: ${d}`);
    for (const leg of ev.legs) for (const op of leg.ops) units(op.amt);
    const r = this.sql.transaction(() => {
      if (!this.claimKey(ev.key)) return "exists";
      this.flushAnswered();
      if (ev.local?.length) this.applyOps(ev.key, ev.local);
      const now = this.ports.clock.now();
      if (!this.m.legsInMemory) this.enqueue(ev.legs.map((leg) => ({ key: leg.key, dest: leg.to, ops: JSON.stringify(leg.ops) })), now);
      if (this.m.sendBeforeCommit) for (const leg of ev.legs) this.ports.transport.send(this.name, leg.to, [leg]);
      write?.();
      return "committed";
    });
    if (r === "committed" && this.m.legsInMemory) for (const leg of ev.legs) this.buffered.push({ key: leg.key, dest: leg.to, ops: JSON.stringify(leg.ops) });
    return r;
  }

  /**
   * The delivery loop's step: hands due legs to the transport, one call per receiver with all of
   * its due legs, and schedules their retry (doubling, with jitter). A leg stays until it is
   * acknowledged. The step looks at the oldest STEP_WINDOW due legs and sends to the first
   * STEP_DESTINATIONS receivers among them (by their oldest leg), each at most CALL_LEGS legs;
   * what it leaves waits, still due, for the next step. So a hot receiver (a market maker, a fee
   * shard) takes one call per round whatever the number of other receivers in it, as long as
   * its legs in the round fit in one call and the round in one window. Receivers in `busy` (a call
   * to them still out) are passed over: their due legs wait for that call's answer, and the others
   * go now (the pair's delivery, durable/pair/legs.ts, never waits on a slow receiver for the rest).
   *
   * A leg's first send writes nothing: its retry is scheduled in memory (`retry`), and its answer
   * usually comes first. A retry is written (attempts, next try), so legs a receiver keeps
   * refusing leave the window until their next try. A restart forgets the memory: those legs are
   * due at once. Answers how many legs left and how many of them were retries.
   */
  deliverDue(busy?: ReadonlySet<string>): { sent: number; retries: number } {
    const now = this.ports.clock.now();
    if (this.buffered.length) {
      const rows = this.buffered;
      this.buffered = [];
      this.sql.transaction(() => {
        this.enqueue(rows, now);
      });
    }
    // Literal LIMITs: a bound one costs node:sqlite ten times the query.
    const window = this.sql.query<OutboxRow>(`SELECT seq, key, dest, ops, attempts, next_at FROM money_outbox WHERE next_at <= ? ORDER BY seq LIMIT ${STEP_WINDOW}`, now);
    const byDest = new Map<string, OutboxRow[]>();
    const due: OutboxRow[] = [];
    for (const r of window) {
      // Answered (its row goes with the next write), or sent and not yet due again.
      if (this.answered.has(r.key) || (this.retry.get(r.key)?.at ?? 0) > now || busy?.has(r.dest)) continue;
      let rows = byDest.get(r.dest);
      if (!rows) {
        if (byDest.size === STEP_DESTINATIONS) continue;
        rows = [];
        byDest.set(r.dest, rows);
      }
      if (rows.length === CALL_LEGS) continue;
      rows.push(r);
      due.push(r);
    }
    if (due.length === 0) return { sent: 0, retries: 0 };
    let retries = 0;
    // The retries' next tries, written in one statement (first sends are only in memory).
    const written: [seq: number, at: number, attempts: number][] = [];
    for (const r of due) {
      const attempts = Math.max(r.attempts, this.retry.get(r.key)?.attempts ?? 0);
      const wait = Math.min(RETRY_BASE_MS * 2 ** attempts, RETRY_CAP_MS) + Math.floor(this.ports.random.next() * RETRY_BASE_MS);
      this.retry.set(r.key, { at: now + wait, attempts: attempts + 1 });
      if (attempts > 0) {
        retries++;
        written.push([r.seq, now + wait, attempts + 1]);
      }
    }
    if (this.m.deleteBeforeAck) this.sql.run("DELETE FROM money_outbox WHERE seq IN (SELECT value FROM json_each(?))", JSON.stringify(due.map((r) => r.seq)));
    else if (written.length > 0)
      this.sql.run("UPDATE money_outbox SET attempts = v.value ->> 2, next_at = v.value ->> 1 FROM json_each(?) AS v WHERE money_outbox.seq = v.value ->> 0", JSON.stringify(written));
    for (const [to, rows] of byDest)
      this.ports.transport.send(
        this.name,
        to,
        rows.map((r) => ({ key: r.key, to, ops: JSON.parse(r.ops) as Op[] })),
      );
    return { sent: due.length, retries };
  }

  /** The receiver answered these keys (applied, seen or refused): they leave the outbox with the next write (`flushAnswered`). */
  acknowledge(keys: readonly string[]): void {
    for (const k of keys) {
      this.retry.delete(k);
      this.answered.add(k);
    }
  }

  /** Deletes the outbox rows of the legs answered so far (one statement; nothing when none wait). */
  flushAnswered(): void {
    if (this.answered.size === 0) return;
    const keys = [...this.answered];
    this.answered.clear();
    this.sql.transaction(() => {
      this.sql.run("DELETE FROM money_outbox WHERE key IN (SELECT value FROM json_each(?))", JSON.stringify(keys));
    });
  }

  /** Whether this leg was answered (its row waits for `flushAnswered`). */
  isAnswered(key: string): boolean {
    return this.answered.has(key);
  }

  /** When the next leg owed is due (a leg sent: its retry; one not sent since a restart: now), or null when none is owed. */
  nextDue(): number | null {
    let next: number | null = null;
    for (const [key, t] of this.retry) if (!this.answered.has(key) && (next === null || t.at < next)) next = t.at;
    const known = JSON.stringify([...this.retry.keys(), ...this.answered]);
    const rest = this.sql.query<{ at: number | null }>("SELECT min(next_at) AS at FROM money_outbox WHERE key NOT IN (SELECT value FROM json_each(?))", known)[0]?.at ?? null;
    return rest !== null && (next === null || rest < next) ? rest : next;
  }

  // ---- legs (the receiving side) --------------------------------------------------------------

  /**
   * Applies a group of legs in one transaction (a hot account takes many per call). Each leg is
   * applied and its key recorded together; a key seen before is acknowledged and not applied; a
   * leg that asks for what is not there (no such hold, past its amount) is refused whole and
   * recorded for an operator, never half-applied. Every answer acknowledges the leg.
   */
  receive(legs: readonly Leg[]): LegResult[] {
    return this.sql.transaction(() => {
      const fresh = this.claimKeys(legs.map((l) => l.key));
      const g = this.group(legs.map((l) => l.ops));
      const answers = legs.map((leg, i): LegResult => {
        if (!fresh[i] && !this.m.noKeyCheck) return "seen";
        try {
          this.stage(g, leg.key, leg.ops);
          return "applied";
        } catch (e) {
          if (!(e instanceof MoneyRefusal)) throw e;
          this.sql.run("INSERT OR REPLACE INTO money_refused (key, reason, ops, at) VALUES (?, ?, ?, ?)", leg.key, e.reason, JSON.stringify(leg.ops), this.ports.clock.now());
          return "refused";
        }
      });
      this.flush(g);
      return answers;
    });
  }

  // ---- reads --------------------------------------------------------------------------------

  balances(): BalanceRow[] {
    return this.sql.query<BalanceRow>("SELECT kind, currency, available, frozen FROM money_balances ORDER BY kind, currency");
  }

  hold(key: string): HoldRow | undefined {
    return this.sql.query<HoldRow>("SELECT * FROM money_holds WHERE hold = ?", key)[0];
  }

  /** Open holds made before `before` (the orphan sweep asks their owners about them). */
  openHolds(before = Number.MAX_SAFE_INTEGER): HoldRow[] {
    return this.sql.query<HoldRow>("SELECT * FROM money_holds WHERE state = 'open' AND created_at < ? ORDER BY created_at, hold", before);
  }

  /** The legs owed (not yet answered), with their attempts and next try as this instance knows them. */
  outbox(): OutboxRow[] {
    return this.sql
      .query<OutboxRow>("SELECT seq, key, dest, ops, attempts, next_at FROM money_outbox ORDER BY seq")
      .filter((r) => !this.answered.has(r.key))
      .map((r) => {
        const t = this.retry.get(r.key);
        return t ? { ...r, attempts: t.attempts, next_at: t.at } : r;
      });
  }

  hasKey(key: string): boolean {
    return this.sql.query("SELECT 1 FROM money_keys WHERE key = ?", key).length > 0;
  }

  refused(): { key: string; reason: string }[] {
    return this.sql.query("SELECT key, reason FROM money_refused ORDER BY key");
  }

  /** Movements not yet drained into the read model, oldest first (256 at most). */
  undrained(): MovementRow[] {
    return this.sql.query<MovementRow>(
      "SELECT seq, ref, kind, currency, d_available, d_frozen FROM money_movements WHERE seq > COALESCE((SELECT value FROM money_meta WHERE name = 'drained'), 0) ORDER BY seq LIMIT 256",
    );
  }

  /** The read model holds every movement up to seq (it applies each once, by (object, seq)). */
  markDrained(seq: number): void {
    this.sql.run("INSERT INTO money_meta (name, value) VALUES ('drained', ?1) ON CONFLICT (name) DO UPDATE SET value = max(value, ?1)", seq);
  }

  // ---- inside a transaction -----------------------------------------------------------------

  /** Puts legs in the outbox, due now: one statement for many (in their order, so `seq` keeps it). */
  private enqueue(rows: readonly { key: string; dest: string; ops: string }[], now: number): void {
    if (rows.length === 0) return;
    if (rows.length === 1) {
      const [r] = rows;
      this.sql.run("INSERT INTO money_outbox (key, dest, ops, next_at) VALUES (?, ?, ?, ?)", r!.key, r!.dest, r!.ops, now);
      return;
    }
    this.sql.run(
      "INSERT INTO money_outbox (key, dest, ops, next_at) SELECT value ->> 0, value ->> 1, value ->> 2, ? FROM json_each(?) WHERE true ORDER BY key",
      now,
      JSON.stringify(rows.map((r) => [r.key, r.dest, r.ops])),
    );
  }

  /**
   * Records keys in one statement; answers, per key, whether it was new (a key already stored, or
   * met earlier in the same list, is not: its leg is answered "seen").
   */
  private claimKeys(keys: readonly string[]): boolean[] {
    if (keys.length === 1) return [this.claimKey(keys[0]!)];
    const claimed = new Set(
      this.sql
        .query<{ key: string }>("INSERT INTO money_keys (key, at) SELECT value, ? FROM json_each(?) WHERE true ON CONFLICT (key) DO NOTHING RETURNING key", this.ports.clock.now(), JSON.stringify(keys))
        .map((r) => r.key),
    );
    return keys.map((k) => claimed.delete(k));
  }

  /** Records a key; false when it was already there (the caller then applies nothing). */
  private claimKey(key: string): boolean {
    return this.sql.run("INSERT INTO money_keys (key, at) VALUES (?, ?) ON CONFLICT (key) DO NOTHING", key, this.ports.clock.now()) > 0;
  }

  /** Checks one leg's ops and writes them (all of them or none): `applyGroup` with one leg. */
  private applyOps(ref: string, ops: readonly Op[]): void {
    const group = this.group([ops]);
    this.stage(group, ref, ops);
    this.flush(group);
  }

  /**
   * A group of legs applied in one transaction as if one after another (each sees what the ones
   * before it did to the holds and balances), with their writes gathered: the holds all of them
   * name read in one query, each hold updated once, each balance once by its net change, the
   * movements (one per movement, account and currency: `{ref}#{first op's index}`) in one insert. A hot receiver (a market maker, a
   * fee shard, a player's object at a seconds expiry) so pays a few statements per call, not
   * several per leg.
   */
  private group(legs: readonly (readonly Op[])[]): Group {
    return { holds: this.holdsNamed(legs.flat()), used: new Map(), resolved: new Map(), locks: [], balances: new Map(), moves: [], available: new Map() };
  }

  /**
   * Checks one leg's ops against the holds and balances as the group left them, and adds its
   * writes to the group only if every op passes: a leg that asks for what is not there (no such
   * hold, past what is left of it) throws MoneyRefusal and adds nothing. A release of a hold that
   * was resolved when the leg began is answered, not applied (a second void).
   */
  private stage(g: Group, ref: string, ops: readonly Op[]): void {
    const touched = new Map<string, { row: HoldRow; resolved: boolean; left: number }>();
    const skip = new Set<number>();
    const locked = new Set<string>();
    ops.forEach((op, i) => {
      units(op.amt);
      if (op.t === "lock") {
        // A new hold only: never on top of one already here (nor twice in one leg), never a later spend of it in the same leg.
        if (op.amt === 0) throw new MoneyRefusal(`lock ${op.hold}: a hold locks a positive amount`);
        if (locked.has(op.hold) || touched.has(op.hold) || g.holds.has(op.hold)) throw new MoneyRefusal(`hold ${op.hold} already exists`);
        locked.add(op.hold);
        return;
      }
      if (op.t === "debit") {
        if (this.availableIn(g, op.kind, op.cur) < op.amt) throw new MoneyRefusal(`${op.kind} ${op.cur} has less than ${op.amt}`);
        return;
      }
      if (op.t === "credit") return;
      if (locked.has(op.hold)) throw new MoneyRefusal(`hold ${op.hold} is locked by this leg: resolve it in a later one`);
      let h = touched.get(op.hold);
      if (!h) {
        const row = g.holds.get(op.hold);
        if (!row) throw new MoneyRefusal(`no hold ${op.hold}`);
        const left = row.amount - row.spent - row.released - (g.used.get(op.hold) ?? 0);
        // Resolved when the leg began: in storage, or used up by an earlier leg of the group.
        h = { row, resolved: row.state === "resolved" || left === 0, left };
        touched.set(op.hold, h);
      }
      if (h.row.currency !== op.cur) throw new MoneyRefusal(`hold ${op.hold} is in ${h.row.currency}, not ${op.cur}`);
      if (h.resolved) {
        // A second void of a voided hold is answered, not applied (the mutation applies it again).
        if (op.t === "release" && !this.m.releaseTwice) return void skip.add(i);
        if (op.t === "spend") throw new MoneyRefusal(`hold ${op.hold} is already resolved`);
        return;
      }
      if (op.amt > h.left) throw new MoneyRefusal(`hold ${op.hold} has ${h.left} left, asked for ${op.amt}`);
      h.left -= op.amt;
    });
    // Every check passed: the leg's writes join the group's.
    const change = (kind: string, cur: string, a: number, f: number) => {
      const k = `${kind}\u0000${cur}`;
      const b = g.balances.get(k);
      if (b) {
        b.a += a;
        b.f += f;
      } else g.balances.set(k, { kind, cur, a, f });
    };
    // One movement row per movement, account and currency: a leg's ops on the same account and
    // currency (a fill's spend and its price improvement's release, a commit's many fills) add up in one row.
    const rows = new Map<string, [string, string, string, number, number]>();
    const move = (at: string, kind: string, cur: string, a: number, f: number) => {
      const k = `${kind}\u0000${cur}`;
      const row = rows.get(k);
      if (row) {
        row[3] += a;
        row[4] += f;
      } else rows.set(k, [at, kind, cur, a, f]);
    };
    ops.forEach((op, i) => {
      if (skip.has(i) || op.amt === 0) return;
      const at = `${ref}#${i}`;
      switch (op.t) {
        case "credit": {
          const k = this.m.wrongAccount ? "spot" : op.kind;
          change(k, op.cur, op.amt, 0);
          return move(at, k, op.cur, op.amt, 0);
        }
        case "lock": {
          const k = this.m.wrongAccount ? "spot" : op.kind;
          const now = this.ports.clock.now();
          g.locks.push([op.hold, k, op.cur, op.amt, op.forKind, op.forId, now]);
          // A later leg of the group may spend or release it.
          g.holds.set(op.hold, { hold: op.hold, kind: k, currency: op.cur, amount: op.amt, spent: 0, released: 0, for_kind: op.forKind, for_id: op.forId, state: "open", created_at: now });
          change(k, op.cur, 0, op.amt);
          return move(at, k, op.cur, 0, op.amt);
        }
        case "debit":
          change(op.kind, op.cur, -op.amt, 0);
          return move(at, op.kind, op.cur, -op.amt, 0);
        case "spend":
        case "release": {
          const h = touched.get(op.hold)!;
          if (!h.resolved) {
            const r = g.resolved.get(op.hold) ?? { spent: 0, released: 0 };
            if (op.t === "spend") r.spent += op.amt;
            else r.released += op.amt;
            g.resolved.set(op.hold, r);
            g.used.set(op.hold, (g.used.get(op.hold) ?? 0) + op.amt);
          }
          const back = op.t === "release" ? op.amt : 0;
          change(h.row.kind, h.row.currency, back, -op.amt);
          return move(at, h.row.kind, h.row.currency, back, -op.amt);
        }
      }
    });
    for (const row of rows.values()) if (row[3] !== 0 || row[4] !== 0) g.moves.push(row);
  }

  /** What an account has available now: storage's balance plus what the group's earlier legs changed of it. */
  private availableIn(g: Group, kind: string, cur: string): number {
    const k = `${kind}\u0000${cur}`;
    let stored = g.available.get(k);
    if (stored === undefined) {
      stored = this.sql.query<{ available: number }>("SELECT available FROM money_balances WHERE kind = ? AND currency = ?", kind, cur)[0]?.available ?? 0;
      g.available.set(k, stored);
    }
    return stored + (g.balances.get(k)?.a ?? 0);
  }

  /** Writes what the group's legs staged: new holds, then each hold's update, each balance's, the movements. */
  private flush(g: Group): void {
    for (const lock of g.locks)
      this.sql.run("INSERT INTO money_holds (hold, kind, currency, amount, for_kind, for_id, state, created_at) VALUES (?, ?, ?, ?, ?, ?, 'open', ?)", ...lock);
    this.resolveHolds(g.resolved);
    for (const { kind, cur, a, f } of g.balances.values()) {
      if (a === 0 && f === 0) continue;
      // Only an increase may make the row (an upsert's new row is checked before its conflict is).
      if (a >= 0 && f >= 0)
        this.sql.run(
          "INSERT INTO money_balances (kind, currency, available, frozen) VALUES (?1, ?2, ?3, ?4) ON CONFLICT (kind, currency) DO UPDATE SET available = available + ?3, frozen = frozen + ?4",
          kind,
          cur,
          a,
          f,
        );
      else this.sql.run("UPDATE money_balances SET available = available + ?, frozen = frozen + ? WHERE kind = ? AND currency = ?", a, f, kind, cur);
    }
    this.movements(g.moves);
  }

  /** The holds a leg's ops name, read in one query (one by key when there is one). */
  private holdsNamed(ops: readonly Op[]): Map<string, HoldRow> {
    const names = new Set<string>();
    for (const op of ops) if (op.t === "spend" || op.t === "release" || op.t === "lock") names.add(op.hold);
    if (names.size === 0) return new Map();
    if (names.size === 1) {
      const [name] = names;
      const row = this.hold(name!);
      return row ? new Map([[name!, row]]) : new Map();
    }
    const rows = this.sql.query<HoldRow>("SELECT * FROM money_holds WHERE hold IN (SELECT value FROM json_each(?))", JSON.stringify([...names]));
    return new Map(rows.map((r) => [r.hold, r]));
  }

  /** Each hold's spends and releases of one leg, in one update per hold (one statement for many). */
  private resolveHolds(resolved: Map<string, { spent: number; released: number }>): void {
    if (resolved.size === 0) return;
    const SET = "spent = spent + ?1, released = released + ?2, state = CASE WHEN spent + released + ?1 + ?2 = amount THEN 'resolved' ELSE 'open' END";
    if (resolved.size === 1) {
      const [hold, r] = resolved.entries().next().value!;
      this.sql.run(`UPDATE money_holds SET ${SET} WHERE hold = ?3`, r.spent, r.released, hold);
      return;
    }
    this.sql.run(
      `UPDATE money_holds SET spent = spent + (v.value ->> 1), released = released + (v.value ->> 2),
         state = CASE WHEN spent + released + (v.value ->> 1) + (v.value ->> 2) = amount THEN 'resolved' ELSE 'open' END
       FROM json_each(?) AS v WHERE money_holds.hold = v.value ->> 0`,
      JSON.stringify([...resolved].map(([hold, r]) => [hold, r.spent, r.released])),
    );
  }

  /** Movements in their order: one statement for many. */
  private movements(moves: readonly [string, string, string, number, number][]): void {
    if (moves.length === 0) return;
    if (moves.length <= 2) {
      for (const [ref, kind, cur, a, f] of moves) this.movement(ref, kind, cur, a, f);
      return;
    }
    this.sql.run(
      `INSERT INTO money_movements (ref, kind, currency, d_available, d_frozen, at)
       SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4, ? FROM json_each(?) WHERE true ORDER BY key`,
      this.ports.clock.now(),
      JSON.stringify(moves),
    );
  }

  private credit(ref: string, kind: string, cur: string, amt: number): void {
    const k = this.m.wrongAccount ? "spot" : kind;
    this.sql.run(
      "INSERT INTO money_balances (kind, currency, available) VALUES (?1, ?2, ?3) ON CONFLICT (kind, currency) DO UPDATE SET available = available + ?3",
      k,
      cur,
      amt,
    );
    this.movement(ref, k, cur, amt, 0);
  }

  private movement(ref: string, kind: string, cur: string, dAvailable: number, dFrozen: number): void {
    this.sql.run(
      "INSERT INTO money_movements (ref, kind, currency, d_available, d_frozen, at) VALUES (?, ?, ?, ?, ?, ?)",
      ref,
      kind,
      cur,
      dAvailable,
      dFrozen,
      this.ports.clock.now(),
    );
  }
}

/** Thrown inside a transaction to roll it back when funds are short. */
class Insufficient extends Error {}

/** The writes a group of legs gathers before `flush` (see MoneyCore.group). */
interface Group {
  /** The holds the group names, as read at its start, plus those its legs locked. */
  holds: Map<string, HoldRow>;
  /** What the group's legs took of each hold so far (spent and released). */
  used: Map<string, number>;
  resolved: Map<string, { spent: number; released: number }>;
  locks: [hold: string, kind: string, cur: string, amt: number, forKind: string, forId: string, at: number][];
  balances: Map<string, { kind: string; cur: string; a: number; f: number }>;
  moves: [string, string, string, number, number][];
  /** Stored available balances read for debits (before the group's changes). */
  available: Map<string, number>;
}
