/**
 * Public content and reference data (spec §2 Home, News, Help, customer service, quotations;
 * §3 Home data, News, Quotation, User currency, Country entry). Shared by the worker
 * (worker/routes/content.ts, worker/domain/content/) and the web app. Query messages are catalogue
 * keys (schemas/errors.ts).
 */
import { z } from "zod";
import { pageSchema } from "./envelope.ts";
import { SWITCHED_PRODUCTS, type SwitchedProductId } from "./products.ts";

/** News, help and notice lists answer 10 rows per page; pages start at 1. */
export const NEWS_PAGE_SIZE = 10;
/** The home page shows at most this many notices (they rotate every 5 s on the client). */
export const HOME_NOTICE_LIMIT = 10;
/** Highest page number accepted (a larger offset can only be a probe). */
export const MAX_PAGE = 100_000;

export const newsCategories = ["news", "help", "notice"] as const;
export type NewsCategory = (typeof newsCategories)[number];

/** `?page=` of the list endpoints: digits only, 1..MAX_PAGE, default 1. */
export const pageNumberSchema = z
  .string({ message: "invalid_field" }) // also a repeated ?page=1&page=2 (an array)
  .max(9, { message: "too_long" })
  .regex(/^[1-9]\d*$/, { message: "invalid_field" })
  .transform(Number)
  .refine((n) => n <= MAX_PAGE, { message: "invalid_field" });

export const newsPageQuerySchema = z.object({ page: pageNumberSchema.optional() });
export type NewsPageQuery = z.input<typeof newsPageQuerySchema>;

/** `/news/show/{id}`: a positive integer id that fits in a JS number. */
export const newsIdParamSchema = z.object({
  id: z
    .string({ message: "invalid_field" })
    .max(20, { message: "too_long" })
    .regex(/^[1-9]\d{0,14}$/, { message: "invalid_field" })
    .transform(Number),
});

/** One row of a news/help list. `cover_format` is the displayable cover (same as `cover` here). */
export const newsItemSchema = z.object({
  id: z.number().int(),
  title: z.string(),
  /** "YYYY-MM-DD HH:mm:ss", Asia/Shanghai */
  create_time: z.string(),
  cover: z.string(),
  cover_format: z.string(),
});
export type NewsItem = z.infer<typeof newsItemSchema>;

export const newsPageSchema = pageSchema(newsItemSchema);
export type NewsPage = z.infer<typeof newsPageSchema>;

/** GET /api/new/news/show/{id}: `content` is HTML written by the operators. */
export const newsDetailSchema = z.object({ vo: newsItemSchema.extend({ content: z.string() }) });
export type NewsDetail = z.infer<typeof newsDetailSchema>;

export const noticeItemSchema = z.object({ id: z.number().int(), title: z.string(), create_time: z.string() });
export type NoticeItem = z.infer<typeof noticeItemSchema>;

/** A home banner: `id` is the news article it opens. */
export const bannerSchema = z.object({ id: z.number().int(), cover: z.string() });
export type Banner = z.infer<typeof bannerSchema>;

/**
 * One pair in the quotation list. Prices and volumes are decimal strings taken only from the
 * tickers table (executed trades); a pair that has not traded shows "0" and change "0.00".
 */
export const quotationSchema = z.object({
  /** the pair ("match") id */
  id: z.number().int(),
  currency_id: z.number().int(),
  currency_name: z.string(),
  legal_id: z.number().int(),
  legal_name: z.string(),
  logo: z.string(),
  now_price: z.string(),
  /** percent over 24 h with 2 decimals, e.g. "-1.25" */
  change: z.string(),
  /** 24 h base-currency volume */
  volume: z.string(),
  /** 24 h volume in the quote currency (USDT), two decimals: what screens show */
  quote_volume: z.string(),
  high: z.string(),
  low: z.string(),
  /** spot trading fees in percent of what is received ("0.1"): the resting (maker) and the taking (taker) side */
  maker_fee: z.string().optional(),
  taker_fee: z.string().optional(),
  /** leveraged contracts: fee per open and per close in percent, and coin per lot; null when the pair offers none */
  lever_trade_fee: z.string().nullable().optional(),
  lever_share_num: z.string().nullable().optional(),
});
export type Quotation = z.infer<typeof quotationSchema>;

/** Pairs grouped by their quote (legal) currency: in practice one group, USDT (id 3). */
export const quotationGroupSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  quotation: z.array(quotationSchema),
});
export type QuotationGroup = z.infer<typeof quotationGroupSchema>;

/** GET /api/currency/quotation_new */
export const quotationListSchema = z.array(quotationGroupSchema);

export const homeUserSchema = z.object({ review_status: z.number().int(), name: z.string().nullable() });

/** GET /api/new/home/index */
export const homeIndexSchema = z.object({
  banner_list: z.array(bannerSchema),
  notice_list: z.array(noticeItemSchema),
  quotation_new: z.array(quotationGroupSchema),
  kefu: z.string(),
  user: homeUserSchema.nullable(),
});
export type HomeIndex = z.infer<typeof homeIndexSchema>;

/** GET /api/new/home/agreement: `content` is HTML. */
export const agreementSchema = z.object({ title: z.string(), content: z.string() });
export type Agreement = z.infer<typeof agreementSchema>;

/** The switches as GET /api/cfg/kefu sends them: one boolean per switched product (schemas/products.ts). */
const productsSchema = z.object(Object.fromEntries(SWITCHED_PRODUCTS.map((id) => [id, z.boolean()])) as Record<SwitchedProductId, z.ZodBoolean>);

/** GET /api/cfg/kefu: the service link (settings key `kefu_link`), and which product areas this deployment has switched on. */
export const kefuSchema = z.object({
  mobile: z.string(),
  products: productsSchema,
});
export type Kefu = z.infer<typeof kefuSchema>;

export const currencySchema = z.object({
  id: z.number().int(),
  name: z.string(),
  logo: z.string(),
  /** decimals of the currency's minimal unit */
  scale: z.number().int(),
  is_legal: z.number().int(),
  is_lever: z.number().int(),
  is_match: z.number().int(),
  is_micro: z.number().int(),
});
export type Currency = z.infer<typeof currencySchema>;

/** GET /api/currency/list */
export const currencyListSchema = z.object({ legal: z.array(currencySchema), currencies: z.array(currencySchema) });
export type CurrencyList = z.infer<typeof currencyListSchema>;

/** GET /api/currency/user_currency_list: `wallet` is not filled by this endpoint yet (always null). */
export const userCurrencySchema = currencySchema.extend({ wallet: z.null() });
export type UserCurrency = z.infer<typeof userCurrencySchema>;
export const userCurrencyListSchema = z.array(userCurrencySchema);

/** GET /api/country/list */
export const countrySchema = z.object({
  country_id: z.number().int(),
  area_code: z.string(),
  name_cn: z.string(),
  name_en: z.string(),
});
export type Country = z.infer<typeof countrySchema>;
export const countryListSchema = z.array(countrySchema);
