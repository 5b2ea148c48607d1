/**
 * The pair's typed outbox: everything D1 must learn from the object's commands, written in the
 * command's own transaction and drained later by the scheduler. Entries are a discriminated union
 * on `kind` (spot command output; seconds contract settlements; lever position events). A drain
 * fixes up to DRAIN_BATCH rows as batch n before D1 hears of them and applies them in ONE D1 batch
 * through worker/lib/ledger.ts (every movement balanced per currency, or it throws): the spot rows
 * as one movement keyed `spot:{pair}:b{n}`, each settlement or lever money event as its own
 * movement keyed by its contract or position, plus the desks' own rows (order updates, trades,
 * contract and position rows) and ONE statement with the owners' notifications of the batch (a
 * settled contract, a closed position: built by the desk with its entry, keyed like its movement).
 * A drain that runs again re-sends the same rows under the same keys and D1 refuses the copy whole.
 */
import { appliedMovementKeys, classifyBatchError, movementStatements, movementsStatements, type LedgerEntry, type WalletAccount } from "../../worker/lib/ledger.ts";
import { secondsEntries, secondsKeys } from "../../worker/domain/seconds/ledger.ts";
import { settleLegs } from "../engine/seconds.ts";
import type { UserEvent } from "../../schemas/realtime.ts";
import { formatUnits } from "../../schemas/money.ts";
import { closeLegs, overnightLegs, refundLegs, type LeverDirection } from "../engine/margin.ts";
import { leverEntries, leverKeys } from "../../worker/domain/lever/ledger.ts";
import { NOTIFICATION_EVENT, notificationsStatement, type NewNotification } from "../../worker/domain/notifications/inbox.ts";
import { spotFilled, spotTriggered } from "../../worker/domain/notifications/events.ts";
import { liveSessionsStatement } from "../../worker/lib/auth.ts";
import type { PairStorage } from "./storage.ts";
import { objectsContractsStatement, type ObjectsContractRow } from "./desks/seconds-objects.ts";
import { objectsPositionsStatement, type ObjectsPositionRow } from "./desks/lever-objects.ts";
import type { HandOverAnswer, PairBatch } from "../account/collector.ts";
import type { DrainMode } from "./drain.ts";

const DRAIN_BATCH = 500;
/** How long drained rows are kept for inspection and replay. */
const KEEP_DRAINED_MS = 3600_000;

export interface SpotTrade {
  tradeId: number;
  price: number;
  qty: number;
  takerSide: "buy" | "sell";
  buyerId: number;
  sellerId: number;
  buyOrderId: number;
  sellOrderId: number;
  buyerFee: string;
  sellerFee: string;
  /** When the trade happened (rows written before drain batches carry only the row's `at`). */
  at?: number;
}

/** What one spot transaction (a command, or a batch of them) tells D1. Stored rows without `kind` are this. */
export interface SpotCommandEntry {
  kind: "spot";
  at: number;
  /** [userId, currencyId, dAvailable, dFrozen] aggregated per account of the spot wallet, minimal units as strings. */
  entries: [number, number, string, string][];
  /** [orderId, filledDelta, newStatus (1 open, 2 filled, 3 cancelled, 4 rejected) or 0 = unchanged, reason]. */
  orders: [number, number, number, string | null][];
  trades: SpotTrade[];
  /** Private events for their owners, sent once this entry is in D1 (durable/pair/notices.ts). */
  notices?: UserNotice[];
  /** Conditional orders that changed (desks/conditional.ts), applied before `orders` (a child's row first). */
  conditionals?: ConditionalUpdate[];
  /**
   * `ACCOUNTS=objects` only: the D1 rows of orders placed in this transaction (the Worker wrote
   * none: their funds are holds in the account objects), inserted before `orders` updates them.
   */
  newOrders?: NewOrderRow[];
  /** `ACCOUNTS=objects` only: the D1 rows of conditional orders taken in by this transaction, inserted before `conditionals` update them. */
  newConditionals?: NewConditionalRow[];
}

/** A spot order's D1 row: [id, userId, side, kind, price, qty, reserved units, reserved currency, client order id, budget, created at]. */
export type NewOrderRow = [number, number, "buy" | "sell", "market" | "limit", number, number, string, number, string | null, number | null, number];

/**
 * A conditional order's D1 row (status 0, as the Worker's freeze batch writes it on D1's path): [id, userId, side, type,
 * qty, price, stop, limit price, callback bps, activation, reserved units (its own), reserved currency, client order id, created at].
 */
export type NewConditionalRow = [number, number, "buy" | "sell", string, number, number, number | null, number | null, number | null, number | null, string, number, string | null, number];

/**
 * One conditional order's new state: [id, status (1 open, 2 triggered, 3 cancelled, 4 refused),
 * reason, trigger price (ticks) or null, its child order's D1 row or null, owner].
 */
export type ConditionalUpdate = [id: number, status: number, reason: string | null, triggerPrice: number | null, child: ConditionalChild | null, owner: number];
/** A triggered order's child as D1 records it: [id, userId, side, price, qty, reserved units, reserved currency]. */
export type ConditionalChild = [number, number, "buy" | "sell", number, number, string, number];

