/**
 * The seconds desk (DESIGN §7): the pair's public index ticks and its seconds contracts.
 *
 * Ticks: after every spot commit and on a heartbeat (the scheduler's "tick" kind, due one second
 * after the newest tick while the book is two-sided), the index is read from the `IndexSource`
 * (the book's median by default) and a tick is recorded when its value changed or the newest one
 * is a second old. Ticks are kept for at least 90 days and readable by anyone.
 *
 * Contracts arrive with their money already held in D1. Acceptance fixes the entry tick (the
 * newest, refused when there is none or it is older than STALE_TICK_MS) and checks the exposure
 * limits against the house's holds of the open contracts, all in one synchronous transaction with
 * the expiry registration. At expiry the exit tick is the last one at or before `end_at`; the
 * result comes from durable/engine/seconds.ts and nothing else, written with status 2 and an
 * outbox entry in one transaction (so a second alarm or a restart finds status 2 and does nothing
 * again); the drain applies it to D1 as one movement keyed by the contract, then status 3.
 */
import { formatUnits } from "../../../schemas/money.ts";
import type { SecondsOrder } from "../../../schemas/seconds.ts";
import { bpsToPercent, settleSeconds, type SecondsDirection } from "../../engine/seconds.ts";
import { priceMoved } from "../../engine/margin.ts";
import { bookIndexSource, tickDue, type BookTop, type IndexSource } from "../../engine/index-price.ts";
import { formatShanghai } from "../../../worker/lib/time.ts";
import { NOTIFICATION_EVENT } from "../../../worker/domain/notifications/inbox.ts";
import { secondsSettled } from "../../../worker/domain/notifications/events.ts";
import type { Outbox, SecondsSettleEntry, SecondsSettlement } from "../outbox.ts";
import type { Scheduler } from "../scheduler.ts";
import type { PairStorage } from "../storage.ts";
import type { SpotDesk } from "./spot.ts";
import { DELIVER_FALLBACK_MS } from "../legs.ts";
import { secondsOpenKey, secondsOpenLegs, settleChunkLegs, settleEventKey, type ObjectsContractRow, type SecondsLegsOutbox } from "./seconds-objects.ts";

export const TICK_EVERY_MS = 1000;
/** An entry tick older than this is not a price to contract on. */
export const STALE_TICK_MS = 5000;
/** Ticks older than this are pruned (the promise is "at least 90 days"). */
export const TICK_KEEP_MS = 91 * 86_400_000;
const PRUNE_EVERY_MS = 3_600_000;
const SETTLED_KEEP_MS = 7 * 86_400_000;
/** Contracts settled per storage transaction (a due wave of thousands is settled in chunks). */
const SETTLE_CHUNK = 250;

/** A contract the Worker has already paid for in D1 (amounts in minimal units of the currency, as strings). */
export interface AcceptInput {
  pairId: number;
  orderId: number;
  userId: number;
  currencyId: number;
  currencyName: string;
  currencyScale: number;
  type: SecondsDirection;
  stake: string;
  fee: string;
  hold: string;
  ratioBps: number;
  seconds: number;
  /** The most the house may hold for this pair's open contracts in this currency, and for one user's on this pair. */
  pairExposure: string;
  userExposure: string;
  /**
   * The index (ticks) its owner confirmed: refused with price_moved when the entry tick differs
   * from it by more than PRICE_MOVE_TOLERANCE_BPS (the leverage rule). Absent: any entry (scripts).
   */
  confirmedPrice?: number;
  /**
   * `ACCOUNTS=objects` (desks/seconds-objects.ts): the money is held in the account objects and no
   * D1 row exists yet; the acceptance's outbox entry carries the row for the drain to insert.
   */
  objects?: { clientOid: string | null; createdAt: number; terms?: string };
}

export type AcceptRefusal = "no_market_price" | "pair_exposure" | "user_exposure" | "tombstoned" | "price_moved" | "pair_off" | "stale_terms";

