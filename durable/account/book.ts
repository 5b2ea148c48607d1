/**
 * One user's money inside their account object: every account kind and currency, holds keyed by
 * what they reserve for, legs applied at most once by key, and the notifications written in the
 * same transaction as the money they describe. Pure code over the money core's ports
 * (durable/money): the object hands it `ctx.storage.sql` + `transactionSync` (do-sql.ts), a test or
 * the simulator can hand it `node:sqlite`. Overdrafts are impossible in storage: the core's tables
 * CHECK every balance and hold (available, frozen, spent, released never below zero, never past
 * the hold), so a bug aborts its transaction instead of taking money that is not there.
 */
import { MoneyCore, type ClockPort, type HoldRow, type Leg, type LegResult, type MovementRow, type Op, type SqlPort } from "../money/index.ts";
import { migrateAccount } from "./schema.ts";
import type {
  AccountBalance,
  AccountHold,
  AccountLeg,
  AccountNotice,
  AccountOp,
  ConvertAnswer,
  ConvertRequest,
  DrainAnswer,
  ImportAnswer,
  LegAnswer,
  OpeningBalance,
  OpeningHold,
  ReserveAnswer,
  ReserveRequest,
  ResolveRequest,
  TransferAnswer,
  TransferRequest,
} from "./types.ts";

/** The key of the one-time opening copied from D1 (scripts/migrate-accounts.mjs). */
export const OPENING_KEY = "migrate:opening";
/** What a D1 frozen balance becomes in the object: one hold per account and currency (see the design page). */
export const MIGRATED_HOLD_KIND = "migrated";

const NAME = /^[a-z][a-z0-9_]{0,31}$/;
const ID = /^[A-Za-z0-9_.:-]{1,120}$/;
/** A client's own record id (spot's and seconds' `client_oid` fit). */
const CLIENT_ID = /^[A-Za-z0-9_-]{1,64}$/;
const MAX = BigInt(Number.MAX_SAFE_INTEGER);

/** A caller's mistake (a bad name, a negative or fractional amount): thrown before anything is read. */
function bad(what: string): never {
  throw new RangeError(`account object: ${what}`);
}

function units(amount: unknown, what: string): number {
  if (typeof amount !== "bigint" || amount < 0n || amount > MAX) bad(`${what} must be a bigint in [0, 2^53)`);
  return Number(amount);
}

function name(v: unknown, what: string): string {
  if (typeof v !== "string" || !NAME.test(v)) bad(`${what} is not a name`);
  return v;
}

function currency(v: unknown): string {
  if (typeof v !== "number" || !Number.isSafeInteger(v) || v <= 0) bad("currencyId is not a positive integer");
  return String(v);
}

function key(v: unknown, what = "key"): string {
  if (typeof v !== "string" || v.length < 1 || v.length > 200) bad(`${what} must be 1-200 characters`);
  return v;
}

function checkNotice(n: AccountNotice | undefined): void {
  if (!n) return;
  key(n.eventKey, "notice.eventKey");
  if (typeof n.kind !== "string" || n.kind.length < 1 || n.kind.length > 64) bad("notice.kind must be 1-64 characters");
  if (n.link !== undefined && typeof n.link !== "string") bad("notice.link must be text");
}

const toHold = (h: HoldRow): AccountHold => ({
  hold: h.hold,
  account: h.kind,
  currencyId: Number(h.currency),
  amount: BigInt(h.amount),
  spent: BigInt(h.spent),
  released: BigInt(h.released),
  forKind: h.for_kind,
  forId: h.for_id,
  open: h.state === "open",
  createdAt: h.created_at,
});

/** The pair ids of holds' owners `pair:{id}` (other owners left out). */
const pairsOf = (rows: readonly { owner: string }[]): number[] =>
  rows.flatMap((r) => {
    const m = /^pair:([0-9]{1,9})$/.exec(r.owner);
    return m ? [Number(m[1])] : [];
  });

/** A movement as the drain sends it to D1's read model (`account_movements`). */
export type PendingMovement = MovementRow & { at: number };

export interface PendingNotice {
  seq: number;
  event_key: string;
  kind: string;
  params: string;
  link: string;
  created_at: number;
}

