/**
 * The account object's calls (issue #28): the per-user object (durable/user.ts, one per user,
 * named `user:{id}`) extends this class, so one object serves the user's sockets and holds the
 * user's money. Each call is one transaction of the object's own SQLite (`transactionSync`,
 * through durable/money/do-sql.ts) and names the user it is for: the object is bound to its user
 * on the first call and refuses any other. Money written here reaches D1 (the read model) through
 * the drain: an alarm a moment after the first write, in batches, idempotently. In objects mode
 * the alarm hands the rows to a collector object (`drain:{k}`, durable/account/collector.ts) that
 * writes many accounts' rows in one D1 batch; the same class serves the collectors.
 *
 * The same class serves the shards of system accounts (`system:{id}:{k}`, durable/account/address.ts):
 * the `system*` calls bind the object to its shard instead of a user. Spot and transfers call these
 * when the exchange's switch `ACCOUNTS` is "objects" (worker/lib/accounts.ts); see
 * docs/architecture/account-objects.md for what is wired.
 */
import { DurableObject } from "cloudflare:workers";
import { devClockInObject, devClockOn } from "../../worker/lib/clock.ts";
import { doSqlPort, type Leg, type LegResult } from "../money/index.ts";
import { AccountBook } from "./book.ts";
import { claimOrphan, RECORD_OWNER } from "./claims.ts";
import { DRAIN_BATCH, drainStatements, systemDrainStatements } from "./drain.ts";
import { collectorCount, collectorName, collectorStatements, DrainCollector, type DrainSource, type HandOver, type HandOverAnswer } from "./collector.ts";
import { accountsOnObjects } from "../../worker/lib/accounts.ts";
import { objectId } from "../../worker/lib/object-ids.ts";
import type * as A from "./types.ts";
import { SESSION_GONE, SessionTrust, type SessionProof, type SessionRow } from "./sessions.ts";
import { MAINTENANCE_KEY, MaintenanceLease, maintenanceAddress, maintenanceShardOf, MaintenanceSwitch, type MaintenanceLeaseAnswer } from "./maintenance.ts";

/** The drain runs this long after the first undrained write: the writes of that moment share one D1 batch. */
export const DRAIN_DELAY_MS = 500;
/** Retry after a failed drain (D1 unreachable): the movements wait in the object, nothing is lost. */
const DRAIN_RETRY_MS = 5_000;
/** An open hold is asked about after this long (worker/domain/spot/orphans.ts waits as long on D1's path). */
export const ORPHAN_GRACE_MS = 60_000;
/** Steps per alarm before it yields and sets the next one. */
const STEPS_PER_ALARM = 8;

/** The one D1 read of a check: the session of this user, and the user's flags. */
async function readSession(db: D1Database, userId: number, sessionId: number): Promise<SessionRow | null> {
  return db
    .prepare(
      `SELECT s.expires_at, s.revoked_at, u.locked, u.review_status, u.role
       FROM sessions s JOIN users u ON u.id = s.user_id WHERE s.id = ? AND s.user_id = ?`,
    )
    .bind(sessionId, userId)
    .first<SessionRow>();
}