/**
 * `fresh`: accepted by this call, its D1 row's status 1 and entry ride in the next drain batch (a
 * `seconds_accepted` outbox entry); false: accepted before (a replay), D1 may not have heard of it yet.
 */
export type AcceptResult =
  | { ok: true; fresh: boolean; openTickId: number; openPrice: number; createdAt: number; endAt: number }
  | { ok: false; code: AcceptRefusal; price?: number };

/** What the reconciler learns about a contract D1 still shows as held. */
export type ContractVerdict = { verdict: "tombstoned" } | { verdict: "known"; status: number; openTickId: number; openPrice: number; endAt: number };

export interface TickRow {
  id: number;
  price: number;
  at: number;
}

type Row = Record<string, SqlStorageValue>;

/** A tick as the API shows it (schemas/seconds.ts indexTickSchema). */
export interface PublicTick {
  id: number;
  match_id: number;
  price: string;
  at: number;
}

export class SecondsDesk {
  /**
   * Registers the desk's scheduler kinds ("tick": the heartbeat; "expiry": settlements, then the
   * drain) and marks settled contracts status 3 once their drain batch is in D1.
   */
  constructor(
    private readonly store: PairStorage,
    private readonly scheduler: Scheduler,
    private readonly outbox: Outbox,
    private readonly spot: SpotDesk,
    drain: () => Promise<unknown>,
    private readonly index: IndexSource = bookIndexSource,
  ) {
    scheduler.handle("tick", async (now) => this.heartbeat(spot.engine ? spot.top() : null, now));
    store.onRollback(() => {
      this.newest = undefined;
      this.sums = undefined;
    });
    scheduler.handle("expiry", (now) => this.expire(now, drain));
    outbox.whenApplied((entries) => this.settled(entries.flatMap((e) => (e.kind === "seconds" ? [e.settlement.orderId] : []))));
  }

  // ---------------------------------------------------------------- ticks

  /** The newest tick as last read or written here; undefined = read it again (after a rollback or a prune). */
  private newest: TickRow | null | undefined;

  lastTick(): TickRow | null {
    if (this.newest === undefined) {
      const r = this.store.one<Row>("SELECT id, price, at FROM ticks ORDER BY id DESC LIMIT 1");
      this.newest = r ? { id: Number(r.id), price: Number(r.price), at: Number(r.at) } : null;
    }
    return this.newest;
  }

  /** The index of a book top from this desk's `IndexSource` (the spot desk bands limit orders around it). */
  readIndex(top: BookTop): number | null {
    return this.index.read(top);
  }

  /**
   * Records a tick if one is due and keeps the heartbeat registered while there is an index.
   * Call inside the transaction of the command that may have moved the book. Returns the index.
   */
  tick(top: BookTop, now: number): number | null {
    const ix = this.index.read(top);
    let last = this.lastTick();
    if (tickDue(last, ix, now, TICK_EVERY_MS)) {
      const id = Number(this.store.one<Row>("INSERT INTO ticks (price, at) VALUES (?, ?) RETURNING id", ix, now)!.id);
      last = { id, price: ix!, at: now };
      this.newest = last;
    }
    if (ix !== null && last) this.scheduler.at("tick", last.at + TICK_EVERY_MS);
    return ix;
  }

  /** The heartbeat: a tick at least every second while the book is two-sided; old ticks and contracts pruned hourly. */
  heartbeat(top: BookTop | null, now: number): number | null {
    if (!top) return null;
    const ix = this.store.transaction(() => this.tick(top, now));
    if (now - Number(this.store.meta("ticks_pruned") ?? 0) >= PRUNE_EVERY_MS) {
      this.store.sql.exec("DELETE FROM ticks WHERE at < ?", now - TICK_KEEP_MS);
      this.newest = undefined;
      // Settled contracts live on in D1 (the record); the desk keeps a week of them for replays.
      this.store.sql.exec("DELETE FROM contracts WHERE status = 3 AND end_at < ?", now - SETTLED_KEEP_MS);
      this.store.setMeta("ticks_pruned", now);
    }
    const last = this.lastTick();
    return ix === null || !last ? null : Math.max(last.at + TICK_EVERY_MS, now + 1);
  }

