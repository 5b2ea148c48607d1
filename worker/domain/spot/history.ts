/**
 * What a trader reads about their own spot activity: open orders, trades, order history with final
 * states and average fill prices, and balances for a pair. Scoped to the caller in every query.
 */
import { formatUnits } from "../../../schemas/money.ts";
import type { z } from "zod";
import type { orderHistoryQuerySchema, OrderState, SpotOpenOrder, SpotOrderRecord, SpotRecord } from "../../../schemas/spot.ts";
import { notionalToQuoteUnits, quoteUnitsPerTickLot } from "../../../durable/engine/units.ts";
import { balanceOf } from "../../lib/ledger.ts";
import { accountsOnObjects, accountStub } from "../../lib/accounts.ts";
import { balanceIn, holdOf } from "../wallet/object-reads.ts";
import { formatShanghai } from "../../lib/time.ts";
import { pairStub, type PairRow } from "./pairs.ts";
import { spotOrdersHeld } from "./holds.ts";
import { PRICE_BAND_BPS, priceBand } from "../../../durable/engine/index-price.ts";

/** Order history states as SQL over spot_orders (status 0 submitted, 1 open, 2 filled, 3 cancelled, 4 rejected). */
const STATE_SQL: Record<OrderState, string> = {
  open: "o.status IN (0, 1)",
  filled: "o.status = 2",
  partial: "o.status = 3 AND o.filled > 0",
  cancelled: "o.status = 3 AND o.filled = 0",
  rejected: "o.status = 4",
};

function stateOf(status: number, filled: number): OrderState {
  if (status <= 1) return "open";
  if (status === 2) return "filled";
  if (status === 4) return "rejected";
  return filled > 0 ? "partial" : "cancelled";
}

/** One's open orders (at most 100), optionally of one base currency. */
export async function openOrders(db: D1Database, userId: number, currency_id: number | undefined) {
  const { results } = await db.prepare(
    `SELECT o.id, o.side, o.kind, o.price, o.qty, o.filled, o.status, o.created_at, p.price_decimals, p.qty_decimals, b.name AS base, q.name AS quote
     FROM spot_orders o JOIN pairs p ON p.id = o.pair_id JOIN currencies b ON b.id = p.currency_id JOIN currencies q ON q.id = p.legal_id
     WHERE o.user_id = ? AND o.status IN (0, 1) AND (?2 IS NULL OR p.currency_id = ?2) ORDER BY o.id DESC LIMIT 100`,
  )
    .bind(userId, currency_id ?? null)
    .all<Record<string, number | string>>();
  const lists: SpotOpenOrder[] = results.map((r) => ({
    id: String(r.id),
    time_format: formatShanghai(Number(r.created_at)),
    currency_name: String(r.base),
    legal_name: String(r.quote),
    direction: r.side as "buy" | "sell",
    mode: r.kind === "market" ? 1 : 2,
    number: formatUnits(BigInt(r.qty as number), Number(r.qty_decimals)),
    filled: formatUnits(BigInt(r.filled as number), Number(r.qty_decimals)),
    price: formatUnits(BigInt(r.price as number), Number(r.price_decimals)),
    status: Number(r.status),
  }));
  return { total: lists.length, lists };
}

/** One's trades, newest first. */
export async function tradeHistory(db: D1Database, userId: number, page: number, limit: number) {
  const where = "FROM spot_trades t WHERE t.buyer_id = ?1 OR t.seller_id = ?1";
  const total = await db.prepare(`SELECT count(*) AS n ${where}`).bind(userId).first<{ n: number }>();
  const { results } = await db
    .prepare(
      `${TRADE_ROW_SQL}
       WHERE t.buyer_id = ?1 OR t.seller_id = ?1 ORDER BY t.created_at DESC, t.trade_id DESC LIMIT ?2 OFFSET ?3`,
    )
    .bind(userId, limit, (page - 1) * limit)
    .all<Record<string, number | string>>();
  const lists: SpotRecord[] = results.map((r) => {
    const t = tradeFigures(r, userId);
    return {
      time_format: formatShanghai(Number(r.created_at)),
      currency_name: String(r.base),
      legal_name: String(r.quote),
      way: t.buy ? 2 : 1,
      direction: t.buy ? "buy" : "sell",
      number: t.number,
      price: t.price,
      amount: t.amount,
      fee: t.fee,
      fee_currency: t.fee_currency,
    };
  });
  return { total: total?.n ?? 0, lists };
}

