// Public content and reference data through the real Worker: home page, news, help, agreement,
// customer-service link, currencies, quotations, countries. Storage is shared by the tests of this
// file, so every test starts from empty content tables and inserts the rows it needs.
import { env, SELF } from "cloudflare:test";
import { beforeEach, describe, expect, it } from "vitest";
import {
  agreementSchema,
  countrySchema,
  currencyListSchema,
  homeIndexSchema,
  kefuSchema,
  newsDetailSchema,
  newsPageSchema,
  quotationGroupSchema,
  userCurrencySchema,
  type NewsCategory,
} from "../../schemas/content.ts";
import { errorText } from "../../schemas/errors.ts";
import type { Locale } from "../../schemas/locale.ts";
import { createSession } from "../../worker/lib/auth.ts";
import { forgetPublic, PUBLIC_LISTS } from "../../worker/lib/public-cache.ts";
import { SWITCHED_PRODUCTS } from "../../schemas/products.ts";

const db = () => env.DB;

async function get(path: string, lang?: string, headers: Record<string, string> = {}) {
  const res = await SELF.fetch(`http://exchange.test${path}`, { headers: { ...(lang ? { lang } : {}), ...headers } });
  return { status: res.status, body: (await res.json()) as any };
}

beforeEach(async () => {
  await db().batch(
    ["tickers", "banners", "news", "agreements", "settings", "pairs", "currencies", "countries"].map((t) =>
      db().prepare(`DELETE FROM ${t}`),
    ),
  );
  // The lists are cached for visitors (worker/lib/public-cache.ts); each test starts from its own rows.
  await Promise.all([forgetPublic(PUBLIC_LISTS.news), forgetPublic(PUBLIC_LISTS.countries)]);
});

let seq = 0;
const unique = (prefix: string) => `${prefix}-${++seq}`;

interface NewsFixture {
  slug?: string;
  lang?: Locale;
  category?: NewsCategory;
  title?: string;
  content?: string;
  cover?: string;
  createdAt?: number;
  sort?: number;
}

/** Inserts one article row and returns its id. */
async function makeNews(o: NewsFixture = {}): Promise<number> {
  const row = await db()
    .prepare(
      "INSERT INTO news (lang, category, title, cover, content, sort, created_at, slug) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
    )
    .bind(
      o.lang ?? "en",
      o.category ?? "news",
      o.title ?? unique("Title"),
      o.cover ?? "data:image/svg+xml;base64,PHN2Zy8+",
      o.content ?? "<p>Body</p>",
      o.sort ?? 0,
      o.createdAt ?? Date.UTC(2026, 0, 1),
      o.slug ?? unique("slug"),
    )
    .first<{ id: number }>();
  return row!.id;
}

async function makeBanner(lang: Locale, newsId: number, cover = "data:image/svg+xml;base64,YmFubmVy") {
  await db().prepare("INSERT INTO banners (lang, cover, news_id, sort) VALUES (?, ?, ?, 0)").bind(lang, cover, newsId).run();
}

interface CurrencyFixture {
  id: number;
  name: string;
  scale?: number;
  show?: number;
  is_legal?: number;
  is_lever?: number;
  is_match?: number;
  is_micro?: number;
}