export class AccountBook {
  private readonly sql: SqlPort;
  private readonly clock: ClockPort;
  private readonly core: MoneyCore;
  private ownerId: number | undefined;
  /** Set when this object is a system account's shard (ownerSystem). */
  private shard: number | undefined;
  /** One time for every movement of one transaction that must read as one event (the opening). */
  private pinnedAt: number | undefined;

  constructor(sql: SqlPort, clock: ClockPort = { now: () => Date.now() }) {
    this.sql = sql;
    this.clock = { now: () => this.pinnedAt ?? clock.now() };
    migrateAccount(sql);
    this.core = new MoneyCore("account", {
      sql,
      clock: this.clock,
      random: { next: Math.random },
      // An account object only receives legs today; sending (a user-to-user leg) is the pair's and the system shards' part.
      transport: {
        send() {
          throw new Error("account objects send no legs");
        },
      },
    });
  }

  /** Binds the object to its user on first use; a call for another user is a bug and is refused. */
  owner(userId: number): number {
    if (this.ownerId === userId && this.shard === undefined) return userId;
    if (!Number.isSafeInteger(userId) || userId <= 0) bad("userId is not a positive integer");
    const row = this.sql.query<{ user_id: number }>("SELECT user_id FROM account_owner WHERE one = 1")[0];
    if (row && row.user_id !== userId) throw new Error(`account object of user ${row.user_id} called for user ${userId}`);
    if (!row) {
      const system = this.systemOf();
      if (system) throw new Error(`system shard ${system.userId}:${system.shard} called for user ${userId}`);
      this.sql.run("INSERT INTO account_owner (one, user_id) VALUES (1, ?)", userId);
    }
    this.ownerId = userId;
    return userId;
  }

  /**
   * Binds the object to shard `shard` of system account `userId` (a D1 system user id, <= 0) on
   * first use (durable/account/address.ts); a call naming another account or shard is refused.
   */
  ownerSystem(userId: number, shard: number): void {
    if (this.ownerId === userId && this.shard === shard) return;
    if (!Number.isSafeInteger(userId) || userId > 0) bad("a system account's id is <= 0");
    if (!Number.isSafeInteger(shard) || shard < 0) bad("shard is not a non-negative integer");
    const row = this.systemOf();
    if (row && (row.userId !== userId || row.shard !== shard)) throw new Error(`system shard ${row.userId}:${row.shard} called as ${userId}:${shard}`);
    if (!row) {
      const user = this.sql.query<{ user_id: number }>("SELECT user_id FROM account_owner WHERE one = 1")[0];
      if (user) throw new Error(`account object of user ${user.user_id} called as system shard ${userId}:${shard}`);
      this.sql.run("INSERT INTO account_system (one, user_id, shard) VALUES (1, ?, ?)", userId, shard);
    }
    this.ownerId = userId;
    this.shard = shard;
  }

  /** The user this object belongs to (undefined before its first call, and for a system shard). */
  ownerOf(): number | undefined {
    if (this.shard !== undefined) return undefined;
    return this.ownerId ?? this.sql.query<{ user_id: number }>("SELECT user_id FROM account_owner WHERE one = 1")[0]?.user_id;
  }

  /** The system account and shard this object is (undefined for a user's object or before its first call). */
  systemOf(): { userId: number; shard: number } | undefined {
    if (this.shard !== undefined) return { userId: this.ownerId!, shard: this.shard };
    const row = this.sql.query<{ user_id: number; shard: number }>("SELECT user_id, shard FROM account_system WHERE one = 1")[0];
    return row ? { userId: row.user_id, shard: row.shard } : undefined;
  }

  // ---- money ----------------------------------------------------------------------------------

  /** A reservation's fields checked (what `reserve` and `reserveMany` take), and the hold it makes. */
  private asked(r: ReserveRequest) {
    const kind = name(r.account, "account");
    const cur = currency(r.currencyId);
    const amt = units(r.amount, "amount");
    if (amt === 0) bad("a hold reserves a positive amount");
    const forKind = name(r.forKind, "forKind");
    if (typeof r.forId !== "string" || !ID.test(r.forId)) bad("forId is not an id");
    checkNotice(r.notice);
    if (r.owner !== undefined && (typeof r.owner !== "string" || !ID.test(r.owner) || r.owner.length > 64)) bad("owner is not a name");
    if (r.clientId !== undefined && (typeof r.clientId !== "string" || !CLIENT_ID.test(r.clientId))) bad("clientId is not a client id");
    if (r.terms !== undefined && (typeof r.terms !== "string" || r.terms.length > 2_000)) bad("terms must be text of at most 2000 characters");
    if (r.replaces !== undefined && (typeof r.replaces !== "string" || !ID.test(r.replaces))) bad("replaces is not a hold");
    return { r, kind, cur, amt, forKind, hold: `${forKind}:${r.forId}` };
  }

