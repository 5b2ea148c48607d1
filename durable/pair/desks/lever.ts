/**
 * The lever desk (DESIGN §9): the pair's leveraged positions, with the house as counterparty at
 * the pair's index (the seconds desk's public ticks).
 *
 * Positions arrive with their money already held in D1 (margin frozen, open fee booked, the
 * house's hold frozen). Acceptance checks the index (fresh, else "no market price"), the pair's
 * house exposure and the user's count of positions, and records the position as pending (a limit
 * open the index has not reached) or trading (opened at the index now), in one synchronous
 * transaction with the sweep's registration.
 *
 * The sweep (the scheduler's "sweep" kind, due every second while anything is pending or trading)
 * reads the index and, per position, opens reached limits and closes what liquidation, the gain
 * cap, take-profit or stop-loss asks for — all at the index, never at a last trade. Each close
 * writes status 3 and ONE typed outbox entry in the same transaction, so an alarm fired twice or a
 * restart mid-sweep finds status 3 and does nothing again; the drain applies it to D1 as one
 * movement keyed `lever:{id}:close`. Overnight fees (cron, once per position and day) and stops
 * reach D1 the same way.
 */
import {
  capPrice,
  closeAt,
  contractUnits,
  limitReached,
  liquidationPrice,
  overnightFee,
  priceMoved,
  stopValid,
  sweepVerdict,
  type CloseReason,
  type ContractUnits,
  type LeverDirection,
  type Position,
} from "../../engine/margin.ts";
import type { BookTop } from "../../engine/index-price.ts";
import type { LeverEntry, Outbox } from "../outbox.ts";
import type { Scheduler } from "../scheduler.ts";
import type { PairStorage } from "../storage.ts";
import { STALE_TICK_MS, type SecondsDesk } from "./seconds.ts";
import type { PairInfo } from "./spot.ts";
import { formatUnits } from "../../../schemas/money.ts";
import { NOTIFICATION_EVENT } from "../../../worker/domain/notifications/inbox.ts";
import { leverClosed } from "../../../worker/domain/notifications/events.ts";
import {
  leverCloseKey,
  leverCloseLegs,
  leverFeeEarnedKey,
  leverFeeEarnedLegs,
  leverNightKey,
  leverNightLegs,
  leverOpenKey,
  leverOpenLegs,
  leverRevokeKey,
  leverRevokeLegs,
  type LeverMoney,
  type ObjectsPositionRow,
} from "./lever-objects.ts";
import { DELIVER_FALLBACK_MS } from "../legs.ts";
import type { SecondsLegsOutbox } from "./seconds-objects.ts";

/** The sweep runs at least this often while a position is pending or trading. */
export const SWEEP_EVERY_MS = 1000;
/** Positions handled per storage transaction (a wave of thousands is closed in chunks). */
const SWEEP_CHUNK = 500;
const DAY_MS = 86_400_000;
/** Closed and revoked positions are kept this long in the object (as the seconds desk keeps settled contracts), pruned hourly. */
export const CLOSED_KEEP_MS = 7 * DAY_MS;
const PRUNE_EVERY_MS = 3_600_000;

