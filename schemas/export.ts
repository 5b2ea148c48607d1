/** CSV exports (issue #29): GET /api/export/ledger.csv and /api/export/trades.csv, dated in UTC. */
import { z } from "zod";
import { daySchema } from "./invite.ts";

/** `from` and `to` are UTC days (YYYY-MM-DD), both included; either may be left out. */
export const exportRangeSchema = z
  .object({ from: daySchema.optional(), to: daySchema.optional() })
  .refine((q) => !q.from || !q.to || q.from <= q.to, { message: "export_range", path: ["to"] });

export const LEDGER_CSV_HEADER = ["time_utc", "account", "currency", "amount", "frozen_amount", "balance_after", "frozen_after", "kind", "reference_id"] as const;
export const TRADES_CSV_HEADER = ["time_utc", "pair", "side", "role", "price", "amount", "total", "fee", "fee_currency", "order_id", "trade_id"] as const;
