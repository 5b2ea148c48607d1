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
  HOME_NOTICE_LIMIT,
  NEWS_PAGE_SIZE,
  newsIdParamSchema,
  newsPageQuerySchema,
  type Agreement,
  type Banner,
  type Country,
  type Currency,
  type CurrencyList,
  type HomeIndex,
  type NewsCategory,
  type NewsDetail,
  type NewsPage,
  type NoticeItem,
  type QuotationGroup,
  type UserCurrency,
} from "../../schemas/content.ts";
import type { Locale } from "../../schemas/locale.ts";
import { sessionUser } from "../lib/auth.ts";
import type { AppEnv } from "../lib/context.ts";
import { notFound } from "../lib/errors.ts";
import { answers, answersNew, ok, okNew } from "../lib/respond.ts";
import { params, query } from "../lib/validate.ts";
import { formatShanghai } from "../lib/time.ts";
import { alias } from "drizzle-orm/sqlite-core";
import { and, asc, eq, inArray, sql } from "drizzle-orm";
import { getDb, schema } from "../db/client.ts";

const shanghaiTime = formatShanghai;

/**
 * Rows of `news` (alias n) visible in language ?1: the row in that language, or the English row
 * of an article (slug) that has no translation into it.
 */
const LOCALIZED_NEWS = `(n.lang = ?1 OR (n.lang = 'en' AND NOT EXISTS (SELECT 1 FROM news m WHERE m.slug = n.slug AND m.lang = ?1)))`;
const NEWS_ORDER = "n.sort DESC, n.created_at DESC, n.id DESC";

interface NewsRow {
  id: number;
  title: string;
  cover: string;
  created_at: number;
}

async function newsPage(db: D1Database, locale: Locale, category: NewsCategory, page: number): Promise<NewsPage> {
  const where = `n.category = ?2 AND ${LOCALIZED_NEWS}`;
  const [count, list] = await db.batch<{ total: number } | NewsRow>([
    db.prepare(`SELECT COUNT(*) AS total FROM news n WHERE ${where}`).bind(locale, category),
    db
      .prepare(`SELECT n.id, n.title, n.cover, n.created_at FROM news n WHERE ${where} ORDER BY ${NEWS_ORDER} LIMIT ?3 OFFSET ?4`)
      .bind(locale, category, NEWS_PAGE_SIZE, (page - 1) * NEWS_PAGE_SIZE),
  ]);
  const total = (count?.results[0] as { total: number } | undefined)?.total ?? 0;
  const rows = (list?.results ?? []) as NewsRow[];
  return {
    total,
    lists: rows.map((r) => ({
      id: r.id,
      title: r.title,
      create_time: shanghaiTime(r.created_at),
      cover: r.cover,
      cover_format: r.cover,
    })),
  };
}

async function notices(db: D1Database, locale: Locale): Promise<NoticeItem[]> {
  const { results } = await db
    .prepare(`SELECT n.id, n.title, n.created_at FROM news n WHERE n.category = 'notice' AND ${LOCALIZED_NEWS} ORDER BY ${NEWS_ORDER} LIMIT ?2`)
    .bind(locale, HOME_NOTICE_LIMIT)
    .all<{ id: number; title: string; created_at: number }>();
  return results.map((r) => ({ id: r.id, title: r.title, create_time: shanghaiTime(r.created_at) }));
}

/** Banners of the language, plus English banners whose article has no banner in that language. */
async function banners(db: D1Database, locale: Locale): Promise<Banner[]> {
  const { results } = await db
    .prepare(
      `SELECT b.news_id AS id, b.cover FROM banners b JOIN news n ON n.id = b.news_id
       WHERE b.lang = ?1 OR (b.lang = 'en' AND NOT EXISTS (
         SELECT 1 FROM banners b2 JOIN news n2 ON n2.id = b2.news_id WHERE b2.lang = ?1 AND n2.slug = n.slug))
       ORDER BY b.sort DESC, b.id`,
    )
    .bind(locale)
    .all<Banner>();
  return results.map((r) => ({ id: r.id, cover: r.cover }));
}