/** One private event of an entry and the user it is for. */
export interface UserNotice {
  userId: number;
  event: UserEvent;
}

/**
 * Each notified user's live session ids, read in the drain batch's own D1 transaction
 * (`liveSessionsStatement`); null when that read did not run (the batch was found in D1 already).
 */
export type LiveSessions = Map<number, number[]> | null;

/** Hands a drained batch's notices on (best effort: it must neither throw nor hold the drain up). */
export type NoticeSink = (notices: UserNotice[], live: LiveSessions) => void;

/** One settled seconds contract: what D1 must book (amounts in minimal units as strings). */
export interface SecondsSettlement {
  orderId: number;
  userId: number;
  currencyId: number;
  stake: string;
  fee: string;
  hold: string;
  /** + win / − stake */
  result: string;
  openTickId: number;
  openPrice: number;
  endTickId: number;
  endPrice: number;
  endAt: number;
  settledAt: number;
}

/** A seconds contract settled by the desk (one entry per contract, so a drain batch stays small). */
export interface SecondsSettleEntry {
  kind: "seconds";
  at: number;
  settlement: SecondsSettlement;
  /** The owner's `closed_microorder` and `notification`, sent once the settlement is in D1. */
  notices?: UserNotice[];
  /** The owner's inbox item (`seconds_settled`), written in the settlement's own D1 batch. */
  notification?: NewNotification;
  /** `ACCOUNTS=objects`: the money went as legs to the account objects (desks/seconds-objects.ts); D1 books no movement. */
  objects?: true;
}

/**
 * A seconds contract the desk has just accepted: its D1 row (held, status 0) learns its entry in
 * the drain batch (status 1), instead of in a D1 round trip of the submit's own. The update only
 * moves a held row (`status = 0`), so the reconciler or a settlement that got there first wins.
 */
export interface SecondsAcceptedEntry {
  kind: "seconds_accepted";
  at: number;
  orderId: number;
  openTickId: number;
  openPrice: number;
  endAt: number;
  /** `ACCOUNTS=objects`: the contract's D1 row, inserted here (no one wrote it before: desks/seconds-objects.ts). */
  row?: ObjectsContractRow;
}

/** What the lever desk tells D1 about one position (money in minimal units as strings, prices in ticks). */
export type LeverEvent =
  /**
   * a position the desk has just accepted (pending or trading): its held D1 row (status 0) learns it
   * (no money; `feePaid`: objects mode, its open fee went to the fee shard as legs, so D1's row no
   * longer counts it in the user's hold: `fee_held` 0)
   */
  | { type: "accepted"; positionId: number; userId: number; status: 1 | 2; openPrice: number | null; openTickId: number | null; openAt: number | null; row?: ObjectsPositionRow; feePaid?: true }
  /** a pending limit open reached by the index (`feePaid`: as for "accepted", at this fill) */
  | { type: "open"; positionId: number; userId: number; openPrice: number; openTickId: number; openAt: number; feePaid?: true }
  /** closed at the index: collateral and the house's hold released, P/L and close fee paid (`lever:{id}:close`) */
  | {
      type: "close";
      positionId: number;
      userId: number;
      currencyId: number;
      margin: string;
      hold: string;
      overnight: string;
      pnl: string;
      fee: string;
      payout: string;
      openPrice: number;
      openTickId: number;
      openAt: number;
      closePrice: number;
      closeTickId: number;
      reason: "user" | "profit" | "loss" | "liquidation" | "cap";
      closedAt: number;
    }
  /** a pending order cancelled by its owner: all it held goes back (`lever:{id}:close`, so never both) */
  | { type: "revoke"; positionId: number; userId: number; currencyId: number; margin: string; fee: string; hold: string; closedAt: number }
  /** one day's overnight fee taken from the margin (`lever:{id}:night:{day}`) */
  | { type: "night"; positionId: number; userId: number; currencyId: number; day: number; fee: string }
  /** new take-profit / stop-loss (no money) */
  | { type: "stops"; positionId: number; userId: number; stopProfit: number | null; stopLoss: number | null };

/** One lever desk event (one entry per position and event). */
export interface LeverEntry {
  kind: "lever";
  at: number;
  event: LeverEvent;
  /** A close's `notification` for its owner, sent once the close is in D1. */
  notices?: UserNotice[];
  /** A close's inbox item (`lever_closed`), written in the close's own D1 batch. */
  notification?: NewNotification;
  /** `ACCOUNTS=objects`: the money went as legs to the account objects (desks/lever-objects.ts); D1 books no movement. */
  objects?: true;
}

/**
 * Price alerts fired by one spot transaction (desks/alerts.ts): each owner's inbox item and the
 * traded price that fired it; applied by the alerts desk's statements along the drain batch.
 */
export interface AlertEntry {
  kind: "alert";
  at: number;
  alerts: { id: number; userId: number; price: string; notification: NewNotification }[];
  notices?: UserNotice[];
}

/** Every kind of outbox entry. A new desk adds its kind here and its case in `application()` (or an `alongEachBatch` hook). */
export type OutboxEntry = SpotCommandEntry | SecondsSettleEntry | SecondsAcceptedEntry | LeverEntry | AlertEntry;

