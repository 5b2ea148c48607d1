/**
 * C2C: fiat trading with merchants (spec §2 C2C screens, §3 C2C order and advert, §4 `is_sure` and
 * advert states, §5 C2C rules, §6 merchant role, §7 `/api/legal_*`, §8 fiat and merchant errors,
 * §9 window and limits; DESIGN §8).
 *
 * Coins move on our ledger, in the `legal` wallet account; the fiat (CNY) moves between the two
 * people outside it. Coins being sold sit in escrow (frozen funds of the seller's legal account)
 * from the moment an order can need them until exactly one of: the seller confirms receipt (coins
 * to the buyer), the order is cancelled or its payment window ends (coins back to the seller or to
 * the advert they came from), or an operator decides an appeal.
 *
 * Words used below:
 * - advert `type`: "sell" = the MERCHANT sells coins (the user buys from it, pays fiat, and the
 *   advert's escrow covers the order); "buy" = the merchant buys coins (the user sells to it and
 *   the user's coins are frozen when the order is created). An order's `type` is its advert's
 *   type. So on the market screen the user's "buy" tab lists `type=sell` adverts.
 * - amounts of coin: decimal strings in the coin (`number`, `surplus_number`, ...);
 *   prices and fiat money: CNY decimal strings with exactly 2 decimals (`price`, `deal_money`).
 * - times: ms since the epoch, or `format_*` strings "YYYY-MM-DD HH:mm:ss" in Beijing time.
 * - file urls point at GET /api/c2c/orders/{id}/files/{upload} (an order's proof, chat images and
 *   the seller's payment codes, served to the order's two parties and, on appeal, operators) or
 *   at /api/new/upload/file/{id} (one's own uploads). Fetch them with the Authorization header.
 *
 * Errors are catalogue keys (schemas/errors.ts, every language); the C2C ones start with `c2c_`.
 * With PRODUCT_C2C off every endpoint below answers `feature_off`.
 *
 * Endpoints (request schema → answer schema; classic `{ type, message }` unless "new"):
 *   GET  /api/new/legal_deal/index  advertMarketQuerySchema → c2cAdvertPageSchema (new)
 *   POST /api/do_legal_deal         doLegalDealSchema → c2cOrderCreatedSchema (998 unverified, 997 no receiving method)
 *   GET  /api/legal_user_deal       legalUserDealQuerySchema → c2cOrderListSchema
 *   GET  /api/legal_deal            c2cIdQuerySchema → c2cOrderSchema
 *   POST /api/user_legal_pay        userLegalPaySchema → c2cOrderSchema (buyer, unpaid, within the window)
 *   POST /api/legal_deal_user_sure  c2cIdBodySchema → c2cOrderSchema (seller, paid → finished)
 *   POST /api/legal_deal_cancel_order, /api/user_legal_pay_cancel  c2cIdBodySchema → c2cOrderSchema (buyer, unpaid)
 *   POST /api/handle_one            c2cIdBodySchema → c2cOrderSchema (either party at countdown zero; idempotent)
 *   GET  /api/c2c/config            → c2cConfigSchema (no login needed)
 *   GET  /api/c2c/merchant          → merchantSchema;  POST /api/c2c/merchant/apply merchantApplySchema → merchantSchema;
 *   POST /api/c2c/merchant/leave    → merchantSchema
 *   GET  /api/c2c/pay_methods       → payMethodListSchema; POST /api/c2c/pay_methods payMethodInputSchema → payMethodSchema;
 *   POST /api/c2c/pay_methods/{id}  payMethodInputSchema → payMethodSchema; POST /api/c2c/pay_methods/{id}/delete → payMethodDeletedSchema
 *   GET  /api/c2c/adverts/mine      pageQuerySchema → myAdvertPageSchema; POST /api/c2c/adverts advertCreateSchema → c2cAdvertSchema
 *   POST /api/c2c/adverts/{id}/off | /on | /withdraw → c2cAdvertSchema
 *   POST /api/c2c/adverts/{id}/edit advertEditSchema → c2cAdvertSchema (only while off the shelf)
 *   GET  /api/c2c/merchant/orders   legalUserDealQuerySchema → c2cOrderPageSchema (orders on one's adverts)
 *   GET  /api/c2c/orders/{id}/messages chatQuerySchema → c2cMessageListSchema; POST chatSendSchema → c2cMessageSchema
 *   POST /api/c2c/orders/{id}/appeal appealCreateSchema → c2cOrderSchema
 *   GET  /api/c2c/orders/{id}/files/{upload} → the picture (proof, chat image, payment code)
 *   Operators: GET /api/admin/c2c/merchants | adverts | appeals (adminC2cListQuerySchema → admin*PageSchema),
 *   GET /api/admin/c2c/appeals/{id} → adminAppealDetailSchema, POST /api/admin/c2c/merchants/{id}/approve | reject,
 *   /api/admin/c2c/adverts/{id}/abnormal, /api/admin/c2c/appeals/{id}/release | return (c2cDecisionSchema → c2cDecisionResultSchema),
 *   POST /api/admin/c2c/appeals/{id}/messages operatorMessageSchema → c2cMessageSchema.
 */