  /** Ticks between two times (inclusive), oldest first, paged, prices as decimal strings. */
  ticks(from: number, to: number, page: number, limit: number): { total: number; lists: { id: number; match_id: number; price: string; at: number }[] } {
    const { total, lists } = this.tickRows(from, to, page, limit);
    const pairId = this.spot.info!.pairId;
    return { total, lists: lists.map((t) => ({ id: t.id, match_id: pairId, price: this.spot.price(t.price), at: t.at })) };
  }

  /**
   * One tick with up to `n` ticks either side of it (by id, which follows time), prices as decimal
   * strings; null when the pair has no such tick (never recorded, or pruned after TICK_KEEP_MS).
   * Read only: what a settlement's verification shows (issue #20 §3), never on an order's path.
   */
  tickWindow(id: number, n: number): { tick: PublicTick; before: PublicTick[]; after: PublicTick[] } | null {
    const pairId = this.spot.info!.pairId;
    const out = (r: Row): PublicTick => ({ id: Number(r.id), match_id: pairId, price: this.spot.price(Number(r.price)), at: Number(r.at) });
    const t = this.store.one<Row>("SELECT id, price, at FROM ticks WHERE id = ?", id);
    if (!t) return null;
    const before = this.store.sql.exec("SELECT id, price, at FROM ticks WHERE id < ? ORDER BY id DESC LIMIT ?", id, n).toArray().reverse();
    const after = this.store.sql.exec("SELECT id, price, at FROM ticks WHERE id > ? ORDER BY id LIMIT ?", id, n).toArray();
    return { tick: out(t), before: before.map(out), after: after.map(out) };
  }

  /**
   * The valuation reference of [from, to) (rebates, agent levels: worker/domain/invite/settle.ts):
   * the median of the index ticks recorded in the window; with none there, the newest tick before
   * `to` (the index the window's fees were paid at). Null when the pair never had an index. Ticks
   * exist only while the book is two-sided and each is a median of (last, bid, ask), so a trade
   * printed by two accounts of one person moves none of them past the book. Read only, off the order path.
   */
  referencePrice(from: number, to: number): { price: number; ticks: number; tickId: number | null } | null {
    const n = Number(this.store.one<Row>("SELECT count(*) AS n FROM ticks WHERE at >= ? AND at < ?", from, to)?.n ?? 0);
    if (n > 0) {
      const mid = this.store.one<Row>("SELECT price FROM ticks WHERE at >= ? AND at < ? ORDER BY price LIMIT 1 OFFSET ?", from, to, Math.floor((n - 1) / 2))!;
      return { price: Number(mid.price), ticks: n, tickId: null };
    }
    const last = this.store.one<Row>("SELECT id, price FROM ticks WHERE at < ? ORDER BY at DESC, id DESC LIMIT 1", to);
    return last ? { price: Number(last.price), ticks: 0, tickId: Number(last.id) } : null;
  }

  private tickRows(from: number, to: number, page: number, limit: number): { total: number; lists: TickRow[] } {
    const total = Number(this.store.one<Row>("SELECT count(*) AS n FROM ticks WHERE at BETWEEN ? AND ?", from, to)?.n ?? 0);
    const lists = this.store.sql
      .exec("SELECT id, price, at FROM ticks WHERE at BETWEEN ? AND ? ORDER BY at, id LIMIT ? OFFSET ?", from, to, limit, (page - 1) * limit)
      .toArray()
      .map((r) => ({ id: Number(r.id), price: Number(r.price), at: Number(r.at) }));
    return { total, lists };
  }

  // ---------------------------------------------------------------- contracts