  /**
   * One record per client id: the first one's hold answers (`replay`, nothing moves), checked with
   * the reserve; unless that first hold is the one this request `replaces` (its earlier draw, given
   * back as taken): then the client id passes to the new hold (`passed`).
   */
  private clientIdOf(a: ReturnType<AccountBook["asked"]>): { replay: ReserveAnswer | null; passed: boolean } {
    if (a.r.clientId === undefined) return { replay: null, passed: false };
    const first = this.sql.query<{ hold: string; terms: string }>("SELECT hold, terms FROM account_client_ids WHERE for_kind = ? AND client_id = ?", a.forKind, a.r.clientId)[0];
    const h = first && this.core.hold(first.hold);
    const passed = first !== undefined && h !== undefined && first.hold === a.r.replaces && h.state !== "open";
    return { replay: h && !passed ? { result: "replay", hold: this.withOwner(toHold(h)), terms: first.terms } : null, passed };
  }

  /** A hold just made for a reservation, as the core wrote it. */
  private madeHold(a: ReturnType<AccountBook["asked"]>, at: number): AccountHold {
    const hold = toHold({ hold: a.hold, kind: a.kind, currency: a.cur, amount: a.amt, spent: 0, released: 0, for_kind: a.forKind, for_id: a.r.forId, state: "open", created_at: at });
    return a.r.owner ? { ...hold, owner: a.r.owner } : hold;
  }

  /** What a reservation made writes beside its hold: its notice, its client id (new, or passed from the hold it replaces), and its owner unless the caller gathers owners. */
  private recordReserved(a: ReturnType<AccountBook["asked"]>, passed: boolean, owners?: [string, string][]): void {
    this.notice(a.r.notice);
    if (a.r.owner && owners) owners.push([a.hold, a.r.owner]);
    else if (a.r.owner) this.sql.run("INSERT INTO account_hold_owners (hold, owner) VALUES (?, ?)", a.hold, a.r.owner);
    if (a.r.clientId !== undefined && passed)
      this.sql.run("UPDATE account_client_ids SET hold = ?, terms = ? WHERE for_kind = ? AND client_id = ?", a.hold, a.r.terms ?? "", a.forKind, a.r.clientId);
    else if (a.r.clientId !== undefined)
      this.sql.run("INSERT INTO account_client_ids (for_kind, client_id, hold, terms) VALUES (?, ?, ?, ?)", a.forKind, a.r.clientId, a.hold, a.r.terms ?? "");
  }

  /** Reserves funds for one record (an order, a contract, a position, an escrow): hold `${forKind}:${forId}`. */
  reserve(r: ReserveRequest): ReserveAnswer {
    const a = this.asked(r);
    return this.sql.transaction((): ReserveAnswer => {
      const { replay, passed } = this.clientIdOf(a);
      if (replay) return replay;
      const at = this.clock.now();
      const result = this.core.reserve({ key: a.hold, kind: a.kind, cur: a.cur, amt: a.amt, forKind: a.forKind, forId: r.forId });
      if (result === "insufficient") return { result, available: BigInt(this.available(a.kind, a.cur)) };
      if (result === "exists") return { result, hold: this.withOwner(toHold(this.core.hold(a.hold)!)) };
      this.recordReserved(a, passed);
      // The hold just made, as the core wrote it (not read back).
      return { result, hold: this.madeHold(a, at) };
    });
  }

