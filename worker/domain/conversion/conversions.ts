/**
 * Flash exchange (spec §2 Conversion): coin ↔ USDT against the treasury at the coin's last traded
 * price, with the published fee and bounds (worker/domain/conversion/quote.ts does the arithmetic).
 * A quote holds its price for QUOTE_TTL_SECONDS and executes exactly, at most once, or refuses once
 * expired; every execution is one ledger movement with its conversion row (in objects mode, one
 * keyed operation in the user's account object and the house's legs: ./objects.ts).
 */
import { formatUnits, parseUnits } from "../../../schemas/money.ts";
import { USDT_ID } from "../../../schemas/wallet.ts";
import { QUOTE_TTL_SECONDS } from "../../../schemas/conversion.ts";
import { ApiError } from "../../lib/errors.ts";
import { runGuarded, TREASURY } from "../../lib/guarded.ts";
import { movementStatements, SYSTEM, type LedgerEntry } from "../../lib/ledger.ts";
import { referenceUsdtPrice, usdtPrices } from "../spot/prices.ts";
import { amountOrThrow, big, getCurrency, listCurrencies, timeFormat } from "../wallet/currency.ts";
import { conversionDirection, conversionSettings, quote } from "./quote.ts";
import { convertOnObjects } from "./objects.ts";
import { accountsOnObjects } from "../../lib/accounts.ts";

const MINUTE = 60_000;
const fmt = (units: bigint, scale: number) => formatUnits(units, scale);

/** The published settings and each coin's price. */
export async function conversionSettingsView(db: D1Database) {
  const s = await conversionSettings(db);
  const prices = await usdtPrices(db);
  const currencies = await listCurrencies(db, true);
  return {
    ...s,
    fee_currency: "USDT",
    prices: currencies.filter((cur) => cur.id !== USDT_ID).map((cur) => ({ currency_id: cur.id, currency_name: cur.name, price: prices.get(cur.id)?.text ?? null })),
  };
}

/** Prices a conversion and holds that price for QUOTE_TTL_SECONDS under a new quote id. */
export async function createQuote(env: PriceEnv, userId: number, input: { from_currency: number; to_currency: number; money: string }) {
  const now = Date.now();
  const db = env.DB;
  const p = await priceConversion(env, userId, input, now);
  const id = newQuoteId();
  const expiresAt = now + QUOTE_TTL_SECONDS * 1000;
  await quoteStatement(db, id, userId, p, expiresAt, now).run();
  return { ...conversionOut(p), quote_id: id, expires_at: expiresAt, ttl_seconds: QUOTE_TTL_SECONDS };
}

const newQuoteId = () => [...crypto.getRandomValues(new Uint8Array(16))].map((x) => x.toString(16).padStart(2, "0")).join("");

