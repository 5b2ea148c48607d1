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
