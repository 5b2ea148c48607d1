/** Flash exchange (coin ↔ USDT against the treasury at the last traded price): settings, result, records. */
import { z } from "zod";

/** GET /api/user/shandui_set: fee percents, bounds in USDT, wait in minutes, and each coin's price. */
export const conversionSettingsSchema = z.object({
  shandui_sxf1: z.string(),
  shandui_sxf2: z.string(),
  shandui_sxf_money: z.string(),
  shanduiMin: z.string(),
  shanduiMax: z.string(),
  shandui_time: z.string(),
  fee_currency: z.string(),
  /** null: the coin has not traded yet, so it cannot be exchanged. */
  prices: z.array(z.object({ currency_id: z.number().int(), currency_name: z.string(), price: z.string().nullable() })),
});
export type ConversionSettings = z.infer<typeof conversionSettingsSchema>;

/** POST /api/user/shandui_sub */
export const conversionDoneSchema = z.object({
  from: z.string(),
  to: z.string(),
  money: z.string(),
  money2: z.string(),
  money2_display: z.string(),
  huilv: z.string(),
  price: z.string(),
  sxf: z.string(),
  fee_percent: z.string(),
  usdt_value: z.string(),
});
export type ConversionDone = z.infer<typeof conversionDoneSchema>;

/** How long a flash-exchange quote holds, in seconds. */
export const QUOTE_TTL_SECONDS = 10;

/** POST /api/user/shandui_quote: the conversion as it will execute, until `expires_at` (ms since epoch). */
export const conversionQuoteSchema = conversionDoneSchema.extend({
  quote_id: z.string(),
  expires_at: z.number().int(),
  ttl_seconds: z.number().int(),
});
export type ConversionQuote = z.infer<typeof conversionQuoteSchema>;

export const conversionRecordSchema = z.object({
  id: z.number().int(),
  money: z.string(),
  money2: z.string(),
  from: z.string(),
  to: z.string(),
  from_currency: z.number().int(),
  to_currency: z.number().int(),
  huilv: z.string(),
  price: z.string(),
  sxf: z.string(),
  fee_percent: z.string(),
  addtime: z.string(),
});
export type ConversionRecord = z.infer<typeof conversionRecordSchema>;

/** GET /api/user/shandui_log: the spec's own page shape (`lists.count`, `lists.data`). */
export const conversionLogSchema = z.object({
  lists: z.object({ count: z.number().int(), data: z.array(conversionRecordSchema) }),
  page: z.number().int(),
  limit: z.number().int(),
});
