/**
 * C2C orders (issue #10 §2; DESIGN §8). Creating an order reserves its coins: against a sell
 * advert they come out of the advert's escrow (remaining − n, still frozen at the merchant); when
 * the user sells to a buy advert, the user's coins are frozen in the same batch (movement
 * c2c:{id}:escrow). Every later change is `decideOrder` (machine.ts) applied as ONE batch: the
 * ledger movement keyed by the order (c2c:{id}:release to the buyer, c2c:{id}:return to the
 * seller or the advert), the UPDATE guarded on the state read (`WHERE id = ? AND is_sure = ?`,
 * plus `pay_deadline > now` for payment), the statement guard that aborts the batch when that
 * UPDATE matched nothing, and the order's event row. Two requests racing on one order: one wins,
 * the other changes nothing and answers c2c_order_handled.
 */
import {
  C2C_FIAT,
  C2C_MAX_CANCELS_PER_DAY,
  C2C_MAX_UNFINISHED,
  C2C_QTY_DECIMALS,
  dealMoneyCents,
  formatCents,
  parseCents,
  type C2cOrder,
  type C2cType,
  type IsSure,
  type PayKind,
  type PaySnapshot,
} from "../../../schemas/c2c.ts";
import { formatUnits } from "../../../schemas/money.ts";
import { checkAmount } from "../../../schemas/wallet.ts";
import { big, timeFormat } from "../wallet/currency.ts";
import { ApiError, bankRequired, notFound } from "../../lib/errors.ts";
import { auditStatement } from "../../lib/guarded.ts";
import { movementStatements, type LedgerEntry } from "../../lib/ledger.ts";
import { advertRow, qtyStep } from "./adverts.ts";
import { decideOrder, type Actor, type OrderAction, type Refusal } from "./machine.ts";
import { announceNotifications } from "../notifications/inbox.ts";
import { actionNotices, noticeStatements, orderNotices, type NoticeOrder } from "./notices.ts";
import { notifyUsers } from "./notify.ts";
import { checkFundPassword, checkTotpIfEnabled } from "../account/security.ts";
import { payKindsOf, paySnapshot } from "./pay-methods.ts";
import { c2cOnObjects, escrowClaim, orderLegs, withEscrow } from "./objects.ts";
import { deliverRecordLegs, recordLegsStatements } from "../../lib/record-legs.ts";
import { beijingDay, c2cSettings, guard, maskName, orderNumber, runC2c, runC2cWithNewId, type C2cSettings } from "./shared.ts";

export type OrderRow = {
  id: number;
  advert_id: number;
  type: C2cType;
  merchant_id: number;
  taker_id: number;
  buyer_id: number;
  seller_id: number;
  currency_id: number;
  amount: number;
  price: number;
  deal_money: number;
  is_sure: IsSure;
  pay_deadline: number;
  pay_methods: string;
  pay_orders_img: string | null;
  paid_at: number | null;
  ended_at: number | null;
  cancel_reason: "buyer" | "expired" | "appeal" | null;
  created_at: number;
  currency_name: string;
  scale: number;
  merchant_name: string;
  buyer_real: string | null;
  seller_real: string | null;
  /** the real name from identity verification (null unless verified) */
  buyer_verified_name: string | null;
  seller_verified_name: string | null;
  buyer_account: string;
  seller_account: string;
  last_message_id: number | null;
  appeal_id: number | null;
  appeal_status: 0 | 1 | 2 | 3 | null;
  appeal_by_user_id: number | null;
  appeal_by_role: "buyer" | "seller" | null;
  appeal_reason: string | null;
  appeal_evidence: string | null;
  appeal_decided_by: number | null;
  appeal_decision_reason: string | null;
  appeal_decided_at: number | null;
  appeal_created_at: number | null;
};

