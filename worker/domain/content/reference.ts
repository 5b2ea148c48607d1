/**
 * Public reference data: quotations (only from the `tickers` table, which the spot engine writes
 * from executed trades: a pair that has not traded shows "0", never an invented price), shown
 * currencies, countries, the customer-service link, and the home page's view of the caller.
 */
import type { Country, Currency, HomeIndex, QuotationGroup } from "../../../schemas/content.ts";
import { alias } from "drizzle-orm/sqlite-core";
import { and, asc, eq } from "drizzle-orm";
import { getDb, schema } from "../../db/client.ts";
import { bpsToPercent } from "../../../durable/engine/seconds.ts";
import { quotationLeverFields } from "../lever/config.ts";

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
  maker_fee_bps: number;
  taker_fee_bps: number;
}

/** Open pairs grouped by quote currency, with the stored 24 h ticker or zeros when none exists. */
export async function quotationGroups(d1: D1Database, leverOn = false): Promise<QuotationGroup[]> {
  // Leveraged-contract fields (lever_trade_fee, lever_share_num) for pairs that offer them.
  const lever = leverOn ? await quotationLeverFields(d1) : new Map<number, { lever_trade_fee: string; lever_share_num: string }>();
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
      maker_fee_bps: pairs.makerFeeBps,
      taker_fee_bps: pairs.takerFeeBps,
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
      maker_fee: bpsToPercent(r.maker_fee_bps),
      taker_fee: bpsToPercent(r.taker_fee_bps),
      lever_trade_fee: lever.get(r.id)?.lever_trade_fee ?? null,
      lever_share_num: lever.get(r.id)?.lever_share_num ?? null,
    });
  }
  return groups;
}

/** The customer-service link (settings `kefu_link`), or "". */
export async function kefuLink(d1: D1Database): Promise<string> {
  const [row] = await getDb(d1).select({ value: schema.settings.value }).from(schema.settings).where(eq(schema.settings.key, "kefu_link"));
  return row?.value ?? "";
}

/** Currencies flagged shown, in display order. */
export async function shownCurrencies(d1: D1Database): Promise<Currency[]> {
  const c = schema.currencies;
  return getDb(d1)
    .select({ id: c.id, name: c.name, logo: c.logo, scale: c.scale, is_legal: c.isLegal, is_lever: c.isLever, is_match: c.isMatch, is_micro: c.isMicro })
    .from(c)
    .where(eq(c.show, 1))
    .orderBy(asc(c.sort), asc(c.id));
}


/** Countries and calling codes. */
export async function countries(d1: D1Database): Promise<Country[]> {
  const k = schema.countries;
  return getDb(d1)
    .select({ country_id: k.countryId, area_code: k.areaCode, name_cn: k.nameCn, name_en: k.nameEn })
    .from(k)
    .orderBy(asc(k.countryId));
}

/** The home page's view of a logged-in user: the real name only once identity verification is approved (spec §4). */
export async function homeUser(d1: D1Database, userId: number): Promise<HomeIndex["user"]> {
  const profile = await getDb(d1)
    .select({ review_status: schema.users.reviewStatus, real_name: schema.users.realName })
    .from(schema.users)
    .where(eq(schema.users.id, userId))
    .then((rows) => rows[0] ?? null);
  return profile ? { review_status: profile.review_status, name: profile.review_status === 2 ? profile.real_name : null } : null;
}
