/**
 * Leveraged-contract settings per pair in D1 (`lever_pairs`): lot size, leverages, lot bounds, fee,
 * overnight fee, maintenance margin, the house's exposure limit and the positions a user may hold.
 * Written only by operators, audited in the same batch; copied onto each position at submit, so an
 * edit never reaches a running position.
 */
import { formatUnitsTrim, parseUnits } from "../../../schemas/money.ts";
import type { LeverLotStep, LeverPairEdit, LeverPairSettings } from "../../../schemas/lever.ts";
import { bpsToPercent, percentToBps } from "../../../durable/engine/seconds.ts";
import { auditStatement, runGuarded } from "../../lib/guarded.ts";
import { ApiError } from "../../lib/errors.ts";
import { pairById, pairStub, type PairRow } from "../spot/pairs.ts";
import { leverTermsKey, type LeverTermsColumns } from "../../../durable/pair/desks/lever-objects.ts";
import { isolateMap } from "../../lib/caches.ts";

/** A pair's settings with amounts in minimal units. */
export interface LeverSettings {
  pairId: number;
  /** base minimal units per lot */
  sizeUnits: bigint;
  multiples: number[];
  minLots: number;
  maxLots: number;
  /** lots are a multiple of this: 1, 10 or 100 (spec §5) */
  lotStep: LeverLotStep;
  feeBps: number;
  overnightBps: number;
  maintenanceBps: number;
  /** quote minimal units */
  pairExposure: bigint;
  maxPositions: number;
  status: number;
  updatedAt: number;
}

/** D1's `lever_pairs` row (the columns an open is priced on, lever-objects.ts, and when it changed). */
type Row = LeverTermsColumns & { updated_at: number };

function toSettings(r: Row, pair: PairRow): LeverSettings {
  return {
    pairId: r.pair_id,
    sizeUnits: parseUnits(r.share_num, pair.baseScale) ?? 0n,
    multiples: (JSON.parse(r.multiples) as number[]).slice().sort((a, b) => a - b),
    minLots: r.min_lots,
    maxLots: r.max_lots,
    lotStep: (r.lot_step ?? 1) as LeverLotStep,
    feeBps: r.fee_bps,
    overnightBps: r.overnight_bps,
    maintenanceBps: r.maintenance_bps,
    pairExposure: parseUnits(r.pair_exposure, pair.quoteScale) ?? 0n,
    maxPositions: r.max_positions,
    status: r.status,
    updatedAt: r.updated_at,
  };
}

/** A pair's settings (any status), or null when the pair has none. */
export async function leverSettings(db: D1Database, pair: PairRow): Promise<LeverSettings | null> {
  const r = await db.prepare("SELECT * FROM lever_pairs WHERE pair_id = ?").bind(pair.id).first<Row>();
  return r ? toSettings(r, pair) : null;
}

/** Settings of a pair open for leveraged contracts, or lever_pair_off. */
export async function openLeverSettings(db: D1Database, pair: PairRow): Promise<LeverSettings> {
  const s = await leverSettings(db, pair);
  if (!s || s.status !== 1 || !pair.open || s.sizeUnits <= 0n) throw new ApiError("lever_pair_off");
  return s;
}

/**
 * Settings of a pair open for leveraged contracts, remembered per isolate (issue #17 §2: opens/s
 * through the API) unless `fresh`, with the columns the open's freeze batch re-checks
 * (`LEVER_TERMS_GUARD`): a remembered entry is never trusted on its own. Only settings that allow
 * an open are remembered; lever_pair_off is always read in D1. Sets `seen.remembered` when a
 * remembered entry is used.
 */
export async function rememberedLeverSettings(db: D1Database, pair: PairRow, fresh: boolean, seen: { remembered: boolean }, now = Date.now()): Promise<{ settings: LeverSettings; raw: Row }> {
  const hit = fresh ? undefined : remembered.get(pair.id);
  if (hit && now - hit.at <= LEVER_TERMS_CACHE_MS) {
    seen.remembered = true;
    return hit;
  }
  const r = await db.prepare("SELECT * FROM lever_pairs WHERE pair_id = ?").bind(pair.id).first<Row>();
  const s = r ? toSettings(r, pair) : null;
  if (!r || !s || s.status !== 1 || !pair.open || s.sizeUnits <= 0n) {
    remembered.delete(pair.id);
    throw new ApiError("lever_pair_off");
  }
  const entry = { at: now, settings: s, raw: r };
  remembered.set(pair.id, entry);
  return entry;
}