  /** `ACCOUNTS=objects`: the pair's outbox of legs; settlements become legs (seconds-objects.ts). Set once by the object. */
  legs: SecondsLegsOutbox | null = null;

  /** Registers the drain of a new outbox entry (the object may skip it while a drain runs). */
  drainDue: (at: number) => void = (at) => this.scheduler.at("drain", at);

  /**
   * The house's holds of the open contracts (status 1 and 2) per currency (`c{currency}`) and per
   * currency and user (`c{currency}:u{user}`), as the rows say: read once after a start or a
   * rollback (undefined), then changed by acceptance (+) and by `settled` (−, the rows it moved).
   */
  private sums: Map<string, bigint> | undefined;

  private heldSums(): Map<string, bigint> {
    if (!this.sums) {
      const sums = new Map<string, bigint>();
      const rows = this.store.sql
        .exec("SELECT currency_id, user_id, CAST(SUM(hold) AS TEXT) AS h FROM contracts WHERE status IN (1, 2) GROUP BY currency_id, user_id")
        .toArray();
      for (const r of rows) this.addHeld(sums, Number(r.currency_id), Number(r.user_id), BigInt(String(r.h)));
      this.sums = sums;
    }
    return this.sums;
  }

  private addHeld(sums: Map<string, bigint>, currencyId: number, userId: number, d: bigint): void {
    for (const k of [`c${currencyId}`, `c${currencyId}:u${userId}`]) {
      const v = (sums.get(k) ?? 0n) + d;
      if (v === 0n) sums.delete(k);
      else sums.set(k, v);
    }
  }

  /** The house's hold of the pair's open contracts in a currency (of one user's when given). */
  held(currencyId: number, userId: number | null = null): bigint {
    return this.heldSums().get(userId === null ? `c${currencyId}` : `c${currencyId}:u${userId}`) ?? 0n;
  }

  /** Accepts a contract in its own storage transaction, against the book as it is now. */
  acceptNow(input: AcceptInput, now: number): AcceptResult {
    return this.store.transaction(() => {
      const r = this.accept(input, this.spot.top(), now);
      // Objects mode: the Worker releases a refused contract's holds, so its id must never be accepted
      // after (a replay of its client id asks again): tombstoned with the refusal.
      if (!r.ok && input.objects && r.code !== "tombstoned")
        this.store.sql.exec("INSERT INTO contract_tombstones (id, at) VALUES (?, ?) ON CONFLICT DO NOTHING", input.orderId, now);
      return r;
    });
  }

  /**
   * Objects mode: the pair refuses a new contract priced on terms it no longer has (`pair_off`,
   * `stale_terms`: object.ts `acceptSeconds`), tombstoned as any refusal so it is never accepted
   * after its holds went back. A contract known already (a replay) or tombstoned answers as before.
   */
  refuseNow(input: AcceptInput, code: "pair_off" | "stale_terms", now: number): AcceptResult {
    return this.store.transaction(() => {
      if (this.store.one("SELECT 1 AS x FROM contracts WHERE id = ? UNION ALL SELECT 1 FROM contract_tombstones WHERE id = ?", input.orderId, input.orderId))
        return this.accept(input, this.spot.top(), now);
      this.store.sql.exec("INSERT INTO contract_tombstones (id, at) VALUES (?, ?) ON CONFLICT DO NOTHING", input.orderId, now);
      return { ok: false, code };
    });
  }

  /** The reconciler's question, answered (and a tombstone written when unknown) in one transaction. */
  verdictNow(orderId: number, now: number): ContractVerdict {
    return this.store.transaction(() => this.verdict(orderId, now));
  }

