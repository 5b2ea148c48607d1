/**
 * Spot trading (spec §7): order submission, cancel, open orders, history, balances, trade
 * history, candles. The order path freezes funds in D1 first (one batch: ledger movement + order
 * row), then books the order in the pair's Durable Object; fills and releases come back through
 * the object's outbox. Trading needs identity verification (998).
 */
import { Hono, type Context } from "hono";
import { parseUnits, formatUnits } from "../../schemas/money.ts";
import {
  barsAnswerSchema,
  batchCancelledSchema,
  batchPlacedSchema,
  cancelBatchSchema,
  cancelOrderSchema,
  dealListSchema,
  depthSnapshotSchema,
  openOrdersQuerySchema,
  orderHistoryQuerySchema,
  orderCancelledSchema,
  pairQuerySchema,
  placedOrderSchema,
  spotBalanceSchema,
  spotBatchSchema,
  spotOpenOrderPageSchema,
  spotOrderRecordPageSchema,
  spotOrderSchema,
  spotRecordPageSchema,
  timesharQuerySchema,
  type DepthSnapshot,
  type OrderState,
  type SpotOpenOrder,
  type SpotOrderRecord,
  type SpotRecord,
} from "../../schemas/spot.ts";
import { dayMarketSchema } from "../../schemas/realtime.ts";
import { pageQuerySchema } from "../../schemas/envelope.ts";
import { refuseOperatorMoney, requireUser, requireVerified } from "../lib/auth.ts";
import type { AppEnv } from "../lib/context.ts";
import { randomInt } from "../lib/crypto.ts";
import { ApiError } from "../lib/errors.ts";
import { errorText } from "../../schemas/errors.ts";
import type { PlaceInput, PlaceResult } from "../../durable/pair/object.ts";
import { lotsToBaseUnits, notionalToQuoteUnits, quoteUnitsPerTickLot } from "../../durable/engine/units.ts";
import { balanceOf, classifyBatchError, movementStatements } from "../lib/ledger.ts";
import { pairBySymbol, pairFor, pairStub, type PairRow } from "../lib/pairs.ts";
import { answers, answersBare, answersNew, bare, ok, okNew } from "../lib/respond.ts";
import { formatShanghai } from "../lib/time.ts";
import { jsonBody, query } from "../lib/validate.ts";
import type { z } from "zod";

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

/** Market orders execute immediately within this band around the best opposite price. */
export const MARKET_BAND_PERCENT = 10;
const ID_EPOCH = Date.UTC(2026, 0, 1);

/** Time-ordered order ids: milliseconds since 2026 × 4096 + random; safe integers for ~69 years. */
function newOrderId(now: number) {
  return (now - ID_EPOCH) * 4096 + randomInt(4096);
}

type OrderInput = z.output<typeof spotOrderSchema>;
type OrderFields = Pick<OrderInput, "price" | "num" | "total" | "mode" | "client_oid">;
type Top = { bestBid: number | null; bestAsk: number | null };

/** An order checked against the pair's rules, with what it must freeze. */
interface PricedOrder {
  side: "buy" | "sell";
  kind: "market" | "limit";
  price: bigint;
  qty: bigint;
  tif: "GTC" | "IOC";
  reserved: bigint;
  reservedCurrency: number;
  clientOid: string | null;
  /** Market buy by total: the most to spend, in price × quantity units; else null. */
  budget: bigint | null;
}

/**
 * A market buy by total ("spend 500 USDT"): the budget is frozen whole; the pair object buys
 * best-first, never above the market band, until the budget or the asks within the band run
 * out, and releases the rest. `qty` is only an upper bound (the budget at the best ask).
 */
