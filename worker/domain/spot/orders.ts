/**
 * Spot orders (spec §5, §7): the order rules (limit within the price band around the index, which
 * the pair object checks at booking; market within a band; market buy by total),
 * placement (funds frozen with the order row in one D1 batch, then booked in the pair's Durable
 * Object; fills and releases come back through the object's outbox), batches for bots, replays of
 * a client order id, and cancels. Every query is scoped to the trader's own orders.
 */
import type { z } from "zod";
import { formatUnits, parseUnits } from "../../../schemas/money.ts";
import type { spotBatchSchema, spotOrderSchema } from "../../../schemas/spot.ts";
import type { Locale } from "../../../schemas/locale.ts";
import { errorText } from "../../../schemas/errors.ts";
import type { PlaceInput, PlaceResult } from "../../../durable/pair/object.ts";
import { lotsToBaseUnits, notionalToQuoteUnits } from "../../../durable/engine/units.ts";
import { PRICE_BAND_BPS } from "../../../durable/engine/index-price.ts";
import { batchWithNewId, BATCH_STEP, ID_ATTEMPTS, IdTaken, spotOrderId, takenIn, withNewId } from "../../lib/ids.ts";
import { ApiError } from "../../lib/errors.ts";
import { classifyBatchError, movementStatements } from "../../lib/ledger.ts";
import { carried, LIVE_TRADER_USER_ID, SessionGone, sessionProof } from "../../lib/auth.ts";
import type { SessionGuard } from "../../lib/context.ts";
import { notePairState, orderPair, pairStub, type PairRow } from "./pairs.ts";
import { accountsOnObjects, accountStub } from "../../lib/accounts.ts";
import type { ReserveRequest } from "../../../durable/account/types.ts";
import { CHILD_ID_BASE } from "../../../durable/engine/conditional.ts";

/** Who places or cancels: the Worker's bindings, the session's user and the answer's language. */
export interface Trader {
  env: Env;
  userId: number;
  locale: Locale;
  /**
   * A session not yet confirmed by D1 in this request (worker/lib/auth.ts "Session hints"): the
   * freeze batch checks it and marks it confirmed; `confirm` checks it in D1 before other work.
   */
  guard?: SessionGuard;
  confirm?: () => Promise<void>;
}

/** Market orders execute immediately within this band around the best opposite price. */
export const MARKET_BAND_PERCENT = 10;

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

/**
 * The order row. With a guard (a session hint) its user id is read from the live session in the
 * same statement (LIVE_TRADER_USER_ID): NULL when the session has ended, which fails the NOT NULL
 * column and with it the whole freeze batch.
 */
function orderInsert(db: D1Database, id: number, userId: number, pair: PairRow, o: PricedOrder, now: number, guard?: SessionGuard) {
  const rest = [pair.id, o.side, o.kind, o.price.toString(), o.qty.toString(), o.reserved.toString(), o.reservedCurrency, o.clientOid, o.budget === null ? null : o.budget.toString(), now, now];
  const columns = "INSERT INTO spot_orders (id, user_id, pair_id, side, kind, price, qty, reserved_units, reserved_currency, status, client_oid, budget, created_at, updated_at)";
  if (!guard || guard.confirmed) return db.prepare(`${columns} VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?)`).bind(id, userId, ...rest);
  return db.prepare(`${columns} VALUES (?, ${LIVE_TRADER_USER_ID}, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?)`).bind(id, guard.sessionId, guard.userId, now, ...rest);
}

/**
 * Every order row of a batch in ONE statement: the rows travel as a JSON array read by `json_each`
 * (in the given order), with the same columns, values, constraints and session check as
 * `orderInsert` row by row. Amounts travel as decimal strings and the INTEGER columns store them as
 * integers, exactly as the bound strings of `orderInsert` are. With a guard, every row's user id is
 * the one LIVE_TRADER_USER_ID reads (NULL when the session has ended, which fails the NOT NULL
 * column and with it the whole freeze batch).
 */