/** A position the Worker has already paid for in D1 (money in USDT minimal units and prices in ticks, as strings/numbers). */
export interface LeverAcceptInput {
  pairId: number;
  positionId: number;
  userId: number;
  currencyId: number;
  type: LeverDirection;
  lots: number;
  sizeUnits: string;
  margin: string;
  fee: string;
  hold: string;
  feeBps: number;
  overnightBps: number;
  maintenanceBps: number;
  /** a limit open's price in ticks; null = at market */
  targetPrice: number | null;
  stopProfit: number | null;
  stopLoss: number | null;
  /** the most the house may hold for this pair's open positions (USDT minimal units) */
  pairExposure: string;
  maxPositions: number;
  /**
   * The index the Worker priced the hold on when it took it from its memory of an earlier answer
   * instead of a quote asked for just before (null or absent: asked for). Re-checked here: moved
   * beyond the tolerance, the open is refused with "requote" (refunded, priced again on a fresh quote).
   */
  quotedPrice?: number | null;
  /** The index the owner confirmed (a market open from the app): with a remembered index, re-checked here too. */
  confirmedPrice?: number | null;
  /**
   * `ACCOUNTS=objects`: the pair's lever settings the open was priced on (lever-objects.ts
   * `leverTermsKey`): the object refuses it ("stale_terms") unless they are the ones it holds now,
   * and a closed pair refuses it ("pair_off"): checked by the object (object.ts) before `accept`.
   */
  terms?: string;
  /** `ACCOUNTS=objects`: the position's D1 row, carried by the acceptance's outbox entry and inserted by the drain (no one wrote it before). */
  row?: ObjectsPositionRow;
}

/** Index of the leverage and of the creation time in `ObjectsPositionRow`. */
const ROW_MULTIPLE = 6;
const ROW_CREATED = 18;

export type LeverRefusal = "no_market_price" | "exposure" | "too_many" | "tombstoned" | "requote" | "stale_terms" | "pair_off";

/** The desk's state of one position, as the Worker mirrors it in D1. */
export interface LeverState {
  status: 1 | 2 | 3 | 4 | 5;
  openPrice: number | null;
  openTickId: number | null;
  openAt: number | null;
}

/**
 * `fresh`: accepted by this call, its D1 row learns its state in the next drain batch (an
 * `accepted` lever event); false: accepted before (a replay), D1 may not have heard of it yet.
 */
export type LeverAcceptResult = ({ ok: true; fresh: boolean } & LeverState) | { ok: false; code: LeverRefusal };

/** What the reconciler learns about a position D1 still shows as held. */
export type LeverVerdict = { verdict: "tombstoned" } | ({ verdict: "known" } & LeverState);

/** `ACCOUNTS=objects`: the position's row in the object after a command (its answer needs no D1 read). */
export type LeverObjectRow = Record<string, number | string | null>;

export type LeverCommandResult = { ok: true; position?: LeverObjectRow } | { ok: false; code: "not_found" | "closing" | "not_trading" | "cancel_failed" | "no_market_price" | "stop_profit" | "stop_loss"; price?: number };

type Row = Record<string, SqlStorageValue>;

const big = (v: SqlStorageValue | undefined): bigint => BigInt((v as number | null) ?? 0);
const bigOrNull = (v: SqlStorageValue | undefined): bigint | null => (v === null || v === undefined ? null : BigInt(v as number));

export class LeverDesk {
  /**
   * Marks positions closed or revoked once their drain batch is in D1, and then hands the changed
   * positions' ids to `announce` (best effort, after that transaction: their owners hear of it).
   */
  constructor(
    private readonly store: PairStorage,
    private readonly scheduler: Scheduler,
    private readonly outbox: Outbox,
    private readonly index: SecondsDesk,
    private readonly info: () => PairInfo | null,
    announce: (positionIds: number[]) => void = () => {},
  ) {
    outbox.whenApplied((all) => {
      const entries = all.flatMap((e) => (e.kind === "lever" ? [e] : []));
      this.applied(entries);
      // An acceptance is no news to its owner: the open was answered with it.
      const changed = entries.flatMap((e) => (e.event.type === "accepted" ? [] : [e.event.positionId]));
      if (changed.length > 0) announce(changed);
    });
    store.onRollback(() => (this.heldSum = undefined));
  }

  /** Registers the drain of a new outbox entry (the object may skip it while a drain runs). */
  drainDue: (at: number) => void = (at) => this.scheduler.at("drain", at);

  /** `ACCOUNTS=objects`: the pair's outbox of legs; closes, revokes and overnight fees become legs (lever-objects.ts). Set once by the object. */
  legs: SecondsLegsOutbox | null = null;

