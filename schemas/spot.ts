/** Spot trading contracts (spec §3 spot fields, §5 spot order rules, §7 calls). */
import { z } from "zod";
import { idInput, intInput, limitInput, pageInput } from "./strict.ts";
import { decimalStringSchema } from "./money.ts";
import { pageSchema } from "./envelope.ts";
import { barSchema, dealSchema, klinePeriodSchema } from "./realtime.ts";

const id = idInput({ message: "invalid_param", max: 2 ** 31 });

/** POST /api/transaction/walletIn (buy) and /walletOut (sell). mode 1 market, 2 limit. */
export const spotOrderSchema = z.object({
  currency_id: id,
  legal_id: id.default(3),
  price: decimalStringSchema.optional(),
  /** Quantity in the base currency; required unless `total` is given. */
  num: decimalStringSchema.optional(),
  /** Market buy only, instead of `num`: the USDT to spend (at most; what cannot fill is released). */
  total: decimalStringSchema.optional(),
  mode: idInput({ max: 2 }),
  /** Optional idempotency key: a replay returns the first result. */
  client_oid: z.string().max(36).regex(/^[A-Za-z0-9_-]+$/, { message: "invalid_field" }).optional(),
});
export type SpotOrderInput = z.input<typeof spotOrderSchema>;

/** The most orders one batch request may carry (a batch is one pair, one freeze, one book call). */
export const MAX_BATCH_ORDERS = 20;

/** One order of a batch: the single-order fields without the pair, plus its side. */
export const batchOrderItemSchema = spotOrderSchema.omit({ currency_id: true, legal_id: true }).extend({
  side: z.enum(["buy", "sell"]),
});

/**
 * POST /api/transaction/batch: up to MAX_BATCH_ORDERS orders on one pair, matched in the given
 * order. Each order succeeds or fails on its own, its funds reserved up front from the balance
 * at arrival; a malformed request is refused whole and changes nothing.
 */
export const spotBatchSchema = z
  .object({
    currency_id: id,
    legal_id: id.default(3),
    orders: z.array(batchOrderItemSchema).min(1, { message: "batch_size" }).max(MAX_BATCH_ORDERS, { message: "batch_size" }),
  })
  .superRefine((value, ctx) => {
    const seen = new Set<string>();
    value.orders.forEach((o, i) => {
      if (!o.client_oid) return;
      if (seen.has(o.client_oid)) ctx.addIssue({ code: "custom", path: ["orders", i, "client_oid"], message: "batch_duplicate_client_id" });
      seen.add(o.client_oid);
    });
  });
export type SpotBatchInput = z.input<typeof spotBatchSchema>;

/** POST /api/transaction_del/batch: cancel up to MAX_BATCH_ORDERS of one's own orders. */
export const cancelBatchSchema = z.object({
  ids: z
    .array(idInput({ message: "invalid_param" }))
    .min(1, { message: "batch_size" })
    .max(MAX_BATCH_ORDERS, { message: "batch_size" }),
});

export const cancelOrderSchema = z.object({
  id: idInput({ message: "invalid_param" }),
  type: z.enum(["in", "out"]).optional(),
});

export const pairQuerySchema = z.object({ currency_id: id, legal_id: id.default(3) });
export const openOrdersQuerySchema = z.object({ currency_id: id.optional() });

export const timesharQuerySchema = z.object({
  symbol: z.string().max(20).regex(/^[A-Za-z]{2,10}[/_-]?[A-Za-z]{2,10}$/, { message: "invalid_field" }),
  period: klinePeriodSchema,
  from: intInput().optional(),
  to: intInput().optional(),
});

/** An open order (spec §3 "Spot open order"). */
export const spotOpenOrderSchema = z.object({
  id: z.string(),
  time_format: z.string(),
  currency_name: z.string(),
  legal_name: z.string(),
  direction: z.enum(["buy", "sell"]),
  /** 1 market, 2 limit */
  mode: z.union([z.literal(1), z.literal(2)]),
  number: z.string(),
  filled: z.string(),
  price: z.string(),
  /** 0 submitted, 1 open */
  status: z.number().int(),
});
export type SpotOpenOrder = z.infer<typeof spotOpenOrderSchema>;
/** GET /api/new/transaction/index: the caller's open orders (at most 100, newest first). */
export const spotOpenOrderPageSchema = pageSchema(spotOpenOrderSchema);

/** A trade of the user (spec §3 "Exchange record"): way 2 = buy, 1 = sell. */
export const spotRecordSchema = z.object({
  time_format: z.string(),
  currency_name: z.string(),
  legal_name: z.string(),
  way: z.union([z.literal(1), z.literal(2)]),
  direction: z.enum(["buy", "sell"]),
  number: z.string(),
  price: z.string(),
  amount: z.string(),
  /** the fee paid on this trade, taken from what was received: a buyer pays in the base coin, a seller in the quote */
  fee: z.string(),
  /** the currency of `fee` ("BTC" for a buy of BTC/USDT, "USDT" for a sell) */
  fee_currency: z.string(),
});
export type SpotRecord = z.infer<typeof spotRecordSchema>;
/** GET /api/new/transaction/lists */
export const spotRecordPageSchema = pageSchema(spotRecordSchema);

