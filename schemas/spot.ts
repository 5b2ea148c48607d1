/** Spot trading contracts (spec §3 spot fields, §5 spot order rules, §7 calls). */
import { z } from "zod";
import { decimalStringSchema } from "./money.ts";
import { klinePeriodSchema } from "./realtime.ts";

const id = z.coerce.number({ message: "invalid_param" }).int().positive().max(2 ** 31);

/** POST /api/transaction/walletIn (buy) and /walletOut (sell). mode 1 market, 2 limit. */
export const spotOrderSchema = z.object({
  currency_id: id,
  legal_id: id.default(3),
  price: decimalStringSchema.optional(),
  num: decimalStringSchema,
  mode: z.coerce.number().int().min(1).max(2),
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
    .array(z.coerce.number({ message: "invalid_param" }).int().positive().max(Number.MAX_SAFE_INTEGER))
    .min(1, { message: "batch_size" })
    .max(MAX_BATCH_ORDERS, { message: "batch_size" }),
});

export const cancelOrderSchema = z.object({
  id: z.coerce.number({ message: "invalid_param" }).int().positive().max(Number.MAX_SAFE_INTEGER),
  type: z.enum(["in", "out"]).optional(),
});

export const pairQuerySchema = z.object({ currency_id: id, legal_id: id.default(3) });
export const openOrdersQuerySchema = z.object({ currency_id: id.optional() });

export const timesharQuerySchema = z.object({
  symbol: z.string().max(20).regex(/^[A-Za-z]{2,10}[/_-]?[A-Za-z]{2,10}$/, { message: "invalid_field" }),
  period: klinePeriodSchema,
  from: z.coerce.number().int().min(0).optional(),
  to: z.coerce.number().int().min(0).optional(),
});

/** An open order (spec §3 "Spot open order"). */
export interface SpotOpenOrder {
  id: string;
  time_format: string;
  currency_name: string;
  legal_name: string;
  direction: "buy" | "sell";
  mode: 1 | 2;
  number: string;
  filled: string;
  price: string;
  status: number;
}

/** A trade of the user (spec §3 "Exchange record"): way 2 = buy, 1 = sell. */
export interface SpotRecord {
  time_format: string;
  currency_name: string;
  legal_name: string;
  way: 1 | 2;
  direction: "buy" | "sell";
  number: string;
  price: string;
  amount: string;
  fee: string;
}
