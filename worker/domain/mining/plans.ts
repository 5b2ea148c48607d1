/**
 * Mining plans (migrations/0033_mining.sql): the public list with the last 30 days' paid payouts
 * per share, the public payout history of a plan, the operator's listing and closing (each
 * audited in the same batch), and the totals the public transparency page reads. A plan's terms
 * never change; a closed plan sells no new shares and its holdings run to their end.
 */
import type { z } from "zod";
import { DAY_MS, HOUR_MS, perShare, type MiningPayout, type MiningPayouts, type MiningPlan, type miningPlanCreateSchema } from "../../../schemas/mining.ts";
import { formatUnitsTrim } from "../../../schemas/money.ts";
import { bpsToPercent } from "../../../durable/engine/seconds.ts";
import { ApiError, notFound } from "../../lib/errors.ts";
import { auditStatement, runGuarded } from "../../lib/guarded.ts";
import { amountOrThrow, getCurrency } from "../wallet/currency.ts";

export interface PlanRow {
  id: number;
  name: string;
  pool: string;
  pool_account: string;
  worker: string;
  hashrate: string;
  shares: number;
  sold: number;
  price_currency_id: number;
  price_currency: string;
  price_scale: number;
  price: number;
  days: number;
  fee_bps: number;
  other_fees: string;
  payout_currency_id: number;
  payout_currency: string;
  payout_scale: number;
  status: "open" | "closed";
  created_at: number;
  closed_at: number | null;
}

export const PLAN_SELECT = `SELECT p.id, p.name, p.pool, p.pool_account, p.worker, p.hashrate, p.shares, p.sold, p.price_currency_id, pc.name AS price_currency,
  pc.scale AS price_scale, p.price, p.days, p.fee_bps, p.other_fees, p.payout_currency_id, oc.name AS payout_currency, oc.scale AS payout_scale, p.status,
  p.created_at, p.closed_at
  FROM mining_plans p JOIN currencies pc ON pc.id = p.price_currency_id JOIN currencies oc ON oc.id = p.payout_currency_id`;

export async function planRow(db: D1Database, id: number): Promise<PlanRow | null> {
  return db.prepare(`${PLAN_SELECT} WHERE p.id = ?`).bind(id).first<PlanRow>();
}

const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const dayStart = (ms: number) => Math.floor(ms / DAY_MS) * DAY_MS;

interface DayRow {
  plan_id: number;
  d: number;
  total: string;
  n: number;
}

/** The window of the 30-day figures: the 30 UTC days up to and including today. */
export function window30(now: number): number {
  return dayStart(now) - 29 * DAY_MS;
}

function planOut(p: PlanRow, days: DayRow[], reference: string, now: number): MiningPlan {
  const from = window30(now);
  const firstDay = Math.max(from, dayStart(p.created_at));
  const counted = Math.max(1, Math.round((dayStart(now) - firstDay) / DAY_MS) + 1);
  let total = 0n;
  let hours = 0;
  const byDay = new Map<number, bigint>();
  for (const r of days) {
    total += BigInt(r.total);
    hours += r.n;
    byDay.set(r.d, BigInt(r.total));
  }
  const series = [];
  for (let d = firstDay; d <= dayStart(now); d += DAY_MS) series.push({ day: utcDay(d), per_share: perShare(byDay.get(d / DAY_MS) ?? 0n, p.shares, p.payout_scale) });
  return {
    id: p.id,
    name: p.name,
    pool: p.pool,
    pool_account: p.pool_account,
    worker: p.worker,
    hashrate: p.hashrate,
    shares: p.shares,
    sold: p.sold,
    shares_left: p.shares - p.sold,
    price: formatUnitsTrim(BigInt(p.price), p.price_scale),
    price_currency_id: p.price_currency_id,
    price_currency: p.price_currency,
    days: p.days,
    fee_bps: p.fee_bps,
    fee_percent: bpsToPercent(p.fee_bps),
    other_fees: p.other_fees,
    payout_currency_id: p.payout_currency_id,
    payout_currency: p.payout_currency,
    status: p.status,
    paid_30d_per_share: perShare(total, p.shares, p.payout_scale),
    paid_30d_hours: hours,
    days_30d: counted,
    avg_day_per_share: perShare(total, p.shares * counted, p.payout_scale),
    series_30d: series,
    reference_price: reference,
    created_at: p.created_at,
    closed_at: p.closed_at,
  };
}