async function priceBudgetBuy(pair: PairRow, input: OrderFields & { total: string }, top: () => Promise<Top>): Promise<PricedOrder> {
  const decimals = pair.priceDecimals + pair.qtyDecimals;
  const budget = parseUnits(input.total, decimals);
  if (budget === null) throw new ApiError("too_many_decimals", 400, { decimals });
  if (budget <= 0n) throw new ApiError("buy_total_positive");
  if (budget > BigInt(Number.MAX_SAFE_INTEGER)) throw new ApiError("amount_too_large");
  const reserved = notionalToQuoteUnits(budget, pair.quotePerTickLot);
  const tooSmall = () => new ApiError("min_notional", 400, { min: formatUnits(pair.minNotional, pair.quoteScale, 2) });
  if (reserved < pair.minNotional) throw tooSmall();
  const best = (await top()).bestAsk;
  if (best === null) throw new ApiError("no_liquidity", 409);
  const qty = budget / BigInt(best);
  if (qty <= 0n) throw tooSmall();
  return {
    side: "buy",
    kind: "market",
    price: BigInt(best + Math.floor((best * MARKET_BAND_PERCENT) / 100)),
    qty,
    tif: "IOC",
    reserved,
    reservedCurrency: pair.legalId,
    clientOid: input.client_oid ?? null,
    budget,
  };
}

/** Applies the spot order rules (spec §5) to one order; throws the ApiError a user should see. */
async function priceOrder(pair: PairRow, side: "buy" | "sell", input: OrderFields, top: () => Promise<Top>): Promise<PricedOrder> {
  if (input.total !== undefined) {
    if (input.num !== undefined) throw new ApiError("qty_or_total");
    if (side !== "buy" || input.mode !== 1) throw new ApiError("total_market_buy_only");
    return priceBudgetBuy(pair, { ...input, total: input.total }, top);
  }
  if (input.num === undefined) throw new ApiError(side === "buy" ? "buy_qty_positive" : "sell_qty_positive");
  const qty = parseUnits(input.num, pair.qtyDecimals);
  if (qty === null) throw new ApiError("too_many_decimals", 400, { decimals: pair.qtyDecimals });
  if (qty <= 0n) throw new ApiError(side === "buy" ? "buy_qty_positive" : "sell_qty_positive");

  let price: bigint;
  let tif: "GTC" | "IOC" = "GTC";
  if (input.mode === 2) {
    if (input.price === undefined) throw new ApiError("price_positive");
    const p = parseUnits(input.price, pair.priceDecimals);
    if (p === null) throw new ApiError("too_many_decimals", 400, { decimals: pair.priceDecimals });
    if (p <= 0n) throw new ApiError("price_positive");
    price = p;
  } else {
    // A market order is an immediate-or-cancel order limited to a band around the best price,
    // so a thin book can never fill it at an absurd price. What it does not fill is released.
    const t = await top();
    const best = side === "buy" ? t.bestAsk : t.bestBid;
    if (best === null) throw new ApiError("no_liquidity", 409);
    const band = Math.floor((best * MARKET_BAND_PERCENT) / 100);
    price = BigInt(side === "buy" ? best + band : Math.max(1, best - band));
    tif = "IOC";
  }
  const notional = price * qty;
  if (notional > BigInt(Number.MAX_SAFE_INTEGER)) throw new ApiError("amount_too_large");
  if (notionalToQuoteUnits(notional, pair.quotePerTickLot) < pair.minNotional) {
    throw new ApiError("min_notional", 400, { min: formatUnits(pair.minNotional, pair.quoteScale, 2) });
  }
  return {
    side,
    kind: input.mode === 1 ? "market" : "limit",
    price,
    qty,
    tif,
    reserved: side === "buy" ? notionalToQuoteUnits(notional, pair.quotePerTickLot) : lotsToBaseUnits(qty, pair.basePerLot),
    reservedCurrency: side === "buy" ? pair.legalId : pair.currencyId,
    clientOid: input.client_oid ?? null,
    budget: null,
  };
}

