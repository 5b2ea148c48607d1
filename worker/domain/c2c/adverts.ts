/**
 * Adverts (issue #10 §1, spec §4): only approved merchants post them; a sell advert escrows its
 * whole amount from the merchant's legal account as it goes on the shelf (movement
 * c2c:advert:{id}:escrow) and orders draw from that escrow; taken off, it takes no new orders;
 * withdrawn (only once off and idle) it returns what remains (c2c:advert:{id}:withdraw); an
 * operator may mark it abnormal (idle, escrow intact; audited), after which only withdrawal is left.
 */
import { C2C_FIAT, C2C_QTY_DECIMALS, dealMoneyCents, formatCents, parseCents, type C2cAdvert, type C2cType, type PayKind } from "../../../schemas/c2c.ts";
import { checkAmount } from "../../../schemas/wallet.ts";
import { formatUnits } from "../../../schemas/money.ts";
import { timeFormat, big, getCurrency, type Currency } from "../wallet/currency.ts";
import { ApiError, notFound } from "../../lib/errors.ts";
import { auditStatement, refuseOwnRecord } from "../../lib/guarded.ts";
import { balanceOf, movementStatements } from "../../lib/ledger.ts";
import { c2cHeldBy } from "./holds.ts";
import { decideAdvert, type AdvertAction, type AdvertState } from "./machine.ts";
import { isMerchant } from "./merchants.ts";
import { payKindsOf } from "./pay-methods.ts";
import { bgcolorOf, guard, runC2c, runC2cWithNewId } from "./shared.ts";

export type AdvertRow = {
  id: number;
  user_id: number;
  type: C2cType;
  currency_id: number;
  price: number;
  total: number;
  remaining: number;
  min_money: number;
  max_money: number;
  pay_kinds: string;
  remark: string;
  status: AdvertState;
  reason: string;
  created_at: number;
  // joined
  seller_name: string;
  currency_name: string;
  scale: number;
  deal_count: number;
  running: number;
  account?: string;
};

/** The columns of an advert with its merchant's name, coin, finished orders and running orders. */
export const ADVERT_SELECT = `SELECT a.*, c.name AS currency_name, c.scale,
    COALESCE((SELECT m.name FROM c2c_merchants m WHERE m.user_id = a.user_id ORDER BY m.status = 1 DESC, m.created_at DESC LIMIT 1), '') AS seller_name,
    (SELECT count(*) FROM c2c_orders o WHERE o.merchant_id = a.user_id AND o.is_sure = 1) AS deal_count,
    (SELECT count(*) FROM c2c_orders o WHERE o.advert_id = a.id AND o.is_sure IN (0, 3)) AS running
  FROM c2c_adverts a JOIN currencies c ON c.id = a.currency_id`;

/** The quantity step of C2C orders in a coin: C2C_QTY_DECIMALS, or the coin's scale if smaller. */
export const qtyStep = (scale: number) => 10n ** BigInt(Math.max(0, scale - Math.min(C2C_QTY_DECIMALS, scale)));

/** The per-order limits as coin quantities at the advert's price (min rounded up, max down and capped by what remains). */
export function limitsInCoin(a: { price: bigint; min_money: bigint; max_money: bigint; remaining: bigint; scale: number }) {
  const step = qtyStep(a.scale);
  const one = 10n ** BigInt(a.scale);
  const perStep = a.price * step; // cents × one per step
  const minSteps = (a.min_money * one + perStep - 1n) / perStep;
  const maxSteps = (a.max_money * one) / perStep;
  const max = maxSteps * step < a.remaining ? maxSteps * step : a.remaining;
  return { min: minSteps * step, max };
}

export function advertView(r: AdvertRow, viewer: { id: number | null; sellable: bigint }): C2cAdvert {
  const limits = limitsInCoin({ price: big(r.price), min_money: big(r.min_money), max_money: big(r.max_money), remaining: big(r.remaining), scale: r.scale });
  const own = viewer.id !== null && viewer.id === r.user_id;
  return {
    id: r.id,
    seller_name: r.seller_name,
    bgcolor: bgcolorOf(r.user_id),
    surplus_number: formatUnits(big(r.remaining), r.scale),
    min_number: formatUnits(limits.min, r.scale),
    max_number: formatUnits(limits.max, r.scale),
    price: formatCents(big(r.price)),
    currency_name: r.currency_name,
    type: r.type,
    user_sell_all_balance: formatUnits(viewer.sellable, r.scale),
    currency_id: r.currency_id,
    legal_name: C2C_FIAT,
    min_money: formatCents(big(r.min_money)),
    max_money: formatCents(big(r.max_money)),
    total_number: formatUnits(big(r.total), r.scale),
    pay_kinds: r.pay_kinds.split(",").filter(Boolean) as PayKind[],
    remark: r.remark,
    status: r.status,
    deal_count: r.deal_count,
    own,
    running_orders: own ? r.running : 0,
    create_time: r.created_at,
    format_create_time: timeFormat(r.created_at),
  };
}