  /** `legs` set: commits an event's legs in the caller's transaction and marks its D1 entry as carrying no movement. */
  private money(entry: LeverEntry, key: string, legs: () => ReturnType<typeof leverCloseLegs>, now: number): LeverEntry {
    if (!this.legs) return entry;
    this.legs.commitInside(key, legs());
    this.scheduler.at("legs", now);
    return { ...entry, objects: true };
  }

  private leverMoney(r: Row): LeverMoney {
    return {
      positionId: Number(r.id),
      userId: Number(r.user_id),
      currencyId: Number(r.currency_id),
      margin: big(r.margin),
      openFee: big(r.fee),
      hold: big(r.hold),
      overnight: big(r.overnight),
      // 1: paid to the fee shard (or by D1 at the open); 2: paid on D1 while pending, its fee shard holds it (lever-objects.ts).
      feePaid: Number(r.fee_paid) !== 0,
      feeInFeeShard: Number(r.fee_paid) === 2,
    };
  }

  /**
   * `legs` set: the position opens (accepted at the index, or a pending limit filled): its open fee
   * leaves the user's hold for the fee shard (lever-objects.ts `leverOpenLegs`), in the caller's
   * transaction, and the row records it. Answers whether it did (D1's row learns it: `fee_held`).
   */
  private payOpenFee(p: { positionId: number; userId: number; currencyId: number; openFee: bigint }, now: number): boolean {
    if (!this.legs) return false;
    this.legs.commitInside(leverOpenKey(p.positionId), leverOpenLegs(p));
    this.store.sql.exec("UPDATE lever_positions SET fee_paid = 1 WHERE id = ?", p.positionId);
    this.scheduler.at("legs", now + DELIVER_FALLBACK_MS);
    return true;
  }

  /**
   * `legs` set: a pending limit carried over the cut-over (`fee_paid` 2) fills: its fee shard
   * releases the open fee D1 took at the request (lever-objects.ts `leverFeeEarnedLegs`), in the
   * caller's transaction, and the row records it paid. Answers whether it did (D1's row: `fee_held` 0).
   */
  private earnCarriedFee(p: LeverMoney, now: number): boolean {
    if (!this.legs) return false;
    this.legs.commitInside(leverFeeEarnedKey(p.positionId), leverFeeEarnedLegs(p));
    this.store.sql.exec("UPDATE lever_positions SET fee_paid = 1 WHERE id = ?", p.positionId);
    this.scheduler.at("legs", now + DELIVER_FALLBACK_MS);
    return true;
  }

  /**
   * The house's hold of the pair's live positions (status 1, 2, 3) as the rows say: read once after
   * a start or a rollback (undefined), then changed by acceptance (+) and by `applied` (−, the rows
   * it moved to closed or revoked).
   */
  private heldSum: bigint | undefined;

  /** The house's hold of the pair's live positions. */
  held(): bigint {
    this.heldSum ??= BigInt(String(this.store.one<Row>("SELECT CAST(COALESCE(SUM(hold), 0) AS TEXT) AS h FROM lever_positions WHERE status IN (1, 2, 3)")!.h));
    return this.heldSum;
  }

  private units(r: Row): ContractUnits {
    const info = this.info();
    if (!info) throw new Error("lever desk used before the pair is known");
    return contractUnits(info, big(r.size_units));
  }

  private position(r: Row): Position & { stopProfit: bigint | null; stopLoss: bigint | null } {
    return {
      direction: Number(r.type) as LeverDirection,
      openPrice: big(r.open_price),
      lots: big(r.lots),
      margin: big(r.margin),
      hold: big(r.hold),
      overnight: big(r.overnight),
      stopProfit: bigOrNull(r.stop_profit),
      stopLoss: bigOrNull(r.stop_loss),
    };
  }