async function makeCurrency(o: CurrencyFixture) {
  await db()
    .prepare(
      "INSERT INTO currencies (id, name, scale, logo, show, is_legal, is_lever, is_match, is_micro, sort) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    )
    .bind(o.id, o.name, o.scale ?? 8, `logo-${o.name}`, o.show ?? 1, o.is_legal ?? 0, o.is_lever ?? 0, o.is_match ?? 1, o.is_micro ?? 0, o.id)
    .run();
}

/** USDT (id 3) plus the given base currencies, each with a pair id = currency id. */
async function makeMarket(bases: { id: number; name: string; open?: number }[]) {
  await makeCurrency({ id: 3, name: "USDT", is_legal: 1, is_match: 0, is_micro: 1 });
  for (const b of bases) {
    await makeCurrency({ id: b.id, name: b.name });
    await db()
      .prepare("INSERT INTO pairs (id, currency_id, legal_id, price_decimals, qty_decimals, min_notional, open, sort) VALUES (?, ?, 3, 2, 6, 500000000, ?, ?)")
      .bind(b.id, b.id, b.open ?? 1, b.id)
      .run();
  }
}

async function makeTicker(pairId: number, t: { last: string; open: string; high: string; low: string; volume: string; quoteVolume?: string; change: string }) {
  await db()
    .prepare(
      "INSERT INTO tickers (pair_id, last_price, open_24h, high_24h, low_24h, volume_24h, quote_volume_24h, change_24h, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
    )
    .bind(pairId, t.last, t.open, t.high, t.low, t.volume, t.quoteVolume ?? "0", t.change, Date.now())
    .run();
}

/** A user with a live session; returns the bearer token. */
async function makeUserWithSession(o: { reviewStatus?: number; realName?: string | null } = {}): Promise<string> {
  const account = `${unique("user")}@content.test`;
  const row = await db()
    .prepare(
      "INSERT INTO users (account, account_type, password_hash, extension_code, review_status, real_name, created_at) VALUES (?, 1, 'x', ?, ?, ?, ?) RETURNING id",
    )
    .bind(account, unique("C").toUpperCase(), o.reviewStatus ?? 0, o.realName ?? null, Date.now())
    .first<{ id: number }>();
  return createSession(db(), row!.id, "127.0.0.1");
}

async function countRows(table: string): Promise<number> {
  const r = await db().prepare(`SELECT COUNT(*) AS n FROM ${table}`).first<{ n: number }>();
  return r!.n;
}

describe("news and help lists", () => {
  it("lists news in the reader's language with times in Asia/Shanghai", async () => {
    const createdAt = Date.UTC(2026, 0, 1, 16, 30, 5); // 2026-01-02 00:30:05 in Shanghai
    await makeNews({ slug: "fees", lang: "en", title: "How fees work", createdAt });
    await makeNews({ slug: "fees", lang: "kr", title: "수수료 안내", createdAt });

    const kr = await get("/api/new/news/index?page=1", "kr");
    expect(kr.status).toBe(200);
    const page = newsPageSchema.parse(kr.body.data);
    expect(kr.body.status).toBe(1);
    expect(page.total).toBe(1);
    expect(page.lists[0]).toMatchObject({ title: "수수료 안내", create_time: "2026-01-02 00:30:05" });

    const en = await get("/api/new/news/index?page=1", "en");
    expect(newsPageSchema.parse(en.body.data).lists.map((n) => n.title)).toEqual(["How fees work"]);
  });

  it("falls back to English for an unknown language", async () => {
    await makeNews({ slug: "welcome", lang: "en", title: "Welcome" });
    await makeNews({ slug: "welcome", lang: "jp", title: "ようこそ" });

    const res = await get("/api/new/news/index", "xx");
    expect(res.body.data.lists.map((n: { title: string }) => n.title)).toEqual(["Welcome"]);
  });

  it("shows the English version of an article that has no translation in the reader's language", async () => {
    await makeNews({ slug: "both", lang: "en", title: "Both EN", createdAt: 2000 });
    await makeNews({ slug: "both", lang: "es", title: "Ambos ES", createdAt: 2000 });
    await makeNews({ slug: "only-en", lang: "en", title: "Only English", createdAt: 1000 });

    const res = await get("/api/new/news/index", "es");
    const page = newsPageSchema.parse(res.body.data);
    expect(page.total).toBe(2);
    expect(page.lists.map((n) => n.title)).toEqual(["Ambos ES", "Only English"]);
  });

  it("pages ten articles at a time, newest first, and reports the total", async () => {
    for (let i = 1; i <= 12; i++) await makeNews({ title: `News ${i}`, createdAt: Date.UTC(2026, 0, i) });

    const first = newsPageSchema.parse((await get("/api/new/news/index?page=1", "en")).body.data);
    const second = newsPageSchema.parse((await get("/api/new/news/index?page=2", "en")).body.data);
    const third = newsPageSchema.parse((await get("/api/new/news/index?page=3", "en")).body.data);

    expect(first.total).toBe(12);
    expect(first.lists).toHaveLength(10);
    expect(first.lists[0]!.title).toBe("News 12");
    expect(second.total).toBe(12);
    expect(second.lists.map((n) => n.title)).toEqual(["News 2", "News 1"]);
    expect(third.lists).toEqual([]);
  });

  it("keeps help articles, news and notices in their own lists", async () => {
    await makeNews({ category: "news", title: "A news item" });
    await makeNews({ category: "help", title: "How to deposit" });
    await makeNews({ category: "help", slug: "kyc", lang: "en", title: "Identity verification" });
    await makeNews({ category: "help", slug: "kyc", lang: "kr", title: "본인 인증" });
    await makeNews({ category: "notice", title: "A notice" });

    const helpEn = newsPageSchema.parse((await get("/api/new/news/newsHelp?page=1", "en")).body.data);
    expect(helpEn.total).toBe(2);
    expect(helpEn.lists.map((n) => n.title).sort()).toEqual(["How to deposit", "Identity verification"]);

    const helpKr = newsPageSchema.parse((await get("/api/new/news/newsHelp?page=1", "kr")).body.data);
    expect(helpKr.lists.map((n) => n.title).sort()).toEqual(["How to deposit", "본인 인증"]);

    const news = newsPageSchema.parse((await get("/api/new/news/index", "en")).body.data);
    expect(news.lists.map((n) => n.title)).toEqual(["A news item"]);
  });
});

describe("news detail", () => {
  it("returns an article with its HTML content in the reader's language", async () => {
    const enId = await makeNews({ slug: "deposit", lang: "en", title: "How to deposit", content: "<p>Choose a coin.</p>" });
    const krId = await makeNews({ slug: "deposit", lang: "kr", title: "입금 방법", content: "<p>코인을 선택하세요.</p>" });

    const en = await get(`/api/new/news/show/${enId}`, "en");
    expect(en.status).toBe(200);
    expect(newsDetailSchema.parse(en.body.data).vo).toMatchObject({ id: enId, title: "How to deposit", content: "<p>Choose a coin.</p>" });

    // The English link opened by a Korean reader shows the Korean translation.
    const kr = await get(`/api/new/news/show/${enId}`, "kr");
    expect(newsDetailSchema.parse(kr.body.data).vo).toMatchObject({ id: krId, title: "입금 방법" });
  });

  it("opens notices too, and keeps the English text when there is no translation", async () => {
    const id = await makeNews({ category: "notice", lang: "en", title: "Maintenance window" });
    const res = await get(`/api/new/news/show/${id}`, "jp");
    expect(res.body.data.vo.title).toBe("Maintenance window");
  });

  it("answers 404 not_found in the new envelope for an unknown id", async () => {
    const res = await get("/api/new/news/show/987654", "kr");
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ status: 0, code: "not_found", message: errorText("kr", "not_found") });
  });
});