/** One advert with its joined columns, or null. */
export async function advertRow(db: D1Database, id: number): Promise<AdvertRow | null> {
  return db.prepare(`${ADVERT_SELECT} WHERE a.id = ?`).bind(id).first<AdvertRow>();
}

/** GET /api/new/legal_deal/index: adverts on the shelf of one type and coin, best price for the taker first. */
export async function marketAdverts(db: D1Database, viewerId: number | null, type: C2cType, currencyId: number, page: number, limit: number) {
  const order = type === "sell" ? "a.price ASC" : "a.price DESC";
  const [total, rows] = await db.batch([
    db.prepare("SELECT count(*) AS n FROM c2c_adverts a WHERE a.status = 1 AND a.type = ? AND a.currency_id = ? AND a.remaining > 0").bind(type, currencyId),
    db.prepare(`${ADVERT_SELECT} WHERE a.status = 1 AND a.type = ? AND a.currency_id = ? AND a.remaining > 0 ORDER BY ${order}, a.id LIMIT ? OFFSET ?`).bind(type, currencyId, limit, (page - 1) * limit),
  ]);
  const sellable = viewerId === null ? 0n : (await balanceOf(db, viewerId, currencyId, "legal")).available;
  const n = (total?.results?.[0] as { n: number } | undefined)?.n ?? 0;
  return { total: n, lists: ((rows?.results ?? []) as AdvertRow[]).map((r) => advertView(r, { id: viewerId, sellable })) };
}

/** A merchant's own adverts, newest first (every state). */
export async function myAdverts(db: D1Database, userId: number, page: number, limit: number) {
  const [total, rows] = await db.batch([
    db.prepare("SELECT count(*) AS n FROM c2c_adverts WHERE user_id = ?").bind(userId),
    db.prepare(`${ADVERT_SELECT} WHERE a.user_id = ? ORDER BY a.id DESC LIMIT ? OFFSET ?`).bind(userId, limit, (page - 1) * limit),
  ]);
  const n = (total?.results?.[0] as { n: number } | undefined)?.n ?? 0;
  const list = (rows?.results ?? []) as AdvertRow[];
  const balances = new Map<number, bigint>();
  for (const r of list) if (!balances.has(r.currency_id)) balances.set(r.currency_id, (await balanceOf(db, userId, r.currency_id, "legal")).available);
  return { total: n, lists: list.map((r) => advertView(r, { id: userId, sellable: balances.get(r.currency_id) ?? 0n })) };
}

export interface AdvertInput {
  type: C2cType;
  currency: Currency;
  price: bigint;
  total: bigint;
  minMoney: bigint;
  maxMoney: bigint;
  payKinds: PayKind[];
  remark: string;
}

/** The highest price an advert may ask, in cents (1,000,000.00 CNY per coin). */
const MAX_PRICE_CENTS = 100_000_000n;

/**
 * Turns a validated advert body (decimal strings) into units and cents: price > 0 with 2
 * decimals; total at C2C_QTY_DECIMALS; per-order limits > 0, min ≤ max and min ≤ the advert's
 * value (the max may exceed it: orders are capped by what remains).
 */
export async function advertInput(
  db: D1Database,
  b: { type: C2cType; currency_id: number; price: string; total_number: string; min_money: string; max_money: string; pay_kinds: PayKind[]; remark: string },
): Promise<AdvertInput> {
  const currency = await getCurrency(db, b.currency_id);
  const price = parseCents(b.price);
  if (price === null) throw new ApiError("invalid_field", 400, { field: "price" });
  if (price <= 0n || price > MAX_PRICE_CENTS) throw new ApiError("price_positive", 400);
  const qty = checkAmount(b.total_number, Math.min(C2C_QTY_DECIMALS, currency.scale));
  if (!qty.ok) throw new ApiError(qty.key, 400, qty.params);
  const total = qty.units * qtyStep(currency.scale);
  const minMoney = parseCents(b.min_money);
  const maxMoney = parseCents(b.max_money);
  if (minMoney === null) throw new ApiError("invalid_field", 400, { field: "min_money" });
  if (maxMoney === null) throw new ApiError("invalid_field", 400, { field: "max_money" });
  if (minMoney <= 0n || maxMoney < minMoney || minMoney > dealMoneyCents(total, currency.scale, price)) throw new ApiError("c2c_limits", 400);
  return { type: b.type, currency, price, total, minMoney, maxMoney, payKinds: b.pay_kinds, remark: b.remark };
}

