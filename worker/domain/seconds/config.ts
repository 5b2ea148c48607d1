/**
 * Seconds-contract settings in D1: the duration options and the payable currencies (amount
 * choices, stake bounds, fee, exposure limits). Read by the order path and the public lists;
 * written only by operators, audited. Settings are copied onto a contract when it is accepted,
 * so an edit never reaches a contract already running.
 */
import { formatUnitsTrim, parseUnits } from "../../../schemas/money.ts";
import type { PayableCurrency, SecondsOption } from "../../../schemas/seconds.ts";
import { bpsToPercent, percentToBps } from "../../../durable/engine/seconds.ts";
import { auditStatement, runGuarded } from "../../lib/guarded.ts";
import { ApiError } from "../../lib/errors.ts";
import { getCurrency } from "../wallet/currency.ts";
import { pairStub } from "../spot/pairs.ts";

export interface OptionRow {
  seconds: number;
  ratioBps: number;
  status: number;
  updatedAt: number;
}

/** A payable currency with its limits in minimal units. */
export interface PayableRow {
  currencyId: number;
  name: string;
  scale: number;
  microNumbers: string[];
  min: bigint;
  max: bigint;
  feeBps: number;
  pairExposure: bigint;
  userExposure: bigint;
  status: number;
  updatedAt: number;
}

export async function listOptions(db: D1Database, onlyOffered: boolean): Promise<OptionRow[]> {
  const { results } = await db
    .prepare(`SELECT seconds, profit_ratio_bps, status, updated_at FROM seconds_options ${onlyOffered ? "WHERE status = 1" : ""} ORDER BY seconds`)
    .all<{ seconds: number; profit_ratio_bps: number; status: number; updated_at: number }>();
  return results.map((r) => ({ seconds: r.seconds, ratioBps: r.profit_ratio_bps, status: r.status, updatedAt: r.updated_at }));
}

export const optionOut = (o: OptionRow): SecondsOption => ({ seconds: o.seconds, profit_ratio: bpsToPercent(o.ratioBps), status: o.status });

/** An offered duration, or seconds_unavailable. */
export async function offeredOption(db: D1Database, seconds: number): Promise<OptionRow> {
  const r = await db
    .prepare("SELECT seconds, profit_ratio_bps, status, updated_at FROM seconds_options WHERE seconds = ? AND status = 1")
    .bind(seconds)
    .first<{ seconds: number; profit_ratio_bps: number; status: number; updated_at: number }>();
  if (!r) throw new ApiError("seconds_unavailable");
  return { seconds: r.seconds, ratioBps: r.profit_ratio_bps, status: r.status, updatedAt: r.updated_at };
}

type PayableDbRow = {
  currency_id: number;
  name: string;
  scale: number;
  micro_numbers: string;
  min_number: string;
  max_number: string;
  fee_bps: number;
  pair_exposure: string;
  user_exposure: string;
  status: number;
  updated_at: number;
};

function toPayable(r: PayableDbRow): PayableRow {
  const u = (v: string) => parseUnits(v, r.scale) ?? 0n;
  return {
    currencyId: r.currency_id,
    name: r.name,
    scale: r.scale,
    microNumbers: JSON.parse(r.micro_numbers) as string[],
    min: u(r.min_number),
    max: u(r.max_number),
    feeBps: r.fee_bps,
    pairExposure: u(r.pair_exposure),
    userExposure: u(r.user_exposure),
    status: r.status,
    updatedAt: r.updated_at,
  };
}

const PAYABLE_SELECT = `SELECT m.*, c.name, c.scale FROM micro_currencies m JOIN currencies c ON c.id = m.currency_id`;

export async function listPayable(db: D1Database, onlyOpen: boolean): Promise<PayableRow[]> {
  const { results } = await db.prepare(`${PAYABLE_SELECT} ${onlyOpen ? "WHERE m.status = 1" : ""} ORDER BY c.sort, c.id`).all<PayableDbRow>();
  return results.map(toPayable);
}

/** A currency contracts may be paid in now, or currency_unsupported. */
export async function payable(db: D1Database, currencyId: number): Promise<PayableRow> {
  const r = await db.prepare(`${PAYABLE_SELECT} WHERE m.currency_id = ? AND m.status = 1`).bind(currencyId).first<PayableDbRow>();
  if (!r) throw new ApiError("currency_unsupported");
  return toPayable(r);
}

/**
 * `payable` with the columns the submit's batch re-checks as D1 holds them (worker/domain/seconds/terms.ts):
 * one read, or currency_unsupported.
 */
export async function payableWithRaw(db: D1Database, currencyId: number): Promise<{ row: PayableRow; raw: RawPayable }> {
  const r = await db.prepare(`${PAYABLE_SELECT} WHERE m.currency_id = ? AND m.status = 1`).bind(currencyId).first<PayableDbRow>();
  if (!r) throw new ApiError("currency_unsupported");
  return { row: toPayable(r), raw: { feeBps: r.fee_bps, min: r.min_number, max: r.max_number, pairExposure: r.pair_exposure, userExposure: r.user_exposure } };
}

/** A payable currency's limits as the micro_currencies row holds them (text, as written). */
export interface RawPayable {
  feeBps: number;
  min: string;
  max: string;
  pairExposure: string;
  userExposure: string;
}