describe("bad input", () => {
  const cases: [string, string, "invalid_field" | "too_long"][] = [
    ["a negative page", "/api/new/news/index?page=-1", "invalid_field"],
    ["page zero", "/api/new/news/index?page=0", "invalid_field"],
    ["a page that is not a number", "/api/new/news/index?page=abc", "invalid_field"],
    ["a fractional page", "/api/new/news/newsHelp?page=1.5", "invalid_field"],
    ["an empty page", "/api/new/news/newsHelp?page=", "invalid_field"],
    ["a page beyond the last allowed", "/api/new/news/index?page=100001", "invalid_field"],
    ["an overlong page", `/api/new/news/index?page=${"9".repeat(300)}`, "too_long"],
    ["a repeated page parameter", "/api/new/news/index?page=1&page=2", "invalid_field"],
    ["an id with SQL in it", `/api/new/news/show/${encodeURIComponent("1;DROP TABLE news")}`, "invalid_field"],
    ["an id that is not a number", "/api/new/news/show/abc", "invalid_field"],
    ["a negative id", "/api/new/news/show/-1", "invalid_field"],
    ["an id beyond the safe integer range", "/api/new/news/show/1234567890123456", "invalid_field"],
    ["an overlong id", `/api/new/news/show/${"1".repeat(300)}`, "too_long"],
  ];

  it.each(cases)("rejects %s with a translated 400 and changes nothing", async (_name, path, key) => {
    await makeNews({ title: "Still here" });
    const before = await countRows("news");
    const field = path.includes("/show/") ? "id" : "page";

    const kr = await get(path, "kr");
    expect(kr.status).toBe(400);
    expect(kr.body).toMatchObject({ status: 0, code: key, message: errorText("kr", key, { field }) });

    const es = await get(path, "es");
    expect(es.status).toBe(400);
    expect(es.body.message).toBe(errorText("es", key, { field }));

    expect(await countRows("news")).toBe(before);
  });
});