export const ORDER_SELECT = `SELECT o.*, c.name AS currency_name, c.scale,
    COALESCE((SELECT m.name FROM c2c_merchants m WHERE m.user_id = o.merchant_id ORDER BY m.status = 1 DESC, m.created_at DESC LIMIT 1), '') AS merchant_name,
    bu.real_name AS buyer_real, se.real_name AS seller_real,
    CASE WHEN bu.review_status = 2 THEN bu.real_name END AS buyer_verified_name, CASE WHEN se.review_status = 2 THEN se.real_name END AS seller_verified_name,
    bu.account AS buyer_account, se.account AS seller_account,
    (SELECT max(id) FROM c2c_messages g WHERE g.order_id = o.id) AS last_message_id,
    p.id AS appeal_id, p.status AS appeal_status, p.by_user_id AS appeal_by_user_id, p.by_role AS appeal_by_role, p.reason AS appeal_reason,
    p.evidence AS appeal_evidence, p.decided_by AS appeal_decided_by, p.decision_reason AS appeal_decision_reason,
    p.decided_at AS appeal_decided_at, p.created_at AS appeal_created_at
  FROM c2c_orders o JOIN currencies c ON c.id = o.currency_id JOIN users bu ON bu.id = o.buyer_id JOIN users se ON se.id = o.seller_id
  LEFT JOIN c2c_appeals p ON p.order_id = o.id`;

/** The url of a picture that belongs to an order (proof, chat image, payment code, evidence). */
export const orderFileUrl = (orderId: number, uploadId: string) => `/api/c2c/orders/${orderId}/files/${uploadId}`;

type StoredSnapshot = Omit<PaySnapshot, "qr_code"> & { qr_code: string | null };

function snapshots(r: OrderRow): PaySnapshot[] {
  const list = JSON.parse(r.pay_methods) as StoredSnapshot[];
  return list.map((s) => ({ ...s, qr_code: s.qr_code ? orderFileUrl(r.id, s.qr_code) : null }));
}

/** The fields both the parties' and the operators' views share. */
function commonView(r: OrderRow, settings: C2cSettings, now: number) {
  const methods = snapshots(r);
  return {
    id: r.id,
    type: r.type,
    is_sure: r.is_sure,
    currency_name: r.currency_name,
    number: formatUnits(big(r.amount), r.scale),
    price: formatCents(big(r.price)),
    deal_money: formatCents(big(r.deal_money)),
    create_time: r.created_at,
    format_create_time: timeFormat(r.created_at),
    account_number: methods[0]?.account ?? "",
    seller_name: r.merchant_name,
    ordernumber: orderNumber(r.id),
    pay_orders_img: r.pay_orders_img ? orderFileUrl(r.id, r.pay_orders_img) : null,
    cancel_time: r.is_sure === 0 ? Math.max(0, Math.ceil((r.pay_deadline - now) / 1000)) : 0,
    currency_id: r.currency_id,
    legal_name: C2C_FIAT,
    advert_id: r.advert_id,
    pay_methods: methods,
    pay_deadline: r.pay_deadline,
    paid_time: r.paid_at,
    end_time: r.ended_at,
    cancel_reason: r.cancel_reason,
    appeal_from: r.is_sure === 3 && r.paid_at !== null ? r.paid_at + settings.appealAfterMs : null,
    appeal:
      r.appeal_id === null
        ? null
        : {
            id: r.appeal_id,
            order_id: r.id,
            status: r.appeal_status!,
            by: r.appeal_by_role!,
            reason: r.appeal_reason ?? "",
            evidence: (JSON.parse(r.appeal_evidence ?? "[]") as string[]).map((u) => orderFileUrl(r.id, u)),
            create_time: r.appeal_created_at ?? 0,
            format_create_time: timeFormat(r.appeal_created_at ?? 0),
            decision_reason: r.appeal_decision_reason ?? "",
            decided_time: r.appeal_decided_at,
          },
    last_message_id: r.last_message_id ?? 0,
  };
}

/**
 * An order as one of its parties sees it. While the order is open (awaiting payment or paid, also
 * under appeal) each party sees the other's verified real name: the buyer must pay from an account
 * in that name and the seller must check the payment came from it. Before and after, only the
 * masked name or the merchant's shop name.
 */
export function orderView(r: OrderRow, viewerId: number, settings: C2cSettings, now = Date.now()): C2cOrder {
  const isMerchant = viewerId === r.merchant_id;
  const viewerBuys = viewerId === r.buyer_id;
  const open = r.is_sure === 0 || r.is_sure === 3;
  return {
    ...commonView(r, settings, now),
    role: viewerBuys ? "buyer" : "seller",
    is_merchant: isMerchant,
    counterparty_name: isMerchant ? maskName(r.taker_id === r.buyer_id ? r.buyer_real : r.seller_real) : r.merchant_name,
    counterparty_real_name: open ? ((viewerBuys ? r.seller_verified_name : r.buyer_verified_name) ?? null) : null,
  };
}