/** A priced conversion's terms under a quote id (in objects mode also an unquoted one's, already expired: its orphan sweep reads them). */
function quoteStatement(db: D1Database, id: string, userId: number, p: PricedConversion, expiresAt: number, now: number) {
  return db
    .prepare(
      `INSERT INTO conversion_quotes (id, user_id, from_currency, to_currency, money, money2, treasury_out, fee, fee_percent, usdt_value, price, rate, expires_at, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .bind(id, userId, p.from.id, p.to.id, p.money.toString(), p.q.received.toString(), p.q.treasuryOut.toString(), p.q.fee.toString(), p.q.feePercent, p.q.usdtValue.toString(), p.price, p.rate, expiresAt, now);
}

/** Executes a quote exactly (scoped to the caller, once, unexpired), or a conversion at the current price. */
export async function executeConversion(env: PriceEnv, userId: number, b: { quote_id?: string; from_currency?: number; to_currency?: number; money?: string }) {
  const db = env.DB;
  const now = Date.now();
  let p: PricedConversion;
  let key: string;
  if (b.quote_id !== undefined) {
    // Exactly what the user confirmed, or nothing: scoped to the caller, refused once expired,
    // and keyed by the quote so that it executes at most once.
    const row = await db.prepare("SELECT * FROM conversion_quotes WHERE id = ? AND user_id = ?").bind(b.quote_id, userId).first<QuoteRow>();
    if (!row || row.expires_at <= now) throw new ApiError("quote_expired", 409);
    await checkConversionWait(db, userId, now);
    const [from, to] = await Promise.all([getCurrency(db, row.from_currency), getCurrency(db, row.to_currency)]);
    const direction = conversionDirection(from.id, to.id)!;
    p = {
      direction,
      from,
      to,
      coin: direction === "coin_to_usdt" ? from : to,
      usdt: direction === "coin_to_usdt" ? to : from,
      money: BigInt(row.money),
      price: row.price,
      rate: row.rate,
      q: { received: BigInt(row.money2), treasuryOut: BigInt(row.treasury_out), fee: BigInt(row.fee), feePercent: row.fee_percent, usdtValue: BigInt(row.usdt_value), rate8: 0n },
    };
    key = `conversion:q:${row.id}`;
  } else {
    p = await priceConversion(env, userId, { from_currency: b.from_currency!, to_currency: b.to_currency!, money: b.money! }, now);
    key = `conversion:${userId}:${crypto.randomUUID()}`;
  }
  const { direction, from, to, coin, usdt, money, q } = p;
  const record = (objects: boolean) =>
    conversionRecord(db, { userId, from: from.id, to: to.id, money, money2: q.received, price: p.price, rate: p.rate, fee: q.fee, feePercent: q.feePercent, usdtValue: q.usdtValue, key, now }, objects);
  if (accountsOnObjects(env)) {
    // Objects mode: the user's object and the house's shards move the money (./objects.ts). An
    // unquoted conversion's terms are written first (as an expired quote), so the house's orphan
    // sweep can finish or undo it, and its key is that quote's.
    if (b.quote_id === undefined) {
      const id = newQuoteId();
      await quoteStatement(db, id, userId, p, now, now).run();
      key = `conversion:q:${id}`;
    }
    const c = { key, quoted: b.quote_id !== undefined, direction, fromId: from.id, toId: to.id, usdtId: usdt.id, money, received: q.received, treasuryOut: q.treasuryOut, fee: q.fee };
    await convertOnObjects(env, userId, c, record(true));
    return conversionOut(p);
  }
  const e = (uid: number, currencyId: number, d: bigint, memo = ""): LedgerEntry => ({ userId: uid, currencyId, account: "change", dAvailable: d, dFrozen: 0n, memo });
  const entries =
    direction === "coin_to_usdt"
      ? [
          e(userId, coin.id, -money),
          e(TREASURY, coin.id, money),
          e(TREASURY, usdt.id, -q.treasuryOut),
          e(userId, usdt.id, q.received),
          e(SYSTEM.fees, usdt.id, q.fee, "flash exchange fee"),
        ]
      : [
          e(userId, usdt.id, -money),
          e(SYSTEM.fees, usdt.id, q.fee, "flash exchange fee"),
          e(TREASURY, usdt.id, money - q.fee),
          e(TREASURY, coin.id, -q.treasuryOut),
          e(userId, coin.id, q.received),
        ];
  await runGuarded(db, [
    ...movementStatements(db, key, "conversion", entries, now),
    record(false),
  ]).catch((err: unknown) => {
    // The quote's movement key already exists: it was executed before.
    if (err instanceof ApiError && err.key === "state_conflict" && b.quote_id !== undefined) throw new ApiError("quote_expired", 409);
    throw err;
  });
  return conversionOut(p);
}

/** A conversion's row (in objects mode a copy of it is ignored: an execution completed twice writes it once). */
export function conversionRecord(
  db: D1Database,
  r: { userId: number; from: number; to: number; money: bigint; money2: bigint; price: string; rate: string; fee: bigint; feePercent: string; usdtValue: bigint; key: string; now: number },
  objects: boolean,
): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO conversions (user_id, from_currency, to_currency, money, money2, price, rate, fee, fee_percent, usdt_value, movement_key, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)${objects ? " ON CONFLICT (movement_key) DO NOTHING" : ""}`,
    )
    .bind(r.userId, r.from, r.to, r.money.toString(), r.money2.toString(), r.price, r.rate, r.fee.toString(), r.feePercent, r.usdtValue.toString(), r.key, r.now);
}