export const LEVER_TERMS_CACHE_MS = 60_000;
const remembered = isolateMap<number, { at: number; settings: LeverSettings; raw: Row }>();

/** Forgets every remembered setting (an open's batch found one changed). */
export function forgetLeverSettings(): void {
  remembered.clear();
}

/**
 * The pair id if its settings are open and exactly these, else NULL (for the position row's NOT
 * NULL `pair_id`: a changed setting fails the whole freeze batch). Binds: `leverGuardBinds`.
 */
export const LEVER_TERMS_GUARD = `(SELECT s.pair_id FROM lever_pairs s WHERE s.pair_id = ? AND s.status = 1 AND s.share_num = ? AND s.multiples = ?
  AND s.min_lots = ? AND s.max_lots = ? AND s.lot_step = ? AND s.fee_bps = ? AND s.overnight_bps = ? AND s.maintenance_bps = ? AND s.pair_exposure = ? AND s.max_positions = ?)`;

export const leverGuardBinds = (r: Row) => [r.pair_id, r.share_num, r.multiples, r.min_lots, r.max_lots, r.lot_step, r.fee_bps, r.overnight_bps, r.maintenance_bps, r.pair_exposure, r.max_positions];

/** Every pair with settings, with its pair row. */
export async function allLeverSettings(db: D1Database): Promise<{ pair: PairRow; settings: LeverSettings }[]> {
  const { results } = await db.prepare("SELECT * FROM lever_pairs ORDER BY pair_id").all<Row>();
  const out: { pair: PairRow; settings: LeverSettings }[] = [];
  for (const r of results) {
    const pair = await pairById(db, r.pair_id);
    if (pair) out.push({ pair, settings: toSettings(r, pair) });
  }
  return out;
}

/** The public view of a pair's settings (the quotation's lever_trade_fee and lever_share_num). */
export function settingsOut(pair: PairRow, s: LeverSettings): LeverPairSettings {
  return {
    match_id: pair.id,
    currency_id: pair.currencyId,
    legal_id: pair.legalId,
    symbol_name: `${pair.base}/${pair.quote}`,
    lever_share_num: formatUnitsTrim(s.sizeUnits, pair.baseScale),
    lever_trade_fee: bpsToPercent(s.feeBps),
    overnight_fee: bpsToPercent(s.overnightBps),
    maintenance_rate: bpsToPercent(s.maintenanceBps),
    multiples: s.multiples,
    min_share: s.minLots,
    max_share: s.maxLots,
    share_step: s.lotStep,
    max_positions: s.maxPositions,
    status: s.status,
  };
}

/** Quotation fields per pair id (only pairs open for leverage), for GET /api/currency/quotation_new. */
export async function quotationLeverFields(db: D1Database): Promise<Map<number, { lever_trade_fee: string; lever_share_num: string }>> {
  const out = new Map<number, { lever_trade_fee: string; lever_share_num: string }>();
  const { results } = await db
    .prepare("SELECT l.pair_id, l.share_num, l.fee_bps FROM lever_pairs l JOIN pairs p ON p.id = l.pair_id WHERE l.status = 1 AND p.open = 1")
    .all<{ pair_id: number; share_num: string; fee_bps: number }>();
  for (const r of results) out.set(r.pair_id, { lever_trade_fee: bpsToPercent(r.fee_bps), lever_share_num: r.share_num });
  return out;
}

/**
 * An operator's edit of a pair's settings, audited in the same batch; applies to positions submitted
 * afterwards. The pair object holds the settings an open may be priced on (`ACCOUNTS=objects`: it
 * decides at acceptance, with no D1 statement on the open's way): told "changing" before D1's write
 * and the new settings after it, so no open priced on the old ones is accepted once D1 has the new
 * (it is refused and priced again on D1's); a failed write tells it to read D1's settings again.
 */
