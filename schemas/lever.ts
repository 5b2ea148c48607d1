/**
 * Leveraged contracts (spec §3 contract order fields, §4 contract states, §5 contract rules,
 * §7 /api/lever/my_trade; DESIGN §9).
 *
 * The house (treasury) is the counterparty at the pair's index price (the seconds desk's public
 * ticks). A position's margin = price × lots × lot size / leverage is frozen in the user's `lever`
 * account with the open fee booked at once; TP/SL, limit opens and liquidation are checked only
 * against the index. A loss never exceeds the margin; a gain is capped at the position's value at
 * open (the house holds that much for it). Amounts are decimal strings in USDT; prices decimal
 * strings in the pair's quote; times ms since the epoch unless named `*_format`.
 */
import { z } from "zod";
import { idInput, intInput, limitInput, multiLineText, pageInput, TEXT_CHARS } from "./strict.ts";
import { decimalStringSchema } from "./money.ts";

/** 1 long, 2 short */
export const leverDirectionSchema = z.union([z.literal(1), z.literal(2)]);
/** 1 pending (a limit open waiting for the index), 2 trading, 3 closing, 4 closed, 5 revoked */
export const leverStatusSchema = z.union([z.literal(1), z.literal(2), z.literal(3), z.literal(4), z.literal(5)]);
export const leverStatusNames = { 1: "pending", 2: "trading", 3: "closing", 4: "closed", 5: "revoked" } as const;
/** Why a position closed: by its owner, take-profit, stop-loss, forced liquidation, the gain cap; or a revoked order. */
export const leverCloseReasonSchema = z.enum(["user", "profit", "loss", "liquidation", "cap", "revoked"]);
export type LeverCloseReason = z.infer<typeof leverCloseReasonSchema>;

const id = idInput({ message: "invalid_param" });
/** An optional price: absent or "0" mean "not set" for TP/SL (null and "" are refused, like in every numeric field). */
const optionalPrice = decimalStringSchema.optional();

/** POST /api/lever/submit */
export const leverSubmitSchema = z.object({
  currency_id: id,
  legal_id: id.default(3),
  type: intInput({ message: "invalid_param" }).pipe(leverDirectionSchema),
  /** lots: a whole number within the pair's min and max and a multiple of its share_step (checked with messages naming them) */
  share: intInput({ message: "invalid_param", notWhole: "lever_lots" }),
  /** leverage: one of the pair's multiples */
  multiple: intInput({ message: "invalid_param" }),
  /** a limit open's price; absent = at market (the index now) */
  target_price: optionalPrice,
  /**
   * A market open: the index the user saw and confirmed (required without target_price). The
   * open is refused with price_moved when the index the server prices it at differs from it by
   * more than `price_tolerance` percent (GET /api/lever/deal), so what was shown is what is charged.
   */
  index_price: decimalStringSchema.optional(),
  stop_profit: optionalPrice,
  stop_loss: optionalPrice,
});
export type LeverSubmit = z.infer<typeof leverSubmitSchema>;

/** POST /api/lever/close, /api/lever/cancel */
export const leverIdSchema = z.object({ id });
/** POST /api/lever/batch_close: every trading position of the caller, optionally of one pair. */
export const leverBatchCloseSchema = z.object({ currency_id: id.optional(), legal_id: id.default(3) });
export type LeverBatchClose = z.infer<typeof leverBatchCloseSchema>;
/** POST /api/lever/setstop: both stops at once; an absent stop or "0" clears it. */
export const leverSetStopSchema = z.object({ id, stop_profit: optionalPrice, stop_loss: optionalPrice });

/** POST /api/lever/my_trade query (spec §7: status, legal_id=3, currency_id, page, limit=100). */
export const leverMyTradeQuerySchema = z.object({
  status: intInput({ message: "invalid_param" }).pipe(leverStatusSchema).optional(),
  legal_id: id.default(3),
  currency_id: id.optional(),
  page: pageInput(),
  limit: limitInput(100, 100),
});

/** GET /api/lever/deal query */
export const leverDealQuerySchema = z.object({ currency_id: id.default(1), legal_id: id.default(3) });

/** One position (spec §3 contract order: lots, leverage, margin, fee, overnight fee, TP, SL, times, liquidation price, risk rate). */
export const leverPositionSchema = z.object({
  id: z.number().int(),
  type: leverDirectionSchema,
  /** e.g. "BTC/USDT" */
  symbol_name: z.string(),
  match_id: z.number().int(),
  currency_id: z.number().int(),
  legal_id: z.number().int(),
  status: leverStatusSchema,
  status_name: z.enum(["pending", "trading", "closing", "closed", "revoked"]),
  /** lots */
  share: z.number().int(),
  /** coin per lot */
  lever_share_num: z.string(),
  multiple: z.number().int(),
  /** a limit open's price (null at market) */
  target_price: z.string().nullable(),
  /** the index the position opened at (null while pending) */
  open_price: z.string().nullable(),
  close_price: z.string().nullable(),
  /** the index now (trading positions; null when the pair has no index) */
  index_price: z.string().nullable(),
  margin: z.string(),
  /** open fee */
  trade_fee: z.string(),
  /** overnight fees taken from the margin so far */
  overnight_fee: z.string(),
  close_fee: z.string().nullable(),
  stop_profit: z.string().nullable(),
  stop_loss: z.string().nullable(),
  /** P/L: realised once closed, at the index while trading, null otherwise */
  profit: z.string().nullable(),
  /**
   * Net P/L: what the position does to the lever balance over its life, every fee counted (open,
   * overnight, close): realised once closed, as if closed at the index now while trading, null otherwise.
   */
  net_profit: z.string().nullable(),
  /** a trading position closed at the index now: the close fee it would pay and what would return to the lever balance (null otherwise) */
  close_fee_now: z.string().nullable(),
  payout_now: z.string().nullable(),
  /** equity / margin in percent, 2 decimals (trading only) */
  risk_rate: z.string().nullable(),
  /** the forced-liquidation price (trading only; null when no price liquidates) */
  force_price: z.string().nullable(),
  /**
   * the gain cap: the most this position can gain, its value at open (the house holds that much
   * for it); a long is closed when its gain reaches it, at `cap_price` (trading longs only; null
   * otherwise: a short's gain can never exceed it)
   */
  gain_cap: z.string(),
  cap_price: z.string().nullable(),
  close_reason: leverCloseReasonSchema.nullable(),
  create_time: z.number().int(),
  create_time_format: z.string(),
  open_time: z.number().int().nullable(),
  /** close or revoke time */
  close_time: z.number().int().nullable(),
});
export type LeverPosition = z.infer<typeof leverPositionSchema>;