/** Reads a stored row (rows from before the typed outbox have no `kind`: they are spot). */
export function parseOutboxEntry(json: string): OutboxEntry {
  const raw = JSON.parse(json) as Omit<OutboxEntry, "kind"> & { kind?: OutboxEntry["kind"] };
  return { ...raw, kind: raw.kind ?? "spot" } as OutboxEntry;
}

/** What the drain needs to know about the pair. */
export interface OutboxPair {
  pairId: number;
  symbol: string;
  priceDecimals: number;
  qtyDecimals: number;
}

/** One drain batch in D1 terms: the ledger entries of its movement and the desks' other statements. */
interface Application {
  ledger: LedgerEntry[];
  extra: D1PreparedStatement[];
}

const SPOT_ACCOUNT: WalletAccount = "change";

/** A batch's spot entries summed: per account, per order (fills summed, the last status), and the trades, conditional updates and new rows in order. */
export function gatherSpot(entries: SpotCommandEntry[]) {
  const sums = new Map<string, [number, number, bigint, bigint]>();
  const orders = new Map<number, [filled: number, status: number, reason: string | null]>();
  const trades: (SpotTrade & { at: number })[] = [];
  const conditionals: [ConditionalUpdate, number][] = [];
  const newOrders: NewOrderRow[] = [];
  const newConditionals: NewConditionalRow[] = [];
  for (const p of entries) {
    if (p.newOrders) newOrders.push(...p.newOrders);
    if (p.newConditionals) newConditionals.push(...p.newConditionals);
    for (const [userId, currencyId, dAvail, dFrozen] of p.entries) {
      const k = `${userId}:${currencyId}`;
      const cur = sums.get(k) ?? [userId, currencyId, 0n, 0n];
      cur[2] += BigInt(dAvail);
      cur[3] += BigInt(dFrozen);
      sums.set(k, cur);
    }
    for (const [orderId, filled, status, reason] of p.orders) {
      const o = orders.get(orderId) ?? [0, 0, null];
      o[0] += filled;
      // 0 = unchanged; "open" never overrides a finished status seen earlier in the batch.
      if (status !== 0 && !(status === 1 && o[1] > 1)) o[1] = status;
      if (reason !== null) o[2] = reason;
      orders.set(orderId, o);
    }
    for (const t of p.trades) trades.push({ ...t, at: t.at ?? p.at });
    if (p.conditionals) for (const c of p.conditionals) conditionals.push([c, p.at]);
  }
  return { sums, orders, trades, conditionals, newOrders, newConditionals };
}

/**
 * The D1 side of a batch of spot entries: ledger deltas summed per account (a ledger row carries
 * the net of the batch; per-trade detail lives in spot_trades), one update per order with its fills
 * summed, and the trades, several per INSERT.
 */
function spotApplication(db: D1Database, pair: OutboxPair, entries: SpotCommandEntry[], at: number): Application & { notifications: NewNotification[] } {
  const { sums, orders, trades, conditionals, newOrders, newConditionals } = gatherSpot(entries);
  const ledger: LedgerEntry[] = [...sums.values()].map(([userId, currencyId, dAvailable, dFrozen]) => ({
    userId,
    currencyId,
    account: SPOT_ACCOUNT,
    dAvailable,
    dFrozen,
    memo: pair.symbol,
  }));
  // One statement for the orders and one for the trades, however many (each row's values in a JSON array).
  const extra: D1PreparedStatement[] = conditionals.length > 0 ? conditionalStatements(db, pair, conditionals, at) : [];
  if (newOrders.length > 0) extra.unshift(newOrdersStatement(db, pair, newOrders));
  if (newConditionals.length > 0) extra.unshift(newConditionalsStatement(db, pair, newConditionals));
  if (orders.size > 0) {
    extra.push(
      db
        .prepare(
          `UPDATE spot_orders SET filled = filled + v.value ->> 1,
             status = CASE WHEN v.value ->> 2 = 0 THEN status WHEN v.value ->> 2 = 1 AND status > 1 THEN status ELSE v.value ->> 2 END,
             done_reason = COALESCE(v.value ->> 3, done_reason), updated_at = ?
           FROM json_each(?) AS v WHERE spot_orders.id = v.value ->> 0`,
        )
        .bind(at, JSON.stringify([...orders].map(([orderId, [filled, status, reason]]) => [orderId, filled, status, reason]))),
    );
  }
  if (trades.length > 0) {
    extra.push(
      db
        .prepare(
          `INSERT INTO spot_trades (pair_id, trade_id, price, qty, taker_side, buyer_id, seller_id, buy_order_id, sell_order_id, buyer_fee, seller_fee, created_at)
           SELECT ?, value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4, value ->> 5, value ->> 6, value ->> 7, value ->> 8, value ->> 9, value ->> 10
           FROM json_each(?) ORDER BY key`,
        )
        .bind(pair.pairId, JSON.stringify(trades.map((t) => [t.tradeId, t.price, t.qty, t.takerSide, t.buyerId, t.sellerId, t.buyOrderId, t.sellOrderId, t.buyerFee, t.sellerFee, t.at]))),
    );
  }
  return { ledger, extra, notifications: [...triggerNotifications(pair, conditionals), ...fillNotifications(pair, trades, orders)] };
}