export async function saveLeverSettings(env: Env, operatorId: number, e: LeverPairEdit, now = Date.now()): Promise<void> {
  const db = env.DB;
  const pair = await pairById(db, e.match_id);
  if (!pair) throw new ApiError("pair_closed");
  const size = parseUnits(e.lever_share_num, pair.baseScale);
  if (size === null) throw new ApiError("too_many_decimals", 400, { decimals: pair.baseScale });
  if (size <= 0n || size > BigInt(Number.MAX_SAFE_INTEGER)) throw new ApiError("invalid_field", 400, { field: "lever_share_num" });
  const exposure = parseUnits(e.pair_exposure, pair.quoteScale);
  if (exposure === null || exposure <= 0n || exposure > BigInt(Number.MAX_SAFE_INTEGER)) throw new ApiError("invalid_field", 400, { field: "pair_exposure" });
  if (e.min_share > e.max_share) throw new ApiError("invalid_field", 400, { field: "max_share" });
  if (e.min_share % e.share_step !== 0) throw new ApiError("invalid_field", 400, { field: "min_share" });
  if (e.max_share % e.share_step !== 0) throw new ApiError("invalid_field", 400, { field: "max_share" });
  const fee = percentToBps(e.lever_trade_fee);
  if (fee === null || fee > 1000) throw new ApiError("invalid_field", 400, { field: "lever_trade_fee" });
  const night = percentToBps(e.overnight_fee);
  if (night === null || night > 100) throw new ApiError("invalid_field", 400, { field: "overnight_fee" });
  const mm = percentToBps(e.maintenance_rate);
  if (mm === null || mm > 9900) throw new ApiError("invalid_field", 400, { field: "maintenance_rate" });
  const multiples = [...new Set(e.multiples)].sort((a, b) => a - b);
  const row = {
    share_num: formatUnitsTrim(size, pair.baseScale),
    multiples: JSON.stringify(multiples),
    pair_exposure: formatUnitsTrim(exposure, pair.quoteScale),
  };
  const object = pairStub(env, pair.id);
  await object.leverTermsChanging(pair.id);
  try {
    await writeSettings(db, operatorId, pair, e, row, { fee, night, mm }, now);
  } catch (err) {
    await object.leverTermsChanged(pair.id, null);
    throw err;
  }
  const saved = await db.prepare("SELECT * FROM lever_pairs WHERE pair_id = ?").bind(pair.id).first<Row>();
  await object.leverTermsChanged(pair.id, leverTermsKey(saved));
}

async function writeSettings(
  db: D1Database,
  operatorId: number,
  pair: PairRow,
  e: LeverPairEdit,
  row: { share_num: string; multiples: string; pair_exposure: string },
  { fee, night, mm }: { fee: number; night: number; mm: number },
  now: number,
): Promise<void> {
  await runGuarded(db, [
    db
      .prepare(
        `INSERT INTO lever_pairs (pair_id, share_num, multiples, min_lots, max_lots, lot_step, fee_bps, overnight_bps, maintenance_bps, pair_exposure, max_positions, status, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (pair_id) DO UPDATE SET share_num = excluded.share_num, multiples = excluded.multiples, min_lots = excluded.min_lots, max_lots = excluded.max_lots, lot_step = excluded.lot_step,
           fee_bps = excluded.fee_bps, overnight_bps = excluded.overnight_bps, maintenance_bps = excluded.maintenance_bps, pair_exposure = excluded.pair_exposure,
           max_positions = excluded.max_positions, status = excluded.status, updated_at = excluded.updated_at`,
      )
      .bind(pair.id, row.share_num, row.multiples, e.min_share, e.max_share, e.share_step, fee, night, mm, row.pair_exposure, e.max_positions, e.status, now),
    auditStatement(
      db,
      {
        operatorId,
        action: "lever.pair",
        targetType: "lever_pair",
        targetId: pair.id,
        reason: e.reason,
        detail: { ...row, min_share: e.min_share, max_share: e.max_share, share_step: e.share_step, lever_trade_fee: bpsToPercent(fee), overnight_fee: bpsToPercent(night), maintenance_rate: bpsToPercent(mm), max_positions: e.max_positions, status: e.status },
      },
      now,
    ),
  ]);
}