function orderInserts(db: D1Database, ids: number[], userId: number, pair: PairRow, orders: PricedOrder[], now: number, guard?: SessionGuard) {
  const rows = orders.map((o, k) => [ids[k]!, o.side, o.kind, o.price.toString(), o.qty.toString(), o.reserved.toString(), o.reservedCurrency, o.clientOid, o.budget === null ? null : o.budget.toString()]);
  const live = !guard || guard.confirmed ? null : guard;
  const sql = `INSERT INTO spot_orders (id, user_id, pair_id, side, kind, price, qty, reserved_units, reserved_currency, status, client_oid, budget, created_at, updated_at)
    SELECT value ->> 0, ${live ? LIVE_TRADER_USER_ID : "?"}, ?, value ->> 1, value ->> 2, value ->> 3, value ->> 4, value ->> 5, value ->> 6, 0, value ->> 7, value ->> 8, ?, ?
    FROM json_each(?) ORDER BY key`;
  const who = live ? [live.sessionId, live.userId, now] : [userId];
  return db.prepare(sql).bind(...who, pair.id, now, now, JSON.stringify(rows));
}

const isSessionGone = (err: unknown) => /NOT NULL constraint failed: spot_orders\.user_id/.test(String(err));

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
/** A freeze batch that met an order id taken in the same millisecond (the freeze movement's key carries it). */
const ORDER_TAKEN = takenIn("spot_orders");

export async function placeOrder(t: Trader, side: "buy" | "sell", input: OrderInput) {
  if (!accountsOnObjects(t.env)) return placeOrderOnce(t, side, input);
  return pricedAgain(() => placeOrderOnce(t, side, input));
}

/**
 * `ACCOUNTS=objects`: the pair refused what was priced on a state it no longer has (PairChanged: the
 * holds went back, the isolate took the pair's state in): price the request again on it.
 */
async function pricedAgain<T>(run: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (err) {
      if (!(err instanceof PairChanged)) throw err;
      if (attempt >= 3) throw new ApiError("try_again", 503);
    }
  }
}

class PairChanged extends Error {
  constructor() {
    super("pair changed");
  }
}

/** The pair answered PAIR_CHANGED to these holds' orders: the holds go back (keyed once) and the isolate takes the pair's state in. */
async function pairChanged(t: Trader, pair: PairRow, result: PlaceResult, orderIds: number[]): Promise<never> {
  await pairChangedHolds(t, pair, result, orderIds);
  throw new PairChanged();
}

/** pairChanged without pricing again: the holds go back (keyed once) and the isolate takes the pair's state in. */
async function pairChangedHolds(t: Trader, pair: PairRow, result: PlaceResult, orderIds: number[]): Promise<void> {
  await accountStub(t.env, t.userId).accountApply(
    t.userId,
    orderIds.map((id) => ({ key: `${SPOT_HOLD}:${id}:pair`, ops: [{ t: "release" as const, hold: `${SPOT_HOLD}:${id}`, amount: "rest" as const }] })),
  );
  if (result.pair) notePairState(pair, result.pair);
}

async function placeOrderOnce(t: Trader, side: "buy" | "sell", input: OrderInput) {
  const db = t.env.DB;
  const pair = await orderPair(t.env, input.currency_id, input.legal_id);

  if (input.client_oid) {
    // A replay answers and may book without a freeze batch to carry the session check.
    await t.confirm?.();
    const prior = await priorOrder(db, t.userId, input.client_oid);
    if (prior) return replay(t, prior, side, input, pair);
  }
  const stub = pairStub(t.env, pair.id);
  const priced = await priceOrder(pair, side, input, () => stub.top(pair.id));
  return bookOne(t, pair, priced, input);
}

