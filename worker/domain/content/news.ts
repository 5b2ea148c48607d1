/**
 * Published articles in the reader's language: news, help, notices, banners and the user agreement.
 * An article missing in that language falls back to its English version (same `slug`). Ordering:
 * `sort` is a priority (higher first), then newest first.
 */
import {
  HOME_NOTICE_LIMIT,
  NEWS_PAGE_SIZE,
  type Agreement,
  type Banner,
  type NewsCategory,
  type NewsDetail,
  type NewsPage,
  type NoticeItem,
} from "../../../schemas/content.ts";
import type { Locale } from "../../../schemas/locale.ts";
import { notFound } from "../../lib/errors.ts";
import { formatShanghai } from "../../lib/time.ts";
import { inArray, sql } from "drizzle-orm";
import { getDb, schema } from "../../db/client.ts";

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

/** One page of an article category. */
export async function newsPage(db: D1Database, locale: Locale, category: NewsCategory, page: number): Promise<NewsPage> {
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

/** The newest notices for the home page. */
export async function notices(db: D1Database, locale: Locale): Promise<NoticeItem[]> {
  const { results } = await db
    .prepare(`SELECT n.id, n.title, n.created_at FROM news n WHERE n.category = 'notice' AND ${LOCALIZED_NEWS} ORDER BY ${NEWS_ORDER} LIMIT ?2`)
    .bind(locale, HOME_NOTICE_LIMIT)
    .all<{ id: number; title: string; created_at: number }>();
  return results.map((r) => ({ id: r.id, title: r.title, create_time: shanghaiTime(r.created_at) }));
}

/** Banners of the language, plus English banners whose article has no banner in that language. */
export async function banners(db: D1Database, locale: Locale): Promise<Banner[]> {
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

/** One article (HTML); a link shared from another language opens the reader's translation when there is one. */
export async function newsArticle(db: D1Database, id: number, locale: Locale): Promise<NewsDetail> {
  type Row = { id: number; lang: string; slug: string; title: string; cover: string; content: string; created_at: number };
  const columns = "id, lang, slug, title, cover, content, created_at";
  let row = await db.prepare(`SELECT ${columns} FROM news WHERE id = ?`).bind(id).first<Row>();
  if (!row) throw notFound();
  if (row.lang !== locale) {
    // A link shared from another language opens the reader's translation when there is one.
    const translated = await db.prepare(`SELECT ${columns} FROM news WHERE slug = ? AND lang = ?`).bind(row.slug, locale).first<Row>();
    if (translated) row = translated;
  }
  return {
    vo: {
      id: row.id,
      title: row.title,
      create_time: shanghaiTime(row.created_at),
      cover: row.cover,
      cover_format: row.cover,
      content: row.content,
    },
  };
}

/** The user agreement in the reader's language, else English. */
export async function agreement(d1: D1Database, locale: Locale): Promise<Agreement> {
  const a = schema.agreements;
  const [row] = await getDb(d1)
    .select({ title: a.title, content: a.content })
    .from(a)
    .where(inArray(a.lang, [locale, "en"]))
    .orderBy(sql`${a.lang} = ${locale} DESC`)
    .limit(1);
  if (!row) throw notFound();
  return { title: row.title, content: row.content };
}
