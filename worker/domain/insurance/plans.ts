/**
 * Cover plans (migrations/0029_insurance.sql): the public list with its running totals, and the
 * operator's publish and close (each audited in the same batch). A plan's terms never change; a
 * closed plan sells nothing more, and the covers sold on it run to their own end.
 */
import type { z } from "zod";
import { CLAIM_AT_PERCENT, END_AT_PERCENT, PAYOUTS_PER_DAY, type InsurancePlan, type InsurancePlans, type insurancePlanCreateSchema } from "../../../schemas/insurance.ts";
import { formatUnitsTrim, parseUnits } from "../../../schemas/money.ts";
import { bpsToPercent, percentToBps } from "../../../durable/engine/seconds.ts";
import { ApiError, notFound } from "../../lib/errors.ts";
import { auditStatement, runGuarded } from "../../lib/guarded.ts";
import { coverOf, premiumOf } from "./rule.ts";

export interface PlanRow {
  id: number;
  name: string;
  currency_id: number;
  currency: string;
  scale: number;
  amounts: string;
  premium_bps: number;
  cover_bps: number;
  days: number;
  capacity: number;
  reserved: number;
  premiums: number;
  paid: number;
  sold: number;
  claims: number;
  status: number;
  created_at: number;
  closed_at: number | null;
}

const PLAN_SELECT = `SELECT p.id, p.name, p.currency_id, c.name AS currency, c.scale, p.amounts, p.premium_bps, p.cover_bps, p.days, p.capacity,
  p.reserved, p.premiums, p.paid, p.sold, p.claims, p.status, p.created_at, p.closed_at
  FROM insurance_plans p JOIN currencies c ON c.id = p.currency_id`;

/** The insured amounts a plan offers, in minimal units, in the order published. */
export function planAmounts(p: Pick<PlanRow, "amounts" | "scale">): bigint[] {
  return (JSON.parse(p.amounts) as string[]).map((a) => parseUnits(a, p.scale) ?? 0n);
}

export function planOut(p: PlanRow): InsurancePlan {
  const f = (u: bigint | number) => formatUnitsTrim(BigInt(u), p.scale);
  return {
    id: p.id,
    name: p.name,
    currency_id: p.currency_id,
    currency: p.currency,
    quotes: planAmounts(p).map((a) => ({ amount: f(a), premium: f(premiumOf(a, p.premium_bps)), cover: f(coverOf(a, p.cover_bps)) })),
    premium_percent: bpsToPercent(p.premium_bps),
    cover_percent: bpsToPercent(p.cover_bps),
    claim_at_percent: CLAIM_AT_PERCENT,
    end_at_percent: END_AT_PERCENT,
    days: p.days,
    status: p.status,
    capacity: f(p.capacity),
    reserved: f(p.reserved),
    available: f(BigInt(p.capacity) - BigInt(p.reserved)),
    premiums_collected: f(p.premiums),
    claims_paid: f(p.paid),
    covers_sold: p.sold,
    claims_count: p.claims,
    created_at: p.created_at,
    closed_at: p.closed_at,
  };
}

export async function planRow(db: D1Database, id: number): Promise<PlanRow | null> {
  return db.prepare(`${PLAN_SELECT} WHERE p.id = ?`).bind(id).first<PlanRow>();
}

/** Plans on sale (or every plan, for the console), newest first, with the running totals over every plan ever published. */
export async function listPlans(db: D1Database, all: boolean): Promise<InsurancePlans> {
  const [plans, totals] = await db.batch<PlanRow | TotalRow>([
    db.prepare(`${PLAN_SELECT} ${all ? "" : "WHERE p.status = 1"} ORDER BY p.status DESC, p.id DESC LIMIT 200`),
    db.prepare(
      `SELECT p.currency_id, c.name AS currency, c.scale, CAST(SUM(p.premiums) AS TEXT) AS premiums, CAST(SUM(p.paid) AS TEXT) AS paid,
        CAST(SUM(p.reserved) AS TEXT) AS reserved, SUM(p.sold) AS sold, SUM(p.claims) AS claims
       FROM insurance_plans p JOIN currencies c ON c.id = p.currency_id GROUP BY p.currency_id ORDER BY c.sort, c.id`,
    ),
  ]);
  return {
    plans: (plans!.results as PlanRow[]).map(planOut),
    totals: (totals!.results as TotalRow[]).map((t) => ({
      currency_id: t.currency_id,
      currency: t.currency,
      premiums_collected: formatUnitsTrim(BigInt(t.premiums), t.scale),
      claims_paid: formatUnitsTrim(BigInt(t.paid), t.scale),
      reserved: formatUnitsTrim(BigInt(t.reserved), t.scale),
      covers_sold: t.sold,
      claims_count: t.claims,
    })),
    claim_at_percent: CLAIM_AT_PERCENT,
    end_at_percent: END_AT_PERCENT,
    payouts_per_day: PAYOUTS_PER_DAY,
  };
}