function orderInsert(db: D1Database, id: number, userId: number, pair: PairRow, o: PricedOrder, now: number) {
  return db
    .prepare(
      `INSERT INTO spot_orders (id, user_id, pair_id, side, kind, price, qty, reserved_units, reserved_currency, status, client_oid, budget, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?)`,
    )
    .bind(id, userId, pair.id, o.side, o.kind, o.price.toString(), o.qty.toString(), o.reserved.toString(), o.reservedCurrency, o.clientOid, o.budget === null ? null : o.budget.toString(), now, now);
}

function placeInput(pair: PairRow, userId: number, orderId: number, o: PricedOrder): PlaceInput {
  return {
    pairId: pair.id,
    orderId,
    userId,
    side: o.side,
    price: Number(o.price),
    qty: Number(o.qty),
    tif: o.tif,
    reservedUnits: o.reserved.toString(),
    ...(o.budget === null ? {} : { budget: Number(o.budget) }),
  };
}

function placedOut(pair: PairRow, orderId: number, result: PlaceResult) {
  return {
    order_id: String(orderId),
    status: result.status,
    filled: formatUnits(BigInt(result.filled), pair.qtyDecimals),
    remaining: formatUnits(BigInt(result.remaining), pair.qtyDecimals),
  };
}

const isClientOidTaken = (err: unknown) => /UNIQUE constraint failed: spot_orders\.user_id/.test(String(err));
const isOrderIdTaken = (err: unknown) => classifyBatchError(err) === "duplicate" || /UNIQUE constraint failed: spot_orders\.id/.test(String(err));

async function placeOrder<E extends AppEnv>(c: Context<E>, side: "buy" | "sell", input: OrderInput) {
  const db = c.env.DB;
  const user = c.get("user");
  const pair = await pairFor(db, input.currency_id, input.legal_id);

  if (input.client_oid) {
    const prior = await priorOrder(db, user.id, input.client_oid);
    if (prior) return replay(c, prior, side, input, pair);
  }
  const stub = pairStub(c.env, pair.id);
  const priced = await priceOrder(pair, side, input, () => stub.top(pair.id));
  return bookOne(c, pair, priced, input);
}

/** Freezes one priced order's funds with its order row in one D1 batch, then books it. */
async function bookOne<E extends AppEnv>(c: Context<E>, pair: PairRow, priced: PricedOrder, input: OrderFields) {
  const db = c.env.DB;
  const user = c.get("user");
  const now = Date.now();
  let orderId: number;
  for (let attempt = 0; ; attempt++) {
    // Ids are time-ordered with 12 random bits: two orders in the same millisecond can collide.
    // The batch then fails on a key and writes nothing, so drawing a new id is safe.
    orderId = newOrderId(now);
    const stmts = [
      ...movementStatements(db, `spot-freeze:${orderId}`, "spot_freeze", [
        { userId: user.id, currencyId: priced.reservedCurrency, account: "change", dAvailable: -priced.reserved, dFrozen: priced.reserved, memo: `${pair.base}/${pair.quote}` },
      ]),
      orderInsert(db, orderId, user.id, pair, priced, now),
    ];
    try {
      await db.batch(stmts);
      break;
    } catch (err) {
      if (classifyBatchError(err) === "insufficient") throw new ApiError("insufficient_balance", 409);
      if (priced.clientOid && isClientOidTaken(err)) {
        const prior = await priorOrder(db, user.id, priced.clientOid);
        if (prior) return replay(c, prior, priced.side, input, pair);
      }
      if (!isOrderIdTaken(err) || attempt >= 4) throw err;
    }
  }
  // Funds are frozen and the order is recorded: now the book. If this call fails, the order stays
  // "submitted" and the reconciler either finds it booked or tombstones it and releases the hold.
  const result = await pairStub(c.env, pair.id).place(placeInput(pair, user.id, orderId, priced));
  return placedOut(pair, orderId, result);
}

type BatchItemResult = ReturnType<typeof placedOut> | Awaited<ReturnType<typeof replay>> | { code: string; message: string };