/**
 * The rows of orders whose funds are held in the account objects (`ACCOUNTS=objects`): one
 * statement, each row as the Worker's freeze batch writes it (status 0, updated by the same
 * batch's order update). A copy already there is left alone (a re-sent batch; a client order id
 * used twice within one drain's window keeps its first order's row: docs/architecture/account-objects.md).
 */
function newOrdersStatement(db: D1Database, pair: OutboxPair, rows: NewOrderRow[]): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO spot_orders (id, user_id, pair_id, side, kind, price, qty, reserved_units, reserved_currency, status, client_oid, budget, created_at, updated_at)
       SELECT value ->> 0, value ->> 1, ?, value ->> 2, value ->> 3, value ->> 4, value ->> 5, value ->> 6, value ->> 7, 0, value ->> 8, value ->> 9, value ->> 10, value ->> 10
       FROM json_each(?) WHERE true ORDER BY key ON CONFLICT DO NOTHING`,
    )
    .bind(pair.pairId, JSON.stringify(rows));
}

/** The rows of conditional orders whose funds are held in the account objects (`ACCOUNTS=objects`): one statement; a copy already there is left alone. */
function newConditionalsStatement(db: D1Database, pair: OutboxPair, rows: NewConditionalRow[]): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO spot_conditional_orders (id, user_id, pair_id, side, type, qty, price, stop_price, limit_price, callback_bps, activation_price,
         reserved_units, reserved_currency, status, client_oid, created_at, updated_at)
       SELECT value ->> 0, value ->> 1, ?, value ->> 2, value ->> 3, value ->> 4, value ->> 5, value ->> 6, value ->> 7, value ->> 8, value ->> 9,
         value ->> 10, value ->> 11, 0, value ->> 12, value ->> 13, value ->> 13
       FROM json_each(?) WHERE true ORDER BY key ON CONFLICT DO NOTHING`,
    )
    .bind(pair.pairId, JSON.stringify(rows));
}

/**
 * Conditional orders in D1 (migrations/0044): the triggered ones' child rows first (the spot
 * orders' update of the same batch then finds them), then each order's state, forward only.
 */
function conditionalStatements(db: D1Database, pair: OutboxPair, updates: [ConditionalUpdate, number][], at: number): D1PreparedStatement[] {
  const out: D1PreparedStatement[] = [];
  const children = updates.flatMap(([[, , , , child], when]) => (child ? [[...child, when]] : []));
  if (children.length > 0) {
    out.push(
      db
        .prepare(
          `INSERT INTO spot_orders (id, user_id, pair_id, side, kind, price, qty, reserved_units, reserved_currency, status, created_at, updated_at)
           SELECT value ->> 0, value ->> 1, ?, value ->> 2, 'limit', value ->> 3, value ->> 4, value ->> 5, value ->> 6, 0, value ->> 7, value ->> 7
           FROM json_each(?) WHERE true ON CONFLICT (id) DO NOTHING`,
        )
        .bind(pair.pairId, JSON.stringify(children)),
    );
  }
  out.push(
    db
      .prepare(
        `UPDATE spot_conditional_orders SET status = v.value ->> 1, reason = COALESCE(v.value ->> 2, reason),
           trigger_price = COALESCE(v.value ->> 3, trigger_price), child_order_id = COALESCE(v.value ->> 4, child_order_id), updated_at = ?
         FROM json_each(?) AS v WHERE spot_conditional_orders.id = v.value ->> 0 AND spot_conditional_orders.status < v.value ->> 1`,
      )
      .bind(at, JSON.stringify(updates.map(([[id, status, reason, trigger, child]]) => [id, status, reason, trigger, child ? child[0] : null]))),
  );
  return out;
}

/** One notification per triggered conditional order, for its owner (keyed by the order: a re-sent batch adds none). */
export function triggerNotifications(pair: OutboxPair, updates: [ConditionalUpdate, number][]): NewNotification[] {
  return updates.flatMap(([[id, status, , trigger, child, owner], when]) =>
    status === 2 && child
      ? [
          spotTriggered({
            conditionalId: id,
            userId: owner,
            pairId: pair.pairId,
            pair: pair.symbol,
            side: child[2],
            trigger: formatUnits(BigInt(trigger ?? 0), pair.priceDecimals),
            price: formatUnits(BigInt(child[3]), pair.priceDecimals),
            qty: formatUnits(BigInt(child[4]), pair.qtyDecimals),
            now: when,
          }),
        ]
      : [],
  );
}

/**
 * One notification per order that filled in this drain batch (in whole or in part), for its owner:
 * the batch's fills of the order summed (a market maker's order filled by many takers is one item,
 * not one per trade), keyed by the order and its last trade in the batch, so a re-sent batch adds none.
 */