import { z } from "zod";
import { idInput, intInput, limitInput, lineText, multiLineText, secretInput, singleLineText, TEXT_CHARS } from "./strict.ts";
import { pageQuerySchema, pageSchema } from "./envelope.ts";
import { decimalStringSchema } from "./money.ts";
import { amountInputSchema, pictureRefSchema } from "./wallet.ts";

// ── Constants (spec §9) ─────────────────────────────────────────────────────────────────────────

/** The one fiat currency of adverts for now. */
export const C2C_FIAT = "CNY";
/** Prices and fiat amounts have 2 decimals (spec §9); stored as integer cents. */
export const C2C_PRICE_DECIMALS = 2;
/** Order quantities have at most this many decimals (spec §9 "trade amount 6"), or the coin's scale if smaller. */
export const C2C_QTY_DECIMALS = 6;
/** A user with this many unfinished orders (unpaid or paid) cannot place another (spec: more than 3 block new ones). */
export const C2C_MAX_UNFINISHED = 3;
/** This many cancellations (own cancels and expired unpaid orders as the buyer) in one Beijing day restrict ordering until the next day. */
export const C2C_MAX_CANCELS_PER_DAY = 3;

// ── Enumerations ────────────────────────────────────────────────────────────────────────────────

/** advert and order type: "sell" = the merchant sells coins (user buys); "buy" = the merchant buys coins (user sells). */
export const c2cTypeSchema = z.enum(["buy", "sell"], { message: "invalid_param" });
export type C2cType = z.infer<typeof c2cTypeSchema>;

/** Order `is_sure` (spec §4): 0 unpaid (awaiting payment), 3 paid (awaiting the seller), 1 finished, 2 cancelled. */
export const isSureSchema = z.union([z.literal(0), z.literal(3), z.literal(1), z.literal(2)]);
export type IsSure = z.infer<typeof isSureSchema>;
export const IS_SURE = { unpaid: 0, paid: 3, finished: 1, cancelled: 2 } as const;

/** Advert states (spec §4): 1 on shelf, 2 taken off (no new orders), 3 withdrawn (escrow returned; final), 4 abnormal (operator; no new orders). */
export const advertStatusSchema = z.union([z.literal(1), z.literal(2), z.literal(3), z.literal(4)]);
export type AdvertStatus = z.infer<typeof advertStatusSchema>;
export const ADVERT_STATUS = { onShelf: 1, offShelf: 2, withdrawn: 3, abnormal: 4 } as const;

/** Merchant application: 0 applying (deposit frozen), 1 approved (merchant), 2 rejected (deposit returned), 3 left (deposit returned). */
export const merchantStatusSchema = z.union([z.literal(0), z.literal(1), z.literal(2), z.literal(3)]);
export type MerchantStatus = z.infer<typeof merchantStatusSchema>;

/** Receiving methods. "bank" is the bank card of POST /api/user/cash_save (one per user); the others live here. */
export const payKinds = ["bank", "alipay", "wechat", "other"] as const;
export const payKindSchema = z.enum(payKinds, { message: "invalid_param" });
export type PayKind = z.infer<typeof payKindSchema>;
/** The kinds created through /api/c2c/pay_methods (the bank card has its own endpoint). */
export const ownPayKindSchema = z.enum(["alipay", "wechat", "other"], { message: "invalid_param" });

/** Appeal: 0 open, 1 decided: coins released to the buyer, 2 decided: coins returned to the seller, 3 closed because the seller confirmed. */
export const appealStatusSchema = z.union([z.literal(0), z.literal(1), z.literal(2), z.literal(3)]);
export type AppealStatus = z.infer<typeof appealStatusSchema>;

