/**
 * The invite settings form's checks, the same the server makes (schemas/invite.ts
 * inviteSettingsEditSchema and its total rule), so the operator sees a mistake before sending:
 * rates typed as percents with at most 2 decimals, thresholds in USDT rising with the agent level,
 * extra shares not falling, and the three level rates plus the highest extra share at most the
 * published maximum (30 %). Also the Beijing days the form and the run dialog name.
 */
import { formatUnitsTrim, parseUnits } from "../../../../schemas/decimal.ts";
import { percentToRate } from "../../lib/rate.ts";

export interface SettingsForm {
  /** percents of levels 1, 2, 3 as typed */
  levels: [string, string, string];
  /** agent levels 1–5: threshold in USDT and extra share in percent, as typed */
  agents: { threshold: string; extra: string }[];
  reason: string;
}

export type SettingsProblem =
  | { kind: "rate"; level: number }
  | { kind: "threshold"; level: number }
  | { kind: "extra"; level: number }
  | { kind: "thresholds_rising"; level: number }
  | { kind: "extras_falling"; level: number }
  | { kind: "total"; total: string }
  | { kind: "reason" };

const RATE_SCALE = 4;
const THRESHOLD_RE = /^\d{1,12}(\.\d{1,2})?$/;

/** The level rates plus the highest extra share, in rate units (10^-4), or null while a field is not a percent. */
function totalUnits(form: Pick<SettingsForm, "levels" | "agents">): bigint | null {
  const units = (p: string) => {
    const r = percentToRate(p.trim());
    return r === null ? null : parseUnits(r, RATE_SCALE);
  };
  let sum = 0n;
  for (const l of form.levels) {
    const u = units(l);
    if (u === null) return null;
    sum += u;
  }
  let top = 0n;
  for (const a of form.agents) {
    const u = units(a.extra);
    if (u === null) return null;
    if (u > top) top = u;
  }
  return sum + top;
}

/** The sum of the level rates and the highest extra share as a percent ("30", "27.5"), or null while a field is not a percent. */
export function totalPercent(form: Pick<SettingsForm, "levels" | "agents">): string | null {
  const units = totalUnits(form);
  // rate units are 10^-4 of 1, i.e. 10^-2 of a percent
  return units === null ? null : formatUnitsTrim(units, RATE_SCALE - 2);
}

/** The first thing wrong with the form, or null when it may be sent. `maxTotal` is the API's fraction ("0.30"). */
export function settingsProblem(form: SettingsForm, maxTotal: string): SettingsProblem | null {
  for (const [i, l] of form.levels.entries()) if (percentToRate(l.trim()) === null) return { kind: "rate", level: i + 1 };
  let lastThreshold = -1n;
  let lastExtra = -1n;
  for (const [i, a] of form.agents.entries()) {
    const level = i + 1;
    if (!THRESHOLD_RE.test(a.threshold.trim())) return { kind: "threshold", level };
    const rate = percentToRate(a.extra.trim());
    if (rate === null) return { kind: "extra", level };
    const threshold = parseUnits(a.threshold.trim(), 2) ?? 0n;
    const extra = parseUnits(rate, RATE_SCALE) ?? 0n;
    if (threshold <= lastThreshold) return { kind: "thresholds_rising", level };
    if (extra < lastExtra) return { kind: "extras_falling", level };
    lastThreshold = threshold;
    lastExtra = extra;
  }
  const sum = totalUnits(form);
  const max = parseUnits(maxTotal, RATE_SCALE);
  if (sum !== null && max !== null && sum > max) return { kind: "total", total: totalPercent(form) ?? "" };
  if (!form.reason.trim()) return { kind: "reason" };
  return null;
}

const BEIJING_MS = 8 * 3600 * 1000;
const DAY_MS = 24 * 3600 * 1000;

/** The Beijing calendar day `offset` days from the one `now` falls in ("YYYY-MM-DD"). */
export function beijingDay(now: number, offset = 0): string {
  return new Date(now + BEIJING_MS + offset * DAY_MS).toISOString().slice(0, 10);
}

/** Whether `day` can be settled now: a real "YYYY-MM-DD", today in Beijing (closed early, up to now) or before. */
export function isSettleableDay(day: string, now: number): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) return false;
  const t = Date.parse(`${day}T00:00:00Z`);
  if (Number.isNaN(t) || new Date(t).toISOString().slice(0, 10) !== day) return false;
  return day <= beijingDay(now);
}