/** An order as operators see it (both parties named). */
export function adminOrderView(r: OrderRow, settings: C2cSettings, now = Date.now()) {
  return {
    ...commonView(r, settings, now),
    buyer_id: r.buyer_id,
    buyer_account: r.buyer_account,
    seller_id: r.seller_id,
    seller_account: r.seller_account,
    merchant_id: r.merchant_id,
  };
}

/** What the notification-centre items of an order need. */
export function noticeOrder(r: OrderRow): NoticeOrder {
  return { id: r.id, merchant_id: r.merchant_id, buyer_id: r.buyer_id, seller_id: r.seller_id, amount: big(r.amount), scale: r.scale, currency_name: r.currency_name, deal_money: big(r.deal_money) };
}

export async function orderRow(db: D1Database, id: number): Promise<OrderRow | null> {
  return db.prepare(`${ORDER_SELECT} WHERE o.id = ?`).bind(id).first<OrderRow>();
}

/** An order of the user (either side), or not_found: another user's id reads like a missing one. */
export async function partyOrder(db: D1Database, id: number, userId: number): Promise<OrderRow> {
  const r = await orderRow(db, id);
  if (!r || (r.buyer_id !== userId && r.seller_id !== userId)) throw notFound();
  return r;
}

export interface OrderFilters {
  type?: C2cType;
  currency_id?: number;
  is_sure?: IsSure;
}

/** The user's orders (either side; with `merchantOnly`, only those on the user's adverts), newest first. */
export async function listOrders(env: Env, userId: number, f: OrderFilters, page: number, limit: number, merchantOnly = false) {
  const db = env.DB;
  const who = merchantOnly ? "o.merchant_id = ?1" : "(o.buyer_id = ?1 OR o.seller_id = ?1)";
  const where = `${who} AND (?2 IS NULL OR o.type = ?2) AND (?3 IS NULL OR o.currency_id = ?3) AND (?4 IS NULL OR o.is_sure = ?4)`;
  const binds = [userId, f.type ?? null, f.currency_id ?? null, f.is_sure ?? null];
  const [total, rows] = await db.batch([
    db.prepare(`SELECT count(*) AS n FROM c2c_orders o WHERE ${where}`).bind(...binds),
    db.prepare(`${ORDER_SELECT} WHERE ${where} ORDER BY o.id DESC LIMIT ?5 OFFSET ?6`).bind(...binds, limit, (page - 1) * limit),
  ]);
  const n = (total?.results?.[0] as { n: number } | undefined)?.n ?? 0;
  const settings = c2cSettings(env);
  const now = Date.now();
  return { total: n, pages: Math.max(1, Math.ceil(n / limit)), lists: ((rows?.results ?? []) as OrderRow[]).map((r) => orderView(r, userId, settings, now)) };
}

/** The caller's cancellations on a Beijing day. */
export async function cancelsOn(db: D1Database, userId: number, day: string): Promise<number> {
  const r = await db.prepare("SELECT count FROM c2c_cancel_days WHERE user_id = ? AND day = ?").bind(userId, day).first<{ count: number }>();
  return r?.count ?? 0;
}

/**
 * POST /api/do_legal_deal: takes `value` coins of an advert. Checks in the order a user can act
 * on them; the database re-checks the advert state, the limits and the remaining amount in the
 * same batch, so racing requests cannot overdraw an advert or pass a limit.
 */