/** The public view of a payable currency (user_wallet filled in by the caller). */
export function payableOut(p: PayableRow, wallet: PayableCurrency["user_wallet"]): PayableCurrency {
  return {
    id: p.currencyId,
    name: p.name,
    user_wallet: wallet,
    micro_numbers: p.microNumbers,
    min_number: formatUnitsTrim(p.min, p.scale),
    max_number: formatUnitsTrim(p.max, p.scale),
    fee_percent: bpsToPercent(p.feeBps),
  };
}

// ── operator edits (audited, same batch) ──────────────────────────────────────────────────────

/**
 * Runs an edit of the seconds terms (`saveOption`, `savePayable`) told to every pair object: first
 * "changing" (contracts are refused and priced again meanwhile), then, written or failed, "changed"
 * (each pair reads D1's terms again at its next contract). With `ACCOUNTS=objects` this is what keeps
 * a contract from being accepted on terms an isolate remembers from before the edit (no D1 batch
 * guards them there: durable/pair/object.ts `secondsTermsNow`). Told in both modes, as the lever
 * settings are: terms edited before a cut-over must reach the objects too.
 */
export async function pushingSecondsTerms<T>(env: Pick<Env, "DB" | "PAIR">, write: () => Promise<T>): Promise<T> {
  const { results } = await env.DB.prepare("SELECT id FROM pairs").all<{ id: number }>();
  const pairs = results.map((r) => ({ id: r.id, stub: pairStub(env, r.id) }));
  await Promise.all(pairs.map((p) => p.stub.secondsTermsChanging(p.id)));
  try {
    return await write();
  } finally {
    await Promise.all(pairs.map((p) => p.stub.secondsTermsChanged(p.id)));
  }
}

export async function saveOption(db: D1Database, operatorId: number, e: { seconds: number; profit_ratio: string; status: 0 | 1; reason: string }, now = Date.now()) {
  const bps = percentToBps(e.profit_ratio);
  if (bps === null || bps < 1 || bps > 10_000) throw new ApiError("invalid_field", 400, { field: "profit_ratio" });
  await runGuarded(db, [
    db
      .prepare(
        `INSERT INTO seconds_options (seconds, profit_ratio_bps, status, updated_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (seconds) DO UPDATE SET profit_ratio_bps = excluded.profit_ratio_bps, status = excluded.status, updated_at = excluded.updated_at`,
      )
      .bind(e.seconds, bps, e.status, now),
    auditStatement(db, { operatorId, action: "seconds.option", targetType: "seconds_option", targetId: e.seconds, reason: e.reason, detail: { profit_ratio: bpsToPercent(bps), status: e.status } }, now),
  ]);
}

export interface PayableEdit {
  currency_id: number;
  micro_numbers: string[];
  min_number: string;
  max_number: string;
  fee_percent: string;
  pair_exposure: string;
  user_exposure: string;
  status: 0 | 1;
  reason: string;
}

export async function savePayable(db: D1Database, operatorId: number, e: PayableEdit, now = Date.now()) {
  const cur = await getCurrency(db, e.currency_id);
  const units = (field: string, v: string) => {
    const u = parseUnits(v, cur.scale);
    if (u === null) throw new ApiError("too_many_decimals", 400, { decimals: cur.scale });
    if (u <= 0n || u > BigInt(Number.MAX_SAFE_INTEGER)) throw new ApiError("invalid_field", 400, { field });
    return u;
  };
  const min = units("min_number", e.min_number);
  const max = units("max_number", e.max_number);
  if (min > max) throw new ApiError("invalid_field", 400, { field: "max_number" });
  const choices = e.micro_numbers.map((v) => units("micro_numbers", v));
  if (choices.some((c) => c < min || c > max)) throw new ApiError("invalid_field", 400, { field: "micro_numbers" });
  units("pair_exposure", e.pair_exposure);
  units("user_exposure", e.user_exposure);
  const feeBps = percentToBps(e.fee_percent);
  if (feeBps === null || feeBps > 1000) throw new ApiError("invalid_field", 400, { field: "fee_percent" });
  const text = (u: bigint) => formatUnitsTrim(u, cur.scale);
  const row = {
    micro_numbers: JSON.stringify(choices.map(text)),
    min_number: text(min),
    max_number: text(max),
    pair_exposure: text(units("pair_exposure", e.pair_exposure)),
    user_exposure: text(units("user_exposure", e.user_exposure)),
  };
  await runGuarded(db, [
    db
      .prepare(
        `INSERT INTO micro_currencies (currency_id, micro_numbers, min_number, max_number, fee_bps, pair_exposure, user_exposure, status, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (currency_id) DO UPDATE SET micro_numbers = excluded.micro_numbers, min_number = excluded.min_number, max_number = excluded.max_number,
           fee_bps = excluded.fee_bps, pair_exposure = excluded.pair_exposure, user_exposure = excluded.user_exposure, status = excluded.status, updated_at = excluded.updated_at`,
      )
      .bind(cur.id, row.micro_numbers, row.min_number, row.max_number, feeBps, row.pair_exposure, row.user_exposure, e.status, now),
    auditStatement(db, { operatorId, action: "seconds.currency", targetType: "micro_currency", targetId: cur.id, reason: e.reason, detail: { ...row, fee_percent: bpsToPercent(feeBps), status: e.status } }, now),
  ]);
}