  /**
   * Accepts a contract (call inside a storage transaction; `top` is the book now). A contract seen
   * before answers what it was accepted with; a tombstoned one is refused for good.
   */
  accept(input: AcceptInput, top: BookTop, now: number): AcceptResult {
    if (this.store.one("SELECT 1 AS x FROM contract_tombstones WHERE id = ?", input.orderId)) return { ok: false, code: "tombstoned" };
    const seen = this.store.one<Row>("SELECT open_tick_id, open_price, created_at, end_at FROM contracts WHERE id = ?", input.orderId);
    if (seen) return { ok: true, fresh: false, openTickId: Number(seen.open_tick_id), openPrice: Number(seen.open_price), createdAt: Number(seen.created_at), endAt: Number(seen.end_at) };
    // The index right now (recorded if due): the entry is the newest tick, never an older price.
    if (this.tick(top, now) === null) return { ok: false, code: "no_market_price" };
    const entry = this.lastTick();
    if (!entry || now - entry.at > STALE_TICK_MS) return { ok: false, code: "no_market_price" };
    // What was shown is what is contracted: the same tolerance as a leveraged open.
    if (input.confirmedPrice !== undefined && priceMoved(BigInt(input.confirmedPrice), BigInt(entry.price))) return { ok: false, code: "price_moved", price: entry.price };
    const hold = BigInt(input.hold);
    if (this.held(input.currencyId) + hold > BigInt(input.pairExposure)) return { ok: false, code: "pair_exposure" };
    if (this.held(input.currencyId, input.userId) + hold > BigInt(input.userExposure)) return { ok: false, code: "user_exposure" };
    const endAt = now + input.seconds * 1000;
    // Objects mode: the open fee leaves the user's hold for the fee shard in this transaction (as
    // D1's `micro_open` books it at the open), and the contract records it: its settle takes no fee.
    const feePaid = this.legs !== null;
    this.store.sql.exec(
      `INSERT INTO contracts (id, user_id, currency_id, currency_name, currency_scale, type, stake, fee, hold, ratio_bps, seconds, open_tick_id, open_price, created_at, end_at, status, fee_paid)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?)`,
      input.orderId,
      input.userId,
      input.currencyId,
      input.currencyName,
      input.currencyScale,
      input.type,
      input.stake,
      input.fee,
      input.hold,
      input.ratioBps,
      input.seconds,
      entry.id,
      entry.price,
      now,
      endAt,
      feePaid ? 1 : 0,
    );
    this.addHeld(this.heldSums(), input.currencyId, input.userId, hold);
    if (feePaid) {
      this.legs!.commitInside(secondsOpenKey(input.orderId), secondsOpenLegs({ orderId: input.orderId, userId: input.userId, currencyId: input.currencyId, fee: BigInt(input.fee) }));
      // The object delivers them in a moment (`deliverSoon`); this row retries after a crash.
      this.scheduler.at("legs", now + DELIVER_FALLBACK_MS);
    }
    // D1's held row learns its entry in the drain batch, not in a round trip of the submit's own.
    const o = input.objects;
    const row = o
      ? {
          row: [input.orderId, input.userId, input.pairId, input.currencyId, input.type, input.stake, input.fee, input.hold, input.seconds, input.ratioBps, o.clientOid, o.createdAt, feePaid ? 0 : 1] satisfies ObjectsContractRow,
        }
      : {};
    this.outbox.append({ kind: "seconds_accepted", at: now, orderId: input.orderId, openTickId: entry.id, openPrice: entry.price, endAt, ...row });
    this.drainDue(now);
    // Settled strictly after end_at: any tick recorded later carries a later time.
    this.scheduler.at("expiry", endAt + 1);
    return { ok: true, fresh: true, openTickId: entry.id, openPrice: entry.price, createdAt: now, endAt };
  }