/**
 * Up to MAX_BATCH_ORDERS orders on one pair in one request (for bots and market makers): one
 * balance read, one D1 batch that freezes the funds of every accepted order with their order rows
 * (one movement, a ledger row per currency), one call into the pair's object. The orders are
 * matched one after the other in the given order, each checked on its own: an order is refused
 * (insufficient_balance, the others go through) when the balance at arrival, less what the
 * earlier orders of the batch reserve, does not cover it. Funds an earlier order of the same batch
 * frees or earns by trading are not counted for the later ones: they are reserved up front.
 */
async function placeBatch<E extends AppEnv>(c: Context<E>, input: z.output<typeof spotBatchSchema>) {
  const db = c.env.DB;
  const user = c.get("user");
  const locale = c.get("locale") ?? "en";
  const pair = await pairFor(db, input.currency_id, input.legal_id);
  const stub = pairStub(c.env, pair.id);
  let topOnce: Promise<Top> | undefined;
  const top = () => (topOnce ??= stub.top(pair.id));
  const refused = (err: ApiError) => ({ code: err.key, message: errorText(locale, err.key, err.params) });
  const results: (BatchItemResult | null)[] = input.orders.map(() => null);

  const oids = input.orders.flatMap((o) => (o.client_oid ? [o.client_oid] : []));
  const priors = oids.length > 0 ? await priorOrders(db, user.id, oids) : new Map<string, PriorOrder>();
  const fresh: { index: number; priced: PricedOrder; input: OrderFields }[] = [];
  for (const [index, o] of input.orders.entries()) {
    try {
      const prior = o.client_oid ? priors.get(o.client_oid) : undefined;
      if (prior) results[index] = await replay(c, prior, o.side, o, pair);
      else fresh.push({ index, priced: await priceOrder(pair, o.side, o, top), input: o });
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      results[index] = refused(err);
    }
  }

  // Accept orders in their given order while the balance covers them.
  const available = await changeAvailable(db, user.id, [pair.currencyId, pair.legalId]);
  const accepted: typeof fresh = [];
  for (const f of fresh) {
    const left = available.get(f.priced.reservedCurrency) ?? 0n;
    if (f.priced.reserved > left) {
      results[f.index] = refused(new ApiError("insufficient_balance", 409));
      continue;
    }
    available.set(f.priced.reservedCurrency, left - f.priced.reserved);
    accepted.push(f);
  }

  if (accepted.length > 0) {
    const ids = await freezeMany(db, user.id, pair, accepted.map((a) => a.priced));
    if (ids) {
      const placed = await stub.placeMany(accepted.map((a, k) => placeInput(pair, user.id, ids[k]!, a.priced)));
      accepted.forEach((a, k) => (results[a.index] = placedOut(pair, ids[k]!, placed[k]!)));
    } else {
      // The balance changed under us (another request spent it) or a client id was taken
      // meanwhile: fall back to the single-order path, which decides each order exactly.
      for (const a of accepted) {
        try {
          results[a.index] = await bookOne(c, pair, a.priced, a.input);
        } catch (err) {
          if (!(err instanceof ApiError)) throw err;
          results[a.index] = refused(err);
        }
      }
    }
  }
  return { orders: results as BatchItemResult[] };
}

/** Available change-account balances of some currencies (absent rows are zero). */
async function changeAvailable(db: D1Database, userId: number, currencies: number[]) {
  const { results } = await db
    .prepare(`SELECT currency_id, available FROM balances WHERE user_id = ? AND account = 'change' AND currency_id IN (${currencies.map(() => "?").join(", ")})`)
    .bind(userId, ...currencies)
    .all<{ currency_id: number; available: number }>();
  return new Map(results.map((r) => [r.currency_id, BigInt(r.available)]));
}

/**
 * One D1 batch: a freeze movement with a ledger row per currency, and every order row. Returns
 * the order ids, or null when the batch was refused for a reason the single path must sort out
 * (an overdraft after all, or a client id used meanwhile); nothing was written in that case.
 */