  /**
   * Several reservations in one transaction (a batch of orders), each answered as `reserve`
   * answers it, earlier requests first: one the balance no longer covers is refused alone.
   */
  reserveMany(requests: readonly ReserveRequest[]): ReserveAnswer[] {
    if (requests.length > 100) bad("at most 100 reservations per call");
    const asked = requests.map((r) => this.asked(r));
    // A client id twice in one call: one after another (the second answers with the first's record).
    const clientIds = asked.flatMap((a) => (a.r.clientId === undefined ? [] : [`${a.forKind}\u0000${a.r.clientId}`]));
    if (new Set(clientIds).size < clientIds.length) return this.sql.transaction(() => requests.map((r) => this.reserve(r)));
    return this.sql.transaction(() => {
      const ids = asked.map((a) => this.clientIdOf(a));
      const replays = ids.map((c) => c.replay);
      const passed = new Map(asked.map((a, i) => [a, ids[i]!.passed]));
      const todo = asked.filter((_, i) => replays[i] === null);
      const owners: [string, string][] = [];
      const made = this.core.reserveMany(todo.map((a) => ({ key: a.hold, kind: a.kind, cur: a.cur, amt: a.amt, forKind: a.forKind, forId: a.r.forId })));
      const answers = new Map(
        todo.map((a, k): [typeof a, ReserveAnswer] => {
          const { result, available, at } = made[k]!;
          if (result === "insufficient") return [a, { result, available: BigInt(available) }];
          if (result === "exists") return [a, { result, hold: this.withOwner(toHold(this.core.hold(a.hold)!)) }];
          this.recordReserved(a, passed.get(a)!, owners);
          return [a, { result, hold: this.madeHold(a, at) }];
        }),
      );
      // The holds' owners (the pair of each spot order) in one statement.
      if (owners.length > 0) this.sql.run("INSERT INTO account_hold_owners (hold, owner) SELECT value ->> 0, value ->> 1 FROM json_each(?) WHERE true", JSON.stringify(owners));
      return asked.map((a, i) => replays[i] ?? answers.get(a)!);
    });
  }

  /** Resolves a hold: spends `spend`, credits what the event pays, then releases `release` (or all that is left). */
  resolve(r: ResolveRequest): LegAnswer {
    const ops: AccountOp[] = [{ t: "spend", hold: r.hold, amount: r.spend }];
    for (const c of r.credits ?? []) ops.push({ t: "credit", ...c });
    ops.push({ t: "release", hold: r.hold, amount: r.release });
    return this.apply([{ key: r.key, ops, notice: r.notice }])[0]!;
  }

  /**
   * Applies legs in one transaction (a hot account takes many per call): each leg whole and its key
   * recorded together, a key seen before answered and not applied, a leg that asks for what is
   * not there refused whole. The notification of an applied leg is written with it.
   */
  apply(legs: readonly AccountLeg[]): LegAnswer[] {
    for (const leg of legs) {
      key(leg.key);
      if (!Array.isArray(leg.ops) || leg.ops.length === 0 || leg.ops.length > 64) bad(`leg ${leg.key} needs 1-64 ops`);
      for (const op of leg.ops) {
        if (op.t === "credit") {
          name(op.account, "account");
          currency(op.currencyId);
          units(op.amount, "amount");
        } else if (op.t === "spend" || op.t === "release") {
          key(op.hold, "hold");
          if (!(op.t === "release" && op.amount === "rest")) units(op.amount, "amount");
        } else bad(`unknown op ${(op as { t: unknown }).t}`);
      }
      checkNotice(leg.notice);
    }
    return this.sql.transaction(() => legs.map((leg) => this.applyOne(leg)));
  }

  /**
   * Legs in the money core's own format, as a sender's outbox delivers them (`MoneyCore.deliverDue`
   * in the pair object or a system shard): kinds are account names, currencies D1 ids as text.
   * Applied as `apply` does (whole, once by key; a refusal recorded for an operator); every answer
   * acknowledges the leg to its sender. No notifications: the sender's event carries none yet.
   */
  receive(legs: readonly Leg[]): LegResult[] {
    for (const leg of legs) key(leg.key);
    return this.sql.transaction(() => this.core.receive(legs));
  }

  /** Between two of this user's accounts, in one transaction. */
  transfer(r: TransferRequest): TransferAnswer {
    const k = key(r.key);
    const from = name(r.from, "from");
    const to = name(r.to, "to");
    const cur = currency(r.currencyId);
    const amt = units(r.amount, "amount");
    if (amt === 0 || from === to) bad("a transfer moves a positive amount between two accounts");
    checkNotice(r.notice);
    return this.sql.transaction((): TransferAnswer => {
      if (this.core.hasKey(k)) return "seen";
      // Checked here, not by the core's own refusal: that one would leave the key claimed inside this transaction.
      if (this.available(from, cur) < amt) return "insufficient";
      const result = this.core.transfer(k, from, to, cur, amt);
      if (result === "moved") this.notice(r.notice);
      return result;
    });
  }