export function fillNotifications(pair: OutboxPair, trades: (SpotTrade & { at: number })[], orders: Map<number, [filled: number, status: number, reason: string | null]>): NewNotification[] {
  const fills = new Map<number, { owner: number; side: "buy" | "sell"; lots: bigint; notional: bigint; lastTrade: number; at: number }>();
  const add = (orderId: number, owner: number, side: "buy" | "sell", t: SpotTrade & { at: number }) => {
    const f = fills.get(orderId) ?? { owner, side, lots: 0n, notional: 0n, lastTrade: 0, at: t.at };
    f.lots += BigInt(t.qty);
    f.notional += BigInt(t.qty) * BigInt(t.price);
    f.lastTrade = Math.max(f.lastTrade, t.tradeId);
    f.at = Math.max(f.at, t.at);
    fills.set(orderId, f);
  };
  for (const t of trades) {
    add(t.buyOrderId, t.buyerId, "buy", t);
    add(t.sellOrderId, t.sellerId, "sell", t);
  }
  return [...fills].map(([orderId, f]) =>
    spotFilled({
      orderId,
      userId: f.owner,
      pairId: pair.pairId,
      pair: pair.symbol,
      side: f.side,
      whole: orders.get(orderId)?.[1] === 2,
      qty: formatUnits(f.lots, pair.qtyDecimals),
      // The average price of the batch's fills, cut (never rounded up) to the pair's decimals.
      price: formatUnits(f.notional / f.lots, pair.priceDecimals),
      lastTrade: f.lastTrade,
      now: f.at,
    }),
  );
}

/**
 * The D1 side of settled seconds contracts: per contract ONE movement keyed `micro:{id}:settle`
 * that releases the user's frozen stake and the house's hold and pays the result, and the
 * contract's row (status 3 with its exit tick and result, settled_at = when D1 got it; entry fields
 * filled if the acceptance note never reached D1). The movement's time is when the result was
 * fixed. The key means no path can apply a settlement twice.
 */
function secondsApplication(db: D1Database, pair: OutboxPair, entries: SecondsSettleEntry[], appliedAt: number): { movements: D1PreparedStatement[]; extra: D1PreparedStatement[] } {
  const settlements = entries.map((e) => e.settlement);
  const movements = movementsStatements(
    db,
    entries.flatMap(({ settlement: s, objects }) => (objects ? [] : [s])).map((s) => ({
      key: secondsKeys.settle(s.orderId),
      kind: "micro_settle",
      entries: secondsEntries(
        settleLegs({ stake: BigInt(s.stake), fee: BigInt(s.fee), hold: BigInt(s.hold) }, { won: BigInt(s.result) > 0n, result: BigInt(s.result) }),
        s.userId,
        s.currencyId,
        `${pair.symbol} #${s.orderId}`,
      ),
      now: s.settledAt,
    })),
  );
  // Every contract's row in one statement: its exit, result and settled_at (entry fields filled if
  // the acceptance note never reached D1); the status triggers refuse anything but forward. The `+`
  // keeps the planner off the status index: the JSON rows lead, one primary-key lookup each.
  const rows = settlements.map((s) => [s.orderId, s.endTickId, s.endPrice, s.result, s.openTickId, s.openPrice, s.endAt]);
  const extra =
    rows.length === 0
      ? []
      : [
          db
            .prepare(
              `UPDATE micro_orders SET status = 3, end_tick_id = v.value ->> 1, end_price = v.value ->> 2, result = v.value ->> 3, settled_at = ?,
                 open_tick_id = COALESCE(open_tick_id, v.value ->> 4), open_price = COALESCE(open_price, v.value ->> 5), end_at = COALESCE(end_at, v.value ->> 6)
               FROM json_each(?) AS v
               WHERE micro_orders.id = v.value ->> 0 AND +micro_orders.status < 3`,
            )
            .bind(appliedAt, JSON.stringify(rows)),
        ];
  return { movements, extra };
}

/**
 * The D1 side of accepted seconds contracts: one statement for all of them, each held row (status
 * 0) gets its entry and status 1. A row the reconciler confirmed, or a settlement reached, first is
 * left alone (its entry is the same: both came from the desk's one record).
 */
function secondsAcceptedApplication(db: D1Database, entries: SecondsAcceptedEntry[]): D1PreparedStatement[] {
  if (entries.length === 0) return [];
  const rows = entries.flatMap((e) => (e.row ? [e.row] : []));
  return [
    ...(rows.length > 0 ? [objectsContractsStatement(db, rows)] : []),
    db
      .prepare(
        `UPDATE micro_orders SET status = 1, open_tick_id = v.value ->> 1, open_price = v.value ->> 2, end_at = v.value ->> 3
         FROM json_each(?) AS v WHERE micro_orders.id = v.value ->> 0 AND +micro_orders.status = 0`,
      )
      .bind(JSON.stringify(entries.map((e) => [e.orderId, e.openTickId, e.openPrice, e.endAt]))),
  ];
}

/**
 * The D1 side of lever events, in the order they happened (a position's open, nights and close may
 * share a batch): each money event is ONE movement keyed by the position and step, with the
 * position's row; the row's status can only move forward (migrations/0015_lever.sql triggers).
 */