  /** The index now, recorded as a tick if due; null when there is none or it is stale. */
  private indexNow(top: BookTop | null, now: number): { id: number; price: number } | null {
    // With the book at hand its index now decides (none when one-sided); the newest tick is its record.
    if (top && this.index.tick(top, now) === null) return null;
    const last = this.index.lastTick();
    if (!last || now - last.at > STALE_TICK_MS) return null;
    return { id: last.id, price: last.price };
  }

  /** The index for a quote (the Worker prices the hold with it). */
  quote(top: BookTop | null, now: number): { tickId: number; price: number } | null {
    const ix = this.indexNow(top, now);
    return ix ? { tickId: ix.id, price: ix.price } : null;
  }

  private state(r: Row): LeverState {
    const n = (v: SqlStorageValue | undefined) => (v === null || v === undefined ? null : Number(v));
    return { status: Number(r.status) as LeverState["status"], openPrice: n(r.open_price), openTickId: n(r.open_tick_id), openAt: n(r.open_at) };
  }

  /** Liquidation and cap prices kept on the row, so the sweep selects only positions the index may trigger. */
  private triggers(r: Row): { liq: number | null; cap: number | null } {
    const c = this.units(r);
    const p = this.position(r);
    const liq = liquidationPrice(c, p, Number(r.maintenance_bps));
    const cap = capPrice(c, p);
    const num = (v: bigint | null) => (v === null ? null : v > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(v));
    return { liq: num(liq), cap: num(cap) };
  }

  private refreshTriggers(id: number): void {
    const r = this.store.one<Row>("SELECT * FROM lever_positions WHERE id = ?", id)!;
    const t = this.triggers(r);
    this.store.sql.exec("UPDATE lever_positions SET liq_price = ?, cap_price = ? WHERE id = ?", t.liq, t.cap, id);
  }

  /** Accepts a position (call inside a storage transaction). One seen before answers its state; a tombstoned one is refused. */
  accept(input: LeverAcceptInput, top: BookTop | null, now: number): LeverAcceptResult {
    if (this.store.one("SELECT 1 AS x FROM lever_tombstones WHERE id = ?", input.positionId)) return { ok: false, code: "tombstoned" };
    const seen = this.store.one<Row>("SELECT * FROM lever_positions WHERE id = ?", input.positionId);
    if (seen) return { ok: true, fresh: false, ...this.state(seen) };
    const ix = this.indexNow(top, now);
    if (!ix) return { ok: false, code: input.quotedPrice == null ? "no_market_price" : "requote" };
    if (input.quotedPrice != null) {
      const moved = (p: number | null | undefined) => p != null && priceMoved(BigInt(p), BigInt(ix.price));
      if (moved(input.quotedPrice) || (input.targetPrice === null && moved(input.confirmedPrice))) return { ok: false, code: "requote" };
    }
    const hold = BigInt(input.hold);
    if (this.held() + hold > BigInt(input.pairExposure)) return { ok: false, code: "exposure" };
    const mine = Number(this.store.one<Row>("SELECT count(*) AS n FROM lever_positions WHERE user_id = ? AND status IN (1, 2)", input.userId)!.n);
    if (mine >= input.maxPositions) return { ok: false, code: "too_many" };
    const pending = input.targetPrice !== null && !limitReached(input.type, BigInt(input.targetPrice), BigInt(ix.price));
    this.store.sql.exec(
      `INSERT INTO lever_positions (id, user_id, currency_id, type, lots, size_units, margin, fee, hold, fee_bps, overnight_bps, maintenance_bps,
         target_price, stop_profit, stop_loss, open_price, open_tick_id, overnight, status, created_at, open_at, multiple)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?)`,
      input.positionId,
      input.userId,
      input.currencyId,
      input.type,
      input.lots,
      Number(input.sizeUnits),
      Number(input.margin),
      Number(input.fee),
      Number(input.hold),
      input.feeBps,
      input.overnightBps,
      input.maintenanceBps,
      input.targetPrice,
      input.stopProfit,
      input.stopLoss,
      pending ? null : ix.price,
      pending ? null : ix.id,
      pending ? 1 : 2,
      // Objects mode: created when the Worker took the request, as D1's row (the drain's insert) says.
      input.row?.[ROW_CREATED] ?? now,
      pending ? null : now,
      input.row?.[ROW_MULTIPLE] ?? null,
    );
    if (!pending) this.refreshTriggers(input.positionId);
    // Opened at once: its open fee goes to the fee shard now, as D1's `lever_open` (a pending one's at its fill).
    const feePaid = !pending && this.payOpenFee({ positionId: input.positionId, userId: input.userId, currencyId: input.currencyId, openFee: BigInt(input.fee) }, now);
    this.heldSum = this.held() + hold;
    const state: LeverState = { status: pending ? 1 : 2, openPrice: pending ? null : ix.price, openTickId: pending ? null : ix.id, openAt: pending ? null : now };
    // D1's held row learns its state in the drain batch, not in a round trip of the open's own.
    this.outbox.append({
      kind: "lever",
      at: now,
      event: { type: "accepted", positionId: input.positionId, userId: input.userId, ...(state as LeverState & { status: 1 | 2 }), ...(input.row ? { row: input.row } : {}), ...(feePaid ? { feePaid } : {}) },
    });
    this.drainDue(now);
    this.scheduler.at("sweep", now + SWEEP_EVERY_MS);
    return { ok: true, fresh: true, ...state };
  }