  /**
   * One currency for another in one transaction (a conversion against the house): `from` leaves
   * the account's available funds, `to` is credited, once by key. Checked before the key is
   * claimed, as `transfer`: `insufficient` records nothing, and the same key may be tried again.
   */
  convert(r: ConvertRequest): ConvertAnswer {
    const k = key(r.key);
    const from = { kind: name(r.from?.account, "from.account"), cur: currency(r.from?.currencyId), amt: units(r.from?.amount, "from.amount") };
    const to = { kind: name(r.to?.account, "to.account"), cur: currency(r.to?.currencyId), amt: units(r.to?.amount, "to.amount") };
    if (from.amt === 0 || to.amt === 0 || from.cur === to.cur) bad("a conversion moves positive amounts between two currencies");
    checkNotice(r.notice);
    return this.sql.transaction((): ConvertAnswer => {
      if (this.core.hasKey(k)) return this.core.hasKey(`${k}:void`) ? "void" : "seen";
      if (this.available(from.kind, from.cur) < from.amt) return "insufficient";
      const [result] = this.core.receive([
        {
          key: k,
          to: "account",
          ops: [
            { t: "debit", kind: from.kind, cur: from.cur, amt: from.amt },
            { t: "credit", kind: to.kind, cur: to.cur, amt: to.amt },
          ],
        },
      ]);
      if (result !== "applied") throw new Error(`conversion ${k} not applied: ${result}`);
      this.notice(r.notice);
      return "moved";
    });
  }

  /**
   * Makes conversion key `k` final when the Worker that ran it never came back (the house's orphan
   * sweep): `ran` when it moved, else `voided`: the key and `{k}:void` are claimed with nothing
   * moved, so a late `convert` under it answers `void` and moves nothing.
   */
  voidConvert(k: string): "ran" | "voided" {
    key(k);
    return this.sql.transaction(() => {
      if (this.core.hasKey(k)) return this.core.hasKey(`${k}:void`) ? "voided" : "ran";
      this.core.receive([
        { key: k, to: "account", ops: [] },
        { key: `${k}:void`, to: "account", ops: [] },
      ]);
      return "voided";
    });
  }

  /** Open holds for one kind of record made before `before`, oldest first (at most 100): a system shard's sweep. */
  openHoldsOf(forKind: string, before: number): AccountHold[] {
    name(forKind, "forKind");
    return this.sql.query<HoldRow>("SELECT * FROM money_holds WHERE state = 'open' AND for_kind = ? AND created_at < ? ORDER BY created_at LIMIT 100", forKind, before).map(toHold);
  }

  /**
   * The one-time opening from D1's balances (the migration): each row's available and frozen
   * credited, each open record's part of the frozen amount put in its own hold (`records`, keyed
   * as the product will resolve it), and what no record explains in one hold
   * `migrated:{account}:{currency}`. Keyed: a second
   * call answers `seen` and writes nothing. Refused (thrown) on an object that already moved money.
   */
  importOpening(rows: readonly OpeningBalance[], records: readonly OpeningHold[] = []): ImportAnswer {
    const checked = rows.map((r) => ({ kind: name(r.account, "account"), cur: currency(r.currencyId), available: units(r.available, "available"), frozen: units(r.frozen, "frozen") }));
    const holds = records.map((h) => {
      if (typeof h.forId !== "string" || !ID.test(h.forId)) bad("forId is not an id");
      if (h.owner !== undefined && (typeof h.owner !== "string" || !ID.test(h.owner) || h.owner.length > 64)) bad("owner is not a name");
      return { kind: name(h.account, "account"), cur: currency(h.currencyId), amt: units(h.amount, "amount"), forKind: name(h.forKind, "forKind"), forId: h.forId, owner: h.owner };
    });
    // The records' holds come out of their balance's frozen amount; what no record explains stays in one `migrated` hold.
    const left = new Map(checked.map((r) => [`${r.kind}:${r.cur}`, r.frozen]));
    for (const h of holds) {
      const rest = (left.get(`${h.kind}:${h.cur}`) ?? 0) - h.amt;
      if (h.amt === 0 || rest < 0) bad(`record hold ${h.forKind}:${h.forId} is not inside its frozen balance`);
      left.set(`${h.kind}:${h.cur}`, rest);
    }
    // The opening's credits and the holds it re-makes carry one time: the statement leaves out the
    // holds made with the opening by that time (worker/domain/wallet/statement.ts), so a hold stamped
    // a millisecond later (a loaded machine) would show as a line of its own.
    this.pinnedAt = this.clock.now();
    try {
      return this.importOpeningNow(checked, holds, left);
    } finally {
      this.pinnedAt = undefined;
    }
  }