function leverApplication(db: D1Database, pair: OutboxPair, entries: LeverEntry[]): D1PreparedStatement[] {
  const out: D1PreparedStatement[] = [];
  // Acceptances first, all in one statement: a position's acceptance precedes every later event of it.
  const accepted = entries.flatMap(({ event: e }) => (e.type === "accepted" ? [[e.positionId, e.status, e.openPrice, e.openTickId, e.openAt, e.feePaid ? 0 : null]] : []));
  // `ACCOUNTS=objects`: the rows the opens did not write, inserted first (lever-objects.ts).
  const inserted = entries.flatMap(({ event: e }) => (e.type === "accepted" && e.row ? [e.row] : []));
  if (inserted.length > 0) out.push(objectsPositionsStatement(db, inserted));
  if (accepted.length > 0) {
    out.push(
      db
        .prepare(
          `UPDATE lever_positions SET status = v.value ->> 1, open_price = v.value ->> 2, open_tick_id = v.value ->> 3, open_at = v.value ->> 4,
             fee_held = COALESCE(v.value ->> 5, fee_held)
           FROM json_each(?) AS v WHERE lever_positions.id = v.value ->> 0 AND +lever_positions.status = 0`,
        )
        .bind(JSON.stringify(accepted)),
    );
  }
  for (const { event: e, objects } of entries) {
    const memo = `${pair.symbol} #${e.positionId}`;
    // The movements of an event whose money went to the account objects as legs: none here.
    const movement: typeof movementStatements = objects ? () => [] : movementStatements;
    if (e.type === "accepted") continue;
    if (e.type === "open") {
      const held = e.feePaid ? ", fee_held = 0" : "";
      out.push(db.prepare(`UPDATE lever_positions SET status = 2, open_price = ?, open_tick_id = ?, open_at = ?${held} WHERE id = ? AND status IN (0, 1)`).bind(e.openPrice, e.openTickId, e.openAt, e.positionId));
    } else if (e.type === "stops") {
      out.push(db.prepare("UPDATE lever_positions SET stop_profit = ?, stop_loss = ? WHERE id = ? AND status < 4").bind(e.stopProfit, e.stopLoss, e.positionId));
    } else if (e.type === "night") {
      out.push(...movement(db, leverKeys.night(e.positionId, e.day), "lever_overnight", leverEntries(overnightLegs(BigInt(e.fee)), e.userId, e.currencyId, memo)));
      out.push(db.prepare("UPDATE lever_positions SET overnight = overnight + ? WHERE id = ?").bind(e.fee, e.positionId));
    } else if (e.type === "revoke") {
      const m = { margin: BigInt(e.margin), fee: BigInt(e.fee), hold: BigInt(e.hold) };
      out.push(...movement(db, leverKeys.close(e.positionId), "lever_revoke", leverEntries(refundLegs(m), e.userId, e.currencyId, memo), e.closedAt));
      out.push(db.prepare("UPDATE lever_positions SET status = 5, close_reason = 'revoked', closed_at = ? WHERE id = ? AND status IN (0, 1)").bind(e.closedAt, e.positionId));
    } else {
      // The direction does not change the legs: they are the released holds and the outcome.
      const p = { direction: 1 as LeverDirection, openPrice: 0n, lots: 1n, margin: BigInt(e.margin), hold: BigInt(e.hold), overnight: BigInt(e.overnight) };
      const o = { pnl: BigInt(e.pnl), fee: BigInt(e.fee), payout: BigInt(e.payout) };
      out.push(...movement(db, leverKeys.close(e.positionId), `lever_${e.reason === "user" ? "close" : e.reason}`, leverEntries(closeLegs(p, o), e.userId, e.currencyId, memo), e.closedAt));
      out.push(
        db
          .prepare(
            `UPDATE lever_positions SET status = 4, close_price = ?, close_tick_id = ?, close_fee = ?, profit = ?, close_reason = ?, closed_at = ?,
               open_price = COALESCE(open_price, ?), open_tick_id = COALESCE(open_tick_id, ?), open_at = COALESCE(open_at, ?)
             WHERE id = ? AND status < 4`,
          )
          .bind(e.closePrice, e.closeTickId, e.fee, e.pnl, e.reason, e.closedAt, e.openPrice, e.openTickId, e.openAt, e.positionId),
      );
    }
  }
  return out;
}

/** What the outbox needs in objects mode (built by durable/pair/read-model.ts `pairReadModel`). */
export interface PairReadModel {
  /** A batch's spot entries as its one read-model row's body, with the fill and trigger notifications in it. */
  body(pair: OutboxPair, spot: SpotCommandEntry[], at: number): { body: object; notifications: NewNotification[]; rows: number };
  /** The direct way: the batch's one row (a copy already there inserts nothing). */
  statement(db: D1Database, batch: PairBatch): D1PreparedStatement;
  /** Hands a batch to its collector; null when there are none (`DRAIN_COLLECTORS = "0"`: every batch goes directly). */
  handOver: ((batch: PairBatch) => Promise<HandOverAnswer>) | null;
  /** Asks the collector that holds a hand-over of this pair to write its window now (someone waits for the drain). */
  hurry(pairId: number): void;
}

/** Told, after a drain batch reached D1 (or was found there already), which entries it held. */
export type AppliedHook = (entries: OutboxEntry[]) => void;

export class Outbox {
  constructor(
    private readonly store: PairStorage,
    private readonly db: D1Database,
    private readonly deliver: NoticeSink = () => {},
  ) {}

  /** `ACCOUNTS=objects`: the read model's side of the drain (durable/pair/read-model.ts); null = D1's path, unchanged. */
  readModel: PairReadModel | null = null;
  /** The pair whose batch a collector holds now (a hand-over awaiting its answer), else null. */
  private handingOver: number | null = null;