/** Plans on sale (or every plan, for the console), newest first, with the last 30 days' paid payouts per share. */
export async function listPlans(db: D1Database, all: boolean, now = Date.now()): Promise<MiningPlan[]> {
  const [plans, days, prices] = await db.batch<PlanRow | DayRow | { currency_id: number; legal_id: number; last_price: string }>([
    db.prepare(`${PLAN_SELECT} ${all ? "" : "WHERE p.status = 'open'"} ORDER BY p.status DESC, p.id DESC LIMIT 200`),
    db
      .prepare(
        `SELECT plan_id, hour / ${DAY_MS} AS d, CAST(SUM(amount) AS TEXT) AS total, COUNT(*) AS n FROM mining_payouts
          WHERE status = 'paid' AND hour >= ? AND hour < ? GROUP BY plan_id, d`,
      )
      .bind(window30(now), now),
    // The last traded price of each payout currency in each price currency (the calculator's default; "0" when none).
    db.prepare(
      `SELECT pr.currency_id, pr.legal_id, t.last_price FROM pairs pr JOIN tickers t ON t.pair_id = pr.id
        WHERE pr.open = 1 AND (pr.currency_id, pr.legal_id) IN (SELECT DISTINCT payout_currency_id, price_currency_id FROM mining_plans)`,
    ),
  ]);
  const dayRows = days!.results as DayRow[];
  const priceRows = prices!.results as { currency_id: number; legal_id: number; last_price: string }[];
  return (plans!.results as PlanRow[]).map((p) =>
    planOut(
      p,
      dayRows.filter((d) => d.plan_id === p.id),
      priceRows.find((r) => r.currency_id === p.payout_currency_id && r.legal_id === p.price_currency_id)?.last_price ?? "0",
      now,
    ),
  );
}

export interface PayoutRow {
  id: number;
  plan_id: number;
  plan_name: string;
  plan_shares: number;
  fee_bps: number;
  hour: number;
  currency_id: number;
  currency: string;
  scale: number;
  amount: number;
  evidence: string;
  status: "recorded" | "approved" | "rejected" | "paid";
  recorded_by: number;
  recorded_at: number;
  record_reason: string;
  decided_by: number | null;
  decided_at: number | null;
  decide_reason: string;
  credited: number;
  fees: number;
  held: number;
  paid_at: number | null;
}

export const PAYOUT_SELECT = `SELECT o.*, pl.name AS plan_name, pl.shares AS plan_shares, pl.fee_bps, c.name AS currency, c.scale
  FROM mining_payouts o JOIN mining_plans pl ON pl.id = o.plan_id JOIN currencies c ON c.id = o.currency_id`;

export function payoutOut(o: PayoutRow): MiningPayout {
  const f = (u: number | bigint) => formatUnitsTrim(BigInt(u), o.scale);
  return {
    id: o.id,
    plan_id: o.plan_id,
    hour: o.hour,
    amount: f(o.amount),
    currency: o.currency,
    evidence: o.evidence,
    status: o.status === "recorded" ? "pending" : o.status,
    per_share: perShare(BigInt(o.amount), o.plan_shares, o.scale),
    paid_to_users: f(BigInt(o.credited) - BigInt(o.fees)),
    fees: f(o.fees),
    held_shares: o.held,
    paid_at: o.paid_at,
  };
}

/** A plan's recorded hours, newest first (public): pending, approved, paid and rejected alike. */
export async function planPayouts(db: D1Database, q: { plan_id: number; page: number; limit: number }): Promise<MiningPayouts> {
  const plan = await db.prepare("SELECT id FROM mining_plans WHERE id = ?").bind(q.plan_id).first();
  if (!plan) throw notFound();
  const [count, rows] = await db.batch<{ n: number } | PayoutRow>([
    db.prepare("SELECT COUNT(*) AS n FROM mining_payouts WHERE plan_id = ?").bind(q.plan_id),
    db.prepare(`${PAYOUT_SELECT} WHERE o.plan_id = ? ORDER BY o.hour DESC, o.id DESC LIMIT ? OFFSET ?`).bind(q.plan_id, q.limit, (q.page - 1) * q.limit),
  ]);
  return { total: (count!.results[0] as { n: number }).n, data: (rows!.results as PayoutRow[]).map(payoutOut) };
}

/** The currency share prices are stated in. */
async function usdt(db: D1Database): Promise<{ id: number; scale: number }> {
  const r = await db.prepare("SELECT id, scale FROM currencies WHERE name = 'USDT'").first<{ id: number; scale: number }>();
  if (!r) throw new ApiError("currency_unsupported", 400);
  return r;
}

