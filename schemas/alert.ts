/**
 * Price alerts (issue #30): a user asks to be told once when a pair's traded price reaches a level
 * (`above`, `below`) or moves by a percentage over a window (`move`: the last trade against the
 * window's first price, up or down). An alert fires once, as a notification.
 *
 *   POST /api/alerts               alertCreateSchema → alertSchema
 *   GET  /api/alerts               → alertListSchema (one's own, newest first; active and fired)
 *   POST /api/alerts/{id}/delete   alertIdParamSchema → "deleted"
 */
import { z } from "zod";
import { decimalInput, idInput } from "./strict.ts";

/** The most alerts one user may have waiting at once (active ones; fired and deleted do not count). */
export const MAX_ACTIVE_ALERTS = 50;

export const alertKinds = ["above", "below", "move"] as const;
export const alertKindSchema = z.enum(alertKinds, { message: "alert_kind" });
export type AlertKind = z.infer<typeof alertKindSchema>;

export const alertWindows = ["1h", "24h"] as const;
export const alertWindowSchema = z.enum(alertWindows, { message: "alert_window" });
export type AlertWindow = z.infer<typeof alertWindowSchema>;

/** Seconds per window (what D1 and the pair object store). */
export const ALERT_WINDOW_SECONDS: Record<AlertWindow, number> = { "1h": 3600, "24h": 86400 };

const id = idInput({ message: "invalid_param", max: 2 ** 31 });

/** A move's percent: more than 0, at most 100, at most two decimals ("2.5" = 2.5 %). */
export const ALERT_PERCENT_RE = /^(?:100(?:\.0{1,2})?|\d{1,2}(?:\.\d{1,2})?)$/;

/**
 * POST /api/alerts. `above`/`below` need `price` (and take no percent or window); `move` needs
 * `percent` and `window` (and takes no price). Unknown fields are refused.
 */
export const alertCreateSchema = z
  .strictObject({
    currency_id: id,
    legal_id: id.default(3),
    kind: alertKindSchema,
    price: decimalInput({ message: "invalid_price" }).optional(),
    percent: decimalInput({ message: "alert_percent" }).optional(),
    window: alertWindowSchema.optional(),
  })
  .superRefine((v, ctx) => {
    if (v.kind === "move") {
      if (v.percent === undefined) ctx.addIssue({ code: "custom", path: ["percent"], message: "alert_percent" });
      else if (!ALERT_PERCENT_RE.test(v.percent) || Number(v.percent) <= 0) ctx.addIssue({ code: "custom", path: ["percent"], message: "alert_percent" });
      if (v.window === undefined) ctx.addIssue({ code: "custom", path: ["window"], message: "alert_window" });
      if (v.price !== undefined) ctx.addIssue({ code: "custom", path: ["price"], message: "alert_fields" });
    } else {
      if (v.price === undefined) ctx.addIssue({ code: "custom", path: ["price"], message: "price_positive" });
      if (v.percent !== undefined) ctx.addIssue({ code: "custom", path: ["percent"], message: "alert_fields" });
      if (v.window !== undefined) ctx.addIssue({ code: "custom", path: ["window"], message: "alert_fields" });
    }
  });
export type AlertCreateInput = z.input<typeof alertCreateSchema>;
export type AlertCreate = z.output<typeof alertCreateSchema>;

export const alertIdParamSchema = z.strictObject({ id: idInput({ message: "invalid_param" }) });

/** One alert as its owner sees it. */
export const alertSchema = z.object({
  id: z.number().int(),
  pair_id: z.number().int(),
  currency_id: z.number().int(),
  legal_id: z.number().int(),
  /** "BTC/USDT" */
  symbol: z.string(),
  kind: alertKindSchema,
  /** above/below: the level, at the pair's price decimals; null for move */
  price: z.string().nullable(),
  /** move: the percent ("2.5"); null otherwise */
  percent: z.string().nullable(),
  window: alertWindowSchema.nullable(),
  status: z.enum(["active", "fired"]),
  created_at: z.number().int(),
  fired_at: z.number().int().nullable(),
  /** the traded price that fired it */
  fired_price: z.string().nullable(),
});
export type Alert = z.infer<typeof alertSchema>;

export const alertListSchema = z.array(alertSchema);

/** POST /api/alerts/{id}/delete */
export const alertDeletedSchema = z.literal("deleted");