  private importOpeningNow(
    checked: readonly { kind: string; cur: string; available: number; frozen: number }[],
    holds: readonly { kind: string; cur: string; amt: number; forKind: string; forId: string; owner?: string }[],
    left: ReadonlyMap<string, number>,
  ): ImportAnswer {
    return this.sql.transaction((): ImportAnswer => {
      if (this.core.hasKey(OPENING_KEY)) return { result: "seen", balances: this.balances() };
      if (this.sql.query("SELECT 1 FROM money_movements LIMIT 1").length > 0) throw new Error("account object already holds money: no opening from D1");
      const ops: Op[] = checked.map((r) => ({ t: "credit", kind: r.kind, cur: r.cur, amt: r.available + r.frozen }));
      const [result] = this.core.receive([{ key: OPENING_KEY, to: "account", ops }]);
      if (result !== "applied") throw new Error(`opening not applied: ${result}`);
      for (const h of holds) {
        const held = this.core.reserve({ key: `${h.forKind}:${h.forId}`, kind: h.kind, cur: h.cur, amt: h.amt, forKind: h.forKind, forId: h.forId });
        if (held !== "reserved") throw new Error(`opening hold ${h.forKind}:${h.forId}: ${held}`);
        if (h.owner) this.sql.run("INSERT INTO account_hold_owners (hold, owner) VALUES (?, ?)", `${h.forKind}:${h.forId}`, h.owner);
      }
      for (const [id, amt] of left) {
        if (amt === 0) continue;
        const [kind, cur] = id.split(":") as [string, string];
        const held = this.core.reserve({ key: `${MIGRATED_HOLD_KIND}:${id}`, kind, cur, amt, forKind: MIGRATED_HOLD_KIND, forId: id });
        if (held !== "reserved") throw new Error(`opening hold ${id}: ${held}`);
      }
      return { result: "imported", balances: this.balances() };
    });
  }

  // ---- exact reads ----------------------------------------------------------------------------

  balances(): AccountBalance[] {
    return this.core
      .balances()
      .map((b) => ({ account: b.kind, currencyId: Number(b.currency), available: BigInt(b.available), frozen: BigInt(b.frozen) }))
      .sort((a, b) => a.account.localeCompare(b.account) || a.currencyId - b.currencyId);
  }

  hold(hold: string): AccountHold | null {
    const h = this.core.hold(key(hold, "hold"));
    return h ? this.withOwner(toHold(h)) : null;
  }

  /** Several holds by name, in the order asked (null = no such hold): a batch cancel's one read. */
  holds(names: readonly string[]): (AccountHold | null)[] {
    if (names.length > 100) bad("at most 100 holds per call");
    return names.map((n) => this.hold(n));
  }

  /**
   * The orphan sweep's list: open holds with an owner that has not yet said it knows their record,
   * made before `before` (oldest first, at most `limit`); and when the next one comes due.
   * Holds resolved meanwhile are marked checked here (nobody needs to ask about them).
   */
  unchecked(before: number, limit = 50): { holds: { hold: string; owner: string; forKind: string; forId: string }[]; next: number | null } {
    return this.sql.transaction(() => {
      // From the unchecked owners (their partial index) to each one's hold by key: an `IN (SELECT … state =
      // 'resolved')` read every resolved hold the account ever had (8.3 ms against 0.2 ms at 20,000 holds).
      this.sql.run(
        "UPDATE account_hold_owners SET checked = 1 WHERE checked = 0 AND (SELECT state FROM money_holds h WHERE h.hold = account_hold_owners.hold) = 'resolved'",
      );
      const n = Math.max(1, Math.min(200, Math.floor(limit)));
      const holds = this.sql.query<{ hold: string; owner: string; forKind: string; forId: string }>(
        `SELECT o.hold, o.owner, h.for_kind AS forKind, h.for_id AS forId FROM account_hold_owners o JOIN money_holds h ON h.hold = o.hold
         WHERE o.checked = 0 AND h.state = 'open' AND h.created_at < ? ORDER BY h.created_at LIMIT ${n}`,
        before,
      );
      const next = this.sql.query<{ at: number | null }>(
        "SELECT min(h.created_at) AS at FROM account_hold_owners o JOIN money_holds h ON h.hold = o.hold WHERE o.checked = 0 AND h.state = 'open' AND h.created_at >= ?",
        before,
      )[0]?.at;
      return { holds, next: next ?? null };
    });
  }