/** Lists a plan (audited in the same batch). */
export async function createPlan(db: D1Database, operatorId: number, e: z.output<typeof miningPlanCreateSchema>, now = Date.now()): Promise<MiningPlan> {
  const priceCurrency = await usdt(db);
  const payout = await getCurrency(db, e.payout_currency_id);
  if (payout.isLegal && payout.id !== priceCurrency.id) throw new ApiError("currency_unsupported", 400);
  const price = amountOrThrow(e.price, priceCurrency.scale);
  const [inserted] = await runGuarded(db, [
    db
      .prepare(
        `INSERT INTO mining_plans (name, pool, pool_account, worker, hashrate, shares, price_currency_id, price, days, fee_bps, other_fees, payout_currency_id, created_by, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
      )
      .bind(e.name, e.pool, e.pool_account, e.worker, e.hashrate, e.shares, priceCurrency.id, price.toString(), e.days, e.fee_bps, e.other_fees, payout.id, operatorId, now),
    db
      .prepare(
        "INSERT INTO audit_log (operator_id, action, target_type, target_id, reason, detail, created_at) VALUES (?, 'mining.plan.create', 'mining_plan', CAST(last_insert_rowid() AS TEXT), ?, ?, ?)",
      )
      .bind(operatorId, e.reason, JSON.stringify({ ...e, reason: undefined, payout_currency: payout.name }), now),
  ]);
  const id = (inserted!.results[0] as { id: number }).id;
  return (await listPlans(db, true, now)).find((p) => p.id === id)!;
}

/** Closes a plan to new purchases (audited); its holdings run to their end and keep being paid. */
export async function closePlan(db: D1Database, operatorId: number, e: { id: number; reason: string }, now = Date.now()): Promise<MiningPlan> {
  const plan = await planRow(db, e.id);
  if (!plan) throw notFound();
  if (plan.status !== "open") throw new ApiError("mining_plan_closed", 409);
  try {
    await db.batch([
      db.prepare("UPDATE mining_plans SET status = 'closed', closed_by = ?, closed_at = ?, close_reason = ? WHERE id = ? AND status = 'open'").bind(operatorId, now, e.reason, e.id),
      db.prepare("INSERT INTO mining_guards (changed, what) VALUES (changes(), 'plan close')"),
      auditStatement(db, { operatorId, action: "mining.plan.close", targetType: "mining_plan", targetId: e.id, reason: e.reason }, now),
    ]);
  } catch (err) {
    if (/mining_conflict|state_conflict/.test(String((err as Error)?.message ?? err))) throw new ApiError("mining_plan_closed", 409);
    throw err;
  }
  return (await listPlans(db, true, now)).find((p) => p.id === e.id)!;
}

/** The first hour a payout may be recorded for: the hour the plan was listed in. */
export const firstHourOf = (p: Pick<PlanRow, "created_at">) => Math.floor(p.created_at / HOUR_MS) * HOUR_MS;

export interface MiningPayoutTotal {
  currency_id: number;
  currency: string;
  /** decimal strings: what users received (net of fees), and the stated fees kept */
  paid_to_users: string;
  fees: string;
  /** (plan, hour) payouts paid out */
  hours: number;
}

type TotalsRow = { currency_id: number; currency: string; scale: number; users: string; fees: string; hours: number };

/**
 * Per payout currency, everything the mining cron has paid out: total to users, total fees, and
 * the number of paid (plan, hour) records. Read-only; a statement, so the public transparency
 * summary reads it in its own one batch (worker/domain/transparency/public.ts).
 */
export const miningPayoutTotalsStatement = (db: D1Database): D1PreparedStatement =>
  db.prepare(
    `SELECT o.currency_id, c.name AS currency, c.scale, CAST(SUM(o.credited - o.fees) AS TEXT) AS users, CAST(SUM(o.fees) AS TEXT) AS fees, COUNT(*) AS hours
       FROM mining_payouts o JOIN currencies c ON c.id = o.currency_id WHERE o.status = 'paid' GROUP BY o.currency_id ORDER BY c.sort, c.id`,
  );

export const miningPayoutTotalsOf = (results: unknown[]): MiningPayoutTotal[] =>
  (results as TotalsRow[]).map((r) => ({
    currency_id: r.currency_id,
    currency: r.currency,
    paid_to_users: formatUnitsTrim(BigInt(r.users), r.scale),
    fees: formatUnitsTrim(BigInt(r.fees), r.scale),
    hours: r.hours,
  }));

export async function miningPayoutTotals(db: D1Database): Promise<MiningPayoutTotal[]> {
  return miningPayoutTotalsOf((await miningPayoutTotalsStatement(db).all()).results);
}
