/**
 * Public content and reference data: home page, news / help / notices, the user agreement, the
 * customer-service link, currencies, quotations and countries (spec §2, §3, §7).
 *
 * Everything here is readable without logging in. Texts come from D1 in the request's language
 * (`c.get("locale")`); an article missing in that language falls back to its English version
 * (same `slug`). Quotations come only from the `tickers` table, which the spot engine writes from
 * executed trades: a pair that has not traded shows "0", never an invented price.
 * Ordering: `sort` is a priority (higher first), then newest first.
 */
import { productsOf } from "../lib/products.ts";
import { Hono } from "hono";
import {
  agreementSchema,
  countryListSchema,
  currencyListSchema,
  homeIndexSchema,
  kefuSchema,
  newsDetailSchema,
  newsPageSchema,
  quotationListSchema,
  userCurrencyListSchema,
  newsIdParamSchema,
  newsPageQuerySchema,
  type CurrencyList,
  type HomeIndex,
  type UserCurrency,
} from "../../schemas/content.ts";
import { sessionUser } from "../lib/auth.ts";
import type { AppEnv } from "../lib/context.ts";
import { answers, answersNew, ok, okNew } from "../lib/respond.ts";
import { params, query } from "../lib/validate.ts";
import { agreement, banners, newsArticle, newsPage, notices } from "../domain/content/news.ts";
import { countries, homeUser, kefuLink, quotationGroups, shownCurrencies } from "../domain/content/reference.ts";
import { cachedPublic, PUBLIC_LISTS } from "../lib/public-cache.ts";

export const contentRoutes = new Hono<AppEnv>()
  .get("/new/home/index", answersNew(homeIndexSchema, { summary: "Home page: banners, notices, quotations, service link, the caller's verification" }), async (c) => {
    const db = c.env.DB;
    const locale = c.get("locale");
    const session = await sessionUser(db, c.req.raw);
    const [banner_list, notice_list, quotation_new, kefu, user] = await Promise.all([
      banners(db, locale),
      notices(db, locale),
      quotationGroups(db, productsOf(c.env).lever),
      kefuLink(db),
      session ? homeUser(db, session.id) : Promise.resolve(null),
    ]);
    const data: HomeIndex = { banner_list, notice_list, quotation_new, kefu, user };
    return okNew(c, data);
  })

  .get("/new/home/agreement", answersNew(agreementSchema, { summary: "User agreement (HTML)" }), async (c) => {
    return okNew(c, await agreement(c.env.DB, c.get("locale")));
  })

  .get("/new/news/index", query(newsPageQuerySchema), answersNew(newsPageSchema, { summary: "News, 10 a page" }), async (c) => {
    const { page } = c.req.valid("query");
    return okNew(c, await cachedPublic(PUBLIC_LISTS.news, () => newsPage(c.env.DB, c.get("locale"), "news", page ?? 1), { variant: `news:${c.get("locale")}:${page ?? 1}` }));
  })

  .get("/new/news/newsHelp", query(newsPageQuerySchema), answersNew(newsPageSchema, { summary: "Help articles, 10 a page" }), async (c) => {
    const { page } = c.req.valid("query");
    return okNew(c, await cachedPublic(PUBLIC_LISTS.news, () => newsPage(c.env.DB, c.get("locale"), "help", page ?? 1), { variant: `help:${c.get("locale")}:${page ?? 1}` }));
  })

  .get("/new/news/show/:id", params(newsIdParamSchema), answersNew(newsDetailSchema, { summary: "One article (HTML), in the reader's language when translated" }), async (c) => {
    const { id } = c.req.valid("param");
    return okNew(c, await newsArticle(c.env.DB, id, c.get("locale")));
  })

  .get("/cfg/kefu", answers(kefuSchema, { summary: "Customer-service link and the product switches of this deployment" }), async (c) => {
    return ok(c, { mobile: await kefuLink(c.env.DB), products: productsOf(c.env) });
  })

  .get("/currency/list", answers(currencyListSchema, { summary: "Shown currencies, and the legal (quote) ones" }), async (c) => {
    const currencies = await shownCurrencies(c.env.DB);
    const data: CurrencyList = { legal: currencies.filter((x) => x.is_legal === 1), currencies };
    return ok(c, data);
  })

  .get("/currency/quotation_new", answers(quotationListSchema, { summary: "Open pairs with 24 h tickers from executed trades, by quote currency" }), async (c) => ok(c, await quotationGroups(c.env.DB, productsOf(c.env).lever)))

  .get("/currency/user_currency_list", answers(userCurrencyListSchema, { summary: "Shown currencies (wallet not filled)" }), async (c) => {
    const data: UserCurrency[] = (await shownCurrencies(c.env.DB)).map((x) => ({ ...x, wallet: null }));
    return ok(c, data);
  })

  .get("/country/list", answers(countryListSchema, { summary: "Countries and calling codes" }), async (c) => {
    return ok(c, await cachedPublic(PUBLIC_LISTS.countries, () => countries(c.env.DB)));
  });