export async function createOrder(env: Env, userId: number, advertId: number, value: string, now = Date.now(), seenPrice?: string): Promise<{ id: number; is_sure: IsSure }> {
  const db = env.DB;
  const a = await advertRow(db, advertId);
  if (!a) throw notFound();
  if (a.user_id === userId) throw new ApiError("c2c_own_advert", 403);
  if (a.status === 4) throw new ApiError("c2c_advert_abnormal", 409);
  if (a.status !== 1) throw new ApiError("c2c_advert_closed", 409);

  const decimals = Math.min(C2C_QTY_DECIMALS, a.scale);
  const check = checkAmount(value, decimals);
  if (!check.ok) throw new ApiError(check.key, 400, check.params);
  const units = check.units * qtyStep(a.scale);
  const price = big(a.price);
  // The price the user was shown, when the client sends it: an order is never placed at another one.
  if (seenPrice !== undefined && parseCents(seenPrice) !== price) throw new ApiError("c2c_price_changed", 409, { price: formatCents(price) });
  const remaining = big(a.remaining);
  if (units > remaining) throw new ApiError("c2c_remaining", 409, { max: formatUnits(remaining, a.scale) });
  const money = dealMoneyCents(units, a.scale, price);
  // Below the minimum is allowed only to take everything that is left.
  if (money < big(a.min_money) && units !== remaining) throw new ApiError("below_min", 400, { min: `${formatCents(big(a.min_money))} ${C2C_FIAT}` });
  if (money > big(a.max_money)) throw new ApiError("above_max", 400, { max: `${formatCents(big(a.max_money))} ${C2C_FIAT}` });
  if (money <= 0n) throw new ApiError("amount_positive", 400);

  const [open, cancels] = await Promise.all([
    db.prepare("SELECT count(*) AS n FROM c2c_orders WHERE taker_id = ? AND is_sure IN (0, 3)").bind(userId).first<{ n: number }>(),
    cancelsOn(db, userId, beijingDay(now)),
  ]);
  if (cancels >= C2C_MAX_CANCELS_PER_DAY) throw new ApiError("c2c_cancel_limit", 409, { max: C2C_MAX_CANCELS_PER_DAY });
  if ((open?.n ?? 0) >= C2C_MAX_UNFINISHED) throw new ApiError("c2c_unfinished_limit", 409, { max: C2C_MAX_UNFINISHED });

  // Receiving information (spec §5; 997 → /bank): every taker needs one; a seller needs one the advert accepts.
  const kinds = a.pay_kinds.split(",").filter(Boolean) as PayKind[];
  const mine = await payKindsOf(db, userId);
  if (mine.size === 0) throw bankRequired();
  const userSells = a.type === "buy";
  if (userSells && !kinds.some((k) => mine.has(k))) throw new ApiError("c2c_pay_method_missing", 403, { kinds: kinds.join(", ") }, "997");
  const sellerId = userSells ? userId : a.user_id;
  const snapshot = await paySnapshot(db, sellerId, kinds);
  if (snapshot.length === 0) throw new ApiError("c2c_advert_closed", 409);

  const settings = c2cSettings(env);
  const onObjects = c2cOnObjects(env);
  let noticed: number[] = [];
  // Objects mode: a user selling escrows their coins in their own object first (c2c_order:{id}), then the record.
  const escrowed = onObjects && userSells;
  const build = (id: number) => {
    const stmts = escrowed
      ? [escrowClaim(db, "c2c_order", id, now)]
      : !onObjects && userSells
        ? movementStatements(db, `c2c:${id}:escrow`, "c2c_escrow", [
            { userId, currencyId: a.currency_id, account: "legal", dAvailable: -units, dFrozen: units, memo: `c2c order ${id} escrow` },
          ], now)
        : [];
    stmts.push(
      db
        .prepare(
          `INSERT INTO c2c_orders (id, advert_id, type, merchant_id, taker_id, buyer_id, seller_id, currency_id, amount, price, deal_money, is_sure, pay_deadline, pay_methods, created_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?)`,
        )
        .bind(id, a.id, a.type, a.user_id, userId, userSells ? a.user_id : userId, sellerId, a.currency_id, units.toString(), price.toString(), money.toString(), now + settings.payWindowMs, JSON.stringify(snapshot), now),
      db.prepare("UPDATE c2c_adverts SET remaining = remaining - ?, updated_at = ? WHERE id = ? AND status = 1 AND price = ?").bind(units.toString(), now, a.id, price.toString()),
      guard(db, `advert ${a.id} take`),
    );
    const notice = noticeStatements(
      db,
      orderNotices(
        { id, merchant_id: a.user_id, buyer_id: userSells ? a.user_id : userId, seller_id: sellerId, amount: units, scale: a.scale, currency_name: a.currency_name, deal_money: money },
        [{ notice: "new" }],
        now,
      ),
      now,
    );
    noticed = notice.userIds;
    return [...stmts, ...notice.stmts];
  };
  const id = escrowed
    ? await withEscrow(env, { userId, kind: "c2c_order", currencyId: a.currency_id, amount: units, now, conflict: "c2c_advert_closed" }, (id) => db.batch(build(id)))
    : await runC2cWithNewId(db, "c2c_orders", build, "c2c_advert_closed", now);
  await notifyUsers(env, [a.user_id], { type: "c2c_order", id, is_sure: 0 });
  await announceNotifications(env, noticed);
  return { id, is_sure: 0 };
}