  /**
   * Settles every contract whose expiry has passed, chunk by chunk, each chunk one transaction
   * (results, status 2, outbox entries, drain). Returns when the next expiry is due, if any.
   */
  settleDue(now: number): { settled: number; next: number | null } {
    let settled = 0;
    for (;;) {
      // Each due contract with its exit: the last tick at or before its end (its entry tick is one).
      const rows = this.store.sql
        .exec(
          `SELECT c.*, x.id AS exit_id, x.price AS exit_price
           FROM (SELECT * FROM contracts WHERE status = 1 AND end_at < ? ORDER BY end_at, id LIMIT ?) AS c
           JOIN ticks AS x ON x.id = (SELECT t.id FROM ticks AS t WHERE t.at <= c.end_at ORDER BY t.at DESC, t.id DESC LIMIT 1)`,
          now,
          SETTLE_CHUNK,
        )
        .toArray();
      if (rows.length === 0) break;
      this.store.transaction(() => {
        const entries = rows.map((r) => this.settleOne(r, now));
        // `+status`: the JSON rows lead and each finds its contract by id (never a scan of the status index per row).
        this.store.sql.exec(
          `UPDATE contracts SET status = 2, end_tick_id = v.value ->> 1, end_price = v.value ->> 2, result = v.value ->> 3
           FROM json_each(?) AS v WHERE contracts.id = v.value ->> 0 AND +contracts.status = 1`,
          JSON.stringify(entries.map(({ settlement: s }) => [s.orderId, s.endTickId, s.endPrice, s.result])),
        );
        if (this.legs) this.commitLegs(entries, rows, now);
        this.outbox.appendMany(entries);
        this.scheduler.at("drain", now);
      });
      // Objects mode: the chunk's legs leave now, whoever settled it (the expiry alarm, or the drain
      // before a batch), while the next chunk is settled; the "legs" row written with them retries
      // after a crash. A run already under way goes round once more and takes them.
      if (this.legs) this.legs.deliverInBackground();
      settled += rows.length;
    }
    const next = this.store.one<Row>("SELECT min(end_at) AS e FROM contracts WHERE status = 1")?.e;
    return { settled, next: next === null || next === undefined ? null : Number(next) + 1 };
  }

  /** The expiry handler: settles what is due, starts draining the results to D1 (the object does not wait for it), answers the next expiry. */
  async expire(now: number, drain: () => Promise<unknown>): Promise<number | null> {
    if (!this.spot.info) return null;
    const { settled, next } = this.settleDue(now);
    if (settled > 0) await drain();
    return next;
  }

  /**
   * One contract's result from its entry and exit ticks (the row carries its exit tick), as its
   * outbox entry with the owner's inbox item (`seconds_settled`, written in the settlement's D1
   * batch) and the owner's `closed_microorder` and `notification` (sent once the drain has put it in D1).
   */
  private settleOne(r: Row, now: number): SecondsSettleEntry {
    const endAt = Number(r.end_at);
    const type = Number(r.type) as SecondsDirection;
    const { result } = settleSeconds(type, Number(r.open_price), Number(r.exit_price), Number(r.ratio_bps), BigInt(r.stake as number));
    const settlement: SecondsSettlement = {
      orderId: Number(r.id),
      userId: Number(r.user_id),
      currencyId: Number(r.currency_id),
      stake: String(r.stake),
      fee: String(r.fee),
      hold: String(r.hold),
      result: result.toString(),
      openTickId: Number(r.open_tick_id),
      openPrice: Number(r.open_price),
      endTickId: Number(r.exit_id),
      endPrice: Number(r.exit_price),
      endAt,
      settledAt: now,
    };
    const data = { ...this.rowView({ ...r, end_tick_id: settlement.endTickId, end_price: settlement.endPrice, result: settlement.result }, now), status: 3 as const };
    const notification = secondsSettled(
      {
        orderId: settlement.orderId,
        userId: settlement.userId,
        pair: data.symbol_name,
        direction: type,
        result,
        fee: BigInt(settlement.fee),
        currency: data.currency_name,
        scale: Number(r.currency_scale),
        entry: data.open_price ?? "",
        exit: data.end_price ?? "",
        entryTick: settlement.openTickId,
        exitTick: settlement.endTickId,
      },
      now,
    );
    return {
      kind: "seconds",
      at: now,
      settlement,
      notification,
      notices: [
        { userId: settlement.userId, event: { type: "closed_microorder", data } },
        { userId: settlement.userId, event: NOTIFICATION_EVENT },
      ],
    };
  }

