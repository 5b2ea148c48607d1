/** Conditional spot orders (stop-limit, OCO, trailing stop) and cancel-all: requests and answers. */
import { z } from "zod";
import { decimalInput, idInput, intInput } from "./strict.ts";

const id = idInput({ message: "invalid_param", max: 2 ** 31 });
const price = decimalInput({ message: "invalid_amount" });

/** Callbacks of a trailing stop, in basis points (0.1% … 20%). */
export const CALLBACK_BPS = { min: 10, max: 2000 } as const;

/**
 * How many open conditional orders (submitted or watched) one user may have: per pair, and over
 * every pair (docs/products.md, "Conditional orders"). A placement beyond either is refused before
 * anything is held (cond_limit_pair, cond_limit_total).
 */
export const CONDITIONAL_LIMITS = { perPair: 20, total: 100 } as const;

/** POST /api/transaction/conditional */
export const conditionalOrderSchema = z.object({
  currency_id: id,
  legal_id: id.default(3),
  side: z.enum(["buy", "sell"]),
  type: z.enum(["stop_limit", "oco", "trailing"]),
  /** quantity in the base currency */
  num: price,
  /** the limit price of the order placed when it fires (stop_limit, trailing); an OCO's limit leg */
  price: price.optional(),
  /** stop_limit, oco: the last price that fires it */
  stop_price: price.optional(),
  /** oco: the limit price of the order its stop places */
  limit_price: price.optional(),
  /** trailing: how far back from the high (sell) or low (buy), in basis points */
  callback_bps: intInput({ message: "invalid_param" }).optional(),
  /** trailing: start tracking only once the price reaches this */
  activation_price: price.optional(),
  client_oid: z.string().max(36).regex(/^[A-Za-z0-9_-]+$/, { message: "invalid_field" }).optional(),
});
export type ConditionalOrderInput = z.input<typeof conditionalOrderSchema>;

export const conditionalStatusSchema = z.enum(["submitted", "open", "triggered", "cancelled", "rejected"]);

/** One conditional order as its owner sees it (prices and quantity as decimal strings). */
export const conditionalOrderOutSchema = z.object({
  id: z.string(),
  currency_id: z.number().int(),
  legal_id: z.number().int(),
  symbol: z.string(),
  side: z.enum(["buy", "sell"]),
  type: z.enum(["stop_limit", "oco", "trailing"]),
  num: z.string(),
  price: z.string(),
  stop_price: z.string().nullable(),
  limit_price: z.string().nullable(),
  callback_bps: z.number().int().nullable(),
  activation_price: z.string().nullable(),
  status: conditionalStatusSchema,
  /** why it ended: user, oco_filled, PRICE_BAND, WOULD_TRIGGER, … */
  reason: z.string().nullable(),
  /** triggered: the price that fired it */
  trigger_price: z.string().nullable(),
  /** triggered: the limit order it placed (its state is the order's own) */
  order_id: z.string().nullable(),
  /** an OCO's limit leg */
  leg_order_id: z.string().nullable(),
  created_at: z.number().int(),
  replayed: z.literal(true).optional(),
});
export type ConditionalOrderOut = z.infer<typeof conditionalOrderOutSchema>;

export const conditionalListQuerySchema = z.object({
  status: z.enum(["open", "done"]).default("open"),
  currency_id: id.optional(),
  legal_id: id.optional(),
});
export const conditionalListSchema = z.object({ lists: z.array(conditionalOrderOutSchema) });

/** POST /api/transaction/conditional/cancel */
export const conditionalCancelSchema = z.object({ id: idInput({ message: "invalid_param" }) });
export const conditionalCancelledSchema = z.literal("cancelled");

/** POST /api/transaction/cancel_all: every open order and conditional order of the caller on one pair. */
export const cancelAllSchema = z.object({ currency_id: id, legal_id: id.default(3) });
export const cancelAllDoneSchema = z.object({ orders: z.number().int(), conditionals: z.number().int() });