export interface TransitionOptions {
  now?: number;
  /** the proof upload id (pay) */
  proof?: string;
  /** operator decisions */
  operatorId?: number;
  reason?: string;
}

function refusal(reason: Refusal): ApiError {
  switch (reason) {
    case "actor":
      return new ApiError("c2c_not_authorised", 403);
    case "window_closed":
      return new ApiError("c2c_pay_window", 409);
    default:
      return new ApiError("c2c_order_handled", 409);
  }
}

/**
 * The seller releases the escrow ("confirm"): money leaves them for good, so, as a withdrawal, it
 * needs their fund password and, when an authenticator is on, its code. The order is asked first
 * whether this party may release it now: a buyer, or an order already handled, gets the order's own
 * refusal rather than a password prompt. Then the guarded transition, as any other.
 */
export async function releaseOrder(env: Env, r: OrderRow, actor: Actor, actorId: number, factors: { password: string; totp_code?: string | undefined }): Promise<IsSure> {
  const d = decideOrder(r.is_sure, "confirm", actor, { now: Date.now(), payDeadline: r.pay_deadline, appealOpen: r.appeal_status === 0 });
  if (!d.ok) throw refusal(d.reason);
  await checkFundPassword(env, actorId, factors.password);
  await checkTotpIfEnabled(env, actorId, factors.totp_code);
  return transitionOrder(env, r, "confirm", actor, actorId);
}

/**
 * Applies one action to an order as one guarded batch and tells the other party. `actor` is the
 * caller's side (or "operator" / "system"). Throws the translated refusal; changes nothing then.
 */
export async function transitionOrder(env: Env, r: OrderRow, action: OrderAction, actor: Actor, actorId: number | null, o: TransitionOptions = {}): Promise<IsSure> {
  const db = env.DB;
  const now = o.now ?? Date.now();
  const d = decideOrder(r.is_sure, action, actor, { now, payDeadline: r.pay_deadline, appealOpen: r.appeal_status === 0 });
  if (!d.ok) throw refusal(d.reason);
  const t = d.transition;
  const n = big(r.amount);
  const stmts: D1PreparedStatement[] = [];
  /** Statements that follow the order's guarded update: a transition that lost the race fails on that guard first, as `c2c_order_handled`. */
  const guarded: D1PreparedStatement[] = [];
  // Objects mode: the escrow's legs, written with the transition and sent once it committed (objects.ts).
  // No keyed movement goes first here (D1's path's movement key refuses a second transition as a
  // duplicate): the advert's escrow follows the guard, or a stale second expiry would push it past
  // its total and be refused as `insufficient_balance`.
  const legs = c2cOnObjects(env) ? orderLegs(r, t.escrow) : null;
  if (legs) {
    if (t.escrow === "return") guarded.push(db.prepare("UPDATE c2c_adverts SET remaining = remaining + ?, updated_at = ? WHERE id = ?").bind(n.toString(), now, r.advert_id));
  } else if (t.escrow === "release") {
    const entries: LedgerEntry[] = [
      { userId: r.seller_id, currencyId: r.currency_id, account: "legal", dAvailable: 0n, dFrozen: -n, memo: `c2c order ${r.id} released` },
      { userId: r.buyer_id, currencyId: r.currency_id, account: "legal", dAvailable: n, dFrozen: 0n, memo: `c2c order ${r.id} bought` },
    ];
    stmts.push(...movementStatements(db, `c2c:${r.id}:release`, "c2c_release", entries, now));
  } else if (t.escrow === "return") {
    // A sell advert's coins go back into its escrow (still frozen at the merchant); a user's own coins are unfrozen.
    const entries: LedgerEntry[] =
      r.type === "buy" ? [{ userId: r.seller_id, currencyId: r.currency_id, account: "legal", dAvailable: n, dFrozen: -n, memo: `c2c order ${r.id} returned` }] : [];
    stmts.push(...movementStatements(db, `c2c:${r.id}:return`, "c2c_return", entries, now));
    stmts.push(db.prepare("UPDATE c2c_adverts SET remaining = remaining + ?, updated_at = ? WHERE id = ?").bind(n.toString(), now, r.advert_id));
  }
  const final = t.to === 1 || t.to === 2;
  const cancelReason = t.to === 2 ? (action === "cancel" ? "buyer" : action === "expire" ? "expired" : "appeal") : null;
  stmts.push(
    t.action === "pay"
      ? db
          .prepare("UPDATE c2c_orders SET is_sure = 3, paid_at = ?, pay_orders_img = ? WHERE id = ? AND is_sure = 0 AND pay_deadline > ?")
          .bind(now, o.proof ?? null, r.id, now)
      : db
          .prepare("UPDATE c2c_orders SET is_sure = ?, ended_at = ?, cancel_reason = ? WHERE id = ? AND is_sure = ?")
          .bind(t.to, final ? now : null, cancelReason, r.id, t.from),
    guard(db, `order ${r.id} ${action}`),
    ...guarded,
    db.prepare("INSERT INTO c2c_order_events (order_id, from_state, to_state, action, actor_id, created_at) VALUES (?, ?, ?, ?, ?, ?)").bind(r.id, t.from, t.to, action, actorId, now),
  );
  if (actor === "operator") {
    stmts.push(
      db
        .prepare("UPDATE c2c_appeals SET status = ?, decided_by = ?, decision_reason = ?, decided_at = ? WHERE order_id = ? AND status = 0")
        .bind(t.to === 1 ? 1 : 2, o.operatorId ?? actorId, o.reason ?? "", now, r.id),
      guard(db, `appeal of order ${r.id}`),
      auditStatement(
        db,
        { operatorId: o.operatorId ?? actorId ?? 0, action: `c2c.appeal.${action}`, targetType: "c2c_order", targetId: r.id, reason: o.reason ?? "", detail: { appeal_id: r.appeal_id, buyer_id: r.buyer_id, seller_id: r.seller_id, amount: n.toString(), currency_id: r.currency_id } },
        now,
      ),
    );
  } else if (t.action === "confirm" && r.appeal_status === 0) {
    // The seller settled it themselves: the appeal has nothing left to decide.
    stmts.push(db.prepare("UPDATE c2c_appeals SET status = 3, decided_at = ? WHERE order_id = ? AND status = 0").bind(now, r.id));
  }
  // The parties' notification-centre items, after every guard of the batch: a lost race inserts none.
  const notice = noticeStatements(db, orderNotices(noticeOrder(r), actionNotices(t.action), now), now);
  stmts.push(...notice.stmts);
  if (legs) stmts.push(...recordLegsStatements(db, `c2c_order:${r.id}`, legs, now));
  await runC2c(db, stmts);
  if (legs) await deliverRecordLegs(env, legs);
  const others = [r.buyer_id, r.seller_id].filter((u) => u !== actorId);
  await notifyUsers(env, others, { type: "c2c_order", id: r.id, is_sure: t.to });
  await announceNotifications(env, notice.userIds);
  return t.to;
}

