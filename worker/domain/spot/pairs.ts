/** Pair configuration from D1, with the unit factors the order path needs (durable/engine/units.ts). */
import { baseUnitsPerLot, quoteUnitsPerTickLot } from "../../../durable/engine/units.ts";
import { ApiError } from "../../lib/errors.ts";
import { isolateMap } from "../../lib/caches.ts";

export interface PairRow {
  id: number;
  currencyId: number;
  legalId: number;
  base: string;
  quote: string;
  priceDecimals: number;
  qtyDecimals: number;
  baseScale: number;
  quoteScale: number;
  minNotional: bigint;
  open: boolean;
  /** Quote minimal units per (price unit × quantity unit). */
  quotePerTickLot: bigint;
  /** Base minimal units per quantity unit. */
  basePerLot: bigint;
}

const SELECT = `SELECT p.id, p.currency_id, p.legal_id, p.price_decimals, p.qty_decimals, p.min_notional, p.open,
  b.name AS base, b.scale AS base_scale, q.name AS quote, q.scale AS quote_scale
  FROM pairs p JOIN currencies b ON b.id = p.currency_id JOIN currencies q ON q.id = p.legal_id`;

function toPair(r: Record<string, number | string>): PairRow {
  const priceDecimals = Number(r.price_decimals);
  const qtyDecimals = Number(r.qty_decimals);
  const baseScale = Number(r.base_scale);
  const quoteScale = Number(r.quote_scale);
  return {
    id: Number(r.id),
    currencyId: Number(r.currency_id),
    legalId: Number(r.legal_id),
    base: String(r.base),
    quote: String(r.quote),
    priceDecimals,
    qtyDecimals,
    baseScale,
    quoteScale,
    minNotional: BigInt(r.min_notional as number),
    open: Number(r.open) === 1,
    quotePerTickLot: quoteUnitsPerTickLot({ quoteScale, priceDecimals, qtyDecimals }),
    basePerLot: baseUnitsPerLot({ baseScale, qtyDecimals }),
  };
}

/**
 * Pair rows change rarely (an operator opening or closing a pair), and every order needs one:
 * each isolate keeps them for a few seconds, which saves a D1 round trip per order
 * (bench/README.md). Closing a pair therefore takes effect within PAIR_CACHE_MS.
 */
export const PAIR_CACHE_MS = 10_000;
const pairCache = isolateMap<string, { at: number; row: PairRow | null }>();

/** The open pair for a currency against a legal currency, or pair_closed. */
export async function pairFor(db: D1Database, currencyId: number, legalId: number, now = Date.now()): Promise<PairRow> {
  const key = `${currencyId}:${legalId}`;
  let hit = pairCache.get(key);
  if (!hit || now - hit.at > PAIR_CACHE_MS) {
    const r = await db.prepare(`${SELECT} WHERE p.currency_id = ? AND p.legal_id = ?`).bind(currencyId, legalId).first<Record<string, number | string>>();
    hit = { at: now, row: r ? toPair(r) : null };
    pairCache.set(key, hit);
  }
  if (!hit.row || !hit.row.open) throw new ApiError("pair_closed");
  return hit.row;
}

/** A pair by its id (any state). */
export async function pairById(db: D1Database, pairId: number): Promise<PairRow | null> {
  const r = await db.prepare(`${SELECT} WHERE p.id = ?`).bind(pairId).first<Record<string, number | string>>();
  return r ? toPair(r) : null;
}

const pairByIdCache = isolateMap<number, { at: number; row: PairRow | null }>();

/** `pairById`, remembered per isolate for PAIR_CACHE_MS (a lever command's pair in objects mode). */
export async function rememberedPairById(db: D1Database, pairId: number, now = Date.now()): Promise<PairRow | null> {
  const hit = pairByIdCache.get(pairId);
  if (hit && now - hit.at <= PAIR_CACHE_MS) return hit.row;
  const row = await pairById(db, pairId);
  pairByIdCache.set(pairId, { at: now, row });
  return row;
}

/** All pairs. */
export async function allPairs(db: D1Database): Promise<PairRow[]> {
  const { results } = await db.prepare(`${SELECT} ORDER BY p.sort, p.id`).all<Record<string, number | string>>();
  return results.map(toPair);
}

/** A pair by symbol text such as "BTC/USDT", "btc-usdt" or "BTCUSDT". */
export async function pairBySymbol(db: D1Database, symbol: string): Promise<PairRow> {
  const s = symbol.toUpperCase().replace(/[/_-]/g, "");
  for (const p of await allPairs(db)) if (`${p.base}${p.quote}` === s) return p;
  throw new ApiError("pair_closed");
}

/** The Durable Object stub of a pair. */
export function pairStub(env: Pick<Env, "PAIR">, pairId: number) {
  return env.PAIR.get(env.PAIR.idFromName(`pair:${pairId}`));
}