/** Posts an advert on the shelf; a sell advert escrows its total in the same batch. */
export async function createAdvert(db: D1Database, userId: number, a: AdvertInput, now = Date.now()): Promise<C2cAdvert> {
  if (!(await isMerchant(db, userId))) throw new ApiError("c2c_not_merchant", 403);
  if (!a.currency.isLegal) throw new ApiError("currency_unsupported", 400);
  const kinds = [...new Set(a.payKinds)];
  if (a.type === "sell") {
    // The buyer must have somewhere to pay: the merchant needs each method the advert offers.
    const have = await payKindsOf(db, userId);
    const missing = kinds.filter((k) => !have.has(k));
    if (missing.length > 0) throw new ApiError("c2c_pay_method_missing", 403, { kinds: missing.join(", ") }, "997");
  }
  const build = (id: number) => {
    const stmts = a.type === "sell"
      ? movementStatements(db, `c2c:advert:${id}:escrow`, "c2c_escrow", [
          { userId, currencyId: a.currency.id, account: "legal", dAvailable: -a.total, dFrozen: a.total, memo: `advert ${id} escrow` },
        ], now)
      : [];
    stmts.push(
      db
        .prepare(
          `INSERT INTO c2c_adverts (id, user_id, type, currency_id, price, total, remaining, min_money, max_money, pay_kinds, remark, status, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?)`,
        )
        .bind(id, userId, a.type, a.currency.id, a.price.toString(), a.total.toString(), a.total.toString(), a.minMoney.toString(), a.maxMoney.toString(), kinds.join(","), a.remark, now, now),
    );
    return stmts;
  };
  const id = await runC2cWithNewId(db, "c2c_adverts", build, "state_conflict", now);
  const row = await advertRow(db, id);
  const sellable = (await balanceOf(db, userId, a.currency.id, "legal")).available;
  return advertView(row!, { id: userId, sellable });
}

function advertRefusal(reason: "state" | "withdraw_off_first" | "running"): ApiError {
  if (reason === "withdraw_off_first") return new ApiError("c2c_withdraw_off_first", 409);
  if (reason === "running") return new ApiError("c2c_trade_running", 409);
  return new ApiError("c2c_advert_state", 409);
}

/** The statements of an advert transition, guarded on the state and remaining amount read. */
function advertStatements(db: D1Database, r: AdvertRow, action: AdvertAction, now: number, extra: { reason?: string; operatorId?: number } = {}): D1PreparedStatement[] {
  const d = decideAdvert(r.status, action, r.running);
  if (!d.ok) throw advertRefusal(d.reason);
  const remaining = big(r.remaining);
  const returns = d.transition.returnsEscrow;
  const stmts = returns && r.type === "sell" && remaining > 0n
    ? movementStatements(db, `c2c:advert:${r.id}:withdraw`, "c2c_escrow_return", [
        { userId: r.user_id, currencyId: r.currency_id, account: "legal", dAvailable: remaining, dFrozen: -remaining, memo: `advert ${r.id} withdrawn` },
      ], now)
    : [];
  stmts.push(
    db
      .prepare(
        `UPDATE c2c_adverts SET status = ?, remaining = ?, updated_at = ?, reason = COALESCE(?, reason), marked_by = COALESCE(?, marked_by)
          WHERE id = ? AND status = ? AND remaining = ?`,
      )
      .bind(d.transition.to, returns ? 0 : remaining.toString(), now, extra.reason ?? null, extra.operatorId ?? null, r.id, r.status, remaining.toString()),
    guard(db, `advert ${r.id} ${action}`),
  );
  return stmts;
}

/** A merchant takes an advert off the shelf, puts it back, or withdraws it. */
export async function merchantAdvertAction(db: D1Database, userId: number, id: number, action: "off" | "on" | "withdraw", now = Date.now()): Promise<C2cAdvert> {
  const r = await advertRow(db, id);
  if (!r || r.user_id !== userId) throw notFound();
  if (action === "on" && !(await isMerchant(db, userId))) throw new ApiError("c2c_not_merchant", 403);
  await runC2c(db, advertStatements(db, r, action, now), "c2c_advert_state");
  const after = await advertRow(db, id);
  return advertView(after!, { id: userId, sellable: (await balanceOf(db, userId, r.currency_id, "legal")).available });
}

/**
 * A merchant changes an advert that is off the shelf: price, per-order limits, accepted methods,
 * terms. Moves no money: the remaining amount (and a sell advert's escrow) stay as they are. The
 * update is guarded on the state and remaining amount read, so it cannot land after the advert
 * went back on the shelf or was withdrawn.
 */