  /** A position's row as the object holds it (null: unknown here). */
  row(positionId: number): LeverObjectRow | null {
    return (this.store.one<Row>("SELECT * FROM lever_positions WHERE id = ?", positionId) as LeverObjectRow | undefined) ?? null;
  }

  /** For the reconciler: what the desk knows of a position, or a tombstone so it is never accepted later. */
  verdict(positionId: number, now: number): LeverVerdict {
    const r = this.store.one<Row>("SELECT * FROM lever_positions WHERE id = ?", positionId);
    if (r) return { verdict: "known", ...this.state(r) };
    this.store.sql.exec("INSERT INTO lever_tombstones (id, at) VALUES (?, ?) ON CONFLICT DO NOTHING", positionId, now);
    return { verdict: "tombstoned" };
  }

  /**
   * Closes a trading position at the index (status 2 → 3 with its outbox entry, which carries the
   * owner's `lever_closed` inbox item and its `notification` push). Call inside a transaction.
   */
  private closeOne(r: Row, ix: { id: number; price: number }, reason: CloseReason, now: number): LeverEntry {
    const c = this.units(r);
    const p = this.position(r);
    const o = closeAt(c, p, BigInt(ix.price), Number(r.fee_bps));
    const pair = this.info()!;
    this.store.sql.exec(
      "UPDATE lever_positions SET status = 3, close_price = ?, close_tick_id = ?, close_fee = ?, profit = ?, payout = ?, close_reason = ?, closed_at = ? WHERE id = ? AND status = 2",
      ix.price,
      ix.id,
      Number(o.fee),
      Number(o.pnl),
      Number(o.payout),
      reason,
      now,
      r.id,
    );
    const plain: LeverEntry = {
      kind: "lever",
      at: now,
      event: {
        type: "close",
        positionId: Number(r.id),
        userId: Number(r.user_id),
        currencyId: Number(r.currency_id),
        margin: String(r.margin),
        hold: String(r.hold),
        overnight: String(r.overnight),
        pnl: o.pnl.toString(),
        fee: o.fee.toString(),
        payout: o.payout.toString(),
        openPrice: Number(r.open_price),
        openTickId: Number(r.open_tick_id),
        openAt: Number(r.open_at),
        closePrice: ix.price,
        closeTickId: ix.id,
        reason,
        closedAt: now,
      },
      notices: [{ userId: Number(r.user_id), event: NOTIFICATION_EVENT }],
      notification: leverClosed(
        {
          positionId: Number(r.id),
          userId: Number(r.user_id),
          pair: pair.symbol,
          reason,
          // What the position did to the lever balance over its life: the payout less the margin and the open fee put in.
          pnl: o.payout - BigInt(Number(r.margin)) - BigInt(Number(r.fee)),
          // The margin is in the pair's quote currency (USDT).
          currency: pair.symbol.split("/")[1] ?? "",
          scale: pair.quoteScale,
          price: formatUnits(BigInt(ix.price), pair.priceDecimals),
        },
        now,
      ),
    };
    const entry = this.money(plain, leverCloseKey(Number(r.id)), () => leverCloseLegs(this.leverMoney(r), o.payout, o.fee, reason), now);
    this.outbox.append(entry);
    return entry;
  }