/** Freezes one priced order's funds with its order row in one D1 batch, then books it. */
async function bookOne(t: Trader, pair: PairRow, priced: PricedOrder, input: OrderFields) {
  if (accountsOnObjects(t.env)) return bookOnObjects(t, pair, priced, input);
  const db = t.env.DB;
  const now = Date.now();
  let orderId: number;
  try {
    // One draw and one batch; only a batch that met an id taken in the same millisecond (it wrote
    // nothing) draws again (worker/lib/ids.ts).
    orderId = await batchWithNewId(
      db,
      ORDER_TAKEN,
      (id) => [
        ...movementStatements(db, `spot-freeze:${id}`, "spot_freeze", [
          { userId: t.userId, currencyId: priced.reservedCurrency, account: "change", dAvailable: -priced.reserved, dFrozen: priced.reserved, memo: `${pair.base}/${pair.quote}` },
        ]),
        orderInsert(db, id, t.userId, pair, priced, now, t.guard),
      ],
      now,
    );
  } catch (err) {
    if (isSessionGone(err)) throw new SessionGone();
    if (classifyBatchError(err) === "insufficient") throw new ApiError("insufficient_balance", 409);
    if (priced.clientOid && isClientOidTaken(err)) {
      const prior = await priorOrder(db, t.userId, priced.clientOid);
      if (prior) return replay(t, prior, priced.side, input, pair);
    }
    throw err;
  }
  if (t.guard) t.guard.confirmed = true;
  // Funds are frozen and the order is recorded: now the book. If this call fails, the order stays
  // "submitted" and the reconciler either finds it booked or tombstones it and releases the hold.
  const stub = pairStub(t.env, pair.id);
  const result = await stub.place(placeInput(pair, t.userId, orderId, priced));
  if (result.code === "PRICE_BAND") {
    // Refused by the band after the freeze: the object journaled the refusal and its release of
    // the hold (one outbox entry, applied to D1 once, keyed like every drain batch). Drain it now
    // so the funds are back when the user reads the refusal.
    await stub.drain();
    throw outOfBand(pair, result);
  }
  return placedOut(pair, orderId, result);
}