describe("home index", () => {
  it("gathers banners, notices, quotations and the support link in the reader's language, with no user when logged out", async () => {
    await makeMarket([{ id: 1, name: "BTC" }]);
    await db().prepare("INSERT INTO settings (key, value) VALUES ('kefu_link', '#/help/center')").run();
    const enNews = await makeNews({ slug: "promo", lang: "en", title: "Fees explained" });
    const krNews = await makeNews({ slug: "promo", lang: "kr", title: "수수료 설명" });
    await makeBanner("en", enNews, "cover-en");
    await makeBanner("kr", krNews, "cover-kr");
    await makeNews({ category: "notice", slug: "risk", lang: "en", title: "Risk warning" });
    await makeNews({ category: "notice", slug: "risk", lang: "kr", title: "위험 경고" });

    const kr = await get("/api/new/home/index", "kr");
    expect(kr.status).toBe(200);
    expect(kr.body.status).toBe(1);
    const data = homeIndexSchema.parse(kr.body.data);
    expect(data.banner_list).toEqual([{ id: krNews, cover: "cover-kr" }]);
    expect(data.notice_list.map((n) => n.title)).toEqual(["위험 경고"]);
    expect(data.quotation_new[0]!.quotation.map((q) => q.currency_name)).toEqual(["BTC"]);
    expect(data.kefu).toBe("#/help/center");
    expect(data.user).toBeNull();

    const en = homeIndexSchema.parse((await get("/api/new/home/index", "en")).body.data);
    expect(en.banner_list).toEqual([{ id: enNews, cover: "cover-en" }]);
    expect(en.notice_list.map((n) => n.title)).toEqual(["Risk warning"]);
  });

  it("uses English banners for a language that has none", async () => {
    const enNews = await makeNews({ lang: "en", title: "Welcome" });
    await makeBanner("en", enNews, "cover-en");

    const data = homeIndexSchema.parse((await get("/api/new/home/index", "hk")).body.data);
    expect(data.banner_list).toEqual([{ id: enNews, cover: "cover-en" }]);
  });

  it("shows the logged-in user's review status and, once verified, the real name", async () => {
    const verified = await makeUserWithSession({ reviewStatus: 2, realName: "Kim Minji" });
    const pending = await makeUserWithSession({ reviewStatus: 1, realName: "Lee Jun" });

    const a = homeIndexSchema.parse((await get("/api/new/home/index", "kr", { Authorization: `Bearer ${verified}` })).body.data);
    expect(a.user).toEqual({ review_status: 2, name: "Kim Minji" });

    const b = homeIndexSchema.parse((await get("/api/new/home/index", "en", { Authorization: pending })).body.data);
    expect(b.user).toEqual({ review_status: 1, name: null });
  });

  it("treats an invalid token as logged out instead of refusing the page", async () => {
    const res = await get("/api/new/home/index", "en", { Authorization: "Bearer " + "f".repeat(64) });
    expect(res.status).toBe(200);
    expect(res.body.data.user).toBeNull();
  });
});

describe("agreement", () => {
  it("serves the agreement in the reader's language and falls back to English", async () => {
    await db()
      .prepare("INSERT INTO agreements (lang, title, content) VALUES ('en', 'User agreement', '<p>Plain rules.</p>'), ('kr', '이용약관', '<p>명확한 규칙.</p>')")
      .run();

    const kr = await get("/api/new/home/agreement", "kr");
    expect(kr.body.status).toBe(1);
    expect(agreementSchema.parse(kr.body.data)).toEqual({ title: "이용약관", content: "<p>명확한 규칙.</p>" });

    const jp = await get("/api/new/home/agreement", "jp");
    expect(jp.body.data.title).toBe("User agreement");
    const unknown = await get("/api/new/home/agreement", "xx");
    expect(unknown.body.data.title).toBe("User agreement");
  });

  it("answers not_found when no agreement has been published", async () => {
    const res = await get("/api/new/home/agreement", "zh");
    expect(res.status).toBe(404);
    expect(res.body.message).toBe(errorText("zh", "not_found"));
  });
});

describe("customer-service link", () => {
  it.each(["en", "kr"])("returns the configured link (lang %s)", async (lang) => {
    await db().prepare("INSERT INTO settings (key, value) VALUES ('kefu_link', 'mailto:support@exchange.test')").run();
    const res = await get("/api/cfg/kefu", lang);
    expect(res.status).toBe(200);
    expect(res.body.type).toBe("ok");
    expect(kefuSchema.parse(res.body.message)).toEqual({ mobile: "mailto:support@exchange.test", products: Object.fromEntries(SWITCHED_PRODUCTS.map((id) => [id, true])) });
  });

  it("returns an empty link when none is configured", async () => {
    const res = await get("/api/cfg/kefu", "en");
    expect(res.body.message).toMatchObject({ mobile: "" });
  });
});