  /**
   * The sweep: opens reached limits, closes what the index triggers, in chunks, each chunk one
   * transaction (state, outbox entries, drain registration). Returns what it did and when it is next due.
   */
  sweep(top: BookTop | null, now: number): { opened: number; closed: number; next: number | null } {
    let opened = 0;
    let closed = 0;
    this.prune(now);
    const live = () => this.store.one<Row>("SELECT 1 AS x FROM lever_positions WHERE status IN (1, 2) LIMIT 1") !== undefined;
    const ix = this.store.transaction(() => this.indexNow(top, now));
    if (!ix) return { opened, closed, next: live() ? now + SWEEP_EVERY_MS : null };
    const price = ix.price;
    // Pending limits the index reached: a long's when the index is at or below its price, a short's at or above.
    for (;;) {
      const rows = this.store.sql
        .exec("SELECT * FROM lever_positions WHERE status = 1 AND ((type = 1 AND target_price >= ?) OR (type = 2 AND target_price <= ?)) ORDER BY id LIMIT ?", price, price, SWEEP_CHUNK)
        .toArray();
      if (rows.length === 0) break;
      this.store.transaction(() => {
        for (const r of rows) {
          this.store.sql.exec("UPDATE lever_positions SET status = 2, open_price = ?, open_tick_id = ?, open_at = ? WHERE id = ? AND status = 1", price, ix.id, now, r.id);
          this.refreshTriggers(Number(r.id));
          const m = this.leverMoney(r);
          const feePaid = m.feeInFeeShard ? this.earnCarriedFee(m, now) : !m.feePaid && this.payOpenFee(m, now);
          this.outbox.append({
            kind: "lever",
            at: now,
            event: { type: "open", positionId: m.positionId, userId: m.userId, openPrice: price, openTickId: ix.id, openAt: now, ...(feePaid ? { feePaid } : {}) },
          });
        }
        this.scheduler.at("drain", now);
      });
      opened += rows.length;
    }
    // Trading positions the index may trigger (the rule itself is decided by durable/engine/margin.ts).
    let after = 0;
    for (;;) {
      const rows = this.store.sql
        .exec(
          `SELECT * FROM lever_positions WHERE status = 2 AND id > ?1 AND (
             (type = 1 AND (?2 <= liq_price OR ?2 >= cap_price OR ?2 >= stop_profit OR ?2 <= stop_loss)) OR
             (type = 2 AND (?2 >= liq_price OR ?2 <= stop_profit OR ?2 >= stop_loss))) ORDER BY id LIMIT ?3`,
          after,
          price,
          SWEEP_CHUNK,
        )
        .toArray();
      if (rows.length === 0) break;
      after = Number(rows[rows.length - 1]!.id);
      this.store.transaction(() => {
        for (const r of rows) {
          const reason = sweepVerdict(this.units(r), this.position(r), BigInt(price), Number(r.maintenance_bps));
          if (!reason) continue;
          this.closeOne(r, ix, reason, now);
          closed++;
        }
        this.scheduler.at("drain", now);
      });
    }
    return { opened, closed, next: live() ? now + SWEEP_EVERY_MS : null };
  }