interface TotalRow {
  currency_id: number;
  currency: string;
  scale: number;
  premiums: string;
  paid: string;
  reserved: string;
  sold: number;
  claims: number;
}

/** A currency cover may be sold in: one that seconds contracts are paid in now (they are what it insures). */
export async function insurableCurrency(db: D1Database, currencyId: number): Promise<{ id: number; name: string; scale: number }> {
  const r = await db
    .prepare("SELECT c.id, c.name, c.scale FROM micro_currencies m JOIN currencies c ON c.id = m.currency_id WHERE m.currency_id = ? AND m.status = 1")
    .bind(currencyId)
    .first<{ id: number; name: string; scale: number }>();
  if (!r) throw new ApiError("insurance_currency", 400);
  return r;
}

const MAX_UNITS = BigInt(Number.MAX_SAFE_INTEGER);

/** Publishes a plan (audited in the same batch). */
export async function createPlan(db: D1Database, operatorId: number, e: z.output<typeof insurancePlanCreateSchema>, now = Date.now()): Promise<InsurancePlan> {
  const currency = await insurableCurrency(db, e.currency_id);
  const premiumBps = percentToBps(e.premium_percent);
  const coverBps = percentToBps(e.cover_percent);
  if (premiumBps === null || premiumBps < 1 || premiumBps > 10000) throw new ApiError("insurance_percent", 400, { field: "premium_percent" });
  if (coverBps === null || coverBps < 1 || coverBps > 5000) throw new ApiError("insurance_percent", 400, { field: "cover_percent" });
  const amounts: bigint[] = [];
  for (const a of e.amounts) {
    const u = parseUnits(a, currency.scale);
    if (u === null || u <= 0n || u > MAX_UNITS / 2n || coverOf(u, coverBps) <= 0n || amounts.includes(u)) throw new ApiError("insurance_amounts", 400);
    amounts.push(u);
  }
  const capacity = parseUnits(e.capacity, currency.scale);
  if (capacity === null || capacity <= 0n || capacity > MAX_UNITS) throw new ApiError("invalid_field", 400, { field: "capacity" });
  amounts.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const amountsJson = JSON.stringify(amounts.map((a) => formatUnitsTrim(a, currency.scale)));
  const [inserted] = await runGuarded(db, [
    db
      .prepare(
        `INSERT INTO insurance_plans (name, currency_id, amounts, premium_bps, cover_bps, days, capacity, created_by, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
      )
      .bind(e.name, currency.id, amountsJson, premiumBps, coverBps, e.days, capacity.toString(), operatorId, now),
    // The audit row names the plan just inserted (last_insert_rowid() of this transaction).
    db
      .prepare(
        "INSERT INTO audit_log (operator_id, action, target_type, target_id, reason, detail, created_at) VALUES (?, 'insurance.plan.create', 'insurance_plan', CAST(last_insert_rowid() AS TEXT), ?, ?, ?)",
      )
      .bind(
        operatorId,
        e.reason,
        JSON.stringify({ name: e.name, currency: currency.name, amounts: JSON.parse(amountsJson) as string[], premium_percent: e.premium_percent, cover_percent: e.cover_percent, days: e.days, capacity: e.capacity }),
        now,
      ),
  ]);
  const id = (inserted!.results[0] as { id: number }).id;
  return planOut((await planRow(db, id))!);
}

/** Closes a plan to new sales (audited); its covers run on to their own end. */
export async function closePlan(db: D1Database, operatorId: number, e: { id: number; reason: string }, now = Date.now()): Promise<InsurancePlan> {
  const plan = await planRow(db, e.id);
  if (!plan) throw notFound();
  if (plan.status !== 1) throw new ApiError("insurance_plan_closed", 409);
  try {
    await db.batch([
      db.prepare("UPDATE insurance_plans SET status = 0, closed_by = ?, closed_at = ?, close_reason = ? WHERE id = ? AND status = 1").bind(operatorId, now, e.reason, e.id),
      db.prepare("INSERT INTO insurance_guards (changed, what) VALUES (changes(), 'plan close')"),
      auditStatement(db, { operatorId, action: "insurance.plan.close", targetType: "insurance_plan", targetId: e.id, reason: e.reason }, now),
    ]);
  } catch (err) {
    if (String((err as Error)?.message ?? err).includes("insurance_conflict")) throw new ApiError("insurance_plan_closed", 409);
    throw err;
  }
  return planOut((await planRow(db, e.id))!);
}