/** One's flash exchanges, newest first. */
export async function conversionLog(db: D1Database, uid: number, page: number, limit: number) {
  const [count, rows] = await db.batch([
    db.prepare("SELECT count(*) AS n FROM conversions WHERE user_id = ?").bind(uid),
    db
      .prepare(
        `SELECT v.id, v.money, v.money2, v.rate, v.price, v.fee, v.fee_percent, v.created_at,
                f.name AS from_name, f.scale AS from_scale, t.name AS to_name, t.scale AS to_scale, v.from_currency, v.to_currency
           FROM conversions v JOIN currencies f ON f.id = v.from_currency JOIN currencies t ON t.id = v.to_currency
          WHERE v.user_id = ? ORDER BY v.id DESC LIMIT ? OFFSET ?`,
      )
      .bind(uid, limit, (page - 1) * limit),
  ]);
  type Row = { id: number; money: number; money2: number; rate: string; price: string; fee: number; fee_percent: string; created_at: number; from_name: string; from_scale: number; to_name: string; to_scale: number; from_currency: number; to_currency: number };
  const usdtScale = (await db.prepare("SELECT scale FROM currencies WHERE id = ?").bind(USDT_ID).first<{ scale: number }>())?.scale ?? 8;
  const data = ((rows!.results ?? []) as Row[]).map((r) => ({
    id: r.id,
    money: fmt(big(r.money), r.from_scale),
    money2: fmt(big(r.money2), r.to_scale),
    from: r.from_name,
    to: r.to_name,
    from_currency: r.from_currency,
    to_currency: r.to_currency,
    huilv: r.rate,
    price: r.price,
    sxf: fmt(big(r.fee), usdtScale),
    fee_percent: r.fee_percent,
    addtime: timeFormat(r.created_at),
  }));
  return { lists: { count: (count!.results?.[0] as { n: number } | undefined)?.n ?? 0, data }, page, limit };
}

export interface QuoteRow {
  id: string;
  from_currency: number;
  to_currency: number;
  money: string;
  money2: string;
  treasury_out: string;
  fee: string;
  fee_percent: string;
  usdt_value: string;
  price: string;
  rate: string;
  expires_at: number;
}

type PricedConversion = Awaited<ReturnType<typeof priceConversion>>;

async function checkConversionWait(db: D1Database, userId: number, now: number) {
  const s = await conversionSettings(db);
  const waitMinutes = Number(s.shandui_time) || 0;
  if (waitMinutes <= 0) return;
  const last = await db.prepare("SELECT max(created_at) AS t FROM conversions WHERE user_id = ?").bind(userId).first<{ t: number | null }>();
  if (last?.t && now - last.t < waitMinutes * MINUTE) throw new ApiError("conversion_wait", 429, { minutes: waitMinutes });
}

/** What pricing a conversion reads: D1 and the pair objects (the reference price). */
type PriceEnv = { DB: D1Database; PAIR?: Env["PAIR"]; USER: Env["USER"]; ACCOUNTS?: string };

/** Prices a conversion at the coin's reference price (the pair's index, not a printable last trade) with the published fee and bounds (spec §5). */
async function priceConversion(env: PriceEnv, userId: number, b: { from_currency: number; to_currency: number; money: string }, now: number) {
  const db = env.DB;
  const direction = conversionDirection(b.from_currency, b.to_currency);
  if (!direction) throw new ApiError("conversion_pair");
  const [from, to] = await Promise.all([getCurrency(db, b.from_currency), getCurrency(db, b.to_currency)]);
  const coin = direction === "coin_to_usdt" ? from : to;
  const usdt = direction === "coin_to_usdt" ? to : from;
  const money = amountOrThrow(b.money, from.scale);
  const price = await referenceUsdtPrice(env, coin.id);
  if (!price) throw new ApiError("no_price", 409, { currency: coin.name });
  const s = await conversionSettings(db);
  const usdtUnits = (d: string) => {
    const u = parseUnits(d, usdt.scale);
    if (u === null) throw new Error(`bad USDT setting ${d}`);
    return u;
  };
  await checkConversionWait(db, userId, now);
  const q = quote(direction, money, price, coin.scale, usdt.scale, s, usdtUnits);
  if (q.usdtValue < usdtUnits(s.shanduiMin) || q.received <= 0n) throw new ApiError("below_min", 400, { min: `${s.shanduiMin} USDT` });
  if (q.usdtValue > usdtUnits(s.shanduiMax)) throw new ApiError("above_max", 400, { max: `${s.shanduiMax} USDT` });
  return { direction, from, to, coin, usdt, money, price: price.text, rate: formatUnits(q.rate8, 8), q };
}

function conversionOut(p: PricedConversion) {
  return {
    from: p.from.name,
    to: p.to.name,
    money: fmt(p.money, p.from.scale),
    money2: fmt(p.q.received, p.to.scale),
    money2_display: formatUnits(p.q.received, p.to.scale, 5),
    huilv: p.rate,
    price: p.price,
    sxf: fmt(p.q.fee, p.usdt.scale),
    fee_percent: p.q.feePercent,
    usdt_value: fmt(p.q.usdtValue, p.usdt.scale),
  };
}