/** The SELECT of a trade row with what `tradeFigures` reads (pair precision, currency names and scales). */
export const TRADE_ROW_SQL = `SELECT t.*, p.price_decimals, p.qty_decimals, b.name AS base, b.scale AS base_scale, q.name AS quote, q.scale AS quote_scale
       FROM spot_trades t JOIN pairs p ON p.id = t.pair_id JOIN currencies b ON b.id = p.currency_id JOIN currencies q ON q.id = p.legal_id`;

/** One trade as its party `userId` sees it: side, quantity, price, quote total and fee, exact decimals. */
export function tradeFigures(r: Record<string, number | string>, userId: number) {
  const buy = Number(r.buyer_id) === userId;
  const pd = Number(r.price_decimals);
  const qd = Number(r.qty_decimals);
  const quoteScale = Number(r.quote_scale);
  const notional = notionalToQuoteUnits(BigInt(r.price as number) * BigInt(r.qty as number), quoteUnitsPerTickLot({ quoteScale, priceDecimals: pd, qtyDecimals: qd }));
  return {
    buy,
    number: formatUnits(BigInt(r.qty as number), qd),
    price: formatUnits(BigInt(r.price as number), pd),
    amount: formatUnits(notional, quoteScale, Math.min(quoteScale, 8)),
    fee: buy ? formatUnits(BigInt(r.buyer_fee as number), Number(r.base_scale)) : formatUnits(BigInt(r.seller_fee as number), quoteScale),
    fee_currency: String(buy ? r.base : r.quote),
  };
}

/** One's orders with their final state, newest first; by base currency and state. */
export async function orderHistory(db: D1Database, userId: number, q: z.output<typeof orderHistoryQuerySchema>) {
  const { page, limit, currency_id, status } = q;
  // Scoped to the caller; the state condition comes from a fixed table, never from input text.
  const where = `FROM spot_orders o JOIN pairs p ON p.id = o.pair_id
     WHERE o.user_id = ?1 AND (?2 IS NULL OR p.currency_id = ?2)${status ? ` AND ${STATE_SQL[status]}` : ""}`;
  const total = await db.prepare(`SELECT count(*) AS n ${where}`).bind(userId, currency_id ?? null).first<{ n: number }>();
  const { results } = await db
    .prepare(
      `SELECT o.id, o.side, o.kind, o.price, o.qty, o.filled, o.status, o.created_at, o.updated_at, p.price_decimals, p.qty_decimals,
         (SELECT name FROM currencies WHERE id = p.currency_id) AS base, (SELECT name FROM currencies WHERE id = p.legal_id) AS quote
       ${where} ORDER BY o.id DESC LIMIT ?3 OFFSET ?4`,
    )
    .bind(userId, currency_id ?? null, limit, (page - 1) * limit)
    .all<Record<string, number | string>>();
  // Average fill prices from the trades of these orders, summed in bigint (price × qty can pass 2^53).
  const fills = new Map<number, { notional: bigint; qty: bigint }>();
  const ids = results.map((r) => Number(r.id));
  if (ids.length > 0) {
    const marks = ids.map(() => "?").join(", ");
    const { results: trades } = await db
      .prepare(`SELECT buy_order_id, sell_order_id, price, qty FROM spot_trades WHERE buy_order_id IN (${marks}) OR sell_order_id IN (${marks})`)
      .bind(...ids, ...ids)
      .all<{ buy_order_id: number; sell_order_id: number; price: number; qty: number }>();
    const mine = new Set(ids);
    for (const t of trades) {
      for (const orderId of [t.buy_order_id, t.sell_order_id]) {
        if (!mine.has(orderId)) continue;
        const f = fills.get(orderId) ?? { notional: 0n, qty: 0n };
        f.notional += BigInt(t.price) * BigInt(t.qty);
        f.qty += BigInt(t.qty);
        fills.set(orderId, f);
      }
    }
  }
  const lists: SpotOrderRecord[] = results.map((r) => {
    const pd = Number(r.price_decimals);
    const qd = Number(r.qty_decimals);
    const f = fills.get(Number(r.id));
    return {
      id: String(r.id),
      time_format: formatShanghai(Number(r.created_at)),
      update_format: formatShanghai(Number(r.updated_at)),
      currency_name: String(r.base),
      legal_name: String(r.quote),
      direction: r.side as "buy" | "sell",
      mode: r.kind === "market" ? 1 : 2,
      price: r.kind === "market" ? null : formatUnits(BigInt(r.price as number), pd),
      number: formatUnits(BigInt(r.qty as number), qd),
      filled: formatUnits(BigInt(r.filled as number), qd),
      avg_price: f && f.qty > 0n ? formatUnits(f.notional / f.qty, pd) : null,
      state: stateOf(Number(r.status), Number(r.filled)),
    };
  });
  return { total: total?.n ?? 0, lists };
}

