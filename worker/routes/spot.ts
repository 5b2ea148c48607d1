/**
 * Spot trading (spec §7): order submission, cancel, open orders, history, balances, trade
 * history, candles. The order path freezes funds in D1 first (one batch: ledger movement + order
 * row), then books the order in the pair's Durable Object; fills and releases come back through
 * the object's outbox. Trading needs identity verification (998). The rules and the SQL are in
 * worker/domain/spot/.
 */
import { Hono } from "hono";
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
} from "../../schemas/spot.ts";
import { dayMarketSchema } from "../../schemas/realtime.ts";
import { pageQuerySchema } from "../../schemas/envelope.ts";
import type { Context } from "hono";
import { confirmTrader, requireAccountUser, requireTrader, requireUser } from "../lib/auth.ts";
import type { AppEnv } from "../lib/context.ts";
import { apiKeyAccess } from "../lib/api-keys.ts";
import { answers, answersBare, answersNew, bare, ok, okNew } from "../lib/respond.ts";
import { jsonBody, query } from "../lib/validate.ts";
import { openOrders, orderHistory, pairBalance, tradeHistory } from "../domain/spot/history.ts";
import { cancelBatch, cancelOrder, placeBatch, placeOrder, type Trader } from "../domain/spot/orders.ts";
import { pairBySymbol, pairFor, pairStub } from "../domain/spot/pairs.ts";
import { ownOrdersDrained } from "../domain/spot/own-orders.ts";
import { cancelAll, cancelConditional, listConditional, placeConditional } from "../domain/spot/conditional.ts";
import {
  cancelAllDoneSchema,
  cancelAllSchema,
  conditionalCancelledSchema,
  conditionalCancelSchema,
  conditionalListQuerySchema,
  conditionalListSchema,
  conditionalOrderOutSchema,
  conditionalOrderSchema,
} from "../../schemas/spot-conditional.ts";

/** The session's user as a trader (with the session hint's guard on the routes behind requireTrader). */
const trader = <E extends AppEnv>(c: Context<E>): Trader => ({
  env: c.env,
  userId: c.get("user").id,
  locale: c.get("locale"),
  guard: c.get("sessionGuard"),
  confirm: () => confirmTrader(c as unknown as Context<AppEnv>),
});

/** Routes a bot's API key may call (worker/lib/api-keys.ts; every other route refuses keys). */
const TRADE_KEY = apiKeyAccess("trade");
const READ_KEY = apiKeyAccess("read");

export const spotRoutes = new Hono<AppEnv>()
  .post("/transaction/walletIn", TRADE_KEY, requireTrader, jsonBody(spotOrderSchema), answers(placedOrderSchema, { summary: "Buy (mode 1 market, 2 limit); 998 until verified", auth: true }), async (c) => ok(c, await placeOrder(trader(c), "buy", c.req.valid("json"))))
  .post("/transaction/walletOut", TRADE_KEY, requireTrader, jsonBody(spotOrderSchema), answers(placedOrderSchema, { summary: "Sell (mode 1 market, 2 limit); 998 until verified", auth: true }), async (c) => ok(c, await placeOrder(trader(c), "sell", c.req.valid("json"))))
  .post("/transaction/batch", TRADE_KEY, requireTrader, jsonBody(spotBatchSchema), answers(batchPlacedSchema, { summary: "Up to 20 orders of one pair; one result per order", auth: true }), async (c) => ok(c, await placeBatch(trader(c), c.req.valid("json"))))
  .post("/transaction_del/batch", TRADE_KEY, requireAccountUser, jsonBody(cancelBatchSchema), answers(batchCancelledSchema, { summary: "Cancel up to 20 of one's own orders", auth: true }), async (c) => ok(c, await cancelBatch(trader(c), c.req.valid("json").ids)))
  .post("/transaction_del", TRADE_KEY, requireAccountUser, jsonBody(cancelOrderSchema), answers(orderCancelledSchema, { summary: "Cancel one of one's own open orders", auth: true }), async (c) => {
    await cancelOrder(trader(c), c.req.valid("json").id);
    return ok(c, "cancelled");
  })
  .post("/transaction/conditional", TRADE_KEY, requireTrader, jsonBody(conditionalOrderSchema), answers(conditionalOrderOutSchema, { summary: "Place a stop-limit, OCO or trailing stop; funds held like a limit order's", auth: true }), async (c) =>
    ok(c, await placeConditional(trader(c), c.req.valid("json"))),
  )
  .get("/transaction/conditional", READ_KEY, requireUser, query(conditionalListQuerySchema), answers(conditionalListSchema, { summary: "One's conditional orders, open or done, newest first", auth: true }), async (c) =>
    ok(c, await listConditional(c.env, c.get("user").id, c.req.valid("query"))),
  )
  .post("/transaction/conditional/cancel", TRADE_KEY, requireUser, jsonBody(conditionalCancelSchema), answers(conditionalCancelledSchema, { summary: "Cancel one of one's open conditional orders", auth: true }), async (c) => {
    await cancelConditional(trader(c), c.req.valid("json").id);
    return ok(c, "cancelled" as const);
  })
  .post("/transaction/cancel_all", TRADE_KEY, requireUser, jsonBody(cancelAllSchema), answers(cancelAllDoneSchema, { summary: "Cancel all of one's open orders and conditional orders on a pair", auth: true }), async (c) => {
    const { currency_id, legal_id } = c.req.valid("json");
    return ok(c, await cancelAll(trader(c), currency_id, legal_id));
  })
  .get("/new/transaction/index", READ_KEY, requireUser, query(openOrdersQuerySchema), answersNew(spotOpenOrderPageSchema, { summary: "One's open orders (at most 100)", auth: true }), async (c) => {
    await ownOrdersDrained(c.env, c.get("user").id);
    return okNew(c, await openOrders(c.env.DB, c.get("user").id, c.req.valid("query").currency_id));
  })
  .get("/new/transaction/lists", READ_KEY, requireUser, query(pageQuerySchema), answersNew(spotRecordPageSchema, { summary: "One's trades, newest first", auth: true }), async (c) => {
    const { page, limit } = c.req.valid("query");
    await ownOrdersDrained(c.env, c.get("user").id);
    return okNew(c, await tradeHistory(c.env.DB, c.get("user").id, page, limit));
  })
  .get("/new/transaction/orders", READ_KEY, requireUser, query(orderHistoryQuerySchema), answersNew(spotOrderRecordPageSchema, { summary: "One's orders with their final state, newest first; by pair and state", auth: true }), async (c) => {
    await ownOrdersDrained(c.env, c.get("user").id);
    return okNew(c, await orderHistory(c.env.DB, c.get("user").id, c.req.valid("query")));
  })
  .get("/transaction/balance", READ_KEY, requireUser, query(pairQuerySchema), answers(spotBalanceSchema, { summary: "One's spot balances for a pair, with its precision", auth: true }), async (c) => {
    const { currency_id, legal_id } = c.req.valid("query");
    const pair = await pairFor(c.env.DB, currency_id, legal_id);
    return ok(c, await pairBalance(c.env, c.get("user").id, pair));
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
