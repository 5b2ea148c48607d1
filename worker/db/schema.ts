/**
 * drizzle mirror of migrations/*.sql (the SQL files are the source of truth; D1 applies them).
 * Amount columns are safe integers of minimal units: convert with BigInt() as soon as they are read.
 */
import { sql } from "drizzle-orm";
import { integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { ACCOUNT_NAMES } from "../../schemas/products.ts";

export const users = sqliteTable("users", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  account: text("account").notNull().unique(),
  accountType: integer("account_type").notNull(),
  countryCode: text("country_code").notNull().default("86"),
  passwordHash: text("password_hash").notNull(),
  fundPasswordHash: text("fund_password_hash"),
  extensionCode: text("extension_code").notNull().unique(),
  parentId: integer("parent_id"),
  role: text("role", { enum: ["user", "operator", "system"] }).notNull().default("user"),
  isSeller: integer("is_seller").notNull().default(0),
  reviewStatus: integer("review_status").notNull().default(0),
  realName: text("real_name"),
  locked: integer("locked").notNull().default(0),
  createdAt: integer("created_at").notNull(),
  lastLoginAt: integer("last_login_at"),
  /** migrations/0043: NULL until the e-mail or phone is proven (worker/domain/auth/contact.ts). */
  contactVerifiedAt: integer("contact_verified_at"),
});

export const sessions = sqliteTable("sessions", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  tokenHash: text("token_hash").notNull().unique(),
  userId: integer("user_id").notNull(),
  createdAt: integer("created_at").notNull(),
  expiresAt: integer("expires_at").notNull(),
  revokedAt: integer("revoked_at"),
  ip: text("ip"),
});

export const captchas = sqliteTable("captchas", {
  id: text("id").primaryKey(),
  answerHash: text("answer_hash").notNull(),
  expiresAt: integer("expires_at").notNull(),
});

export const verificationCodes = sqliteTable("verification_codes", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  account: text("account").notNull(),
  purpose: text("purpose").notNull(),
  codeHash: text("code_hash").notNull(),
  attempts: integer("attempts").notNull().default(0),
  createdAt: integer("created_at").notNull(),
  expiresAt: integer("expires_at").notNull(),
  consumedAt: integer("consumed_at"),
});

export const rateLimits = sqliteTable("rate_limits", {
  key: text("key").primaryKey(),
  windowStart: integer("window_start").notNull(),
  count: integer("count").notNull(),
});

export const loginFailures = sqliteTable("login_failures", {
  key: text("key").primaryKey(),
  failures: integer("failures").notNull(),
  lockedUntil: integer("locked_until").notNull().default(0),
  updatedAt: integer("updated_at").notNull(),
});

export const devOutbox = sqliteTable("dev_outbox", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  channel: text("channel").notNull(),
  recipient: text("recipient").notNull(),
  subject: text("subject").notNull(),
  body: text("body").notNull(),
  code: text("code"),
  createdAt: integer("created_at").notNull(),
});

export const countries = sqliteTable("countries", {
  countryId: integer("country_id").primaryKey(),
  areaCode: text("area_code").notNull(),
  nameCn: text("name_cn").notNull(),
  nameEn: text("name_en").notNull(),
});

export const currencies = sqliteTable("currencies", {
  id: integer("id").primaryKey(),
  name: text("name").notNull().unique(),
  scale: integer("scale").notNull(),
  logo: text("logo").notNull().default(""),
  show: integer("show").notNull().default(1),
  isLegal: integer("is_legal").notNull().default(0),
  isLever: integer("is_lever").notNull().default(0),
  isMatch: integer("is_match").notNull().default(0),
  isMicro: integer("is_micro").notNull().default(0),
  sort: integer("sort").notNull().default(0),
});

export const pairs = sqliteTable("pairs", {
  id: integer("id").primaryKey(),
  currencyId: integer("currency_id").notNull(),
  legalId: integer("legal_id").notNull(),
  priceDecimals: integer("price_decimals").notNull(),
  qtyDecimals: integer("qty_decimals").notNull(),
  minNotional: integer("min_notional").notNull(),
  makerFeeBps: integer("maker_fee_bps").notNull().default(10),
  takerFeeBps: integer("taker_fee_bps").notNull().default(10),
  open: integer("open").notNull().default(1),
  sort: integer("sort").notNull().default(0),
});

export const balances = sqliteTable(
  "balances",
  {
    userId: integer("user_id").notNull(),
    currencyId: integer("currency_id").notNull(),
    // One of the products' accounts (schemas/products.ts; the `wallet_accounts` table, migrations/0021).
    account: text("account", { enum: ACCOUNT_NAMES }).notNull(),
    available: integer("available").notNull().default(0),
    frozen: integer("frozen").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.userId, t.currencyId, t.account] })],
);

export const movements = sqliteTable("movements", {
  key: text("key").primaryKey(),
  kind: text("kind").notNull(),
  createdAt: integer("created_at").notNull(),
});

export const ledger = sqliteTable("ledger", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  movementKey: text("movement_key").notNull(),
  userId: integer("user_id").notNull(),
  currencyId: integer("currency_id").notNull(),
  account: text("account").notNull(),
  dAvailable: integer("d_available").notNull(),
  dFrozen: integer("d_frozen").notNull(),
  kind: text("kind").notNull(),
  memo: text("memo").notNull().default(""),
  createdAt: integer("created_at").notNull(),
});

export const news = sqliteTable("news", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  lang: text("lang").notNull(),
  category: text("category", { enum: ["news", "help", "notice"] }).notNull(),
  title: text("title").notNull(),
  cover: text("cover").notNull().default(""),
  content: text("content").notNull(),
  sort: integer("sort").notNull().default(0),
  createdAt: integer("created_at").notNull(),
  slug: text("slug").notNull(),
});

export const banners = sqliteTable("banners", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  lang: text("lang").notNull(),
  cover: text("cover").notNull(),
  newsId: integer("news_id").notNull(),
  sort: integer("sort").notNull().default(0),
});

export const agreements = sqliteTable("agreements", {
  lang: text("lang").primaryKey(),
  title: text("title").notNull(),
  content: text("content").notNull(),
});

export const settings = sqliteTable("settings", {
  key: text("key").primaryKey(),
  value: text("value").notNull(),
});

export const auditLog = sqliteTable("audit_log", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  operatorId: integer("operator_id").notNull(),
  action: text("action").notNull(),
  targetType: text("target_type").notNull(),
  targetId: text("target_id").notNull(),
  reason: text("reason").notNull().default(""),
  detail: text("detail").notNull().default(""),
  createdAt: integer("created_at").notNull(),
});

export const nowMs = sql`(unixepoch('subsec') * 1000)`;

export const tickers = sqliteTable("tickers", {
  pairId: integer("pair_id").primaryKey(),
  lastPrice: text("last_price").notNull(),
  open24h: text("open_24h").notNull(),
  high24h: text("high_24h").notNull(),
  low24h: text("low_24h").notNull(),
  volume24h: text("volume_24h").notNull(),
  /** 24 h volume in the quote currency (USDT), decimal string */
  quoteVolume24h: text("quote_volume_24h").notNull(),
  change24h: text("change_24h").notNull(),
  updatedAt: integer("updated_at").notNull(),
});
