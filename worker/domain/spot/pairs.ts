/** Pair configuration from D1, with the unit factors the order path needs (durable/engine/units.ts). */
import { baseUnitsPerLot, quoteUnitsPerTickLot } from "../../../durable/engine/units.ts";
import { ApiError } from "../../lib/errors.ts";
import { isolateMap } from "../../lib/caches.ts";
import { objectId } from "../../lib/object-ids.ts";
import { accountsOnObjects, accountStub } from "../../lib/accounts.ts";
import type { PairState } from "../../../durable/pair/object.ts";

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

/**
 * `ACCOUNTS=objects`: the pair of an order, with no D1 read on the request. The isolate reads the
 * pair's row from D1 once (its identity, units and decimals, which no code changes on a live pair);
 * its state (open, minimum notional) is the pair object's: asked of it (no D1) when the isolate's
 * copy is older than PAIR_CACHE_MS or says closed, and checked by the object at `place` (an order priced on a state
 * the object no longer has is refused there as PAIR_CHANGED, and `notePairState` takes the new one
 * in). With `ACCOUNTS=d1` this is `pairFor`, unchanged.
 */
export async function orderPair(env: Env, currencyId: number, legalId: number, now = Date.now()): Promise<PairRow> {
  if (!accountsOnObjects(env)) return pairFor(env.DB, currencyId, legalId, now);
  const key = `${currencyId}:${legalId}`;
  let hit = objectPairCache.get(key);
  if (!hit || (!hit.row && now - hit.at > PAIR_CACHE_MS)) {
    const r = await env.DB.prepare(`${SELECT} WHERE p.currency_id = ? AND p.legal_id = ?`).bind(currencyId, legalId).first<Record<string, number | string>>();
    hit = { at: now, row: r ? toPair(r) : null };
    objectPairCache.set(key, hit);
    // The same identity serves a lever command's pair by id (`rememberedPairById` with `identity`).
    if (hit.row) pairByIdCache.set(hit.row.id, { at: now, row: hit.row });
  } else if (hit.row && (!hit.row.open || now - hit.at > PAIR_CACHE_MS)) {
    // Closed here: asked of the object each time (a reopening takes effect at once; orders on a closed pair cost a call, no D1).
    hit = { at: now, row: withState(hit.row, await pairStub(env, hit.row.id).pairState(hit.row.id)) };
    objectPairCache.set(key, hit);
  }
  if (!hit.row || !hit.row.open) throw new ApiError("pair_closed");
  return hit.row;
}

const objectPairCache = isolateMap<string, { at: number; row: PairRow | null }>();
const withState = (row: PairRow, state: PairState): PairRow => ({ ...row, open: state.open, minNotional: BigInt(state.minNotional) });

/** The pair object refused an order as PAIR_CHANGED: this isolate takes the object's state in (the next `orderPair` prices on it). */
export function notePairState(row: PairRow, state: PairState, now = Date.now()): void {
  objectPairCache.set(`${row.currencyId}:${row.legalId}`, { at: now, row: withState(row, state) });
}

/**
 * Opens or closes a pair, or sets its minimum notional (quote units): D1's row, then the pair
 * object, which from then on refuses orders priced on the old state (`ACCOUNTS=objects`: it is
 * what decides). The D1 path's isolates see D1's row within PAIR_CACHE_MS, as before. A push that
 * fails fails the call (D1 already has the new state): the operator sets it again.
 */
export async function setPairState(env: Env, pairId: number, change: { open?: boolean; minNotional?: bigint }): Promise<PairState> {
  await env.DB.prepare("UPDATE pairs SET open = coalesce(?, open), min_notional = coalesce(?, min_notional) WHERE id = ?")
    .bind(change.open === undefined ? null : change.open ? 1 : 0, change.minNotional === undefined ? null : Number(change.minNotional), pairId)
    .run();
  const state = await pairStub(env, pairId).pairSet(pairId, { open: change.open, minNotional: change.minNotional?.toString() });
  // This isolate's D1-path copies; objects mode's (`orderPair`) are left as every other isolate's are: the object decides.
  pairCache.clear();
  pairByIdCache.clear();
  return state;
}

/** A pair by its id (any state). */
export async function pairById(db: D1Database, pairId: number): Promise<PairRow | null> {
  const r = await db.prepare(`${SELECT} WHERE p.id = ?`).bind(pairId).first<Record<string, number | string>>();
  return r ? toPair(r) : null;
}

const pairByIdCache = isolateMap<number, { at: number; row: PairRow | null }>();

/**
 * `pairById`, remembered per isolate (a lever command's pair in objects mode): for PAIR_CACHE_MS, or
 * with `identity` for as long as the isolate lives when only what never changes on a live pair is
 * used (its id, currencies, decimals: a command on a closed pair is the pair object's to answer).
 */
export async function rememberedPairById(db: D1Database, pairId: number, now = Date.now(), identity = false): Promise<PairRow | null> {
  const hit = pairByIdCache.get(pairId);
  if (hit && (now - hit.at <= PAIR_CACHE_MS || (identity && hit.row))) return hit.row;
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

/**
 * `ACCOUNTS=objects`, before a list read from D1: the pairs owning the user's open holds of these
 * kinds (`pair:{id}`) drain, so the list has every record the user made before it.
 */
export async function drainHoldingPairs(env: Env, userId: number, forKinds: string[]): Promise<void> {
  const holds = await accountStub(env, userId).accountOwnedHolds(userId, forKinds);
  const pairs = new Set<number>();
  for (const h of holds) {
    const m = /^pair:([0-9]+)$/.exec(h.owner ?? "");
    if (m) pairs.add(Number(m[1]));
  }
  await Promise.all([...pairs].map((id) => pairStub(env, id).drain()));
}

/** The Durable Object stub of a pair. */
export function pairStub(env: Pick<Env, "PAIR">, pairId: number) {
  return env.PAIR.get(objectId(env.PAIR, `pair:${pairId}`));
}