/**
 * Objects mode: the pair's two spot balances and what one's open orders hold, per currency, from
 * the account object (the rest of each open `spot_order:` hold: exactly what is frozen for it).
 */
async function objectPairBalance(env: Env, userId: number, pair: PairRow) {
  const stub = accountStub(env, userId);
  const [rows, holds] = await Promise.all([stub.accountBalances(userId), stub.accountOpenHolds(userId)]);
  const inOrders = new Map<number, bigint>();
  for (const h of holds) {
    if (h.account !== "change" || holdOf(h.forKind, h.forId).purpose !== "spot_order") continue;
    inOrders.set(h.currencyId, (inOrders.get(h.currencyId) ?? 0n) + h.amount - h.spent - h.released);
  }
  return [balanceIn(rows, "change", pair.currencyId), balanceIn(rows, "change", pair.legalId), inOrders] as const;
}

/**
 * One's spot balances of a pair, with the pair's rules: precision, minimum order value and the
 * limit price band (PRICE_BAND_BPS around the index now; low/high null while the book is not
 * two-sided, when no band applies). "In orders" counts spot orders only (holds of other products
 * are named by GET /api/wallet/holds).
 */
export async function pairBalance(env: Env, userId: number, pair: PairRow) {
  const db = env.DB;
  const [[base, quote, inOrders], index] = await Promise.all([
    accountsOnObjects(env)
      ? objectPairBalance(env, userId, pair)
      : Promise.all([balanceOf(db, userId, pair.currencyId, "change"), balanceOf(db, userId, pair.legalId, "change"), spotOrdersHeld(db, userId)]),
    pairStub(env, pair.id).index(pair.id),
  ]);
  const band = index === null ? null : priceBand(index);
  const price = (ticks: number | null) => (ticks === null ? null : formatUnits(BigInt(ticks), pair.priceDecimals));
  return {
    user_currency: formatUnits(base.available, pair.baseScale),
    user_legal: formatUnits(quote.available, pair.quoteScale),
    lock_currency: formatUnits(base.frozen, pair.baseScale),
    lock_legal: formatUnits(quote.frozen, pair.quoteScale),
    order_currency: formatUnits(inOrders.get(pair.currencyId) ?? 0n, pair.baseScale),
    order_legal: formatUnits(inOrders.get(pair.legalId) ?? 0n, pair.quoteScale),
    // No fiat reference price is published; the client shows nothing rather than a guess.
    cny_price: null,
    price_decimals: pair.priceDecimals,
    qty_decimals: pair.qtyDecimals,
    min_notional: formatUnits(pair.minNotional, pair.quoteScale, 2),
    price_band_percent: String(PRICE_BAND_BPS / 100),
    index_price: price(index),
    price_band_low: price(band?.low ?? null),
    price_band_high: price(band?.high ?? null),
  };
}
