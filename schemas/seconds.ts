/**
 * Seconds contracts (spec §3 seconds fields, §4 states, §7 /api/microtrade/*; DESIGN §7).
 *
 * The house (treasury) is the counterparty. At acceptance the stake is frozen from the user's
 * micro account, the fee is booked, and the maximum payout is held from the house. The result is a
 * pure function of (direction, entry tick, exit tick, ratio, stake): entry = the pair's latest index
 * tick at acceptance, exit = the last index tick at or before expiry. Up wins only when exit > entry;
 * down wins when exit ≤ entry. Every tick is public: GET /api/microtrade/ticks.
 *
 * Amounts are decimal strings in the payable currency; prices are decimal strings in the pair's
 * quote currency; times are ms since the epoch unless named `*_format`.
 */
import { z } from "zod";
import { idInput, intInput, limitInput, pageInput } from "./strict.ts";
import { decimalStringSchema } from "./money.ts";
import { pageSchema } from "./envelope.ts";

/** The fee of a seconds contract, in percent of the stake (spec §9: 2%). Charged once, at acceptance, on top of the stake. */
export const SECONDS_FEE_PERCENT = "2";
/** The duration chosen when the user has not chosen one (spec §9). */
export const DEFAULT_SECONDS = 60;

/** 1 up, 2 down */
export const secondsDirectionSchema = z.union([z.literal(1), z.literal(2)]);
/** 1 trading (counting down), 2 settling, 3 settled; 4 revoked (refused after its money was held, all of it returned) */
export const secondsStatusSchema = z.union([z.literal(1), z.literal(2), z.literal(3), z.literal(4)]);

/** GET /api/microtrade/seconds: one duration option. `profit_ratio` is the win in percent of the stake, e.g. "85". */
export const secondsOptionSchema = z.object({
  seconds: z.number().int(),
  profit_ratio: z.string(),
  /** 1 offered, 0 withdrawn by an operator (only status 1 may be chosen) */
  status: z.number().int(),
});
export type SecondsOption = z.infer<typeof secondsOptionSchema>;
export const secondsOptionListSchema = z.array(secondsOptionSchema);

/** GET /api/microtrade/payable_currencies: a coin a contract may be paid in, with the user's micro balance. */
export const payableCurrencySchema = z.object({
  id: z.number().int(),
  name: z.string(),
  /** null when not logged in */
  user_wallet: z.object({ micro_balance: z.string(), currency_name: z.string() }).nullable(),
  /** the amount choices offered on the form */
  micro_numbers: z.array(z.string()),
  /** the smallest and largest stake accepted */
  min_number: z.string(),
  max_number: z.string(),
  /** the fee in percent of the stake, charged on top at acceptance */
  fee_percent: z.string(),
});
export type PayableCurrency = z.infer<typeof payableCurrencySchema>;
export const payableCurrencyListSchema = z.array(payableCurrencySchema);

/** POST /api/microtrade/submit */
export const secondsSubmitSchema = z.object({
  match_id: idInput({ message: "invalid_param" }),
  currency_id: idInput({ message: "invalid_param" }),
  type: intInput({ message: "invalid_param" }).pipe(secondsDirectionSchema),
  seconds: idInput({ message: "invalid_param" }),
  number: decimalStringSchema,
  /**
   * The index price its owner confirmed (optional): the contract is refused with price_moved,
   * nothing held, when its entry tick differs from it by more than the leverage tolerance (0.1 %).
   */
  index_price: decimalStringSchema.optional(),
  /** optional idempotency key: a repeated submit with the same key answers the first order */
  client_oid: z.string().regex(/^[A-Za-z0-9_-]{1,40}$/, { message: "invalid_param" }).optional(),
});
export type SecondsSubmit = z.infer<typeof secondsSubmitSchema>;