export class AccountObject extends DurableObject<Env> {
  private accountBook: AccountBook | undefined;
  /** An alarm is known to be set (this instance set or saw it); cleared when the alarm runs. */
  private drainSet = false;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    // The dev clock (npm start, DEV_CLOCK=on): the drain's and the sweep's alarms are asked for in
    // dev time and must fire by real time, as the pair object's do (worker/lib/clock.ts); without
    // this an advanced clock put them days ahead and the objects stopped draining into D1.
    if (devClockOn(env)) void ctx.blockConcurrencyWhile(() => devClockInObject(env, ctx.storage));
  }

  /** The money tables are created on the first money call, so a socket-only user's object never has them. */
  protected book(userId?: number): AccountBook {
    this.accountBook ??= new AccountBook(doSqlPort(this.ctx.storage));
    if (userId !== undefined) this.accountBook.owner(userId);
    return this.accountBook;
  }

  private trust: SessionTrust | undefined;

  /** The session check (durable/account/sessions.ts); the open changes live in a table of their own. */
  protected sessionTrust(userId: number): SessionTrust {
    if (this.trust) return this.trust;
    const sql = this.ctx.storage.sql;
    sql.exec("CREATE TABLE IF NOT EXISTS account_session_changes (mark TEXT PRIMARY KEY, at INTEGER NOT NULL)");
    this.trust = new SessionTrust(
      {
        list: () => sql.exec<{ mark: string; at: number }>("SELECT mark, at FROM account_session_changes").toArray(),
        add: (mark, at) => void sql.exec("INSERT OR REPLACE INTO account_session_changes (mark, at) VALUES (?, ?)", mark, at),
        remove: (mark) => void sql.exec("DELETE FROM account_session_changes WHERE mark = ?", mark),
      },
      (sessionId) => readSession(this.env.DB, userId, sessionId),
    );
    return this.trust;
  }

  /** Refuses the call (SESSION_GONE, nothing moved) unless the carried session may act; no session carried: the caller checked it. */
  private async requireSession(userId: number, session: SessionProof | undefined): Promise<void> {
    if (session && !(await this.sessionTrust(userId).check(session, Date.now()))) throw new Error(SESSION_GONE);
  }

  private lease: MaintenanceLease | undefined;

  /**
   * `ACCOUNTS=objects`: refuses (MAINTENANCE_REFUSED, nothing moved) while the maintenance switch
   * is on (durable/account/maintenance.ts): asks switch object `maintenance:{n mod shards}` when
   * this object holds no lease. `n`: the account's own number (user id, or a system shard's).
   */
  private async requireOpen(n: number): Promise<void> {
    if (this.env.ACCOUNTS !== "objects") return;
    this.lease ??= new MaintenanceLease(() => {
      const k = maintenanceShardOf(n);
      return this.env.USER.get(this.env.USER.idFromName(maintenanceAddress(k))).maintenanceLease();
    });
    await this.lease.check();
  }

  /** Leases this object asked for (tests: no D1 on the path, one question per lease). */
  async accountMaintenanceLeases(): Promise<number> {
    return this.lease?.asked ?? 0;
  }

  // ---- a switch object (`maintenance:{k}`) ------------------------------------------------------

  private switchState: MaintenanceSwitch | undefined;

  private maintenanceSwitch(): MaintenanceSwitch {
    if (this.switchState) return this.switchState;
    const sql = this.ctx.storage.sql;
    sql.exec("CREATE TABLE IF NOT EXISTS maintenance_switch (id INTEGER PRIMARY KEY CHECK (id = 1), since INTEGER NOT NULL)");
    this.switchState = new MaintenanceSwitch(
      {
        get: () => sql.exec<{ since: number }>("SELECT since FROM maintenance_switch WHERE id = 1").toArray()[0]?.since ?? null,
        put: (since) => void sql.exec("INSERT INTO maintenance_switch (id, since) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET since = excluded.since", since),
      },
      // Never told: the switch as D1 has it, once (then kept; every later change is pushed).
      async () => {
        const r = await this.env.DB.prepare("SELECT value FROM settings WHERE key = ?").bind(MAINTENANCE_KEY).first<{ value: string }>();
        const since = Number(r?.value ?? "0");
        return Number.isSafeInteger(since) && since > 0 ? since : 0;
      },
    );
    return this.switchState;
  }

  /** An object asks whether it may move money (its lease). */
  async maintenanceLease(): Promise<MaintenanceLeaseAnswer> {
    return this.maintenanceSwitch().lease();
  }

  /** The operator's push (worker/lib/maintenance.ts): `since` > 0 on, 0 off; answers how long earlier leases still run (ms). */
  async maintenanceSet(since: number): Promise<number> {
    return this.maintenanceSwitch().set(since);
  }

  /** A writer of the user's sessions or flags is about to write D1 (worker/lib/session-push.ts). */
  async accountSessionsChanging(userId: number, mark: string): Promise<void> {
    this.sessionTrust(userId).changing(mark, Date.now());
  }

  /** That writer is done: trust D1's next answer again. */
  async accountSessionsChanged(userId: number, mark: string): Promise<void> {
    this.sessionTrust(userId).changed(mark, Date.now());
  }

  /** Whether a session may act now (a replay's check; the money calls carry it instead). */
  async accountSessionCheck(userId: number, session: SessionProof): Promise<boolean> {
    return this.sessionTrust(userId).check(session, Date.now());
  }

  /** D1 reads the session checks made (tests). */
  async accountSessionReads(): Promise<number> {
    return this.trust?.reads ?? 0;
  }

  async accountReserve(userId: number, request: A.ReserveRequest, session?: SessionProof): Promise<A.ReserveAnswer> {
    await this.requireOpen(userId);
    await this.requireSession(userId, session);
    const answer = this.book(userId).reserve(request);
    if (answer.result === "reserved") await this.drainSoon();
    return answer;
  }

  async accountReserveMany(userId: number, requests: A.ReserveRequest[], session?: SessionProof): Promise<A.ReserveManyAnswer[]> {
    await this.requireOpen(userId);
    await this.requireSession(userId, session);
    const answers = this.book(userId).reserveMany(requests);
    if (answers.some((a) => a.result === "reserved")) await this.drainSoon();
    return answers.map((a) => (a.result === "reserved" ? { result: "reserved" } : a));
  }

  async accountResolve(userId: number, request: A.ResolveRequest): Promise<A.LegAnswer> {
    const answer = this.book(userId).resolve(request);
    if (answer.result !== "seen") await this.drainSoon();
    return answer;
  }

  async accountApply(userId: number, legs: A.AccountLeg[]): Promise<A.LegAnswer[]> {
    const answers = this.book(userId).apply(legs);
    if (answers.some((a) => a.result !== "seen")) await this.drainSoon();
    return answers;
  }

  /** Legs from another object's outbox (the core's format); the sender forgets each leg once answered. */
  async accountReceive(userId: number, legs: Leg[]): Promise<LegResult[]> {
    const answers = this.book(userId).receive(legs);
    if (answers.some((a) => a !== "seen")) await this.drainSoon();
    return answers;
  }

  async accountTransfer(userId: number, request: A.TransferRequest, session?: SessionProof): Promise<A.TransferAnswer> {
    await this.requireOpen(userId);
    await this.requireSession(userId, session);
    const answer = this.book(userId).transfer(request);
    if (answer === "moved") await this.drainSoon();
    return answer;
  }

  /** A conversion: one currency out of available, another credited, once by key (see AccountBook.convert). */
  async accountConvert(userId: number, request: A.ConvertRequest): Promise<A.ConvertAnswer> {
    const answer = this.book(userId).convert(request);
    if (answer === "moved") await this.drainSoon();
    return answer;
  }

  /** A conversion's key made final by the house's orphan sweep: `ran`, or `voided` (see AccountBook.voidConvert). */
  async accountVoidConvert(userId: number, key: string): Promise<"ran" | "voided"> {
    return this.book(userId).voidConvert(key);
  }

  async accountBalances(userId: number): Promise<A.AccountBalance[]> {
    return this.book(userId).balances();
  }

  async accountHold(userId: number, hold: string): Promise<A.AccountHold | null> {
    return this.book(userId).hold(hold);
  }

  /** Several holds by name, in the order asked (null = none): where a batch of cancels goes. */
  async accountHolds(userId: number, holds: string[], session?: SessionProof): Promise<(A.AccountHold | null)[]> {
    await this.requireOpen(userId);
    await this.requireSession(userId, session);
    return this.book(userId).holds(holds);
  }

  // ---- a system account's shard (`system:{id}:{k}`) --------------------------------------------

  private systemBook(userId: number, shard: number): AccountBook {
    const book = this.book();
    book.ownerSystem(userId, shard);
    return book;
  }

  /** Legs for this shard from another object's outbox (fees of trades, …): as `accountReceive`. */
  async systemReceive(userId: number, shard: number, legs: Leg[]): Promise<LegResult[]> {
    const answers = this.systemBook(userId, shard).receive(legs);
    if (answers.some((a) => a !== "seen")) await this.drainSoon();
    return answers;
  }

  /** A hold in this shard (the treasury's cover of a seconds contract or a lever position): as `accountReserve`. */
  async systemReserve(userId: number, shard: number, request: A.ReserveRequest): Promise<A.ReserveAnswer> {
    await this.requireOpen(shard);
    const answer = this.systemBook(userId, shard).reserve(request);
    if (answer.result === "reserved") await this.drainSoon();
    return answer;
  }

  /** Keyed legs on this shard (a refused record's cover released): as `accountApply`. */
  async systemApply(userId: number, shard: number, legs: A.AccountLeg[]): Promise<A.LegAnswer[]> {
    const answers = this.systemBook(userId, shard).apply(legs);
    if (answers.some((a) => a.result !== "seen")) await this.drainSoon();
    return answers;
  }

  /**
   * The cut-over's one-time opening of this shard from its part of D1's system balances, with the
   * holds of the records this shard resolves by name (keyed: a second call writes nothing).
   */
  async systemImport(userId: number, shard: number, rows: A.OpeningBalance[], records: A.OpeningHold[] = []): Promise<A.ImportAnswer> {
    const answer = this.systemBook(userId, shard).importOpening(rows, records);
    if (answer.result === "imported") await this.drainSoon();
    return answer;
  }

  async systemHold(userId: number, shard: number, hold: string): Promise<A.AccountHold | null> {
    return this.systemBook(userId, shard).hold(hold);
  }

  /** This shard's open holds of one kind made before `before` (the treasury's conversion holds: their orphan sweep). */
  async systemOpenHolds(userId: number, shard: number, forKind: string, before: number): Promise<A.AccountHold[]> {
    return this.systemBook(userId, shard).openHoldsOf(forKind, before);
  }

  async systemBalances(userId: number, shard: number): Promise<A.AccountBalance[]> {
    return this.systemBook(userId, shard).balances();
  }

  async accountOpenHolds(userId: number): Promise<A.AccountHold[]> {
    return this.book(userId).openHolds();
  }

  /** Open holds of these kinds with their records' owners (`pair:{id}`): cancel_all's open orders, the conditional list's pairs. */
  async accountOwnedHolds(userId: number, forKinds: string[]): Promise<A.AccountHold[]> {
    return this.book(userId).openOwnedHolds(forKinds);
  }

  /** The pairs of this user's open spot orders and of those placed in the last `recentMs` (see AccountBook.spotPairs). */
  async accountSpotPairs(userId: number, recentMs: number): Promise<number[]> {
    return this.book(userId).spotPairs(recentMs);
  }

  /** Every pair owning or having owned a hold of this user (see AccountBook.holdPairs): the reconciler drains them before it reports. */
  async accountHoldPairs(userId: number): Promise<number[]> {
    return this.book(userId).holdPairs();
  }

  /** The migration's one-time opening from D1's balances (keyed: a second call writes nothing). */
  async accountImport(userId: number, rows: A.OpeningBalance[], records: A.OpeningHold[] = []): Promise<A.ImportAnswer> {
    const answer = this.book(userId).importOpening(rows, records);
    if (answer.result === "imported") await this.drainSoon();
    return answer;
  }

  /** Who this object drains for: its user, or its system shard; undefined before its first money call. */
  private drainSource(): DrainSource | undefined {
    const book = this.book();
    const userId = book.ownerOf();
    if (userId !== undefined) return { kind: "user", userId };
    const system = book.systemOf();
    return system ? { kind: "system", userId: system.userId, shard: system.shard } : undefined;
  }

  /**
   * One drain step now, written by this object itself: up to `limit` movements and notifications
   * into D1. A reader of its own writes (the statement) and the reconciler call this; in objects
   * mode the alarm hands over to a collector instead (`handOver`).
   */
  async accountDrain(limit = DRAIN_BATCH): Promise<A.DrainAnswer> {
    const source = this.drainSource();
    if (!source) return { movements: 0, notices: 0, drainedSeq: 0, more: false };
    const book = this.book();
    const p = book.pending(limit);
    if (p.movements.length === 0 && p.notices.length === 0) return book.drainAnswer(0, 0);
    await this.env.DB.batch(
      source.kind === "system"
        ? systemDrainStatements(this.env.DB, source.userId, source.shard, p.movements)
        : drainStatements(this.env.DB, source.userId, p.movements, p.notices, Date.now()),
    );
    book.markDrained(p.movements.at(-1)?.seq ?? 0, p.notices.at(-1)?.seq ?? 0);
    return book.drainAnswer(p.movements.length, p.notices.length);
  }

  /**
   * One drain step through this object's collector: the rows go to `drain:{k}`, which answers once
   * D1 has them in one of its batches; only then does the bookmark move (a failed or lost call
   * leaves the rows here for the next try; D1 takes none twice). `later`: D1 is failing, try after
   * `retryMs` (the answer's `more` is then true and `retryMs` is set).
   */
  async accountHandOver(limit = DRAIN_BATCH): Promise<A.DrainAnswer & { retryMs?: number }> {
    const source = this.drainSource();
    if (!source) return { movements: 0, notices: 0, drainedSeq: 0, more: false };
    const book = this.book();
    const p = book.pending(limit);
    if (p.movements.length === 0 && p.notices.length === 0) return book.drainAnswer(0, 0);
    const name = collectorName(source, collectorCount(this.env));
    const collector = this.env.USER.get(objectId(this.env.USER, name));
    const answer = await collector.collectorTake({ source, movements: p.movements, notices: p.notices });
    if (answer.result !== "written") return { ...book.drainAnswer(0, 0), more: true, retryMs: answer.retryMs };
    book.markDrained(p.movements.at(-1)?.seq ?? 0, p.notices.at(-1)?.seq ?? 0);
    return book.drainAnswer(p.movements.length, p.notices.length);
  }

  // ---- a collector (`drain:{k}`): gathers hand-overs into one D1 batch ---------------------------

  private collector: DrainCollector | undefined;

  /** A hand-over from an account object; answers once D1 committed it, or `later` while D1 fails. */
  async collectorTake(handOver: HandOver): Promise<HandOverAnswer> {
    this.collector ??= new DrainCollector(async (handOvers) => {
      const stmts = collectorStatements(this.env.DB, handOvers);
      if (stmts.length > 0) await this.env.DB.batch(stmts);
    });
    return this.collector.take(handOver);
  }

  /** A pair waits for its hand-over (someone waits for its drain): this collector writes its window now. */
  async collectorHurry(): Promise<void> {
    this.collector?.hurry();
  }

  /** What this collector has done since it started (tests). */
  async collectorStats(): Promise<DrainCollector["stats"] | null> {
    return this.collector ? { ...this.collector.stats } : null;
  }

  /**
   * The orphan sweep: asks the owner of each open hold made more than `graceMs` ago whether it
   * knows the hold's record: the pair, for `spot_order` (its journal), `seconds` (its contracts)
   * and `lever_margin` (its positions) holds. An owner that never had the record tombstones it (it
   * can never be booked or accepted after), and the hold's rest is released here, keyed
   * `{hold}:orphan`; one it knows is never asked about again (its legs resolve the hold). A system
   * shard sweeps its own holds the same way (the treasury's covers of contracts and positions).
   * A hold owned by `d1` (a product whose record lives in D1) is claimed as an orphan in D1
   * (durable/account/claims.ts) unless its record claimed it first.
   * Answers what it did and when the next hold comes due (null: none waits).
   */
  async accountSweep(graceMs = ORPHAN_GRACE_MS): Promise<{ known: number; released: number; next: number | null }> {
    const book = this.book();
    if (book.ownerOf() === undefined && !book.systemOf()) return { known: 0, released: 0, next: null };
    const { holds, next } = book.unchecked(Date.now() - graceMs);
    let known = 0;
    let released = 0;
    for (const h of holds) {
      const verdict = await this.askOwner(h);
      if (verdict === null) {
        // No owner this sweep knows how to ask: left for an operator (the reconciler lists open holds).
        book.markChecked(h.hold);
        continue;
      }
      if (verdict === "known") {
        book.markChecked(h.hold);
        known += 1;
      } else if (book.releaseOrphan(h.hold).result === "applied") released += 1;
    }
    if (released > 0) await this.drainSoon();
    return { known, released, next: next === null ? null : next + graceMs };
  }

  /** Whether a hold's owner knows its record ("tombstoned": it did not, and never will); null when nobody here can be asked. */
  private async askOwner(h: { hold: string; owner: string; forKind: string; forId: string }): Promise<"known" | "tombstoned" | null> {
    // A product whose record lives in D1 (savings, cover, mining, C2C, withdrawals, ...): its claims decide.
    if (h.owner === RECORD_OWNER) return (await claimOrphan(this.env.DB, h.hold, Date.now())) === "record" ? "known" : "tombstoned";
    const pair = /^pair:([0-9]+)$/.exec(h.owner);
    const id = Number(h.forId);
    if (!pair || !/^[0-9]+$/.test(h.forId) || !Number.isSafeInteger(id)) return null;
    const pairId = Number(pair[1]);
    const stub = this.env.PAIR.get(objectId(this.env.PAIR, `pair:${pairId}`));
    if (h.forKind === "spot_order") {
      // "not_yours": the id is another user's order (this hold drew a taken id), so this user's order never was.
      const verdict = await stub.tombstone(pairId, id, this.book().ownerOf());
      return verdict === "not_yours" ? "tombstoned" : verdict;
    }
    if (h.forKind === "spot_cond") {
      const user = this.book().ownerOf();
      return user === undefined ? null : stub.conditionalVerdict(pairId, id, user);
    }
    if (h.forKind === "seconds") return (await stub.secondsVerdict(pairId, id)).verdict;
    if (h.forKind === "lever_margin") return (await stub.leverVerdict(pairId, id)).verdict;
    return null;
  }

  override async alarm(): Promise<void> {
    this.drainSet = false;
    // Objects mode: through a collector (one D1 batch for many accounts); otherwise (or with
    // DRAIN_COLLECTORS = "0") this object's own batch.
    const collect = accountsOnObjects(this.env) && collectorCount(this.env) > 0;
    try {
      for (let i = 0; i < STEPS_PER_ALARM; i++) {
        const step: A.DrainAnswer & { retryMs?: number } = collect ? await this.accountHandOver() : await this.accountDrain();
        if (step.retryMs !== undefined) {
          // D1 is failing (the collector said so): the rows wait here, asked about again after the collector's back-off.
          this.drainSet = true;
          await this.ctx.storage.setAlarm(Date.now() + Math.max(step.retryMs, DRAIN_DELAY_MS));
          return;
        }
        if (!step.more) {
          // Drained: the orphan sweep, then the alarm for the next hold that comes due (if any).
          const { next } = await this.accountSweep();
          if (next !== null && !this.drainSet) await this.ctx.storage.setAlarm(Math.max(next, Date.now() + DRAIN_DELAY_MS));
          return;
        }
      }
      await this.drainSoon(0);
    } catch (err) {
      console.error(JSON.stringify({ level: "warn", msg: "account drain failed; retrying", error: String(err).slice(0, 300) }));
      this.drainSet = true;
      await this.ctx.storage.setAlarm(Date.now() + DRAIN_RETRY_MS);
    }
  }

  /** Sets the drain's alarm unless one is set: an earlier alarm is never pushed back by later writes. */
  private async drainSoon(delay = DRAIN_DELAY_MS): Promise<void> {
    if (this.drainSet) return;
    // An alarm set later (the orphan sweep's) is brought forward; an earlier one is kept.
    const at = await this.ctx.storage.getAlarm();
    if (at === null || at > Date.now() + delay) await this.ctx.storage.setAlarm(Date.now() + delay);
    this.drainSet = true;
  }
}
