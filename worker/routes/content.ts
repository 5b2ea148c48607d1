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
import { Hono } from "hono";
import {
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
  type Kefu,
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
import { ok, okNew } from "../lib/respond.ts";
import { params, query } from "../lib/validate.ts";

const SHANGHAI_OFFSET_MS = 8 * 3600 * 1000; // Asia/Shanghai has no daylight saving time.

/** Formats epoch milliseconds as "YYYY-MM-DD HH:mm:ss" in Asia/Shanghai (the spec's display zone). */
export function shanghaiTime(ms: number): string {
  return new Date(ms + SHANGHAI_OFFSET_MS).toISOString().slice(0, 19).replace("T", " ");
}

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
  high_24h: string | null;
  low_24h: string | null;
}

/** Open pairs grouped by quote currency, with the stored 24 h ticker or zeros when none exists. */
async function quotationGroups(db: D1Database): Promise<QuotationGroup[]> {
  const { results } = await db
    .prepare(
      `SELECT p.id, p.currency_id, c.name AS currency_name, p.legal_id, l.name AS legal_name, c.logo,
              t.last_price, t.change_24h, t.volume_24h, t.high_24h, t.low_24h
       FROM pairs p
       JOIN currencies c ON c.id = p.currency_id
       JOIN currencies l ON l.id = p.legal_id
       LEFT JOIN tickers t ON t.pair_id = p.id
       WHERE p.open = 1 AND c.show = 1 AND l.is_legal = 1
       ORDER BY l.sort, l.id, p.sort, p.id`,
    )
    .all<QuotationRow>();
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
      high: r.high_24h ?? "0",
      low: r.low_24h ?? "0",
    });
  }
  return groups;
}

async function kefuLink(db: D1Database): Promise<string> {
  const row = await db.prepare("SELECT value FROM settings WHERE key = 'kefu_link'").first<{ value: string }>();
  return row?.value ?? "";
}

const CURRENCY_COLUMNS = "id, name, logo, scale, is_legal, is_lever, is_match, is_micro";

async function shownCurrencies(db: D1Database): Promise<Currency[]> {
  const { results } = await db.prepare(`SELECT ${CURRENCY_COLUMNS} FROM currencies WHERE show = 1 ORDER BY sort, id`).all<Currency>();
  return results.map((r) => ({
    id: r.id,
    name: r.name,
    logo: r.logo,
    scale: r.scale,
    is_legal: r.is_legal,
    is_lever: r.is_lever,
    is_match: r.is_match,
    is_micro: r.is_micro,
  }));
}

export const contentRoutes = new Hono<AppEnv>()
  .get("/new/home/index", async (c) => {
    const db = c.env.DB;
    const locale = c.get("locale");
    const session = await sessionUser(db, c.req.raw);
    const [banner_list, notice_list, quotation_new, kefu, profile] = await Promise.all([
      banners(db, locale),
      notices(db, locale),
      quotationGroups(db),
      kefuLink(db),
      session
        ? db.prepare("SELECT review_status, real_name FROM users WHERE id = ?").bind(session.id).first<{ review_status: number; real_name: string | null }>()
        : Promise.resolve(null),
    ]);
    // The real name is shown only once identity verification is approved (spec §4).
    const user = profile ? { review_status: profile.review_status, name: profile.review_status === 2 ? profile.real_name : null } : null;
    const data: HomeIndex = { banner_list, notice_list, quotation_new, kefu, user };
    return okNew(c, data);
  })

  .get("/new/home/agreement", async (c) => {
    const row = await c.env.DB.prepare("SELECT title, content FROM agreements WHERE lang IN (?1, 'en') ORDER BY lang = ?1 DESC LIMIT 1")
      .bind(c.get("locale"))
      .first<Agreement>();
    if (!row) throw notFound();
    const data: Agreement = { title: row.title, content: row.content };
    return okNew(c, data);
  })

  .get("/new/news/index", query(newsPageQuerySchema), async (c) => {
    const { page } = c.req.valid("query");
    return okNew(c, await newsPage(c.env.DB, c.get("locale"), "news", page ?? 1));
  })

  .get("/new/news/newsHelp", query(newsPageQuerySchema), async (c) => {
    const { page } = c.req.valid("query");
    return okNew(c, await newsPage(c.env.DB, c.get("locale"), "help", page ?? 1));
  })

  .get("/new/news/show/:id", params(newsIdParamSchema), async (c) => {
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

  .get("/cfg/kefu", async (c) => {
    const data: Kefu = { mobile: await kefuLink(c.env.DB) };
    return ok(c, data);
  })

  .get("/currency/list", async (c) => {
    const currencies = await shownCurrencies(c.env.DB);
    const data: CurrencyList = { legal: currencies.filter((x) => x.is_legal === 1), currencies };
    return ok(c, data);
  })

  .get("/currency/quotation_new", async (c) => ok(c, await quotationGroups(c.env.DB)))

  .get("/currency/user_currency_list", async (c) => {
    const data: UserCurrency[] = (await shownCurrencies(c.env.DB)).map((x) => ({ ...x, wallet: null }));
    return ok(c, data);
  })

  .get("/country/list", async (c) => {
    const { results } = await c.env.DB.prepare("SELECT country_id, area_code, name_cn, name_en FROM countries ORDER BY country_id").all<Country>();
    const data: Country[] = results.map((r) => ({ country_id: r.country_id, area_code: r.area_code, name_cn: r.name_cn, name_en: r.name_en }));
    return ok(c, data);
  });