  /**
   * `ACCOUNTS=objects`: the chunk's money as one leg per account, committed in the chunk's
   * transaction; its D1 entries then carry no ledger movement (`objects`).
   */
  private commitLegs(entries: SecondsSettleEntry[], rows: Row[], now: number): void {
    const money = entries.map(({ settlement: s }, i) => ({
      orderId: s.orderId,
      userId: s.userId,
      currencyId: s.currencyId,
      stake: BigInt(s.stake),
      fee: BigInt(s.fee),
      hold: BigInt(s.hold),
      result: BigInt(s.result),
      // Accepted before the acceptance took the open fee (its hold still holds it): the settle takes it.
      feePaid: Number(rows[i]!.fee_paid) === 1,
    }));
    const key = settleEventKey(this.spot.info!.pairId, now, entries[0]!.settlement.orderId);
    this.legs!.commitInside(key, settleChunkLegs(key, money));
    for (const e of entries) e.objects = true;
    this.scheduler.at("legs", now);
  }

  /** After D1 applied these settlements: status 3. */
  settled(orderIds: number[]): void {
    if (orderIds.length === 0) return;
    const done = this.store.sql
      .exec("UPDATE contracts SET status = 3 WHERE id IN (SELECT value FROM json_each(?)) AND +status = 2 RETURNING currency_id, user_id, CAST(hold AS TEXT) AS hold", JSON.stringify(orderIds))
      .toArray();
    // Only the rows this moved leave the sums (a batch found in D1 again moves none twice).
    if (this.sums) for (const r of done) this.addHeld(this.sums, Number(r.currency_id), Number(r.user_id), -BigInt(String(r.hold)));
  }

  /** For the reconciler: what the desk knows of a contract, or a tombstone so it is never accepted later. */
  verdict(orderId: number, now: number): ContractVerdict {
    const r = this.store.one<Row>("SELECT status, open_tick_id, open_price, end_at FROM contracts WHERE id = ?", orderId);
    if (r) return { verdict: "known", status: Number(r.status), openTickId: Number(r.open_tick_id), openPrice: Number(r.open_price), endAt: Number(r.end_at) };
    this.store.sql.exec("INSERT INTO contract_tombstones (id, at) VALUES (?, ?) ON CONFLICT DO NOTHING", orderId, now);
    return { verdict: "tombstoned" };
  }

  /** A contract row as the API shows it (for the owner's `closed_microorder` event). */
  private rowView(r: Row, now: number): SecondsOrder {
    const pair = this.spot.info!;
    const scale = Number(r.currency_scale);
    const money = (v: SqlStorageValue | undefined) => formatUnits(BigInt(v as number), scale);
    const price = (v: SqlStorageValue | undefined) => formatUnits(BigInt(v as number), pair.priceDecimals);
    const settled = r.result !== null;
    return {
      id: Number(r.id),
      type: Number(r.type) as SecondsDirection,
      symbol_name: pair.symbol,
      currency_name: String(r.currency_name),
      currency_id: Number(r.currency_id),
      match_id: pair.pairId,
      open_price: price(r.open_price),
      end_price: settled ? price(r.end_price) : null,
      number: money(r.stake),
      fee: money(r.fee),
      seconds: Number(r.seconds),
      profit_ratio: bpsToPercent(Number(r.ratio_bps)),
      fact_profits: settled ? money(r.result) : null,
      status: Number(r.status) as 1 | 2 | 3,
      created_at: Number(r.created_at),
      create_time_format: formatShanghai(Number(r.created_at)),
      end_at: Number(r.end_at),
      remain_milli_seconds: Math.max(0, Number(r.end_at) - now),
      open_tick_id: Number(r.open_tick_id),
      end_tick_id: settled ? Number(r.end_tick_id) : null,
    };
  }
}