  private appliedHooks: AppliedHook[] = [];
  private beforeHooks: (() => void)[] = [];
  private alongHooks: ((entries: OutboxEntry[]) => D1PreparedStatement[])[] = [];

  /** Adds `hook`'s statements to each drain batch's D1 batch (same transaction, no round trip of their own). */
  alongEachBatch(hook: (entries: OutboxEntry[]) => D1PreparedStatement[]): void {
    this.alongHooks.push(hook);
  }

  /**
   * Calls `hook` before each batch of a drain is fixed, so a desk can put work that fell due while
   * D1 applied the previous batch (contracts that expired meanwhile) into this drain instead of
   * waiting for the next alarm. The hook writes in its own transaction.
   */
  beforeEachBatch(hook: () => void): void {
    this.beforeHooks.push(hook);
  }

  /** Calls `hook` with each drain batch's entries once they are in D1, in the transaction that marks them drained. */
  whenApplied(hook: AppliedHook): void {
    this.appliedHooks.push(hook);
  }

  /** Adds an entry; call inside the transaction that made it (and register a drain with it). */
  append(entry: OutboxEntry): void {
    this.store.sql.exec("INSERT INTO outbox (payload) VALUES (?)", JSON.stringify(entry));
  }

  /** Adds many entries in one statement (same rules as `append`). */
  appendMany(entries: OutboxEntry[]): void {
    if (entries.length > 0) this.store.sql.exec("INSERT INTO outbox (payload) SELECT value FROM json_each(?) ORDER BY key", JSON.stringify(entries));
  }

  /** Whether any entry still waits for D1. */
  pending(): boolean {
    return this.store.one("SELECT 1 AS x FROM outbox WHERE drained_at IS NULL LIMIT 1") !== undefined;
  }

  /** Someone waits for this drain: a batch held by a collector is written now, and a `collect` run stops after it (`hurried`). */
  hurry(): void {
    if (this.handingOver !== null) this.readModel?.hurry(this.handingOver);
  }

  /**
   * Applies every waiting entry to D1, batch by batch; returns how many rows were applied. A
   * `collect` run (objects mode) stops after the batch it was on once `hurried()` says someone
   * waits for a `direct` run.
   */
  async drain(pair: OutboxPair, mode: DrainMode = "direct", hurried: () => boolean = () => false): Promise<number> {
    let applied = 0;
    for (;;) {
      if (mode === "collect" && hurried()) return applied;
      for (const hook of this.beforeHooks) hook();
      const head = this.store.one<{ id: number; batch: number | null }>("SELECT id, batch FROM outbox WHERE drained_at IS NULL ORDER BY id LIMIT 1");
      if (!head) return applied;
      const batchNo = head.batch ?? this.fixNextBatch();
      let rows = this.store.sql.exec("SELECT id, payload FROM outbox WHERE batch = ? AND drained_at IS NULL ORDER BY id", batchNo).toArray();
      rows = await this.withoutLegacyApplied(pair, rows);
      let notices: UserNotice[] = [];
      let live: LiveSessions = null;
      const entries = rows.map((r) => parseOutboxEntry(String(r.payload)));
      if (rows.length > 0 && this.readModel) {
        notices = await this.applyObjects(this.readModel, pair, batchNo, entries, mode === "collect" && !hurried());
      } else if (rows.length > 0) {
        notices = entries.flatMap((e) => ("notices" in e && e.notices) || []);
        const at = entries[entries.length - 1]!.at;
        const spot = entries.filter((e) => e.kind === "spot");
        const seconds = secondsApplication(this.db, pair, entries.filter((e) => e.kind === "seconds"), Date.now());
        const { ledger, extra, notifications: fillNotices } = spotApplication(this.db, pair, spot, at);
        // Each filled order's owner is told to read the inbox again, like a settled contract's.
        notices.push(...fillNotices.map((n) => ({ userId: n.userId, event: NOTIFICATION_EVENT })));
        // One movement for the batch's spot rows, checked balanced per currency before anything is
        // sent; its ledger rows travel as JSON (two statements however many accounts it touches).
        const spotMovement = spot.length > 0 ? movementsStatements(this.db, [{ key: `spot:${pair.pairId}:b${batchNo}`, kind: "spot", entries: ledger, now: at }]) : [];
        // Every owner's inbox item of the batch in one statement (each keyed by its event: a re-sent batch adds none).
        const notifications = notificationsStatement(this.db, [...entries.flatMap((e) => ("notification" in e && e.notification ? [e.notification] : [])), ...fillNotices]);
        // The live sessions of the users about to be notified, read in the same transaction (last
        // statement): their channels send to those sessions without a D1 read of their own.
        const notified = [...new Set(notices.map((n) => n.userId))];
        const sessions = notified.length > 0 ? [liveSessionsStatement(this.db, notified)] : [];
        try {
          const lever = leverApplication(this.db, pair, entries.filter((e) => e.kind === "lever"));
          const accepted = secondsAcceptedApplication(this.db, entries.filter((e) => e.kind === "seconds_accepted"));
          const results = await this.db.batch([
            ...spotMovement,
            ...seconds.movements,
            ...extra,
            ...accepted,
            ...seconds.extra,
            ...lever,
            ...notifications,
            ...this.alongHooks.flatMap((h) => h(entries)),
            ...sessions,
          ]);
          if (sessions.length > 0) {
            live = new Map(notified.map((u) => [u, []]));
            for (const r of results[results.length - 1]!.results as { user_id: number; session_id: number }[]) live.get(Number(r.user_id))?.push(Number(r.session_id));
          }
        } catch (err) {
          // Already applied by a drain whose note did not survive: nothing to do twice.
          if (classifyBatchError(err) !== "duplicate") throw err;
        }
      }
      const now = Date.now();
      this.store.transaction(() => {
        if (entries.length > 0) for (const hook of this.appliedHooks) hook(entries);
        this.store.sql.exec("UPDATE outbox SET drained_at = ? WHERE batch = ? AND drained_at IS NULL", now, batchNo);
      });
      this.store.sql.exec("DELETE FROM outbox WHERE drained_at < ?", now - KEEP_DRAINED_MS);
      applied += rows.length;
      // Only now, with the batch in D1 and marked: at most once, and never before a refetch shows it.
      if (notices.length > 0) this.deliver(notices, live);
    }
  }