/** The viewer's side in an order. */
export const c2cRoleSchema = z.enum(["buyer", "seller"]);

// ── Money helpers shared by screens and worker (bigint, never a JS number) ─────────────────────

/**
 * The fiat total of an order in cents: number × price, rounded half up to the cent.
 * `units` are the coin's minimal units at `scale`; `priceCents` the price in cents per coin.
 */
export function dealMoneyCents(units: bigint, scale: number, priceCents: bigint): bigint {
  const base = 10n ** BigInt(scale);
  return (units * priceCents * 2n + base) / (base * 2n);
}

/** "7.2" → 720n; null when not a plain decimal with at most 2 decimals. */
export function parseCents(value: string): bigint | null {
  const m = /^(\d{1,13})(?:\.(\d{1,2}))?$/.exec(value.trim());
  if (!m) return null;
  return BigInt(m[1]!) * 100n + BigInt((m[2] ?? "").padEnd(2, "0"));
}

/** 720n → "7.20". */
export function formatCents(cents: bigint): string {
  const neg = cents < 0n;
  const abs = neg ? -cents : cents;
  return `${neg ? "-" : ""}${abs / 100n}.${(abs % 100n).toString().padStart(2, "0")}`;
}

// ── Requests ────────────────────────────────────────────────────────────────────────────────────

const idValue = idInput({ message: "invalid_param" });
const coinId = idInput({ message: "invalid_param", max: 1_000_000 });
/** A CNY amount or price as typed: a decimal string (or a plain JSON number) with at most 2 decimals. */
export const fiatInputSchema = decimalStringSchema;

/** Body of every order action with only an id: legal_deal_user_sure, legal_deal_cancel_order, user_legal_pay_cancel, handle_one. */
export const c2cIdBodySchema = z.object({ id: idValue });
/**
 * POST /api/legal_deal_user_sure: releasing escrow is money leaving the seller for good, so it needs
 * the seller's FUND password (6 digits) and, when an authenticator is on, its code, as a withdrawal does.
 */
export const legalDealSureSchema = c2cIdBodySchema.extend({
  password: secretInput(z.string({ message: "c2c_release_password" }).max(64, { message: "fund_password_wrong" })),
  totp_code: lineText(10, { min: 0 }).optional(),
});
/** Path `:id` of the /api/c2c/... and /api/admin/c2c/... routes. */
export const c2cIdParamSchema = z.object({ id: idInput({ message: "invalid_param" }) });
/** GET /api/legal_deal?id= */
export const c2cIdQuerySchema = z.object({ id: idInput({ message: "invalid_param" }) });

/** GET /api/new/legal_deal/index: on-shelf adverts of one type and coin (default USDT), best price first. */
export const advertMarketQuerySchema = pageQuerySchema.extend({
  /** advert type: "sell" = merchants selling (the user's buy tab), "buy" = merchants buying (the sell tab) */
  type: c2cTypeSchema.default("sell"),
  currency_id: coinId.default(3),
});

/** POST /api/do_legal_deal: take an advert. `value` is the coin quantity (not CNY). */
export const doLegalDealSchema = z.object({
  /** the advert id */
  id: idValue,
  /** coin quantity, at most C2C_QTY_DECIMALS decimals; deal_money = value × price (dealMoneyCents) must be within the advert's min/max CNY */
  value: amountInputSchema,
  /** beyond the spec, optional: the CNY price the user was shown; if the advert's price differs the order is refused (c2c_price_changed) */
  price: fiatInputSchema.optional(),
});

/** GET /api/legal_user_deal: one's orders (either side), newest first, with optional filters. */
export const legalUserDealQuerySchema = pageQuerySchema.extend({
  type: c2cTypeSchema.optional(),
  currency_id: coinId.optional(),
  is_sure: intInput({ message: "invalid_param" }).pipe(isSureSchema).optional(),
});

/** POST /api/user_legal_pay: the buyer marks the order paid with a proof picture (upload id or url; required). */
export const userLegalPaySchema = z.object({ id: idValue, pay_orders_img: pictureRefSchema });

