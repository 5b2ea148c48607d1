/**
 * Rebate rates (issue #18 §2): three level rates and five agent levels, set by operators (audited),
 * effective from the next Beijing day; level rates + the highest agent extra share ≤ 0.30. Rates
 * are kept as integers in 1/10000 ("0.20" = 2000).
 */
import type { z } from "zod";
import { MAX_TOTAL_RATE, REBATE_MONTHS, type AdminInviteSettings, type InviteSettings, type InviteSettingsEdit, type InviteTerms, type inviteSettingsEditSchema } from "../../../schemas/invite.ts";
import { formatUnits, parseUnits } from "../../../schemas/money.ts";
import { ApiError } from "../../lib/errors.ts";
import { auditStatement, runGuarded } from "../../lib/guarded.ts";
import { COUNTED_PRODUCTS } from "./fees.ts";
import { addDays, beijingDay } from "./days.ts";

export interface AgentLevel {
  level: number;
  threshold_usdt: string;
  extra_rate: string;
}
export interface Rates {
  effective_from: string;
  l1: number;
  l2: number;
  l3: number;
  agents: AgentLevel[];
  updated_at: number;
}
interface Row {
  effective_from: string;
  l1_rate: number;
  l2_rate: number;
  l3_rate: number;
  agents: string;
  updated_at: number;
}

const fromRow = (r: Row): Rates => ({ effective_from: r.effective_from, l1: r.l1_rate, l2: r.l2_rate, l3: r.l3_rate, agents: JSON.parse(r.agents) as AgentLevel[], updated_at: r.updated_at });

/** "0.2" → 2000; null when not a rate with at most 4 decimals. */
export function rateToBp(rate: string): number | null {
  const u = parseUnits(rate, 4);
  return u === null || u > 10000n ? null : Number(u);
}
/** 2000 → "0.20", 50 → "0.005": at least two decimals, no trailing zeros beyond. */
export function bpToRate(bp: number): string {
  let s = formatUnits(BigInt(bp), 4);
  while (s.endsWith("0") && s.length > s.indexOf(".") + 3) s = s.slice(0, -1);
  return s;
}

/** The rates that rule `day`. */
export async function ratesFor(db: D1Database, day: string): Promise<Rates> {
  const r = await db.prepare("SELECT * FROM invite_settings WHERE effective_from <= ? ORDER BY effective_from DESC LIMIT 1").bind(day).first<Row>();
  if (!r) throw new Error("invite_settings has no row");
  return fromRow(r);
}
async function ratesAfter(db: D1Database, day: string): Promise<Rates | null> {
  const r = await db.prepare("SELECT * FROM invite_settings WHERE effective_from > ? ORDER BY effective_from DESC LIMIT 1").bind(day).first<Row>();
  return r ? fromRow(r) : null;
}

export const levelRates = (r: Rates) => [
  { level: 1 as const, rate: bpToRate(r.l1) },
  { level: 2 as const, rate: bpToRate(r.l2) },
  { level: 3 as const, rate: bpToRate(r.l3) },
];
const shown = (r: Rates): InviteSettings => ({ level_rates: levelRates(r), agent_levels: r.agents, effective_from: r.effective_from, updated_at: r.updated_at });

export async function terms(db: D1Database, now = Date.now()): Promise<InviteTerms> {
  const today = beijingDay(now);
  const [cur, next] = await Promise.all([ratesFor(db, today), ratesAfter(db, today)]);
  return {
    level_rates: levelRates(cur),
    agent_levels: cur.agents,
    months: REBATE_MONTHS,
    max_total_rate: MAX_TOTAL_RATE,
    products: [...COUNTED_PRODUCTS],
    effective_from: cur.effective_from,
    next: next ? { level_rates: levelRates(next), agent_levels: next.agents, effective_from: next.effective_from } : null,
  };
}

export async function adminSettings(db: D1Database, now = Date.now()): Promise<AdminInviteSettings> {
  const today = beijingDay(now);
  const [cur, next] = await Promise.all([ratesFor(db, today), ratesAfter(db, today)]);
  return { current: shown(cur), next: next ? shown(next) : null, max_total_rate: MAX_TOTAL_RATE };
}

/** Checks an edit; returns its rows (rates in 1/10000) or throws a translated error. */
export function checkEdit(e: InviteSettingsEdit): { l: [number, number, number]; agents: AgentLevel[] } {
  const levels = [...e.level_rates].sort((a, b) => a.level - b.level);
  const agents = [...e.agent_levels].sort((a, b) => a.level - b.level);
  if (levels.map((x) => x.level).join() !== "1,2,3" || agents.map((x) => x.level).join() !== "1,2,3,4,5") throw new ApiError("invite_levels_order");
  const l = levels.map((x) => rateToBp(x.rate)) as [number | null, number | null, number | null];
  const extras = agents.map((a) => rateToBp(a.extra_rate));
  const thresholds = agents.map((a) => parseUnits(a.threshold_usdt, 2));
  if (l.some((x) => x === null) || extras.some((x) => x === null) || thresholds.some((x) => x === null)) throw new ApiError("invalid_rate");
  for (let i = 1; i < 5; i++) {
    if (thresholds[i]! <= thresholds[i - 1]! || extras[i]! < extras[i - 1]!) throw new ApiError("invite_levels_order");
  }
  if (thresholds[0]! <= 0n) throw new ApiError("invite_levels_order");
  const total = l[0]! + l[1]! + l[2]! + extras[4]!;
  if (total > rateToBp(MAX_TOTAL_RATE)!) throw new ApiError("invite_rates_too_high", 400, { max: MAX_TOTAL_RATE });
  return {
    l: l as [number, number, number],
    agents: agents.map((a, i) => ({ level: a.level, threshold_usdt: formatUnits(thresholds[i]!, 2).replace(/\.?0+$/, ""), extra_rate: bpToRate(extras[i]!) })),
  };
}

/** Sets the rates from the next Beijing day (replacing any set for that day before), audited. */
export async function editSettings(db: D1Database, operatorId: number, e: z.output<typeof inviteSettingsEditSchema>, now = Date.now()): Promise<AdminInviteSettings> {
  const { l, agents } = checkEdit(e);
  const from = addDays(beijingDay(now), 1);
  await runGuarded(db, [
    db
      .prepare(
        `INSERT INTO invite_settings (effective_from, l1_rate, l2_rate, l3_rate, agents, updated_by, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (effective_from) DO UPDATE SET l1_rate = excluded.l1_rate, l2_rate = excluded.l2_rate, l3_rate = excluded.l3_rate,
           agents = excluded.agents, updated_by = excluded.updated_by, updated_at = excluded.updated_at`,
      )
      .bind(from, l[0], l[1], l[2], JSON.stringify(agents), operatorId, now),
    // Rates set for a later day than `from` (none can exist: every edit sets the next day) stay out of reach.
    auditStatement(db, { operatorId, action: "invite.settings", targetType: "invite_settings", targetId: from, reason: e.reason, detail: { level_rates: l.map(bpToRate), agents } }, now),
  ]);
  return adminSettings(db, now);
}