/**
 * Where an order ended up (or is): open (resting, possibly partly filled), filled, partial (partly
 * filled, then cancelled or expired), cancelled (nothing filled), rejected (refused by the book).
 */
export const orderStateSchema = z.enum(["open", "filled", "partial", "cancelled", "rejected"]);
export type OrderState = z.infer<typeof orderStateSchema>;

/** GET /api/new/transaction/orders: page through one's orders, optionally by pair and state. */
export const orderHistoryQuerySchema = z.object({
  page: pageInput(),
  limit: limitInput(100, 20),
  currency_id: id.optional(),
  status: orderStateSchema.optional(),
});

/** One of the user's orders with its final (or current) state. */
export const spotOrderRecordSchema = z.object({
  id: z.string(),
  time_format: z.string(),
  /** when the state last changed */
  update_format: z.string(),
  currency_name: z.string(),
  legal_name: z.string(),
  direction: z.enum(["buy", "sell"]),
  /** 1 market, 2 limit */
  mode: z.union([z.literal(1), z.literal(2)]),
  /** the limit price; null for a market order */
  price: z.string().nullable(),
  number: z.string(),
  filled: z.string(),
  /** volume-weighted price of its fills; null when nothing filled */
  avg_price: z.string().nullable(),
  state: orderStateSchema,
});
export type SpotOrderRecord = z.infer<typeof spotOrderRecordSchema>;
/** GET /api/new/transaction/orders */
export const spotOrderRecordPageSchema = pageSchema(spotOrderRecordSchema);

/** An accepted order: what the book did with it at once. `replayed` marks a repeated client_oid. */
export const placedOrderSchema = z.object({
  order_id: z.string(),
  status: z.enum(["submitted", "open", "filled", "cancelled", "rejected"]),
  filled: z.string(),
  remaining: z.string(),
  replayed: z.literal(true).optional(),
});
export type PlacedOrder = z.infer<typeof placedOrderSchema>;

/** One order of a batch refused on its own: the catalogue key and its translated text. */
export const refusedOrderSchema = z.object({ code: z.string(), message: z.string() });

/** POST /api/transaction/batch: one result per order, in the order sent. */
export const batchPlacedSchema = z.object({ orders: z.array(z.union([placedOrderSchema, refusedOrderSchema])) });
export type BatchPlaced = z.infer<typeof batchPlacedSchema>;

/** POST /api/transaction_del/batch */
export const batchCancelledSchema = z.object({ cancelled: z.array(z.string()), not_found: z.array(z.string()) });

/** POST /api/transaction_del */
export const orderCancelledSchema = z.literal("cancelled");

/** GET /api/transaction/balance: the caller's spot balances for one pair, with the pair's precision. */
export const spotBalanceSchema = z.object({
  user_currency: z.string(),
  user_legal: z.string(),
  /** everything frozen in the spot account (orders, withdrawals, votes, launches, savings...) */
  lock_currency: z.string(),
  lock_legal: z.string(),
  /** the part of the frozen balance held by this user's open spot orders ("In orders") */
  order_currency: z.string(),
  order_legal: z.string(),
  /** No fiat reference price is published: always null. */
  cny_price: z.null(),
  price_decimals: z.number().int(),
  qty_decimals: z.number().int(),
  min_notional: z.string(),
  /** Limit prices must lie within this percent of the index (the pair object refuses others with price_out_of_band). */
  price_band_percent: z.string(),
  /** The index now and the band's ends; null while the book is not two-sided (no index, no band). */
  index_price: z.string().nullable(),
  price_band_low: z.string().nullable(),
  price_band_high: z.string().nullable(),
});
export type SpotBalance = z.infer<typeof spotBalanceSchema>;

/** GET /api/currency/depth: 6 levels a side, [price, quantity]; `seq` as on the socket. */
export const depthSnapshotSchema = z.object({
  seq: z.number().int(),
  bids: z.array(z.tuple([z.string(), z.string()])),
  asks: z.array(z.tuple([z.string(), z.string()])),
});
export type DepthSnapshot = z.infer<typeof depthSnapshotSchema>;

/** GET /api/currency/new_tradehistory: newest deals first. */
export const dealListSchema = z.array(dealSchema);

/** GET /api/currency/new_timeshar: candles oldest first, in the charting library's own shape. */
export const barsAnswerSchema = z.object({ code: z.literal(1), data: z.array(barSchema) });