/** POST /api/c2c/merchant/apply: become a merchant; the deposit (c2cConfig.merchant_deposit USDT) is frozen in the legal account. */
export const merchantApplySchema = z.object({
  /** the name users see on adverts (seller_name): 2-20 letters, digits, CJK, spaces, - or _ ; unique among merchants */
  name: z
    .string({ message: "c2c_merchant_name" })
    .trim()
    .refine(singleLineText, TEXT_CHARS)
    .min(2, { message: "c2c_merchant_name" })
    .max(20, { message: "c2c_merchant_name" })
    .regex(/^[\p{L}\p{N} _-]+$/u, { message: "c2c_merchant_name" }),
});

/**
 * POST /api/c2c/pay_methods (create) and /api/c2c/pay_methods/{id} (replace). The holder name is
 * always the verified real name (not sent). At most c2cConfig.max_pay_methods per user.
 */
export const payMethodInputSchema = z.object({
  kind: ownPayKindSchema,
  /** the Alipay / WeChat account, or for "other" the account at `label` */
  account: z.string({ message: "invalid_param" }).trim().refine(singleLineText, TEXT_CHARS).min(1, { message: "missing_field" }).max(64).regex(/^[\x21-\x7e]+$/, { message: "invalid_field" }),
  /** "other" only: the name of the service, e.g. "PayPal" (required for other) */
  label: z.string().trim().refine(singleLineText, TEXT_CHARS).max(32).optional().default(""),
  /** payment-code picture (QR), an upload id or url of one's own; required for alipay and wechat */
  qr_code: pictureRefSchema.optional(),
});

/** POST /api/c2c/adverts: a merchant posts an advert; it goes on the shelf at once (a sell advert escrows total_number). */
export const advertCreateSchema = z.object({
  type: c2cTypeSchema,
  /** an is_legal coin (USDT) */
  currency_id: coinId.default(3),
  /** CNY per coin, > 0, 2 decimals */
  price: fiatInputSchema,
  /** coins on offer (sell) or wanted (buy), at most C2C_QTY_DECIMALS decimals */
  total_number: amountInputSchema,
  /** per-order limits in CNY, 2 decimals; min ≤ max ≤ total_number × price */
  min_money: fiatInputSchema,
  max_money: fiatInputSchema,
  /** accepted receiving methods; a sell advert needs the merchant to have each of them */
  pay_kinds: z.array(payKindSchema).min(1, { message: "c2c_pay_kinds" }).max(4, { message: "c2c_pay_kinds" }),
  /** terms shown to takers */
  remark: z.string().trim().refine(multiLineText, TEXT_CHARS).max(200).optional().default(""),
});

/**
 * POST /api/c2c/adverts/{id}/edit: change an advert that is OFF the shelf (status 2): price, per-order
 * limits, accepted methods and terms. Its coins (total, remaining, escrow) change only by going on
 * the shelf, orders and withdrawal; min ≤ max and min ≤ remaining × the new price.
 */
export const advertEditSchema = advertCreateSchema.pick({ price: true, min_money: true, max_money: true, pay_kinds: true, remark: true });

/** GET /api/c2c/orders/{id}/messages: messages after `after_id` (0 = from the start), oldest first. */
export const chatQuerySchema = z.object({
  after_id: intInput({ message: "invalid_param" }).default(0),
  limit: limitInput(200, 100),
});

/** POST /api/c2c/orders/{id}/messages: exactly one of text or image (an upload id or url of one's own). */
export const chatSendSchema = z
  .object({
    text: z.string().trim().refine(multiLineText, TEXT_CHARS).min(1, { message: "c2c_message_empty" }).max(500, { message: "too_long" }).optional(),
    image: pictureRefSchema.optional(),
  })
  .refine((b) => (b.text === undefined) !== (b.image === undefined), { message: "c2c_message_empty" });

/** POST /api/admin/c2c/appeals/{id}/messages: an operator's message to both parties of an appealed order (text only). */
export const operatorMessageSchema = z.object({
  text: z.string({ message: "c2c_message_empty" }).trim().refine(multiLineText, TEXT_CHARS).min(1, { message: "c2c_message_empty" }).max(500, { message: "too_long" }),
});
export type OperatorMessage = z.infer<typeof operatorMessageSchema>;