  /** The sweep handler: sweeps, drains what it closed at once, answers when it is next due. */
  async sweepDue(top: BookTop | null, now: number, drain: () => Promise<unknown>): Promise<number | null> {
    const r = this.sweep(top, now);
    if (r.opened + r.closed > 0) await drain();
    if (r.opened + r.closed > 0 && this.legs) this.legs.deliverInBackground();
    return r.next;
  }

  /** The owner closes a trading position at the index now. Call inside a transaction. */
  close(positionId: number, userId: number, top: BookTop | null, now: number): LeverCommandResult {
    const r = this.store.one<Row>("SELECT * FROM lever_positions WHERE id = ? AND user_id = ?", positionId, userId);
    if (!r) return { ok: false, code: "not_found" };
    const status = Number(r.status);
    if (status === 3) return { ok: false, code: "closing" };
    if (status === 1) return { ok: false, code: "not_trading" };
    if (status !== 2) return { ok: false, code: "not_found" };
    const ix = this.indexNow(top, now);
    if (!ix) return { ok: false, code: "no_market_price" };
    this.closeOne(r, ix, "user", now);
    this.scheduler.at("drain", now);
    return { ok: true };
  }

  /** The owner cancels a pending limit open: revoked, everything it held goes back (one movement). */
  cancel(positionId: number, userId: number, now: number): LeverCommandResult {
    const r = this.store.one<Row>("SELECT * FROM lever_positions WHERE id = ? AND user_id = ?", positionId, userId);
    if (!r) return { ok: false, code: "not_found" };
    if (Number(r.status) !== 1) return { ok: false, code: "cancel_failed" };
    this.store.sql.exec("UPDATE lever_positions SET status = 3, close_reason = 'revoked', closed_at = ? WHERE id = ? AND status = 1", now, positionId);
    const revoke: LeverEntry = {
      kind: "lever",
      at: now,
      event: { type: "revoke", positionId, userId, currencyId: Number(r.currency_id), margin: String(r.margin), fee: String(r.fee), hold: String(r.hold), closedAt: now },
    };
    this.outbox.append(this.money(revoke, leverRevokeKey(positionId), () => leverRevokeLegs(this.leverMoney(r)), now));
    this.scheduler.at("drain", now);
    return { ok: true };
  }

  /**
   * Sets both stops of a pending or trading position (null clears one), checked against the
   * reference: the limit price while pending, the index while trading (spec §5).
   */
  setStops(positionId: number, userId: number, stopProfit: number | null, stopLoss: number | null, top: BookTop | null, now: number): LeverCommandResult {
    const r = this.store.one<Row>("SELECT * FROM lever_positions WHERE id = ? AND user_id = ?", positionId, userId);
    if (!r) return { ok: false, code: "not_found" };
    const status = Number(r.status);
    if (status === 3) return { ok: false, code: "closing" };
    if (status !== 1 && status !== 2) return { ok: false, code: "not_found" };
    let reference: number;
    if (status === 1) reference = Number(r.target_price);
    else {
      const ix = this.indexNow(top, now);
      if (!ix) return { ok: false, code: "no_market_price" };
      reference = ix.price;
    }
    const dir = Number(r.type) as LeverDirection;
    const ref = BigInt(reference);
    if (!stopValid(dir, "profit", stopProfit === null ? null : BigInt(stopProfit), ref)) return { ok: false, code: "stop_profit", price: reference };
    if (!stopValid(dir, "loss", stopLoss === null ? null : BigInt(stopLoss), ref)) return { ok: false, code: "stop_loss", price: reference };
    this.store.sql.exec("UPDATE lever_positions SET stop_profit = ?, stop_loss = ? WHERE id = ?", stopProfit, stopLoss, positionId);
    this.outbox.append({ kind: "lever", at: now, event: { type: "stops", positionId, userId, stopProfit, stopLoss } });
    this.scheduler.at("drain", now);
    this.scheduler.at("sweep", now + SWEEP_EVERY_MS);
    return { ok: true };
  }