interface QuotationRow {
  id: number;
  currency_id: number;
  currency_name: string;
  legal_id: number;
  legal_name: string;
  logo: string;
  last_price: string | null;
  change_24h: string | null;
  volume_24h: string | null;
  quote_volume_24h: string | null;
  high_24h: string | null;
  low_24h: string | null;
}

/** Open pairs grouped by quote currency, with the stored 24 h ticker or zeros when none exists. */
async function quotationGroups(d1: D1Database): Promise<QuotationGroup[]> {
  const { pairs, currencies, tickers } = schema;
  const legal = alias(currencies, "l");
  const results: QuotationRow[] = await getDb(d1)
    .select({
      id: pairs.id,
      currency_id: pairs.currencyId,
      currency_name: currencies.name,
      legal_id: pairs.legalId,
      legal_name: legal.name,
      logo: currencies.logo,
      last_price: tickers.lastPrice,
      change_24h: tickers.change24h,
      volume_24h: tickers.volume24h,
      quote_volume_24h: tickers.quoteVolume24h,
      high_24h: tickers.high24h,
      low_24h: tickers.low24h,
    })
    .from(pairs)
    .innerJoin(currencies, eq(currencies.id, pairs.currencyId))
    .innerJoin(legal, eq(legal.id, pairs.legalId))
    .leftJoin(tickers, eq(tickers.pairId, pairs.id))
    .where(and(eq(pairs.open, 1), eq(currencies.show, 1), eq(legal.isLegal, 1)))
    .orderBy(asc(legal.sort), asc(legal.id), asc(pairs.sort), asc(pairs.id));
  const groups: QuotationGroup[] = [];
  for (const r of results) {
    let group = groups.find((g) => g.id === r.legal_id);
    if (!group) {
      group = { id: r.legal_id, name: r.legal_name, quotation: [] };
      groups.push(group);
    }
    group.quotation.push({
      id: r.id,
      currency_id: r.currency_id,
      currency_name: r.currency_name,
      legal_id: r.legal_id,
      legal_name: r.legal_name,
      logo: r.logo,
      now_price: r.last_price ?? "0",
      change: r.change_24h ?? "0.00",
      volume: r.volume_24h ?? "0",
      quote_volume: r.quote_volume_24h ?? "0",
      high: r.high_24h ?? "0",
      low: r.low_24h ?? "0",
    });
  }
  return groups;
}

async function kefuLink(d1: D1Database): Promise<string> {
  const [row] = await getDb(d1).select({ value: schema.settings.value }).from(schema.settings).where(eq(schema.settings.key, "kefu_link"));
  return row?.value ?? "";
}

async function shownCurrencies(d1: D1Database): Promise<Currency[]> {
  const c = schema.currencies;
  return getDb(d1)
    .select({ id: c.id, name: c.name, logo: c.logo, scale: c.scale, is_legal: c.isLegal, is_lever: c.isLever, is_match: c.isMatch, is_micro: c.isMicro })
    .from(c)
    .where(eq(c.show, 1))
    .orderBy(asc(c.sort), asc(c.id));
}