  /**
   * Objects mode (durable/pair/read-model.ts): the batch's spot rows as ONE `pair_read_batches` row
   * keyed (pair, batch); the other desks' statements as on D1's path, in the same D1 batch behind
   * the movement head `spot:{pair}:b{n}` (a batch sent again is refused whole: already applied). A
   * batch of spot rows only, in a background run with collectors, goes to a collector instead.
   * Answers the owners' notices (delivered once the batch is marked drained).
   */
  private async applyObjects(rm: PairReadModel, pair: OutboxPair, batchNo: number, entries: OutboxEntry[], collect: boolean): Promise<UserNotice[]> {
    const notices = entries.flatMap((e) => ("notices" in e && e.notices) || []);
    const at = entries[entries.length - 1]!.at;
    const read = rm.body(pair, entries.filter((e) => e.kind === "spot"), at);
    // Each filled order's owner (and each triggered conditional order's) is told to read the inbox again.
    notices.push(...read.notifications.map((n) => ({ userId: n.userId, event: NOTIFICATION_EVENT })));
    const batch = { pairId: pair.pairId, batch: batchNo, at, body: read.body, rows: read.rows };
    const seconds = secondsApplication(this.db, pair, entries.filter((e) => e.kind === "seconds"), Date.now());
    const others = [
      ...seconds.movements,
      ...secondsAcceptedApplication(this.db, entries.filter((e) => e.kind === "seconds_accepted")),
      ...seconds.extra,
      ...leverApplication(this.db, pair, entries.filter((e) => e.kind === "lever")),
      ...notificationsStatement(this.db, entries.flatMap((e) => ("notification" in e && e.notification ? [e.notification] : []))),
      ...this.alongHooks.flatMap((h) => h(entries)),
    ];
    if (others.length === 0 && collect && rm.handOver) {
      this.handingOver = pair.pairId;
      try {
        const answer = await rm.handOver(batch);
        if (answer.result !== "written") throw new Error(`read model collector: D1 failing, again in ${answer.retryMs} ms`);
      } finally {
        this.handingOver = null;
      }
      return notices;
    }
    const head = others.length > 0 ? movementsStatements(this.db, [{ key: `spot:${pair.pairId}:b${batchNo}`, kind: "spot", entries: [], now: at }]) : [];
    try {
      await this.db.batch([rm.statement(this.db, batch), ...head, ...others]);
    } catch (err) {
      // The head is there: this batch was applied whole before (its pair row with it).
      if (classifyBatchError(err) !== "duplicate") throw err;
    }
    return notices;
  }

  /** Writes down the members of the next batch before D1 hears of them. */
  private fixNextBatch(): number {
    const batchNo = Number(this.store.meta("drain_batch") ?? 0) + 1;
    const last = this.store.sql
      .exec("SELECT id FROM outbox WHERE drained_at IS NULL AND batch IS NULL ORDER BY id LIMIT 1 OFFSET ?", DRAIN_BATCH - 1)
      .toArray()[0];
    const upTo = last ? Number(last.id) : Number.MAX_SAFE_INTEGER;
    this.store.transaction(() => {
      this.store.setMeta("drain_batch", batchNo);
      this.store.sql.exec("UPDATE outbox SET batch = ? WHERE drained_at IS NULL AND batch IS NULL AND id <= ?", batchNo, upTo);
    });
    return batchNo;
  }

  /** Rows from before drain batches that a per-row drain may already have applied (key spot:{pair}:{id}). */
  private async withoutLegacyApplied(pair: OutboxPair, rows: Record<string, SqlStorageValue>[]) {
    const legacyMax = Number(this.store.meta("legacy_outbox_max") ?? 0);
    const keyOf = (r: Record<string, SqlStorageValue>) => `spot:${pair.pairId}:${Number(r.id)}`;
    const legacy = rows.filter((r) => Number(r.id) <= legacyMax);
    if (legacy.length === 0) return rows;
    const done = await appliedMovementKeys(this.db, legacy.map(keyOf));
    return rows.filter((r) => !done.has(keyOf(r)));
  }
}