describe("currencies", () => {
  it.each(["en", "kr"])("lists shown currencies with USDT as the legal currency (lang %s)", async (lang) => {
    await makeMarket([{ id: 1, name: "BTC" }, { id: 2, name: "ETH" }]);
    await makeCurrency({ id: 40, name: "HIDDEN", show: 0 });

    const res = await get("/api/currency/list", lang);
    expect(res.body.type).toBe("ok");
    const list = currencyListSchema.parse(res.body.message);
    expect(list.legal.map((c) => [c.id, c.name])).toEqual([[3, "USDT"]]);
    expect(list.currencies.map((c) => c.name)).toEqual(["BTC", "ETH", "USDT"]);
  });

  it.each(["en", "jp"])("lists user currencies with their product flags and no wallet yet (lang %s)", async (lang) => {
    await makeMarket([{ id: 1, name: "BTC" }]);
    await makeCurrency({ id: 5, name: "XRP", scale: 6, is_lever: 1 });

    const res = await get("/api/currency/user_currency_list", lang);
    const rows = res.body.message.map((r: unknown) => userCurrencySchema.parse(r));
    expect(rows.map((r: { name: string }) => r.name)).toEqual(["BTC", "USDT", "XRP"]);
    expect(rows.find((r: { name: string }) => r.name === "USDT")).toMatchObject({ is_legal: 1, is_match: 0, is_micro: 1, wallet: null });
    expect(rows.find((r: { name: string }) => r.name === "XRP")).toMatchObject({ is_legal: 0, is_lever: 1, scale: 6, wallet: null });
  });
});

describe("quotations", () => {
  it.each(["en", "kr"])("shows stored ticker values and zeros, never invented prices, for a pair without trades (lang %s)", async (lang) => {
    await makeMarket([{ id: 1, name: "BTC" }, { id: 11, name: "DOGE" }, { id: 6, name: "LTC", open: 0 }]);
    await makeTicker(1, { last: "64123.45", open: "63000.00", high: "65000.00", low: "62500.10", volume: "12.345678", quoteVolume: "791633.42", change: "1.78" });

    const res = await get("/api/currency/quotation_new", lang);
    expect(res.body.type).toBe("ok");
    const groups = res.body.message.map((g: unknown) => quotationGroupSchema.parse(g));
    expect(groups).toHaveLength(1);
    expect(groups[0]).toMatchObject({ id: 3, name: "USDT" });
    const rows = groups[0].quotation;
    expect(rows.map((q: { currency_name: string }) => q.currency_name)).toEqual(["BTC", "DOGE"]); // LTC is closed
    expect(rows[0]).toEqual({
      id: 1,
      currency_id: 1,
      currency_name: "BTC",
      legal_id: 3,
      legal_name: "USDT",
      logo: "logo-BTC",
      now_price: "64123.45",
      change: "1.78",
      volume: "12.345678",
      quote_volume: "791633.42",
      high: "65000.00",
      low: "62500.10",
      // The pair's spot fee rates in percent (the default 10 bps each), shown on the order form.
      maker_fee: "0.1",
      taker_fee: "0.1",
      // BTC/USDT offers leveraged contracts (migration 0015 settings); DOGE does not.
      lever_trade_fee: "0.05",
      lever_share_num: "0.01",
    });
    expect(rows[1]).toMatchObject({ id: 11, now_price: "0", change: "0.00", volume: "0", quote_volume: "0", high: "0", low: "0", lever_trade_fee: null, lever_share_num: null });
  });

  it("puts the same quotations on the home page", async () => {
    await makeMarket([{ id: 2, name: "ETH" }]);
    await makeTicker(2, { last: "3012.5", open: "3000", high: "3050", low: "2990", volume: "7.5", change: "0.41" });

    const data = homeIndexSchema.parse((await get("/api/new/home/index", "zh")).body.data);
    expect(data.quotation_new[0]!.quotation[0]).toMatchObject({ id: 2, now_price: "3012.5", change: "0.41", volume: "7.5" });
  });
});

describe("countries", () => {
  it.each(["en", "zh"])("lists countries in their stored order (lang %s)", async (lang) => {
    await db()
      .prepare("INSERT INTO countries (country_id, area_code, name_cn, name_en) VALUES (1, '86', '中国', 'China'), (2, '852', '中国香港', 'Hong Kong')")
      .run();
    const res = await get("/api/country/list", lang);
    expect(res.body.type).toBe("ok");
    const rows = res.body.message.map((r: unknown) => countrySchema.parse(r));
    expect(rows[0]).toEqual({ country_id: 1, area_code: "86", name_cn: "中国", name_en: "China" });
    expect(rows).toHaveLength(2);
  });
});
