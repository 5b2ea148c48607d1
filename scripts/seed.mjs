#!/usr/bin/env node
/**
 * Seeds D1 with reference data (currencies, pairs, countries, settings), content in six languages
 * (news, help, notices, banners, the user agreement) and, locally, demo accounts with balances.
 *
 *   node scripts/seed.mjs [--persist-to DIR] [--pepper P] [--dry-run]   local database
 *   ... --password-cost test   the demo passwords at the browser tests' low scrypt cost (tests/e2e/server.ts)
 *   node scripts/seed.mjs --remote                                         reference data and content only
 *
 * Idempotent: every row is written with ON CONFLICT ... DO NOTHING, so a second run changes
 * nothing and never overwrites what operators edited. Balances change only through the ledger:
 * one movement per credit, and its ledger rows are inserted only while none exist for that
 * movement key, so running the seed twice credits once.
 */
import { spawn } from "node:child_process";
import { createHmac, randomBytes, scrypt as scryptCb } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { demoAccounts } from "./seed-data/accounts.mjs";
import { agreements } from "./seed-data/agreement.mjs";
import { articles } from "./seed-data/articles.mjs";
import {
  FEE_BPS,
  MIN_NOTIONAL_UNITS,
  USDT_ID,
  coinLogo,
  countries,
  cover,
  currencies,
  pairs,
  settings,
} from "./seed-data/reference.mjs";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
export const WRANGLER_BIN = join(ROOT, "node_modules", "wrangler", "bin", "wrangler.js");
/** Offline-friendly environment for every wrangler call. */
export const WRANGLER_ENV = { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" };

const LOCALES = ["en", "zh", "hk", "kr", "jp", "es"];
/** SYSTEM.deposits in worker/lib/ledger.ts: the other side of money coming in from outside. */
const SYSTEM_DEPOSITS = -1;

// ───────────────────────── password hashing (same scheme as worker/lib/password.ts) ─────────────────────────

const SCRYPT = { N: 16384, r: 8, p: 5, keyLength: 32, saltLength: 16 };
/** TEST_SCRYPT_COST in worker/lib/password.ts: for a database only test Workers (PASSWORD_COST=test) use. */
const TEST_COST = { N: 1024, r: 8, p: 1 };

/** scrypt over HMAC-SHA256(pepper, password), stored as `scrypt$N$r$p$saltB64$hashB64`. */
export function hashPassword(password, pepper, cost = SCRYPT) {
  const { keyLength, saltLength } = SCRYPT;
  const { N, r, p } = cost;
  const peppered = createHmac("sha256", pepper).update(password, "utf8").digest();
  const salt = randomBytes(saltLength);
  return new Promise((res, rej) =>
    scryptCb(peppered, salt, keyLength, { N, r, p, maxmem: 256 * N * r }, (err, key) =>
      err ? rej(err) : res(`scrypt$${N}$${r}$${p}$${salt.toString("base64")}$${key.toString("base64")}`),
    ),
  );
}

/** PEPPER from .dev.vars (the same secret `wrangler dev` gives the worker). */
export function readPepper(root = ROOT) {
  const file = join(root, ".dev.vars");
  if (!existsSync(file)) return null;
  for (const line of readFileSync(file, "utf8").split(/\r?\n/)) {
    const m = /^\s*PEPPER\s*=\s*(.*?)\s*$/.exec(line);
    if (m) return m[1].replace(/^(["'])(.*)\1$/, "$2") || null;
  }
  return null;
}

// ───────────────────────── SQL building ─────────────────────────

/** A SQL literal. Strings are single-quoted with quotes doubled; bigints and numbers as integers. */
function q(v) {
  if (v === null || v === undefined) return "NULL";
  if (typeof v === "bigint") return v.toString();
  if (typeof v === "number") {
    if (!Number.isSafeInteger(v)) throw new Error(`not a safe integer: ${v}`);
    return String(v);
  }
  return `'${String(v).replaceAll("'", "''")}'`;
}

const row = (values) => `(${values.map(q).join(", ")})`;

/** Decimal string → minimal units (bigint), refusing more decimals than the scale. */
function units(amount, scale) {
  const m = /^(\d+)(?:\.(\d+))?$/.exec(amount);
  if (!m) throw new Error(`bad amount ${amount}`);
  const frac = (m[2] ?? "").replace(/0+$/, "");
  if (frac.length > scale) throw new Error(`${amount} has more than ${scale} decimals`);
  return BigInt(m[1]) * 10n ** BigInt(scale) + BigInt(frac.padEnd(scale, "0") || "0");
}

function referenceSql() {
  const out = [];
  for (const c of currencies) {
    out.push(
      `INSERT INTO currencies (id, name, scale, logo, show, is_legal, is_lever, is_match, is_micro, sort) VALUES ` +
        row([c.id, c.name, c.scale, coinLogo(c.name, c.color), 1, c.is_legal, c.is_lever, c.is_match, c.is_micro, c.sort]) +
        ` ON CONFLICT DO NOTHING;`,
    );
  }
  for (const p of pairs) {
    const base = currencies.find((c) => c.id === p.currency_id);
    if (!base || p.qty_decimals > base.scale || p.price_decimals + p.qty_decimals > 8) throw new Error(`bad pair ${p.id}`);
    out.push(
      `INSERT INTO pairs (id, currency_id, legal_id, price_decimals, qty_decimals, min_notional, maker_fee_bps, taker_fee_bps, open, sort) VALUES ` +
        row([p.id, p.currency_id, USDT_ID, p.price_decimals, p.qty_decimals, MIN_NOTIONAL_UNITS, FEE_BPS, FEE_BPS, 1, p.sort]) +
        ` ON CONFLICT DO NOTHING;`,
    );
  }
  out.push(
    `INSERT INTO countries (country_id, area_code, name_cn, name_en) VALUES ` +
      countries.map((c) => row([c.country_id, c.area_code, c.name_cn, c.name_en])).join(", ") +
      ` ON CONFLICT DO NOTHING;`,
  );
  out.push(`INSERT INTO settings (key, value) VALUES ${settings.map((s) => row([s.key, s.value])).join(", ")} ON CONFLICT(key) DO NOTHING;`);
  return out;
}

function contentSql(now) {
  const out = [];
  articles.forEach((a, i) => {
    // Earlier in the list = newer; the same article has the same time in every language.
    const createdAt = now - (i + 1) * 3 * 3600 * 1000;
    const image = cover(...a.cover);
    for (const lang of LOCALES) {
      const t = a.t[lang];
      if (!t) throw new Error(`${a.slug} has no ${lang} text`);
      out.push(
        `INSERT INTO news (lang, category, title, cover, content, sort, created_at, slug) VALUES ` +
          row([lang, a.category, t.title, image, t.content, 0, createdAt, a.slug]) +
          ` ON CONFLICT(slug, lang) DO NOTHING;`,
      );
    }
    if (a.banner) {
      for (const lang of LOCALES) {
        out.push(
          `INSERT INTO banners (lang, cover, news_id, sort) SELECT ${q(lang)}, ${q(image)}, id, ${q(a.banner)} FROM news ` +
            `WHERE slug = ${q(a.slug)} AND lang = ${q(lang)} ON CONFLICT(lang, news_id) DO NOTHING;`,
        );
      }
    }
  });
  for (const lang of LOCALES) {
    const ag = agreements[lang];
    if (!ag) throw new Error(`agreement has no ${lang} text`);
    out.push(`INSERT INTO agreements (lang, title, content) VALUES ${row([lang, ag.title, ag.content])} ON CONFLICT(lang) DO NOTHING;`);
  }
  return out;
}

/**
 * One deposit movement crediting `amount` to the user's change account, balanced by SYSTEM.deposits.
 * The ledger rows are written in one INSERT ... SELECT guarded by NOT EXISTS on the movement key:
 * SQLite materialises the SELECT before inserting (the table has a trigger), so both rows or none.
 */
function creditSql(key, account, currencyId, amountUnits, now) {
  // `account` is an e-mail, or a system account id (a number) such as the treasury.
  const user = typeof account === "number" ? q(account) : `(SELECT id FROM users WHERE account = ${q(account)})`;
  const cols = "movement_key, user_id, currency_id, account, d_available, d_frozen, kind, memo, created_at";
  return [
    `INSERT INTO movements (key, kind, created_at) VALUES (${q(key)}, 'deposit', ${q(now)}) ON CONFLICT(key) DO NOTHING;`,
    `INSERT INTO ledger (${cols}) SELECT column1, column2, column3, column4, column5, column6, column7, column8, column9 FROM (VALUES ` +
      `(${q(key)}, ${user}, ${q(currencyId)}, 'change', ${q(amountUnits)}, 0, 'deposit', 'seed', ${q(now)}), ` +
      `(${q(key)}, ${q(SYSTEM_DEPOSITS)}, ${q(currencyId)}, 'change', ${q(-amountUnits)}, 0, 'deposit', 'seed', ${q(now)})) ` +
      `WHERE NOT EXISTS (SELECT 1 FROM ledger WHERE movement_key = ${q(key)});`,
  ];
}

async function accountsSql(pepper, now, cost) {
  const out = [];
  for (const a of demoAccounts) {
    // ON CONFLICT(account): an existing demo user keeps its password and everything else.
    out.push(
      `INSERT INTO users (account, account_type, country_code, password_hash, extension_code, role, review_status, real_name, created_at) VALUES ` +
        row([a.account, 1, "86", await hashPassword(a.password, pepper, cost), a.extensionCode, a.role, a.reviewStatus, a.realName, now]) +
        ` ON CONFLICT(account) DO NOTHING;`,
    );
    if (a.fundPassword) {
      // Set once: a fund password the user changed stays theirs.
      out.push(`UPDATE users SET fund_password_hash = ${q(await hashPassword(a.fundPassword, pepper, cost))} WHERE account = ${q(a.account)} AND fund_password_hash IS NULL;`);
    }
    for (const [symbol, amount] of Object.entries(a.credits)) {
      const c = currencies.find((x) => x.name === symbol);
      if (!c) throw new Error(`unknown currency ${symbol}`);
      out.push(...creditSql(`seed:${a.key}:${symbol}`, a.account, c.id, units(amount, c.scale), now));
    }
    if (a.reviewStatus === 2) {
      // Verified demo users carry an approved level-1 identity record, so every screen agrees.
      const user = `(SELECT id FROM users WHERE account = ${q(a.account)})`;
      out.push(
        `INSERT INTO kyc_submissions (user_id, level, name, type, card_id, status, reviewed_at, created_at) ` +
          `SELECT ${user}, 1, ${q(a.realName)}, 3, ${q(`DEMO${a.extensionCode}`)}, 2, ${q(now)}, ${q(now)} ` +
          `WHERE NOT EXISTS (SELECT 1 FROM kyc_submissions WHERE user_id = ${user});`,
      );
    }
  }
  // Locally only: the exchange's own treasury (the flash-exchange counterparty) starts funded, as
  // if two operators had approved a funding adjustment. Deployed, operators fund it that way.
  for (const [symbol, amount] of Object.entries(DEMO_TREASURY)) {
    const c = currencies.find((x) => x.name === symbol);
    if (!c) throw new Error(`unknown currency ${symbol}`);
    out.push(...creditSql(`seed:treasury:${symbol}`, TREASURY, c.id, units(amount, c.scale), now));
  }
  return out;
}

/**
 * The demo C2C market (issue #10 §5): the demo merchant gets USDT in the legal account, an approved
 * application with its deposit frozen, a bank card and Alipay in the verified real name, and two
 * adverts on the shelf (the sell advert's coins in escrow). The same movements and rows the API
 * writes (keys c2c:merchant:{id}:deposit, c2c:advert:{id}:escrow), each only when it is missing, so
 * a second run changes nothing and a merchant who later withdrew an advert or left keeps that state.
 */
function c2cSql(now) {
  const merchant = `(SELECT id FROM users WHERE account = ${q(DEMO_C2C.account)})`;
  const operator = `(SELECT id FROM users WHERE account = 'operator@exchange.test')`;
  const usdt = currencies.find((c) => c.name === "USDT");
  const u = (amount) => units(amount, usdt.scale);
  const cols = "movement_key, user_id, currency_id, account, d_available, d_frozen, kind, memo, created_at";
  const movement = (key, kind, rows) => [
    `INSERT INTO movements (key, kind, created_at) VALUES (${q(key)}, ${q(kind)}, ${q(now)}) ON CONFLICT(key) DO NOTHING;`,
    `INSERT INTO ledger (${cols}) SELECT column1, column2, column3, column4, column5, column6, column7, column8, column9 FROM (VALUES ` +
      rows.map(([user, account, dA, dF]) => `(${q(key)}, ${user}, ${q(usdt.id)}, ${q(account)}, ${q(dA)}, ${q(dF)}, ${q(kind)}, 'seed', ${q(now)})`).join(", ") +
      `) WHERE NOT EXISTS (SELECT 1 FROM ledger WHERE movement_key = ${q(key)});`,
  ];
  const deposit = u(DEMO_C2C.deposit);
  const out = [
    ...movement("seed:merchant:USDT:legal", "deposit", [[merchant, "legal", u(DEMO_C2C.legal), 0n], [q(SYSTEM_DEPOSITS), "legal", -u(DEMO_C2C.legal), 0n]]),
    `INSERT INTO bank_cards (user_id, real_name, bank_account, bank_name, bank_branch, updated_at) SELECT ${merchant}, 'Demo Merchant', '6228480402564890018', 'Agricultural Bank of China', 'Beijing', ${q(now)} ON CONFLICT (user_id) DO NOTHING;`,
    `INSERT INTO c2c_pay_methods (user_id, kind, holder_name, account, label, created_at, updated_at) SELECT ${merchant}, 'alipay', 'Demo Merchant', 'merchant@exchange.test', '', ${q(now)}, ${q(now)} ` +
      `WHERE NOT EXISTS (SELECT 1 FROM c2c_pay_methods WHERE user_id = ${merchant} AND kind = 'alipay');`,
  ];
  // The application and its deposit, then the operator's approval (the trigger sets is_seller).
  const appId = 1;
  out.push(
    `INSERT INTO c2c_merchants (id, user_id, name, status, currency_id, deposit, created_at) SELECT ${q(appId)}, ${merchant}, ${q(DEMO_C2C.name)}, 0, ${q(usdt.id)}, ${q(deposit)}, ${q(now)} ` +
      `WHERE NOT EXISTS (SELECT 1 FROM c2c_merchants WHERE id = ${q(appId)} OR user_id = ${merchant});`,
    ...movement(`c2c:merchant:${appId}:deposit`, "c2c_deposit", [[merchant, "legal", -deposit, deposit]]),
    `UPDATE c2c_merchants SET status = 1, reason = 'demo merchant', decided_by = ${operator}, decided_at = ${q(now)} WHERE id = ${q(appId)} AND status = 0;`,
  );
  for (const ad of DEMO_C2C.adverts) {
    const total = u(ad.total);
    out.push(
      `INSERT INTO c2c_adverts (id, user_id, type, currency_id, price, total, remaining, min_money, max_money, pay_kinds, remark, status, created_at, updated_at) ` +
        `SELECT ${q(ad.id)}, ${merchant}, ${q(ad.type)}, ${q(usdt.id)}, ${q(ad.priceCents)}, ${q(total)}, ${q(total)}, ${q(ad.minCents)}, ${q(ad.maxCents)}, 'bank,alipay', ${q(ad.remark)}, 1, ${q(now)}, ${q(now)} ` +
        `WHERE NOT EXISTS (SELECT 1 FROM c2c_adverts WHERE id = ${q(ad.id)}) AND EXISTS (SELECT 1 FROM c2c_merchants WHERE id = ${q(appId)} AND status = 1);`,
    );
    if (ad.type === "sell") out.push(...movement(`c2c:advert:${ad.id}:escrow`, "c2c_escrow", [[merchant, "legal", -total, total]]));
  }
  return out;
}

/**
 * The demo launch (issue #19 §2): a new, unlisted token HNST (no trading pair) sold for 0.1 USDT,
 * 0.000002 BTC or 0.00005 ETH; 1,000,000 for sale, at most 50,000 per user, a 14-day window from
 * the first seed, then a 7-day cliff and 3 equal unlocks over 90 days. As if operators had funded
 * the treasury with the supply and published it: the same rows and the same reserve movement
 * (`launch:1:reserve`) the console writes, each only when missing, so a second run adds nothing.
 */
function launchSql(now) {
  const token = { id: 100, name: "HNST", scale: 8 };
  const supply = units("1000000", token.scale);
  const cap = units("50000", token.scale);
  const operator = `(SELECT id FROM users WHERE account = 'operator@exchange.test')`;
  const prices = [
    ["USDT", "0.1"],
    ["BTC", "0.000002"],
    ["ETH", "0.00005"],
  ].map(([symbol, price]) => {
    const c = currencies.find((x) => x.name === symbol);
    const p = units(price, c.scale);
    return { id: c.id, price: p, max: (cap * p) / 10n ** BigInt(token.scale) };
  });
  const key = "launch:1:reserve";
  const cols = "movement_key, user_id, currency_id, account, d_available, d_frozen, kind, memo, created_at";
  const day = 86_400_000;
  return [
    `INSERT INTO currencies (id, name, scale, logo, show, sort) VALUES (${q(token.id)}, ${q(token.name)}, ${q(token.scale)}, '', 0, 900) ON CONFLICT DO NOTHING;`,
    ...creditSql("seed:treasury:HNST", TREASURY, token.id, supply, now),
    `INSERT INTO launch_projects (id, title, token_id, supply, cap, start_at, end_at, cliff_days, vest_days, vest_steps, listing_note, status, created_by, created_at, published_at) ` +
      `SELECT 1, 'Honest Token (HNST)', ${q(token.id)}, ${q(supply)}, ${q(cap)}, ${q(now)}, ${q(now + 14 * day)}, 7, 90, 3, ` +
      `'Listing is not promised: the exchange reviews HNST for a trading pair after the sale, like any other coin.', 'open', ${operator}, ${q(now)}, ${q(now)} ` +
      `WHERE NOT EXISTS (SELECT 1 FROM launch_projects WHERE id = 1);`,
    ...prices.map((x) => `INSERT INTO launch_prices (project_id, currency_id, price, max_amount) VALUES (1, ${q(x.id)}, ${q(x.price)}, ${q(x.max)}) ON CONFLICT DO NOTHING;`),
    `INSERT INTO movements (key, kind, created_at) VALUES (${q(key)}, 'launch_reserve', ${q(now)}) ON CONFLICT(key) DO NOTHING;`,
    `INSERT INTO ledger (${cols}) SELECT ${q(key)}, ${q(TREASURY)}, ${q(token.id)}, 'change', ${q(-supply)}, ${q(supply)}, 'launch_reserve', 'launch 1', ${q(now)} ` +
      `WHERE NOT EXISTS (SELECT 1 FROM ledger WHERE movement_key = ${q(key)});`,
  ];
}

/** The demo merchant's C2C set-up (prices in CNY cents; limits 100–50,000 CNY per order). */
const DEMO_C2C = {
  account: "merchant@exchange.test",
  name: "Honest OTC",
  legal: "50000",
  deposit: "1000",
  adverts: [
    { id: 1, type: "sell", total: "20000", priceCents: 720, minCents: 10000, maxCents: 5000000, remark: "Pay within the window and upload the receipt; coins released as soon as the money arrives." },
    { id: 2, type: "buy", total: "20000", priceCents: 705, minCents: 10000, maxCents: 5000000, remark: "Bank card or Alipay in your verified name only." },
  ],
};

/**
 * One demo cover plan (issue #19 §4), as the operator console publishes it (audited): USDT cover of
 * the seconds account, premium 5 %, cover 50 % of the insured amount, 30 days. Only when no plan of
 * that name exists, so a second run adds nothing and an operator who closed it keeps it closed.
 */
function insuranceSql(now) {
  const operator = `(SELECT id FROM users WHERE account = 'operator@exchange.test')`;
  const usdt = currencies.find((c) => c.name === "USDT");
  const p = DEMO_INSURANCE;
  const exists = `EXISTS (SELECT 1 FROM insurance_plans WHERE name = ${q(p.name)})`;
  return [
    `INSERT INTO insurance_plans (name, currency_id, amounts, premium_bps, cover_bps, days, capacity, created_by, created_at) ` +
      `SELECT ${q(p.name)}, ${q(usdt.id)}, ${q(JSON.stringify(p.amounts))}, ${q(p.premiumBps)}, ${q(p.coverBps)}, ${q(p.days)}, ${q(units(p.capacity, usdt.scale))}, ${operator}, ${q(now)} WHERE NOT ${exists};`,
    // Its audit row, once (the plan made by this run is the one created at `now`).
    `INSERT INTO audit_log (operator_id, action, target_type, target_id, reason, detail, created_at) ` +
      `SELECT ${operator}, 'insurance.plan.create', 'insurance_plan', CAST(id AS TEXT), 'demo plan (seed)', ${q(JSON.stringify(p))}, ${q(now)} FROM insurance_plans WHERE name = ${q(p.name)} AND created_at = ${q(now)};`,
  ];
}

/**
 * One demo mining plan (issue #20 §1), as the console lists it (audited): 1,000 shares of a stated
 * 100 TH/s at a named pool, 50 USDT a share, 30 days, 2 % fee, paid in BTC. No payout is seeded:
 * the plan shows only what operators record and approve. Only when no plan of that name exists, so
 * a second run adds nothing and an operator who closed it keeps it closed. The treasury's BTC (to
 * hold approved payouts) is funded by DEMO_TREASURY.
 */
function miningSql(now) {
  const operator = `(SELECT id FROM users WHERE account = 'operator@exchange.test')`;
  const usdt = currencies.find((c) => c.name === "USDT");
  const btc = currencies.find((c) => c.name === "BTC");
  const p = DEMO_MINING;
  const exists = `EXISTS (SELECT 1 FROM mining_plans WHERE name = ${q(p.name)})`;
  return [
    `INSERT INTO mining_plans (name, pool, pool_account, worker, hashrate, shares, price_currency_id, price, days, fee_bps, other_fees, payout_currency_id, created_by, created_at) ` +
      `SELECT ${q(p.name)}, ${q(p.pool)}, ${q(p.poolAccount)}, ${q(p.worker)}, ${q(p.hashrate)}, ${q(p.shares)}, ${q(usdt.id)}, ${q(units(p.price, usdt.scale))}, ${q(p.days)}, ${q(p.feeBps)}, ${q(p.otherFees)}, ${q(btc.id)}, ${operator}, ${q(now)} WHERE NOT ${exists};`,
    `INSERT INTO audit_log (operator_id, action, target_type, target_id, reason, detail, created_at) ` +
      `SELECT ${operator}, 'mining.plan.create', 'mining_plan', CAST(id AS TEXT), 'demo plan (seed)', ${q(JSON.stringify(p))}, ${q(now)} FROM mining_plans WHERE name = ${q(p.name)} AND created_at = ${q(now)};`,
  ];
}

const DEMO_MINING = {
  name: "Antminer S19 XP · 100 TH/s",
  pool: "ViaBTC",
  poolAccount: "honestexchange",
  worker: "honestexchange.s19xp-01",
  hashrate: "100 TH/s",
  shares: 1000,
  price: "50",
  days: 30,
  feeBps: 200,
  otherFees: "Electricity and hosting are included in the price",
};

const DEMO_INSURANCE = { name: "Seconds account cover", amounts: ["100", "500", "1000"], premiumBps: 500, coverBps: 5000, days: 30, capacity: "100000" };

/**
 * The demo savings product (issue #19 §1): 30 days at 5 % a year, 10–10,000 USDT per person, its
 * interest budget frozen from the treasury by the same movement the console writes
 * (`earn:p{id}:fund`), each only when it is missing, so a second run adds nothing.
 */
function earnSql(now) {
  const usdt = currencies.find((c) => c.name === "USDT");
  const operator = `(SELECT id FROM users WHERE account = 'operator@exchange.test')`;
  const p = DEMO_EARN;
  const budget = units(p.budget, usdt.scale);
  const key = `earn:p${p.id}:fund`;
  const cols = "movement_key, user_id, currency_id, account, d_available, d_frozen, kind, memo, created_at";
  return [
    `INSERT INTO earn_products (id, currency_id, term_days, apr_bps, min_amount, max_amount, budget, created_by, created_at) ` +
      `SELECT ${q(p.id)}, ${q(usdt.id)}, ${q(p.termDays)}, ${q(p.aprBps)}, ${q(units(p.min, usdt.scale))}, ${q(units(p.max, usdt.scale))}, ${q(budget)}, ${operator}, ${q(now)} ` +
      `WHERE NOT EXISTS (SELECT 1 FROM earn_products WHERE id = ${q(p.id)});`,
    `INSERT INTO movements (key, kind, created_at) VALUES (${q(key)}, 'earn_fund', ${q(now)}) ON CONFLICT(key) DO NOTHING;`,
    `INSERT INTO ledger (${cols}) SELECT column1, column2, column3, column4, column5, column6, column7, column8, column9 FROM (VALUES ` +
      `(${q(key)}, ${q(TREASURY)}, ${q(usdt.id)}, 'change', ${q(-budget)}, ${q(budget)}, 'earn_fund', 'seed: savings product interest budget', ${q(now)})) ` +
      `WHERE NOT EXISTS (SELECT 1 FROM ledger WHERE movement_key = ${q(key)});`,
  ];
}
const DEMO_EARN = { id: 1, termDays: 30, aprBps: 500, min: "10", max: "10000", budget: "5000" };

/** System account of the exchange's own funds (worker/lib/guarded.ts TREASURY). */
/**
 * A demo listing-vote round (issue #19 §3), opened by the demo operator: voting from the seed's
 * first run for 30 days, 10 USDT held per voter. Written only when no round of that title exists,
 * so a second run adds nothing (and a round an operator since closed stays closed).
 */
const DEMO_VOTE = {
  title: "Which coin should we list next?",
  minUsdt: "10",
  days: 30,
  candidates: [
    { name: "Polkadot", symbol: "DOT", description: "A network connecting several specialised blockchains.", link: "https://polkadot.com" },
    { name: "Cardano", symbol: "ADA", description: "A proof-of-stake blockchain platform.", link: "https://cardano.org" },
    { name: "Chainlink", symbol: "LINK", description: "A decentralised oracle network feeding outside data to smart contracts.", link: "https://chain.link" },
  ],
};

function voteSql(now) {
  const usdt = currencies.find((c) => c.name === "USDT");
  const operator = `(SELECT id FROM users WHERE account = 'operator@exchange.test')`;
  const round = `(SELECT id FROM vote_rounds WHERE title = ${q(DEMO_VOTE.title)} ORDER BY id LIMIT 1)`;
  return [
    `INSERT INTO vote_rounds (title, currency_id, min_units, starts_at, ends_at, created_by, created_at) ` +
      `SELECT ${q(DEMO_VOTE.title)}, ${q(usdt.id)}, ${q(units(DEMO_VOTE.minUsdt, usdt.scale))}, ${q(now)}, ${q(now + DEMO_VOTE.days * 24 * 3600 * 1000)}, ${operator}, ${q(now)} ` +
      `WHERE ${operator} IS NOT NULL AND NOT EXISTS (SELECT 1 FROM vote_rounds WHERE title = ${q(DEMO_VOTE.title)});`,
    `INSERT INTO vote_candidates (round_id, position, name, symbol, description, link) SELECT ${round}, column1, column2, column3, column4, column5 FROM (VALUES ` +
      DEMO_VOTE.candidates.map((c, i) => row([i + 1, c.name, c.symbol, c.description, c.link])).join(", ") +
      `) WHERE ${round} IS NOT NULL AND NOT EXISTS (SELECT 1 FROM vote_candidates WHERE round_id = ${round});`,
  ];
}

const TREASURY = -3;
const DEMO_TREASURY = { USDT: "1000000", BTC: "20", ETH: "300", XRP: "500000", LTC: "5000", BCH: "1000", DOGE: "2000000" };

/** The whole seed as one SQL script. */
export async function buildSeedSql({ remote = false, pepper = null, now = Date.now(), passwordCost = "production" } = {}) {
  const parts = ["-- generated by scripts/seed.mjs", ...referenceSql(), ...contentSql(now)];
  if (!remote) {
    if (!pepper) throw new Error("PEPPER not found: create .dev.vars (npm start does) or pass --pepper");
    parts.push(...(await accountsSql(pepper, now, passwordCost === "test" ? TEST_COST : SCRYPT)), ...c2cSql(now), ...voteSql(now), ...insuranceSql(now), ...launchSql(now), ...earnSql(now), ...miningSql(now));
  }
  return parts.join("\n") + "\n";
}

// ───────────────────────── running ─────────────────────────

/**
 * Runs wrangler with the offline environment; resolves with its exit code. `quiet` keeps its
 * output (a JSON dump per statement for --file) and prints it only when the command fails.
 */
export function runWrangler(args, { quiet = false } = {}) {
  return new Promise((res, rej) => {
    const child = spawn(process.execPath, [WRANGLER_BIN, ...args], {
      cwd: ROOT,
      env: WRANGLER_ENV,
      stdio: ["ignore", quiet ? "pipe" : "inherit", quiet ? "pipe" : "inherit"],
    });
    const output = [];
    child.stdout?.on("data", (d) => output.push(d));
    child.stderr?.on("data", (d) => output.push(d));
    const forward = (sig) => child.kill(sig);
    process.on("SIGINT", forward).on("SIGTERM", forward);
    child.on("error", rej);
    child.on("exit", (code, signal) => {
      process.off("SIGINT", forward).off("SIGTERM", forward);
      const status = code ?? (signal ? 1 : 0);
      if (status !== 0 && output.length) process.stderr.write(Buffer.concat(output));
      res(status);
    });
  });
}

function parseArgs(argv) {
  const opts = { remote: false, persistTo: null, pepper: null, dryRun: false, passwordCost: "production" };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      const v = a.includes("=") ? a.slice(a.indexOf("=") + 1) : argv[++i];
      if (!v) throw new Error(`${a} needs a value`);
      return v;
    };
    if (a === "--remote") opts.remote = true;
    else if (a === "--local") opts.remote = false;
    else if (a === "--dry-run") opts.dryRun = true;
    else if (a.startsWith("--persist-to")) opts.persistTo = resolve(value());
    else if (a.startsWith("--pepper")) opts.pepper = value();
    else if (a.startsWith("--password-cost")) {
      opts.passwordCost = value();
      if (opts.passwordCost !== "test" && opts.passwordCost !== "production") throw new Error("--password-cost is test or production");
    }
    else throw new Error(`unknown option ${a}`);
  }
  if (opts.remote && opts.persistTo) throw new Error("--persist-to is for the local database only");
  return opts;
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const pepper = opts.remote ? null : (opts.pepper ?? readPepper());
  if (!opts.remote && pepper === "change-me") console.warn("seed: PEPPER is still the example value; run `npm start` once or edit .dev.vars");
  const sql = await buildSeedSql({ remote: opts.remote, pepper, passwordCost: opts.passwordCost });
  const dir = mkdtempSync(join(tmpdir(), "exchange-seed-"));
  const file = join(dir, "seed.sql");
  writeFileSync(file, sql);
  if (opts.dryRun) {
    console.log(`seed: SQL written to ${file} (not executed)`);
    return;
  }
  try {
    const target = opts.remote ? ["--remote", "--yes"] : ["--local", ...(opts.persistTo ? ["--persist-to", opts.persistTo] : [])];
    const code = await runWrangler(["d1", "execute", "DB", ...target, "--file", file], { quiet: true });
    if (code !== 0) throw new Error(`wrangler d1 execute exited with ${code}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const langs = LOCALES.length;
  console.log(
    `seed: ${currencies.length} currencies, ${pairs.length} pairs, ${countries.length} countries, ` +
      `${articles.length} articles x ${langs} languages, agreement x ${langs}` +
      (opts.remote ? " (remote: no demo accounts)" : `, ${demoAccounts.length} demo accounts`),
  );
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  main().catch((err) => {
    console.error(`seed: ${err instanceof Error ? err.message : err}`);
    process.exit(1);
  });
}