  /** The hold's owner knows its record: never asked again. */
  markChecked(hold: string): void {
    this.sql.run("UPDATE account_hold_owners SET checked = 1 WHERE hold = ?", hold);
  }

  /** The owner never had the record and now never will (tombstoned): what is left of the hold goes back, keyed `{hold}:orphan`. */
  releaseOrphan(hold: string): LegAnswer {
    const answer = this.apply([{ key: `${hold}:orphan`, ops: [{ t: "release", hold, amount: "rest" }] }])[0]!;
    this.markChecked(hold);
    return answer;
  }

  private withOwner(h: AccountHold): AccountHold {
    const owner = this.sql.query<{ owner: string }>("SELECT owner FROM account_hold_owners WHERE hold = ?", h.hold)[0]?.owner;
    return owner ? { ...h, owner } : h;
  }

  /** Open holds, oldest first (what the orphan sweep will ask the holds' owners about), each with its record's owner when one was given. */
  openHolds(): AccountHold[] {
    const owners = new Map(
      this.sql.query<{ hold: string; owner: string }>("SELECT o.hold, o.owner FROM account_hold_owners o JOIN money_holds h ON h.hold = o.hold WHERE h.state = 'open'").map((r) => [r.hold, r.owner]),
    );
    return this.core.openHolds().map((h) => {
      const owner = owners.get(h.hold);
      return owner === undefined ? toHold(h) : { ...toHold(h), owner };
    });
  }

  /** Open holds of these kinds with the owner of each record (cancel_all: a pair's open orders, known before D1 has their rows). */
  openOwnedHolds(forKinds: readonly string[]): AccountHold[] {
    for (const k of forKinds) name(k, "forKind");
    return this.sql
      .query<HoldRow & { owner: string }>(
        "SELECT h.*, o.owner FROM money_holds h JOIN account_hold_owners o ON o.hold = h.hold WHERE h.state = 'open' AND h.for_kind IN (SELECT value FROM json_each(?)) ORDER BY h.created_at",
        JSON.stringify(forKinds),
      )
      .map((r) => ({ ...toHold(r), owner: r.owner }));
  }

  /**
   * The pairs whose D1 rows of this user's spot orders may not be drained yet (the read model's
   * read-your-own-writes, docs/architecture/account-objects.md "Read gaps found by the browser
   * suite"): the owners `pair:{id}` of the open `spot_order` holds and of those made in the last
   * `recentMs`, at most `limit` pairs. Two ranges of the holds' (state, created_at) index.
   */
  spotPairs(recentMs: number, limit = 8): number[] {
    const since = this.clock.now() - Math.max(0, Math.floor(recentMs));
    const n = Math.max(1, Math.min(50, Math.floor(limit)));
    const rows = this.sql.query<{ owner: string }>(
      `SELECT DISTINCT o.owner FROM (
         SELECT hold FROM money_holds WHERE state = 'open' AND for_kind = 'spot_order'
         UNION ALL SELECT hold FROM money_holds WHERE state = 'resolved' AND created_at >= ? AND for_kind = 'spot_order'
       ) h JOIN account_hold_owners o ON o.hold = h.hold LIMIT ${n}`,
      since,
    );
    return pairsOf(rows);
  }

  /**
   * Every pair that owns or owned a hold of this user, any kind, open or resolved (the reconciler:
   * a pair whose drain into D1 may still carry one of this user's records, a fill of an old order
   * among them). A scan of the holds' owners: asked only for a user whose frozen funds differ.
   */
  holdPairs(): number[] {
    return pairsOf(this.sql.query<{ owner: string }>("SELECT DISTINCT owner FROM account_hold_owners WHERE owner LIKE 'pair:%'"));
  }