/** The refusal of a limit order outside the price band, with the band in the pair's price decimals. */
function outOfBand(pair: PairRow, result: PlaceResult) {
  const fmt = (ticks: number | undefined) => (ticks === undefined ? "?" : formatUnits(BigInt(ticks), pair.priceDecimals));
  return new ApiError("price_out_of_band", 409, { percent: PRICE_BAND_BPS / 100, low: fmt(result.band?.low), high: fmt(result.band?.high) });
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
export async function placeBatch(t: Trader, input: z.output<typeof spotBatchSchema>) {
  if (!accountsOnObjects(t.env)) return placeBatchOnce(t, input);
  return pricedAgain(() => placeBatchOnce(t, input));
}

async function placeBatchOnce(t: Trader, input: z.output<typeof spotBatchSchema>) {
  const db = t.env.DB;
  const locale = t.locale ?? "en";
  const pair = await orderPair(t.env, input.currency_id, input.legal_id);
  const stub = pairStub(t.env, pair.id);
  let topOnce: Promise<Top> | undefined;
  const top = () => (topOnce ??= stub.top(pair.id));
  const refused = (err: ApiError) => ({ code: err.key, message: errorText(locale, err.key, err.params) });
  const results: (BatchItemResult | null)[] = input.orders.map(() => null);

  const oids = input.orders.flatMap((o) => (o.client_oid ? [o.client_oid] : []));
  // Replays answer and may book without a freeze batch to carry the session check.
  if (oids.length > 0) await t.confirm?.();
  const priors = oids.length > 0 ? await priorOrders(db, t.userId, oids) : new Map<string, PriorOrder>();
  const fresh: { index: number; priced: PricedOrder; input: OrderFields }[] = [];
  for (const [index, o] of input.orders.entries()) {
    try {
      const prior = o.client_oid ? priors.get(o.client_oid) : undefined;
      if (prior) results[index] = await replay(t, prior, o.side, o, pair);
      else fresh.push({ index, priced: await priceOrder(pair, o.side, o, top), input: o });
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      results[index] = refused(err);
    }
  }

  // Every order first: when the balance covers them all (the usual case), the freeze batch is the
  // only D1 round trip and its CHECKs are the balance check. When it does not (the batch changed
  // nothing), read the balance and accept orders in their given order while it covers them.
  if (accountsOnObjects(t.env)) {
    await batchOnObjects(t, pair, fresh, results, refused);
    return { orders: results as BatchItemResult[] };
  }
  let accepted = fresh;
  let ids = accepted.length > 0 ? await freezeMany(db, t.userId, pair, accepted.map((a) => a.priced), t.guard) : null;
  if (accepted.length > 0 && !ids) {
    const available = await changeAvailable(db, t.userId, [pair.currencyId, pair.legalId]);
    accepted = [];
    for (const f of fresh) {
      const left = available.get(f.priced.reservedCurrency) ?? 0n;
      if (f.priced.reserved > left) {
        results[f.index] = refused(new ApiError("insufficient_balance", 409));
        continue;
      }
      available.set(f.priced.reservedCurrency, left - f.priced.reserved);
      accepted.push(f);
    }
    // The same batch again is refused again: the single-order path below decides each order.
    if (accepted.length > 0 && accepted.length < fresh.length) ids = await freezeMany(db, t.userId, pair, accepted.map((a) => a.priced), t.guard);
  }

  if (accepted.length > 0) {
    if (ids) {
      const placed = await stub.placeMany(accepted.map((a, k) => placeInput(pair, t.userId, ids[k]!, a.priced)));
      accepted.forEach((a, k) => (results[a.index] = placed[k]!.code === "PRICE_BAND" ? refused(outOfBand(pair, placed[k]!)) : placedOut(pair, ids[k]!, placed[k]!)));
      // Orders refused by the band had their holds released by the object: drain so the funds are back.
      if (placed.some((p) => p.code === "PRICE_BAND")) await stub.drain();
    } else {
      // The balance changed under us (another request spent it) or a client id was taken
      // meanwhile: fall back to the single-order path, which decides each order exactly.
      for (const a of accepted) {
        try {
          results[a.index] = await bookOne(t, pair, a.priced, a.input);
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
async function freezeMany(db: D1Database, userId: number, pair: PairRow, orders: PricedOrder[], guard?: SessionGuard): Promise<number[] | null> {
  const totals = new Map<number, bigint>();
  for (const o of orders) totals.set(o.reservedCurrency, (totals.get(o.reservedCurrency) ?? 0n) + o.reserved);
  const now = Date.now();
  // Consecutive ids after a fresh time-ordered one; a batch that met a taken one wrote nothing and draws again.
  const idsFrom = (first: number) => orders.map((_, k) => first + k);
  try {
    const first = await batchWithNewId(
      db,
      ORDER_TAKEN,
      (base) => [
        ...movementStatements(
          db,
          `spot-freeze:${base}`,
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
        orderInserts(db, idsFrom(base), userId, pair, orders, now, guard),
      ],
      now,
    );
    if (guard) guard.confirmed = true;
    return idsFrom(first);
  } catch (err) {
    if (isSessionGone(err)) throw new SessionGone();
    if (classifyBatchError(err) === "insufficient" || isClientOidTaken(err)) return null;
    throw err;
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
async function replay(t: Trader, prior: PriorOrder, side: "buy" | "sell", input: OrderFields, pair: PairRow) {
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
    const stub = pairStub(t.env, pair.id);
    const placed = await stub.place({
      pairId: pair.id,
      orderId: prior.id,
      userId: t.userId,
      side,
      price: prior.price,
      qty: prior.qty,
      tif: prior.kind === "market" ? "IOC" : "GTC",
      reservedUnits: String(prior.reserved_units),
      ...(prior.budget === null ? {} : { budget: prior.budget }),
      // Objects mode: the pair writes the order's D1 row (if this call books it first, the row still carries its client id).
      clientOid: input.client_oid ?? null,
    });
    // Objects mode only (a D1 order's id is its row's): another user's order has the id at the pair, so this one was never booked (replayHeld).
    if (placed.code === "ID_TAKEN") throw new IdTaken();
    await stub.drain();
    row = (await priorOrder(t.env.DB, t.userId, input.client_oid!)) ?? prior;
  }
  return {
    order_id: String(row.id),
    status: STATUS_TEXT[row.status] ?? "submitted",
    filled: formatUnits(BigInt(row.filled), pair.qtyDecimals),
    remaining: formatUnits(BigInt(row.qty - row.filled), pair.qtyDecimals),
    replayed: true as const,
  };
}

/** Cancels one of one's own open orders; another user's order id answers like an unknown one. */
export async function cancelOrder(t: Trader, id: number): Promise<void> {
  if (accountsOnObjects(t.env)) return cancelOnObjects(t, id);
  const order = await t.env.DB.prepare("SELECT pair_id, status FROM spot_orders WHERE id = ? AND user_id = ?").bind(id, t.userId).first<{ pair_id: number; status: number }>();
  if (!order || order.status > 1) throw new ApiError("order_not_found", 404);
  const r = await pairStub(t.env, order.pair_id).cancel(order.pair_id, id, t.userId);
  if (!r.ok) throw new ApiError("order_not_found", 404);
}

/** Cancels up to MAX_BATCH_ORDERS of one's own orders; says which were not open (or not one's own). */
export async function cancelBatch(t: Trader, requested: number[]) {
  const ids = [...new Set(requested)];
  if (accountsOnObjects(t.env)) return cancelBatchOnObjects(t, ids);
  const { results: rows } = await t.env.DB.prepare(
    `SELECT id, pair_id FROM spot_orders WHERE user_id = ? AND status IN (0, 1) AND id IN (${ids.map(() => "?").join(", ")})`,
  )
    .bind(t.userId, ...ids)
    .all<{ id: number; pair_id: number }>();
  const byPair = new Map<number, number[]>();
  for (const r of rows) byPair.set(r.pair_id, [...(byPair.get(r.pair_id) ?? []), r.id]);
  const cancelled = new Set<number>();
  for (const [pairId, pairIds] of byPair) {
    const done = await pairStub(t.env, pairId).cancelMany(pairId, pairIds, t.userId);
    pairIds.forEach((id, k) => done[k] && cancelled.add(id));
  }
  return { cancelled: ids.filter((id) => cancelled.has(id)).map(String), not_found: ids.filter((id) => !cancelled.has(id)).map(String) };
}

// ---- Balances in the account objects (ACCOUNTS=objects, worker/lib/accounts.ts) -----------------
// The order's funds become a hold in the trader's own object (`spot_order:{id}`, owned by the pair),
// then the pair books it; fills, the rest and refusals come back as legs from the pair, and the
// order's D1 row arrives with the pair's drain. No D1 statement on the way: the hinted session rides
// in the call to the object, which checks it in that call (durable/account/sessions.ts).

const SPOT_HOLD = "spot_order";
const holdOwner = (pairId: number) => `pair:${pairId}`;

/**
 * An order's hold. With a client order id, the id is recorded with the hold in the trader's object
 * (one order per client id and user) with the order's terms, so a second submit with it gets the
 * first order back from the reserve itself, before D1 has the first order's row (the drain's window).
 */
function reserveOf(pair: PairRow, orderId: number, o: PricedOrder, taken: number | null = null): ReserveRequest {
  const r: ReserveRequest = { forKind: SPOT_HOLD, forId: String(orderId), account: "change", currencyId: o.reservedCurrency, amount: o.reserved, owner: holdOwner(pair.id) };
  if (o.clientOid === null) return r;
  // A draw after one the pair refused as taken (`taken`, its hold given back): the client id passes from that hold to this one.
  if (taken !== null) r.replaces = `${SPOT_HOLD}:${taken}`;
  const terms: Omit<PriorOrder, "filled" | "status"> = {
    id: orderId,
    side: o.side,
    kind: o.kind,
    price: Number(o.price),
    qty: Number(o.qty),
    pair_id: pair.id,
    reserved_units: Number(o.reserved),
    budget: o.budget === null ? null : Number(o.budget),
  };
  return { ...r, clientId: o.clientOid, terms: JSON.stringify(terms) };
}

/**
 * The first order of a client id, from the terms its hold was made with: answered as D1's replay
 * answers (submitted: booked or refused now). If the pair has another user's order under its id (the
 * first request was cut before the pair booked it, and another user's order drew the id meanwhile),
 * it was never booked: its hold goes back and HeldIdTaken asks the caller to draw it again (the client
 * id passes to the new hold: `reserveOf`'s `taken`).
 */
async function replayHeld(t: Trader, terms: string, side: "buy" | "sell", input: OrderFields, pair: PairRow) {
  const first = JSON.parse(terms) as Omit<PriorOrder, "filled" | "status">;
  try {
    return await replay(t, { ...first, filled: 0, status: 0 }, side, input, pair);
  } catch (err) {
    if (!(err instanceof IdTaken)) throw err;
    await releaseTaken(t, first.id);
    throw new HeldIdTaken(first.id);
  }
}

/** A client id's first order was never booked: the pair has another user's order under its id `orderId` (its hold given back). */
class HeldIdTaken extends IdTaken {
  constructor(readonly orderId: number) {
    super();
  }
}

/**
 * The pair answered that another user's order has this id (ID_TAKEN: ids are drawn per request and
 * only the user's own holds are checked before the pair): the hold made under it goes back, keyed
 * once, and the caller draws again (its client id passes to the new draw's hold: `reserveOf`'s
 * `taken`). A Worker dying first leaves it to the orphan sweep ("not_yours").
 */
function releaseTaken(t: Trader, orderId: number) {
  return accountStub(t.env, t.userId).accountApply(t.userId, [{ key: `${SPOT_HOLD}:${orderId}:taken`, ops: [{ t: "release", hold: `${SPOT_HOLD}:${orderId}`, amount: "rest" }] }]);
}

/** One order: its hold in the trader's object, then the book. */
async function bookOnObjects(t: Trader, pair: PairRow, priced: PricedOrder, input: OrderFields) {
  const account = accountStub(t.env, t.userId);
  // A hold of this id already there is another order of this user in the same millisecond, and a pair
  // that knows the id as another user's order refuses it (ID_TAKEN, the hold given back): draw again,
  // an id of this pair's slot (spotOrderId: no other pair draws it).
  let taken: number | null = null;
  return withNewId(
    null,
    async (id) => {
      const held = await carried(t.guard, account.accountReserve(t.userId, reserveOf(pair, id, priced, taken), sessionProof(t.guard)));
      if (held.result === "insufficient") throw new ApiError("insufficient_balance", 409);
      if (held.result === "replay") {
        return replayHeld(t, held.terms, priced.side, input, pair).catch((err: unknown) => {
          if (err instanceof HeldIdTaken) taken = err.orderId;
          throw err;
        });
      }
      if (held.result === "exists") throw new IdTaken();
      // Held: now the book. If this call fails, the hold waits for the orphan sweep (docs/architecture/account-objects.md).
      const result = await pairStub(t.env, pair.id).place({ ...placeInput(pair, t.userId, id, priced), clientOid: priced.clientOid, minNotional: pair.minNotional.toString() });
      if (result.code === "PAIR_CHANGED") await pairChanged(t, pair, result, [id]);
      if (result.code === "ID_TAKEN") {
        await releaseTaken(t, id);
        taken = id;
        throw new IdTaken();
      }
      // A refusal's release reached the object before the pair answered.
      if (result.code === "PRICE_BAND") throw outOfBand(pair, result);
      return placedOut(pair, id, result);
    },
    Date.now(),
    (now) => spotOrderId(pair.id, now),
  );
}

/**
 * A batch: every hold in one call to the trader's object (in the given order, each covered or refused
 * alone), then one call to the pair. Ids are one millisecond's values apart in the pair's slot
 * (`first + k × BATCH_STEP` after one spotOrderId). An order whose id this user's object already holds (another batch of theirs in
 * the same milliseconds) is drawn again before the pair, as the D1 path redraws a colliding batch; one
 * the pair refuses as another user's (ID_TAKEN: its hold given back) is drawn again after it and sent
 * in a further call, so it is matched after the batch's others. At most ID_ATTEMPTS draws an order,
 * then `try_again`.
 */
async function batchOnObjects(
  t: Trader,
  pair: PairRow,
  fresh: { index: number; priced: PricedOrder; input: OrderFields }[],
  results: (BatchItemResult | null)[],
  refused: (err: ApiError) => { code: string; message: string },
) {
  if (fresh.length === 0) return;
  const account = accountStub(t.env, t.userId);
  const stub = pairStub(t.env, pair.id);
  const minNotional = pair.minNotional.toString();
  // Per order (by its index in the request): its draws so far, and its last id the pair refused as taken.
  const draws: number[] = [];
  const taken: (number | null)[] = [];
  let pending = fresh;
  for (let call = 0; pending.length > 0; call++) {
    const held: ((typeof fresh)[number] & { id: number })[] = [];
    while (pending.length > 0) {
      const first = spotOrderId(pair.id, Date.now());
      const ids = pending.map((_, k) => first + k * BATCH_STEP);
      const answers = await carried(t.guard, account.accountReserveMany(t.userId, pending.map((f, k) => reserveOf(pair, ids[k]!, f.priced, taken[f.index] ?? null)), sessionProof(t.guard)));
      const again: typeof fresh = [];
      const replays: { f: (typeof fresh)[number]; terms: string }[] = [];
      pending.forEach((f, k) => {
        const a = answers[k]!;
        draws[f.index] = (draws[f.index] ?? 0) + 1;
        if (a.result === "reserved") held.push({ ...f, id: ids[k]! });
        else if (a.result === "insufficient") results[f.index] = refused(new ApiError("insufficient_balance", 409));
        else if (a.result === "replay") replays.push({ f, terms: a.terms });
        else if (draws[f.index]! < ID_ATTEMPTS) again.push(f);
        else results[f.index] = refused(new ApiError("try_again", 503));
      });
      // A client id this user's object already holds an order for: that order answers (rare, one by one),
      // or, never booked under an id another user's order has, is drawn again.
      for (const { f, terms } of replays) {
        try {
          results[f.index] = await replayHeld(t, terms, f.priced.side, f.input, pair);
        } catch (err) {
          if (err instanceof HeldIdTaken) {
            taken[f.index] = err.orderId;
            if (draws[f.index]! < ID_ATTEMPTS) again.push(f);
            else results[f.index] = refused(new ApiError("try_again", 503));
            continue;
          }
          if (!(err instanceof ApiError)) throw err;
          results[f.index] = refused(err);
        }
      }
      pending = again;
    }
    if (held.length === 0) return;
    // The pair books them in the given order.
    held.sort((a, b) => a.index - b.index);
    const placed = await stub.placeMany(held.map((h) => ({ ...placeInput(pair, t.userId, h.id, h.priced), clientOid: h.priced.clientOid, minNotional })));
    if (placed[0]?.code === "PAIR_CHANGED") {
      const heldIds = held.map((h) => h.id);
      if (call === 0) await pairChanged(t, pair, placed[0], heldIds);
      // Orders drawn again after the batch's others were booked: those stand, these are answered "try again".
      await pairChangedHolds(t, pair, placed[0], heldIds);
      for (const h of held) results[h.index] = refused(new ApiError("try_again", 503));
      return;
    }
    // An id another user's order has (ID_TAKEN): its hold goes back and the order is drawn again.
    await Promise.all(held.filter((_, k) => placed[k]!.code === "ID_TAKEN").map((h) => releaseTaken(t, h.id)));
    const again: typeof fresh = [];
    held.forEach((h, k) => {
      const p = placed[k]!;
      if (p.code === "ID_TAKEN") {
        taken[h.index] = h.id;
        if (draws[h.index]! < ID_ATTEMPTS) again.push(h);
        else results[h.index] = refused(new ApiError("try_again", 503));
      } else results[h.index] = p.code === "PRICE_BAND" ? refused(outOfBand(pair, p)) : placedOut(pair, h.id, p);
    });
    pending = again;
  }
}

/** The pair an open hold of one's own orders belongs to (null: no such open order of this user). */
function pairOfHold(h: { open: boolean; owner?: string } | null): number | null {
  const m = h?.open ? /^pair:([0-9]+)$/.exec(h.owner ?? "") : null;
  return m ? Number(m[1]) : null;
}

/**
 * The hold an order's funds are in: its own `spot_order:{id}`, or, for a conditional order's child
 * (ids from 2^52), the conditional order's `spot_cond:{id}` (durable/pair/desks/spot.ts `holdOf`).
 * An OCO's leg has its conditional order's id and hold: asked for only when no `spot_order:` hold
 * is open under the id, so an ordinary cancel asks the object once, as before.
 */
const holdName = (id: number) => (id >= CHILD_ID_BASE ? `spot_cond:${id - CHILD_ID_BASE}` : `${SPOT_HOLD}:${id}`);

/** The pairs of one's orders by id (null: no open hold of this user carries it). */
async function pairsOfOrders(t: Trader, ids: number[]): Promise<(number | null)[]> {
  const account = accountStub(t.env, t.userId);
  const holds = await carried(t.guard, account.accountHolds(t.userId, ids.map(holdName), sessionProof(t.guard)));
  const pairs = ids.map((_, k) => pairOfHold(holds[k] ?? null));
  const legs = ids.filter((id, k) => pairs[k] === null && id < CHILD_ID_BASE);
  if (legs.length === 0) return pairs;
  const conds = await account.accountHolds(t.userId, legs.map((id) => `spot_cond:${id}`));
  const byLeg = new Map(legs.map((id, k) => [id, pairOfHold(conds[k] ?? null)]));
  return ids.map((id, k) => pairs[k] ?? byLeg.get(id) ?? null);
}

async function cancelOnObjects(t: Trader, id: number): Promise<void> {
  const [pairId] = await pairsOfOrders(t, [id]);
  if (pairId === null || pairId === undefined) throw new ApiError("order_not_found", 404);
  const r = await pairStub(t.env, pairId).cancel(pairId, id, t.userId);
  if (!r.ok) throw new ApiError("order_not_found", 404);
}

async function cancelBatchOnObjects(t: Trader, ids: number[]) {
  const pairs = await pairsOfOrders(t, ids);
  const byPair = new Map<number, number[]>();
  ids.forEach((id, k) => {
    const pairId = pairs[k] ?? null;
    if (pairId !== null) byPair.set(pairId, [...(byPair.get(pairId) ?? []), id]);
  });
  const cancelled = new Set<number>();
  for (const [pairId, pairIds] of byPair) {
    const done = await pairStub(t.env, pairId).cancelMany(pairId, pairIds, t.userId);
    pairIds.forEach((id, k) => done[k] && cancelled.add(id));
  }
  return { cancelled: ids.filter((id) => cancelled.has(id)).map(String), not_found: ids.filter((id) => !cancelled.has(id)).map(String) };
}