async function freezeMany(db: D1Database, userId: number, pair: PairRow, orders: PricedOrder[]): Promise<number[] | null> {
  const totals = new Map<number, bigint>();
  for (const o of orders) totals.set(o.reservedCurrency, (totals.get(o.reservedCurrency) ?? 0n) + o.reserved);
  const now = Date.now();
  for (let attempt = 0; ; attempt++) {
    // Consecutive ids after a fresh time-ordered one; a collision aborts the batch, so retry.
    const first = newOrderId(now);
    const ids = orders.map((_, k) => first + k);
    const stmts = [
      ...movementStatements(
        db,
        `spot-freeze:${first}`,
        "spot_freeze",
        [...totals].map(([currencyId, units]) => ({
          userId,
          currencyId,
          account: "change" as const,
          dAvailable: -units,
          dFrozen: units,
          memo: `${pair.base}/${pair.quote} ×${orders.length}`,
        })),
        now,
      ),
      ...orders.map((o, k) => orderInsert(db, ids[k]!, userId, pair, o, now)),
    ];
    try {
      await db.batch(stmts);
      return ids;
    } catch (err) {
      if (classifyBatchError(err) === "insufficient" || isClientOidTaken(err)) return null;
      if (!isOrderIdTaken(err) || attempt >= 4) throw err;
    }
  }
}

interface PriorOrder {
  id: number;
  side: string;
  kind: string;
  price: number;
  qty: number;
  filled: number;
  status: number;
  pair_id: number;
  reserved_units: number;
  budget: number | null;
}

async function priorOrder(db: D1Database, userId: number, clientOid: string) {
  return db
    .prepare("SELECT id, side, kind, price, qty, filled, status, pair_id, reserved_units, budget FROM spot_orders WHERE user_id = ? AND client_oid = ?")
    .bind(userId, clientOid)
    .first<PriorOrder>();
}

async function priorOrders(db: D1Database, userId: number, clientOids: string[]) {
  const { results } = await db
    .prepare(
      `SELECT id, side, kind, price, qty, filled, status, pair_id, reserved_units, budget, client_oid FROM spot_orders
        WHERE user_id = ? AND client_oid IN (${clientOids.map(() => "?").join(", ")})`,
    )
    .bind(userId, ...clientOids)
    .all<PriorOrder & { client_oid: string }>();
  return new Map(results.map((r) => [r.client_oid, r]));
}

const STATUS_TEXT = ["submitted", "open", "filled", "cancelled", "rejected"] as const;

/**
 * A repeated client order id: the same order again returns the first result; anything else is
 * refused. An order still "submitted" (its first request died between the freeze and the book)
 * is sent to the book again: the pair object's journal and tombstones make that idempotent, so
 * the answer is the truth — booked now, or refused because the reconciler already released it.
 */
async function replay<E extends AppEnv>(c: Context<E>, prior: PriorOrder, side: "buy" | "sell", input: OrderFields, pair: PairRow) {
  // The same order again: same side, pair, kind, and the same quantity (or budget) and price.
  const sameSize =
    prior.budget !== null
      ? input.total !== undefined && parseUnits(input.total, pair.priceDecimals + pair.qtyDecimals) === BigInt(prior.budget)
      : input.num !== undefined && parseUnits(input.num, pair.qtyDecimals) === BigInt(prior.qty);
  const same =
    prior.side === side &&
    prior.pair_id === pair.id &&
    prior.kind === (input.mode === 1 ? "market" : "limit") &&
    sameSize &&
    (input.mode === 1 || (input.price !== undefined && parseUnits(input.price, pair.priceDecimals) === BigInt(prior.price)));
  if (!same) throw new ApiError("duplicate_client_id", 409);
  let row = prior;
  if (prior.status === 0) {
    const stub = pairStub(c.env, pair.id);
    await stub.place({
      pairId: pair.id,
      orderId: prior.id,
      userId: c.get("user").id,
      side,
      price: prior.price,
      qty: prior.qty,
      tif: prior.kind === "market" ? "IOC" : "GTC",
      reservedUnits: String(prior.reserved_units),
      ...(prior.budget === null ? {} : { budget: prior.budget }),
    });
    await stub.drain();
    row = (await priorOrder(c.env.DB, c.get("user").id, input.client_oid!)) ?? prior;
  }
  return {
    order_id: String(row.id),
    status: STATUS_TEXT[row.status] ?? "submitted",
    filled: formatUnits(BigInt(row.filled), pair.qtyDecimals),
    remaining: formatUnits(BigInt(row.qty - row.filled), pair.qtyDecimals),
    replayed: true as const,
  };
}