/**
 * POST /api/handle_one: the client's call at countdown zero. The server decides: an unpaid order
 * past its window is cancelled (escrow returned); anything else is left as it is. Idempotent.
 */
export async function handleOne(env: Env, r: OrderRow, userId: number, now = Date.now()): Promise<void> {
  if (r.is_sure !== 0 || now < r.pay_deadline) return;
  try {
    await transitionOrder(env, r, "expire", r.buyer_id === userId ? "buyer" : "seller", userId, { now });
  } catch (err) {
    // Someone else (the job, a payment just in time, a cancel) got there first: the order is handled.
    if (!(err instanceof ApiError && err.key === "c2c_order_handled")) throw err;
  }
}

/**
 * The expiry job (worker/jobs/c2c-expiry.ts): cancels every unpaid order whose window has ended
 * and returns its escrow, with nobody online. A payment that lands first wins; nothing applies twice.
 */
export async function expireDueOrders(env: Env, now = Date.now(), limit = 200): Promise<{ due: number; expired: number }> {
  const { results } = await env.DB.prepare("SELECT id FROM c2c_orders WHERE is_sure = 0 AND pay_deadline <= ? ORDER BY pay_deadline LIMIT ?").bind(now, limit).all<{ id: number }>();
  let expired = 0;
  for (const { id } of results) {
    const r = await orderRow(env.DB, id);
    if (!r || r.is_sure !== 0) continue;
    try {
      await transitionOrder(env, r, "expire", "system", null, { now });
      expired++;
    } catch (err) {
      if (!(err instanceof ApiError && err.key === "c2c_order_handled")) throw err;
    }
  }
  return { due: results.length, expired };
}