/** POST /api/c2c/orders/{id}/appeal: either party, once the order is paid and the seller has not confirmed within c2cConfig.appeal_after_seconds. */
export const appealCreateSchema = z.object({
  reason: z.string({ message: "reason_required" }).trim().refine(multiLineText, TEXT_CHARS).min(1, { message: "reason_required" }).max(500, { message: "too_long" }),
  /** evidence pictures (own uploads), at most 5 */
  evidence: z.array(pictureRefSchema).max(5, { message: "c2c_evidence_limit" }).optional().default([]),
});

// ── Answers ─────────────────────────────────────────────────────────────────────────────────────

/** GET /api/c2c/config: the deployment's C2C settings (configuration, not constants). */
export const c2cConfigSchema = z.object({
  /** seconds an unpaid order waits for payment (C2C_PAY_WINDOW_SECONDS, default 900) */
  pay_window_seconds: z.number().int(),
  /** seconds after payment is marked before either party may appeal (C2C_APPEAL_AFTER_SECONDS, default 900) */
  appeal_after_seconds: z.number().int(),
  /** merchant security deposit (C2C_MERCHANT_DEPOSIT_USDT, default "1000") */
  merchant_deposit: z.string(),
  deposit_currency: z.string(),
  deposit_currency_id: z.number().int(),
  /** receiving methods per user besides the bank card (C2C_MAX_PAY_METHODS, default 5) */
  max_pay_methods: z.number().int(),
  max_unfinished: z.number().int(),
  max_cancels_per_day: z.number().int(),
  fiat: z.string(),
  /** the caller's cancellations today (Beijing day) and whether ordering is restricted until tomorrow; 0/false when logged out */
  cancels_today: z.number().int(),
  restricted_until_tomorrow: z.boolean(),
});
export type C2cConfig = z.infer<typeof c2cConfigSchema>;

/** An advert as the market and its owner see it (spec §3 fields first). */
export const c2cAdvertSchema = z.object({
  id: z.number().int(),
  /** the merchant's name */
  seller_name: z.string(),
  /** avatar colour of the merchant, "#rrggbb" */
  bgcolor: z.string(),
  /** coins still available for new orders */
  surplus_number: z.string(),
  /** the per-order limits as coin quantities at this price (min rounded up, max rounded down and capped by surplus_number) */
  min_number: z.string(),
  max_number: z.string(),
  /** CNY per coin, 2 decimals */
  price: z.string(),
  currency_name: z.string(),
  type: c2cTypeSchema,
  /** the viewer's available coins in the legal account (the "all" button of a sell-to-merchant order); "0" when logged out */
  user_sell_all_balance: z.string(),
  // beyond the spec
  currency_id: z.number().int(),
  legal_name: z.string(),
  /** per-order limits in CNY, 2 decimals */
  min_money: z.string(),
  max_money: z.string(),
  total_number: z.string(),
  pay_kinds: z.array(payKindSchema),
  remark: z.string(),
  status: advertStatusSchema,
  /** the merchant's finished orders (all adverts) */
  deal_count: z.number().int(),
  /** the viewer owns this advert (cannot take it) */
  own: z.boolean(),
  /** orders of this advert that are unpaid or paid (its owner's view; 0 on the market) */
  running_orders: z.number().int(),
  create_time: z.number().int(),
  format_create_time: z.string(),
});
export type C2cAdvert = z.infer<typeof c2cAdvertSchema>;
/** GET /api/new/legal_deal/index → `{ status: 1, data: { total, lists } }` */
export const c2cAdvertPageSchema = pageSchema(c2cAdvertSchema);
/** GET /api/c2c/adverts/mine → classic `{ total, lists }` */
export const myAdvertPageSchema = pageSchema(c2cAdvertSchema);

/** Where the buyer sends the fiat: the seller's receiving method as recorded when the order was created. */
export const paySnapshotSchema = z.object({
  kind: payKindSchema,
  /** the seller's verified real name (bank: the card's holder) */
  holder_name: z.string(),
  account: z.string(),
  /** bank only */
  bank_name: z.string(),
  bank_branch: z.string(),
  /** "other" only: the service name */
  label: z.string(),
  /** the payment-code picture (order file url) or null */
  qr_code: z.string().nullable(),
});
export type PaySnapshot = z.infer<typeof paySnapshotSchema>;

/** An appeal as the parties and operators see it. */
export const c2cAppealSchema = z.object({
  id: z.number().int(),
  order_id: z.number().int(),
  status: appealStatusSchema,
  /** who appealed */
  by: c2cRoleSchema,
  reason: z.string(),
  /** evidence picture urls (order file urls) */
  evidence: z.array(z.string()),
  create_time: z.number().int(),
  format_create_time: z.string(),
  /** the operator's reason once decided */
  decision_reason: z.string(),
  decided_time: z.number().int().nullable(),
});
export type C2cAppeal = z.infer<typeof c2cAppealSchema>;