export const contentRoutes = new Hono<AppEnv>()
  .get("/new/home/index", answersNew(homeIndexSchema, { summary: "Home page: banners, notices, quotations, service link, the caller's verification" }), async (c) => {
    const db = c.env.DB;
    const locale = c.get("locale");
    const session = await sessionUser(db, c.req.raw);
    const [banner_list, notice_list, quotation_new, kefu, profile] = await Promise.all([
      banners(db, locale),
      notices(db, locale),
      quotationGroups(db),
      kefuLink(db),
      session
        ? getDb(db)
            .select({ review_status: schema.users.reviewStatus, real_name: schema.users.realName })
            .from(schema.users)
            .where(eq(schema.users.id, session.id))
            .then((rows) => rows[0] ?? null)
        : Promise.resolve(null),
    ]);
    // The real name is shown only once identity verification is approved (spec §4).
    const user = profile ? { review_status: profile.review_status, name: profile.review_status === 2 ? profile.real_name : null } : null;
    const data: HomeIndex = { banner_list, notice_list, quotation_new, kefu, user };
    return okNew(c, data);
  })

  .get("/new/home/agreement", answersNew(agreementSchema, { summary: "User agreement (HTML)" }), async (c) => {
    const a = schema.agreements;
    const locale = c.get("locale");
    const [row] = await getDb(c.env.DB)
      .select({ title: a.title, content: a.content })
      .from(a)
      .where(inArray(a.lang, [locale, "en"]))
      .orderBy(sql`${a.lang} = ${locale} DESC`)
      .limit(1);
    if (!row) throw notFound();
    const data: Agreement = { title: row.title, content: row.content };
    return okNew(c, data);
  })

  .get("/new/news/index", query(newsPageQuerySchema), answersNew(newsPageSchema, { summary: "News, 10 a page" }), async (c) => {
    const { page } = c.req.valid("query");
    return okNew(c, await newsPage(c.env.DB, c.get("locale"), "news", page ?? 1));
  })

  .get("/new/news/newsHelp", query(newsPageQuerySchema), answersNew(newsPageSchema, { summary: "Help articles, 10 a page" }), async (c) => {
    const { page } = c.req.valid("query");
    return okNew(c, await newsPage(c.env.DB, c.get("locale"), "help", page ?? 1));
  })

  .get("/new/news/show/:id", params(newsIdParamSchema), answersNew(newsDetailSchema, { summary: "One article (HTML), in the reader's language when translated" }), async (c) => {
    const { id } = c.req.valid("param");
    const locale = c.get("locale");
    const db = c.env.DB;
    type Row = { id: number; lang: string; slug: string; title: string; cover: string; content: string; created_at: number };
    const columns = "id, lang, slug, title, cover, content, created_at";
    let row = await db.prepare(`SELECT ${columns} FROM news WHERE id = ?`).bind(id).first<Row>();
    if (!row) throw notFound();
    if (row.lang !== locale) {
      // A link shared from another language opens the reader's translation when there is one.
      const translated = await db.prepare(`SELECT ${columns} FROM news WHERE slug = ? AND lang = ?`).bind(row.slug, locale).first<Row>();
      if (translated) row = translated;
    }
    const data: NewsDetail = {
      vo: {
        id: row.id,
        title: row.title,
        create_time: shanghaiTime(row.created_at),
        cover: row.cover,
        cover_format: row.cover,
        content: row.content,
      },
    };
    return okNew(c, data);
  })

  .get("/cfg/kefu", answers(kefuSchema, { summary: "Customer-service link and the product switches of this deployment" }), async (c) => {
    return ok(c, { mobile: await kefuLink(c.env.DB), products: productsOf(c.env) });
  })

  .get("/currency/list", answers(currencyListSchema, { summary: "Shown currencies, and the legal (quote) ones" }), async (c) => {
    const currencies = await shownCurrencies(c.env.DB);
    const data: CurrencyList = { legal: currencies.filter((x) => x.is_legal === 1), currencies };
    return ok(c, data);
  })

  .get("/currency/quotation_new", answers(quotationListSchema, { summary: "Open pairs with 24 h tickers from executed trades, by quote currency" }), async (c) => ok(c, await quotationGroups(c.env.DB)))

  .get("/currency/user_currency_list", answers(userCurrencyListSchema, { summary: "Shown currencies (wallet not filled)" }), async (c) => {
    const data: UserCurrency[] = (await shownCurrencies(c.env.DB)).map((x) => ({ ...x, wallet: null }));
    return ok(c, data);
  })

  .get("/country/list", answers(countryListSchema, { summary: "Countries and calling codes" }), async (c) => {
    const k = schema.countries;
    const data: Country[] = await getDb(c.env.DB)
      .select({ country_id: k.countryId, area_code: k.areaCode, name_cn: k.nameCn, name_en: k.nameEn })
      .from(k)
      .orderBy(asc(k.countryId));
    return ok(c, data);
  });