  /**
   * Overnight fees up to and including `day` (days since the epoch, UTC): for every trading
   * position, each day whose start it was held over and that was not yet charged, oldest first,
   * taken from its margin (so its liquidation price moves). Days a missed or late run skipped are
   * caught up here; each day is its own outbox entry, keyed per position and day in D1
   * (`lever:{id}:night:{day}`), and `night_day` records the last day charged, so a run repeated or
   * resumed never charges a day twice. Once a run completed for `day`, later calls that day do nothing.
   */
  overnight(day: number, now: number): number {
    if (Number(this.store.meta("night_done") ?? -1) >= day) return 0;
    const dayStart = day * DAY_MS;
    let charged = 0;
    for (;;) {
      const rows = this.store.sql
        .exec("SELECT * FROM lever_positions WHERE status = 2 AND open_at < ? AND (night_day IS NULL OR night_day < ?) ORDER BY id LIMIT ?", dayStart, day, SWEEP_CHUNK)
        .toArray();
      if (rows.length === 0) break;
      this.store.transaction(() => {
        for (const r of rows) {
          // The first day owed is the first whose start came after the open.
          const first = Math.max(r.night_day === null ? -Infinity : Number(r.night_day) + 1, Math.floor(Number(r.open_at) / DAY_MS) + 1);
          let p = this.position(r);
          for (let d = first; d <= day; d++) {
            const fee = overnightFee(this.units(r), p, Number(r.overnight_bps));
            if (fee === 0n) continue;
            p = { ...p, overnight: p.overnight + fee };
            const night: LeverEntry = { kind: "lever", at: now, event: { type: "night", positionId: Number(r.id), userId: Number(r.user_id), currencyId: Number(r.currency_id), day: d, fee: fee.toString() } };
            const m = this.leverMoney(r);
            this.outbox.append(this.money(night, leverNightKey(m.positionId, d), () => leverNightLegs(m, d, fee), now));
            charged++;
          }
          this.store.sql.exec("UPDATE lever_positions SET overnight = ?, night_day = ? WHERE id = ?", Number(p.overnight), day, r.id);
          this.refreshTriggers(Number(r.id));
        }
        this.scheduler.at("drain", now);
        this.scheduler.at("sweep", now);
      });
    }
    this.store.setMeta("night_done", day);
    this.prune(now);
    return charged;
  }

  /**
   * Closed and revoked positions live on in D1 (the record); the desk keeps a week of them (for a
   * late reconciler's question), then forgets them, at most once an hour.
   */
  prune(now: number): number {
    if (now - Number(this.store.meta("lever_pruned") ?? 0) < PRUNE_EVERY_MS) return 0;
    const n = this.store.sql.exec("DELETE FROM lever_positions WHERE status IN (4, 5) AND closed_at < ?", now - CLOSED_KEEP_MS).rowsWritten;
    this.store.setMeta("lever_pruned", now);
    return n;
  }

  /** After D1 applied these entries: closing → closed, revoking → revoked. */
  applied(entries: LeverEntry[]): void {
    for (const e of entries) {
      const to = e.event.type === "close" ? 4 : e.event.type === "revoke" ? 5 : null;
      if (to === null) continue;
      const done = this.store.sql.exec("UPDATE lever_positions SET status = ? WHERE id = ? AND status = 3 RETURNING CAST(hold AS TEXT) AS hold", to, e.event.positionId).toArray();
      // Only a row this moved leaves the sum (a batch found in D1 again moves none twice).
      if (this.heldSum !== undefined) for (const r of done) this.heldSum -= BigInt(String(r.hold));
    }
  }

  /** Status of one position (tests and tools). */
  status(positionId: number): number | null {
    const r = this.store.one<Row>("SELECT status FROM lever_positions WHERE id = ?", positionId);
    return r ? Number(r.status) : null;
  }
}