/** A C2C order (spec §3 fields first, then what the screens need beyond them). */
export const c2cOrderSchema = z.object({
  id: z.number().int(),
  /** the advert's type: "sell" = the merchant sells (the taker buys), "buy" = the merchant buys (the taker sells) */
  type: c2cTypeSchema,
  is_sure: isSureSchema,
  currency_name: z.string(),
  /** coin quantity */
  number: z.string(),
  /** CNY per coin */
  price: z.string(),
  /** CNY to pay, 2 decimals (dealMoneyCents) */
  deal_money: z.string(),
  /** ms since epoch */
  create_time: z.number().int(),
  format_create_time: z.string(),
  /** the seller's first receiving account (the full list is pay_methods) */
  account_number: z.string(),
  /** the merchant's name */
  seller_name: z.string(),
  /** the order number shown to people ("C" + id) */
  ordernumber: z.string(),
  /** the buyer's payment proof (order file url), null until paid */
  pay_orders_img: z.string().nullable(),
  /** seconds left to pay (0 unless unpaid) */
  cancel_time: z.number().int(),
  // beyond the spec
  currency_id: z.number().int(),
  legal_name: z.string(),
  advert_id: z.number().int(),
  /** the viewer's side */
  role: c2cRoleSchema,
  /** the viewer is the advert's merchant */
  is_merchant: z.boolean(),
  /** the other party: the merchant's name, or the user's real name with all but the first character masked */
  counterparty_name: z.string(),
  /**
   * the other party's verified real name while the order is open (unpaid or paid, also under
   * appeal): the buyer pays from an account in their own name, and the seller checks it; null on
   * finished and cancelled orders
   */
  counterparty_real_name: z.string().nullable(),
  /** the seller's receiving methods accepted by the advert, as recorded at creation */
  pay_methods: z.array(paySnapshotSchema),
  /** ms: end of the payment window */
  pay_deadline: z.number().int(),
  paid_time: z.number().int().nullable(),
  /** ms: when it finished (1) or was cancelled (2) */
  end_time: z.number().int().nullable(),
  /** why it was cancelled: by the buyer, the payment window ended, or an operator returned the coins on appeal */
  cancel_reason: z.enum(["buyer", "expired", "appeal"]).nullable(),
  /** ms from when either party may appeal (paid orders only), else null */
  appeal_from: z.number().int().nullable(),
  appeal: c2cAppealSchema.nullable(),
  /** the newest chat message id (0 when none): a badge when it is above the last one read */
  last_message_id: z.number().int(),
});
export type C2cOrder = z.infer<typeof c2cOrderSchema>;

/** GET /api/legal_user_deal (classic): `message.total`, `message.pages`, `message.data`. */
export const c2cOrderListSchema = z.object({ total: z.number().int(), pages: z.number().int(), data: z.array(c2cOrderSchema) });
/** GET /api/c2c/merchant/orders: orders on one's adverts, `{ total, lists }`. */
export const c2cOrderPageSchema = pageSchema(c2cOrderSchema);

/** POST /api/do_legal_deal answer: `message.msg` (translated), `message.data.id` (the new order). */
export const c2cOrderCreatedSchema = z.object({ msg: z.string(), data: z.object({ id: z.number().int(), is_sure: isSureSchema }) });

/** The merchant state of the caller (GET /api/c2c/merchant and the apply/leave answers). */
export const merchantSchema = z.object({
  /** null: never applied */
  status: merchantStatusSchema.nullable(),
  is_seller: z.union([z.literal(0), z.literal(1)]),
  name: z.string().nullable(),
  /** the deposit frozen for this application (USDT), null when none */
  deposit: z.string().nullable(),
  deposit_currency: z.string(),
  /** the operator's reason when rejected */
  reason: z.string(),
  apply_time: z.number().int().nullable(),
  decided_time: z.number().int().nullable(),
  /** adverts on shelf, off shelf or abnormal (must be withdrawn before leaving) */
  open_adverts: z.number().int(),
});
export type Merchant = z.infer<typeof merchantSchema>;