/** GET /api/lever/position query: one of one's own positions. */
export const leverPositionQuerySchema = z.object({ id });

/**
 * GET /api/lever/position: one position with what makes its open and close checkable (issue #20
 * §3): the public index ticks it opened and closed at (GET /api/currency/index_tick), and the
 * price the closing rule compared the index with.
 */
export const leverPositionDetailSchema = leverPositionSchema.extend({
  open_tick_id: z.number().int().nullable(),
  close_tick_id: z.number().int().nullable(),
  /**
   * the price the close rule crossed (closed positions; null for a close by its owner or a revoke):
   * liquidation — the liquidation price at close (a long closes at an index at or below it, a
   * short at or above); profit — the take-profit; loss — the stop-loss; cap — the gain cap's price
   */
  trigger_price: z.string().nullable(),
});
export type LeverPositionDetail = z.infer<typeof leverPositionDetailSchema>;

/** POST /api/lever/my_trade: `message.message.data` (spec §7). */
export const leverMyTradeSchema = z.object({
  message: z.object({ total: z.number().int(), page: z.number().int(), limit: z.number().int(), data: z.array(leverPositionSchema) }),
});

/** POST /api/lever/batch_close */
export const leverBatchClosedSchema = z.object({ closed: z.array(leverPositionSchema), failed: z.array(z.object({ id: z.number().int(), message: z.string() })) });

/** The lot multiples a pair may require (spec §5): any whole number, multiples of 10, or of 100. */
export const leverLotSteps = [1, 10, 100] as const;
export const leverLotStepSchema = z.union([z.literal(1), z.literal(10), z.literal(100)]);
export type LeverLotStep = z.infer<typeof leverLotStepSchema>;

/** A pair's contract settings as users see them (quotation fields lever_trade_fee, lever_share_num). */
export const leverPairSettingsSchema = z.object({
  match_id: z.number().int(),
  currency_id: z.number().int(),
  legal_id: z.number().int(),
  symbol_name: z.string(),
  /** coin per lot */
  lever_share_num: z.string(),
  /** fee per open and per close, percent of the position's value */
  lever_trade_fee: z.string(),
  /** overnight fee per day, percent of the value at open, taken from the margin */
  overnight_fee: z.string(),
  /** liquidation when equity falls to this percent of the margin */
  maintenance_rate: z.string(),
  multiples: z.array(z.number().int()),
  min_share: z.number().int(),
  max_share: z.number().int(),
  /** lots must be a multiple of this: 1, 10 or 100 (spec §5 "quantities sometimes multiples of 10 or 100") */
  share_step: leverLotStepSchema,
  max_positions: z.number().int(),
  status: z.number().int(),
});
export type LeverPairSettings = z.infer<typeof leverPairSettingsSchema>;

/** GET /api/lever/deal: the pair's settings, the index and (logged in) one's lever balance. */
export const leverDealSchema = leverPairSettingsSchema.extend({
  index_price: z.string().nullable(),
  /** a market open is refused when the index moves more than this percent from the one confirmed (submit's index_price) */
  price_tolerance: z.string(),
  /** null when not logged in */
  lever_balance: z.string().nullable(),
  lock_lever_balance: z.string().nullable(),
});

/** Operator console: a pair's settings with the exposure limit, and the edit body. */
export const adminLeverPairSchema = leverPairSettingsSchema.extend({ pair_exposure: z.string(), updated_at: z.number().int() });
export const adminLeverPairListSchema = z.array(adminLeverPairSchema);
const percent = z.string().regex(/^\d{1,3}(\.\d{1,2})?$/, { message: "invalid_param" });
export const leverPairEditSchema = z.object({
  match_id: id,
  lever_share_num: decimalStringSchema,
  multiples: z.array(z.number().int().min(1).max(125)).min(1).max(20),
  min_share: z.number().int().min(1).max(1_000_000),
  max_share: z.number().int().min(1).max(1_000_000),
  /** lots a multiple of 1, 10 or 100; min_share and max_share must be multiples of it */
  share_step: leverLotStepSchema.default(1),
  lever_trade_fee: percent,
  overnight_fee: percent,
  maintenance_rate: percent,
  pair_exposure: decimalStringSchema,
  max_positions: z.number().int().min(1).max(1000),
  status: z.union([z.literal(0), z.literal(1)]),
  reason: z.string().trim().refine(multiLineText, TEXT_CHARS).min(1, { message: "missing_field" }).max(500),
});
export type LeverPairEdit = z.infer<typeof leverPairEditSchema>;

/** The private socket event sent to a position's owner whenever it changes state (schemas/realtime.ts). */
export const leverPositionEventSchema = z.object({ type: z.literal("lever_position"), data: leverPositionSchema });