/** One seconds contract (spec §3 fields, plus the ticks and money that make it checkable). */
export const secondsOrderSchema = z.object({
  id: z.number().int(),
  type: secondsDirectionSchema,
  /** pair, e.g. "BTC/USDT" */
  symbol_name: z.string(),
  /** the payable currency of stake and result */
  currency_name: z.string(),
  currency_id: z.number().int(),
  match_id: z.number().int(),
  /** entry index price; null only for a contract revoked before it had an entry tick (it never ran) */
  open_price: z.string().nullable(),
  /** exit index price; null until settled */
  end_price: z.string().nullable(),
  /** stake */
  number: z.string(),
  fee: z.string(),
  seconds: z.number().int(),
  profit_ratio: z.string(),
  /** the result: + number × ratio% on a win, − number on a loss; null until settled */
  fact_profits: z.string().nullable(),
  status: secondsStatusSchema,
  /** ms since epoch */
  created_at: z.number().int(),
  create_time_format: z.string(),
  /** when the contract expires, ms since epoch */
  end_at: z.number().int(),
  /** ms left until expiry (0 once expired) */
  remain_milli_seconds: z.number().int(),
  /** the public ticks the result was computed from (exit null until settled; entry null as open_price) */
  open_tick_id: z.number().int().nullable(),
  end_tick_id: z.number().int().nullable(),
});
export type SecondsOrder = z.infer<typeof secondsOrderSchema>;

/** GET /api/microtrade/lists: the user's running (and just settled) contracts. */
export const secondsOrderListSchema = z.array(secondsOrderSchema);

/** GET /api/new/microtrade/lists query: page through one's contracts, optionally by status. */
export const secondsHistoryQuerySchema = z.object({
  page: pageInput(),
  limit: limitInput(100, 20),
  status: intInput({ message: "invalid_param" }).pipe(secondsStatusSchema).optional(),
});
/** GET /api/new/microtrade/lists */
export const secondsOrderPageSchema = pageSchema(secondsOrderSchema);

/** One public index tick of a pair. */
export const indexTickSchema = z.object({
  id: z.number().int(),
  match_id: z.number().int(),
  price: z.string(),
  /** ms since epoch */
  at: z.number().int(),
});
export type IndexTick = z.infer<typeof indexTickSchema>;

/** GET /api/microtrade/ticks query: ticks of one pair between two times (ms, inclusive), oldest first. */
export const tickQuerySchema = z.object({
  match_id: idInput({ message: "invalid_param" }),
  from: intInput({ message: "invalid_param" }).optional(),
  to: intInput({ message: "invalid_param" }).optional(),
  page: pageInput(),
  limit: limitInput(1000, 200),
});
/** GET /api/microtrade/ticks: `{ total, lists }`, oldest first. */
export const tickPageSchema = pageSchema(indexTickSchema);

/** GET /api/currency/index_tick query: one tick of a pair and up to `n` ticks either side (issue #20 §3). */
export const tickWindowQuerySchema = z.object({
  match_id: idInput({ message: "invalid_param" }),
  id: idInput({ message: "invalid_param" }),
  n: intInput({ message: "invalid_param", max: 20 }).default(5),
});
/**
 * GET /api/currency/index_tick: the tick and its neighbours, each list oldest first. Public, like
 * the whole tick log: a seconds contract's entry and exit and a leveraged position's open and
 * close are checked against it.
 */
export const tickWindowSchema = z.object({ tick: indexTickSchema, before: z.array(indexTickSchema), after: z.array(indexTickSchema) });
export type TickWindow = z.infer<typeof tickWindowSchema>;

/** GET /api/microtrade/order query: one of one's own contracts. */
export const secondsOrderQuerySchema = z.object({
  id: idInput({ message: "invalid_param" }),
});

/** The private socket event sent to the owner when a contract settles (spec §4 `closed_microorder`). */
export const closedMicroorderEventSchema = z.object({ type: z.literal("closed_microorder"), data: secondsOrderSchema });