/** A receiving method of the caller. id 0 is the bank card (edit it with POST /api/user/cash_save). */
export const payMethodSchema = z.object({
  id: z.number().int(),
  kind: payKindSchema,
  holder_name: z.string(),
  /** bank: masked card number; others: the account */
  account: z.string(),
  bank_name: z.string(),
  label: z.string(),
  /** payment-code picture url (own upload) or null */
  qr_code: z.string().nullable(),
  create_time: z.number().int(),
  /** bank card only: its holder is not the verified real name, so C2C does not offer it (false for the others) */
  name_mismatch: z.boolean(),
});
export type PayMethod = z.infer<typeof payMethodSchema>;
export const payMethodListSchema = z.object({ lists: z.array(payMethodSchema), max: z.number().int() });
export const payMethodDeletedSchema = z.object({ id: z.number().int(), deleted: z.literal(true) });

/** A chat message of an order. */
export const c2cMessageSchema = z.object({
  id: z.number().int(),
  order_id: z.number().int(),
  /** from the viewer, the other party, or an operator (on appeal) */
  sender: z.enum(["me", "counterparty", "operator"]),
  kind: z.enum(["text", "image"]),
  /** "" for images */
  text: z.string(),
  /** order file url for images, else null */
  image: z.string().nullable(),
  create_time: z.number().int(),
  format_create_time: z.string(),
});
export type C2cMessage = z.infer<typeof c2cMessageSchema>;
export const c2cMessageListSchema = z.object({ lists: z.array(c2cMessageSchema) });

// ── Operator console (/api/admin/c2c/*) ─────────────────────────────────────────────────────────

export const adminC2cListQuerySchema = pageQuerySchema.extend({
  status: intInput({ message: "invalid_param", max: 4 }).optional(),
  user_id: idInput({ message: "invalid_param" }).optional(),
});

/** An operator decision on C2C records: the reason is required (it is audited and shown to the parties). */
export const c2cDecisionSchema = z.object({
  reason: z.string({ message: "reason_required" }).trim().refine(multiLineText, TEXT_CHARS).min(1, { message: "reason_required" }).max(500, { message: "too_long" }),
});

export const adminMerchantSchema = z.object({
  id: z.number().int(),
  user_id: z.number().int(),
  account: z.string(),
  real_name: z.string().nullable(),
  name: z.string(),
  status: merchantStatusSchema,
  deposit: z.string(),
  deposit_currency: z.string(),
  reason: z.string(),
  decided_by: z.number().int().nullable(),
  apply_time: z.number().int(),
  format_apply_time: z.string(),
  /** the application is the viewing operator's own: they may not decide it */
  own: z.boolean(),
});
export const adminMerchantPageSchema = pageSchema(adminMerchantSchema);

export const adminAdvertSchema = c2cAdvertSchema.extend({ user_id: z.number().int(), account: z.string() });
export const adminAdvertPageSchema = pageSchema(adminAdvertSchema);

/** An order as operators see it: both parties named. */
export const adminC2cOrderSchema = c2cOrderSchema.omit({ role: true, is_merchant: true, counterparty_name: true, counterparty_real_name: true }).extend({
  buyer_id: z.number().int(),
  buyer_account: z.string(),
  seller_id: z.number().int(),
  seller_account: z.string(),
  merchant_id: z.number().int(),
});

export const adminAppealSchema = c2cAppealSchema.extend({
  by_user_id: z.number().int(),
  decided_by: z.number().int().nullable(),
  order: adminC2cOrderSchema,
  /** the viewing operator is a party of the order: they may not decide it */
  own: z.boolean(),
});
export const adminAppealPageSchema = pageSchema(adminAppealSchema);

/** GET /api/admin/c2c/appeals/{id}: the appeal with the order, the proof, the whole chat and the order's state changes. */
export const adminAppealDetailSchema = adminAppealSchema.extend({
  messages: z.array(c2cMessageSchema.omit({ sender: true }).extend({ sender: z.enum(["buyer", "seller", "operator"]) })),
  events: z.array(z.object({ from: isSureSchema, to: isSureSchema, action: z.string(), actor_id: z.number().int().nullable(), time: z.number().int(), format_time: z.string() })),
});

/** Operator decisions on merchants, adverts and appeals answer the record's new state. */
export const c2cDecisionResultSchema = z.object({ id: z.number().int(), status: z.number().int() });