export const spotRoutes = new Hono<AppEnv>()
  .post("/transaction/walletIn", requireUser, refuseOperatorMoney, requireVerified, jsonBody(spotOrderSchema), answers(placedOrderSchema, { summary: "Buy (mode 1 market, 2 limit); 998 until verified", auth: true }), async (c) => ok(c, await placeOrder(c, "buy", c.req.valid("json"))))
  .post("/transaction/walletOut", requireUser, refuseOperatorMoney, requireVerified, jsonBody(spotOrderSchema), answers(placedOrderSchema, { summary: "Sell (mode 1 market, 2 limit); 998 until verified", auth: true }), async (c) => ok(c, await placeOrder(c, "sell", c.req.valid("json"))))
  .post("/transaction/batch", requireUser, refuseOperatorMoney, requireVerified, jsonBody(spotBatchSchema), answers(batchPlacedSchema, { summary: "Up to 20 orders of one pair; one result per order", auth: true }), async (c) => ok(c, await placeBatch(c, c.req.valid("json"))))
  .post("/transaction_del/batch", requireUser, jsonBody(cancelBatchSchema), answers(batchCancelledSchema, { summary: "Cancel up to 20 of one's own orders", auth: true }), async (c) => {
    const user = c.get("user");
    const ids = [...new Set(c.req.valid("json").ids)];
    // Scoped to the caller: another user's order id is indistinguishable from an unknown one.
    const { results: rows } = await c.env.DB.prepare(
      `SELECT id, pair_id FROM spot_orders WHERE user_id = ? AND status IN (0, 1) AND id IN (${ids.map(() => "?").join(", ")})`,
    )
      .bind(user.id, ...ids)
      .all<{ id: number; pair_id: number }>();
    const byPair = new Map<number, number[]>();
    for (const r of rows) byPair.set(r.pair_id, [...(byPair.get(r.pair_id) ?? []), r.id]);
    const cancelled = new Set<number>();
    for (const [pairId, pairIds] of byPair) {
      const done = await pairStub(c.env, pairId).cancelMany(pairId, pairIds, user.id);
      pairIds.forEach((id, k) => done[k] && cancelled.add(id));
    }
    return ok(c, { cancelled: ids.filter((id) => cancelled.has(id)).map(String), not_found: ids.filter((id) => !cancelled.has(id)).map(String) });
  })
  .post("/transaction_del", requireUser, jsonBody(cancelOrderSchema), answers(orderCancelledSchema, { summary: "Cancel one of one's own open orders", auth: true }), async (c) => {
    const user = c.get("user");
    const { id } = c.req.valid("json");
    // Scoped to the caller: another user's order id is indistinguishable from an unknown one.
    const order = await c.env.DB.prepare("SELECT pair_id, status FROM spot_orders WHERE id = ? AND user_id = ?").bind(id, user.id).first<{ pair_id: number; status: number }>();
    if (!order || order.status > 1) throw new ApiError("order_not_found", 404);
    const r = await pairStub(c.env, order.pair_id).cancel(order.pair_id, id, user.id);
    if (!r.ok) throw new ApiError("order_not_found", 404);
    return ok(c, "cancelled");
  })
  .get("/new/transaction/index", requireUser, query(openOrdersQuerySchema), answersNew(spotOpenOrderPageSchema, { summary: "One's open orders (at most 100)", auth: true }), async (c) => {
    const user = c.get("user");
    const { currency_id } = c.req.valid("query");
    const { results } = await c.env.DB.prepare(
      `SELECT o.id, o.side, o.kind, o.price, o.qty, o.filled, o.status, o.created_at, p.price_decimals, p.qty_decimals, b.name AS base, q.name AS quote
       FROM spot_orders o JOIN pairs p ON p.id = o.pair_id JOIN currencies b ON b.id = p.currency_id JOIN currencies q ON q.id = p.legal_id
       WHERE o.user_id = ? AND o.status IN (0, 1) AND (?2 IS NULL OR p.currency_id = ?2) ORDER BY o.id DESC LIMIT 100`,
    )
      .bind(user.id, currency_id ?? null)
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
    return okNew(c, { total: lists.length, lists });
  })
  .get("/new/transaction/lists", requireUser, query(pageQuerySchema), answersNew(spotRecordPageSchema, { summary: "One's trades, newest first", auth: true }), async (c) => {
    const user = c.get("user");
    const { page, limit } = c.req.valid("query");
    const db = c.env.DB;
    const where = "FROM spot_trades t WHERE t.buyer_id = ?1 OR t.seller_id = ?1";
    const total = await db.prepare(`SELECT count(*) AS n ${where}`).bind(user.id).first<{ n: number }>();
    const { results } = await db
      .prepare(
        `SELECT t.*, p.price_decimals, p.qty_decimals, b.name AS base, b.scale AS base_scale, q.name AS quote, q.scale AS quote_scale
         FROM spot_trades t JOIN pairs p ON p.id = t.pair_id JOIN currencies b ON b.id = p.currency_id JOIN currencies q ON q.id = p.legal_id
         WHERE t.buyer_id = ?1 OR t.seller_id = ?1 ORDER BY t.created_at DESC, t.trade_id DESC LIMIT ?2 OFFSET ?3`,
      )
      .bind(user.id, limit, (page - 1) * limit)
      .all<Record<string, number | string>>();
    const lists: SpotRecord[] = results.map((r) => {
      const buy = Number(r.buyer_id) === user.id;
      const pd = Number(r.price_decimals);
      const qd = Number(r.qty_decimals);
      const quoteScale = Number(r.quote_scale);
      const notional = notionalToQuoteUnits(BigInt(r.price as number) * BigInt(r.qty as number), quoteUnitsPerTickLot({ quoteScale, priceDecimals: pd, qtyDecimals: qd }));
      return {
        time_format: formatShanghai(Number(r.created_at)),
        currency_name: String(r.base),
        legal_name: String(r.quote),
        way: buy ? 2 : 1,
        direction: buy ? "buy" : "sell",
        number: formatUnits(BigInt(r.qty as number), qd),
        price: formatUnits(BigInt(r.price as number), pd),
        amount: formatUnits(notional, quoteScale, Math.min(quoteScale, 8)),
        fee: buy
          ? `${formatUnits(BigInt(r.buyer_fee as number), Number(r.base_scale))} ${r.base}`
          : `${formatUnits(BigInt(r.seller_fee as number), quoteScale)} ${r.quote}`,
      };
    });
    return okNew(c, { total: total?.n ?? 0, lists });
  })
  .get("/new/transaction/orders", requireUser, query(orderHistoryQuerySchema), answersNew(spotOrderRecordPageSchema, { summary: "One's orders with their final state, newest first; by pair and state", auth: true }), async (c) => {
    const user = c.get("user");
    const { page, limit, currency_id, status } = c.req.valid("query");
    const db = c.env.DB;
    // Scoped to the caller; the state condition comes from a fixed table, never from input text.
    const where = `FROM spot_orders o JOIN pairs p ON p.id = o.pair_id
       WHERE o.user_id = ?1 AND (?2 IS NULL OR p.currency_id = ?2)${status ? ` AND ${STATE_SQL[status]}` : ""}`;
    const total = await db.prepare(`SELECT count(*) AS n ${where}`).bind(user.id, currency_id ?? null).first<{ n: number }>();
    const { results } = await db
      .prepare(
        `SELECT o.id, o.side, o.kind, o.price, o.qty, o.filled, o.status, o.created_at, o.updated_at, p.price_decimals, p.qty_decimals,
           (SELECT name FROM currencies WHERE id = p.currency_id) AS base, (SELECT name FROM currencies WHERE id = p.legal_id) AS quote
         ${where} ORDER BY o.id DESC LIMIT ?3 OFFSET ?4`,
      )
      .bind(user.id, currency_id ?? null, limit, (page - 1) * limit)
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
    return okNew(c, { total: total?.n ?? 0, lists });
  })
  .get("/transaction/balance", requireUser, query(pairQuerySchema), answers(spotBalanceSchema, { summary: "One's spot balances for a pair, with its precision", auth: true }), async (c) => {
    const { currency_id, legal_id } = c.req.valid("query");
    const pair = await pairFor(c.env.DB, currency_id, legal_id);
    const user = c.get("user");
    const base = await balanceOf(c.env.DB, user.id, pair.currencyId, "change");
    const quote = await balanceOf(c.env.DB, user.id, pair.legalId, "change");
    return ok(c, {
      user_currency: formatUnits(base.available, pair.baseScale),
      user_legal: formatUnits(quote.available, pair.quoteScale),
      lock_currency: formatUnits(base.frozen, pair.baseScale),
      lock_legal: formatUnits(quote.frozen, pair.quoteScale),
      // No fiat reference price is published; the client shows nothing rather than a guess.
      cny_price: null,
      price_decimals: pair.priceDecimals,
      qty_decimals: pair.qtyDecimals,
      min_notional: formatUnits(pair.minNotional, pair.quoteScale, 2),
    });
  })
  .get("/currency/new_tradehistory", query(pairQuerySchema), answers(dealListSchema, { summary: "Newest 20 deals of a pair" }), async (c) => {
    const { currency_id, legal_id } = c.req.valid("query");
    const pair = await pairFor(c.env.DB, currency_id, legal_id);
    return ok(c, await pairStub(c.env, pair.id).deals(pair.id, 20));
  })
  .get("/currency/depth", query(pairQuerySchema), answers(depthSnapshotSchema, { summary: "Order book, 6 levels a side" }), async (c) => {
    const { currency_id, legal_id } = c.req.valid("query");
    const pair = await pairFor(c.env.DB, currency_id, legal_id);
    const d = await pairStub(c.env, pair.id).depth(pair.id, 6);
    // The RPC stub's type widens [price, qty] tuples to string[]; the object sends pairs.
    return ok(c, { seq: d.seq, bids: d.bids as [string, string][], asks: d.asks as [string, string][] } satisfies DepthSnapshot);
  })
  .get("/currency/day_market", query(pairQuerySchema), answers(dayMarketSchema, { summary: "24 h open/high/low/close/volume/change from real trades" }), async (c) => {
    const { currency_id, legal_id } = c.req.valid("query");
    const pair = await pairFor(c.env.DB, currency_id, legal_id);
    return ok(c, await pairStub(c.env, pair.id).dayMarket(pair.id));
  })
  .get("/currency/new_timeshar", query(timesharQuerySchema), answersBare(barsAnswerSchema, { summary: "Candles of a period between two times (s or ms)" }), async (c) => {
    const { symbol, period, from, to } = c.req.valid("query");
    const pair = await pairBySymbol(c.env.DB, symbol);
    // Charting libraries send seconds; accept milliseconds too.
    const ms = (v: number | undefined, dflt: number) => (v === undefined ? dflt : v < 1e12 ? v * 1000 : v);
    const bars = await pairStub(c.env, pair.id).bars(pair.id, period, ms(from, 0), ms(to, Date.now() + 60_000), 1000);
    return bare(c, { code: 1, data: bars });
  });