  /** This user's notifications as written here (newest first, at most `limit`). */
  notices(limit = 50): PendingNotice[] {
    return this.sql.query<PendingNotice>(`SELECT seq, event_key, kind, params, link, created_at FROM account_notices ORDER BY seq DESC LIMIT ${Math.max(1, Math.min(500, Math.floor(limit)))}`);
  }

  // ---- the drain's side -----------------------------------------------------------------------

  /** Movements and notifications not yet in the read model, oldest first, at most `limit` of each. */
  pending(limit: number): { movements: PendingMovement[]; notices: PendingNotice[]; drainedSeq: number } {
    const n = Math.max(1, Math.min(2000, Math.floor(limit)));
    const drainedSeq = this.sql.query<{ value: number }>("SELECT value FROM money_meta WHERE name = 'drained'")[0]?.value ?? 0;
    const noticeSeq = this.sql.query<{ value: number }>("SELECT value FROM account_bookmarks WHERE name = 'notices'")[0]?.value ?? 0;
    // Literal LIMITs, as the core's own queries.
    const movements = this.sql.query<PendingMovement>(`SELECT seq, ref, kind, currency, d_available, d_frozen, at FROM money_movements WHERE seq > ? ORDER BY seq LIMIT ${n}`, drainedSeq);
    const notices = this.sql.query<PendingNotice>(`SELECT seq, event_key, kind, params, link, created_at FROM account_notices WHERE seq > ? ORDER BY seq LIMIT ${n}`, noticeSeq);
    return { movements, notices, drainedSeq };
  }

  /** The read model holds everything up to these seqs (bookmarks only move forward). */
  markDrained(movementSeq: number, noticeSeq: number): void {
    this.sql.transaction(() => {
      if (movementSeq > 0) this.core.markDrained(movementSeq);
      if (noticeSeq > 0)
        this.sql.run("INSERT INTO account_bookmarks (name, value) VALUES ('notices', ?1) ON CONFLICT (name) DO UPDATE SET value = max(value, ?1)", noticeSeq);
    });
  }

  /** Whether anything waits for the drain (one indexed read each). */
  undrained(): boolean {
    const p = this.pending(1);
    return p.movements.length > 0 || p.notices.length > 0;
  }

  drainAnswer(movements: number, notices: number): DrainAnswer {
    const p = this.pending(1);
    return { movements, notices, drainedSeq: p.drainedSeq, more: p.movements.length > 0 || p.notices.length > 0 };
  }

  // ---- inside a transaction -------------------------------------------------------------------

  private available(kind: string, cur: string): number {
    return this.sql.query<{ available: number }>("SELECT available FROM money_balances WHERE kind = ? AND currency = ?", kind, cur)[0]?.available ?? 0;
  }

  private applyOne(leg: AccountLeg): LegAnswer {
    if (this.core.hasKey(leg.key)) {
      const refused = this.sql.query<{ reason: string }>("SELECT reason FROM money_refused WHERE key = ?", leg.key)[0];
      return refused ? { key: leg.key, result: "refused", reason: refused.reason } : { key: leg.key, result: "seen" };
    }
    const used = new Map<string, number>();
    const ops = leg.ops.map((op): Op => {
      if (op.t === "credit") return { t: "credit", kind: op.account, cur: String(op.currencyId), amt: Number(op.amount) };
      const h = this.core.hold(op.hold);
      const before = used.get(op.hold) ?? 0;
      const amt = op.amount === "rest" ? (h ? Math.max(0, h.amount - h.spent - h.released - before) : 0) : Number(op.amount);
      used.set(op.hold, before + amt);
      return { t: op.t, hold: op.hold, cur: h?.currency ?? "", amt };
    });
    const [result] = this.core.receive([{ key: leg.key, to: "account", ops }]);
    if (result === "refused") {
      const reason = this.sql.query<{ reason: string }>("SELECT reason FROM money_refused WHERE key = ?", leg.key)[0]?.reason ?? "refused";
      return { key: leg.key, result, reason };
    }
    if (result === "applied") this.notice(leg.notice);
    return { key: leg.key, result: result! };
  }

  private notice(n: AccountNotice | undefined): void {
    if (!n) return;
    this.sql.run(
      "INSERT INTO account_notices (event_key, kind, params, link, created_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (event_key) DO NOTHING",
      n.eventKey,
      n.kind,
      JSON.stringify(n.params ?? {}),
      n.link ?? "",
      this.clock.now(),
    );
  }
}