export async function editAdvert(
  db: D1Database,
  userId: number,
  id: number,
  b: { price: string; min_money: string; max_money: string; pay_kinds: PayKind[]; remark: string },
  now = Date.now(),
): Promise<C2cAdvert> {
  const r = await advertRow(db, id);
  if (!r || r.user_id !== userId) throw notFound();
  if (r.status !== 2) throw new ApiError("c2c_advert_state", 409);
  const price = parseCents(b.price);
  if (price === null) throw new ApiError("invalid_field", 400, { field: "price" });
  if (price <= 0n || price > MAX_PRICE_CENTS) throw new ApiError("price_positive", 400);
  const minMoney = parseCents(b.min_money);
  const maxMoney = parseCents(b.max_money);
  if (minMoney === null) throw new ApiError("invalid_field", 400, { field: "min_money" });
  if (maxMoney === null) throw new ApiError("invalid_field", 400, { field: "max_money" });
  const remaining = big(r.remaining);
  if (minMoney <= 0n || maxMoney < minMoney || minMoney > dealMoneyCents(remaining, r.scale, price)) throw new ApiError("c2c_limits", 400);
  const kinds = [...new Set(b.pay_kinds)];
  if (r.type === "sell") {
    const have = await payKindsOf(db, userId);
    const missing = kinds.filter((k) => !have.has(k));
    if (missing.length > 0) throw new ApiError("c2c_pay_method_missing", 403, { kinds: missing.join(", ") }, "997");
  }
  await runC2c(
    db,
    [
      db
        .prepare("UPDATE c2c_adverts SET price = ?, min_money = ?, max_money = ?, pay_kinds = ?, remark = ?, updated_at = ? WHERE id = ? AND user_id = ? AND status = 2 AND remaining = ?")
        .bind(price.toString(), minMoney.toString(), maxMoney.toString(), kinds.join(","), b.remark, now, id, userId, remaining.toString()),
      guard(db, `advert ${id} edit`),
    ],
    "c2c_advert_state",
  );
  const after = await advertRow(db, id);
  return advertView(after!, { id: userId, sellable: (await balanceOf(db, userId, r.currency_id, "legal")).available });
}

/**
 * An operator marks an advert abnormal (spec §4: only when no order is unfinished and the
 * remaining amount is covered by the merchant's frozen funds). Moves no money; audited.
 */
export async function markAdvertAbnormal(db: D1Database, operatorId: number, id: number, reason: string, now = Date.now()) {
  const r = await advertRow(db, id);
  if (!r) throw notFound();
  await refuseOwnRecord(db, operatorId, r.user_id, { action: "c2c.advert.abnormal", targetType: "c2c_advert", targetId: r.id, detail: { user_id: r.user_id } });
  const d = decideAdvert(r.status, "abnormal", r.running);
  if (!d.ok) throw new ApiError(d.reason === "running" ? "c2c_trade_running" : "c2c_abnormal_refused", 409);
  if (r.type === "sell") {
    // "Remaining sufficient": the merchant's frozen funds still cover every C2C hold, this advert's escrow included.
    const frozen = (await balanceOf(db, r.user_id, r.currency_id, "legal")).frozen;
    if (frozen < (await c2cHeldBy(db, r.user_id, r.currency_id))) throw new ApiError("c2c_frozen_insufficient", 409);
  }
  const stmts = advertStatements(db, r, "abnormal", now, { reason, operatorId });
  stmts.push(auditStatement(db, { operatorId, action: "c2c.advert.abnormal", targetType: "c2c_advert", targetId: r.id, reason, detail: { user_id: r.user_id, remaining: String(r.remaining), type: r.type } }, now));
  await runC2c(db, stmts, "c2c_abnormal_refused");
  return { id: r.id, status: 4 };
}

/** Operator list of adverts (any state). */
export async function adminAdverts(db: D1Database, status: number | undefined, userId: number | undefined, page: number, limit: number) {
  const where = "(?1 IS NULL OR a.status = ?1) AND (?2 IS NULL OR a.user_id = ?2)";
  const [total, rows] = await db.batch([
    db.prepare(`SELECT count(*) AS n FROM c2c_adverts a WHERE ${where}`).bind(status ?? null, userId ?? null),
    db
      .prepare(`SELECT x.*, u.account FROM (${ADVERT_SELECT} WHERE ${where}) x JOIN users u ON u.id = x.user_id ORDER BY x.id DESC LIMIT ?3 OFFSET ?4`)
      .bind(status ?? null, userId ?? null, limit, (page - 1) * limit),
  ]);
  const n = (total?.results?.[0] as { n: number } | undefined)?.n ?? 0;
  return {
    total: n,
    lists: ((rows?.results ?? []) as AdvertRow[]).map((r) => ({ ...advertView(r, { id: null, sellable: 0n }), running_orders: r.running, user_id: r.user_id, account: r.account ?? "" })),
  };
}

