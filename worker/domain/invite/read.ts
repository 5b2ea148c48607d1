/**
 * What a user sees of their invitations (issue #18 §3): their code and link, rates, agent level,
 * their team (levels 1–3, masked) and their rebate lines. Every query is scoped to the caller.
 */
import { formatUnits, parseUnits } from "../../../schemas/money.ts";
import { REBATE_KYC_LEVEL, REBATE_MONTHS, type InviteInfo, type InviteLevel, type InviteProduct, type InviteRebatePage, type InviteRunPage, type InviteTeamPage, type InviteeStatus } from "../../../schemas/invite.ts";
import { maskAccount } from "../wallet/internal-addresses.ts";
import { addDays, beijingDay, dayStart, monthsBefore } from "./days.ts";
import { bpToRate, levelRates, ratesFor, rateToBp } from "./settings.ts";
import { runView, toUsdt, type RunRow } from "./settle.ts";

async function usdtScale(db: D1Database): Promise<number> {
  const r = await db.prepare("SELECT scale FROM currencies WHERE name = 'USDT'").first<{ scale: number }>();
  return r?.scale ?? 8;
}

/** One's downline, levels 1–3, as a SQL CTE over `?1` = the user. */
const TEAM = `team(id, level) AS (
  SELECT id, 1 FROM users WHERE parent_id = ?1
  UNION ALL SELECT u.id, 2 FROM users u JOIN users a ON a.id = u.parent_id WHERE a.parent_id = ?1
  UNION ALL SELECT u.id, 3 FROM users u JOIN users a ON a.id = u.parent_id JOIN users b ON b.id = a.parent_id WHERE b.parent_id = ?1)`;

export async function inviteInfo(db: D1Database, userId: number, origin: string, now = Date.now()): Promise<InviteInfo> {
  const today = beijingDay(now);
  const [rates, scale] = await Promise.all([ratesFor(db, today), usdtScale(db)]);
  const [me, counts, fees, earned] = await db.batch([
    db.prepare("SELECT extension_code FROM users WHERE id = ?").bind(userId),
    db.prepare(
      `WITH ${TEAM} SELECT COUNT(*) AS total, COUNT(*) FILTER (WHERE EXISTS (SELECT 1 FROM kyc_submissions k WHERE k.user_id = u.id AND k.status = 2 AND k.level >= ${REBATE_KYC_LEVEL})) AS verified,
         COUNT(*) FILTER (WHERE t.level = 1) AS level1, COUNT(*) FILTER (WHERE t.level = 2) AS level2, COUNT(*) FILTER (WHERE t.level = 3) AS level3
       FROM team t JOIN users u ON u.id = t.id`,
    ).bind(userId),
    // The same 30 settled days the settlement of today's fees will use.
    db.prepare("SELECT COALESCE(SUM(fee_usdt), 0) AS s FROM invite_rebates WHERE inviter_id = ? AND day >= ? AND day < ?").bind(userId, addDays(today, -30), today),
    db.prepare("SELECT COALESCE(SUM(amount), 0) AS s FROM invite_rebates WHERE inviter_id = ?").bind(userId),
  ]);
  const code = (me!.results[0] as { extension_code: string }).extension_code;
  const c = counts!.results[0] as { total: number; verified: number; level1: number; level2: number; level3: number };
  const fees30 = BigInt((fees!.results[0] as { s: number }).s);
  const thresholds = rates.agents.map((a) => ({ ...a, units: parseUnits(a.threshold_usdt, scale) ?? 0n }));
  let level = 0;
  for (const a of thresholds) if (fees30 >= a.units) level = a.level;
  const next = thresholds.find((a) => a.level === level + 1) ?? null;
  const agentRate = level > 0 ? rates.agents[level - 1]!.extra_rate : "0";
  const fees30Text = formatUnits(fees30, scale);
  return {
    code,
    link: `${origin}/#/register?code=${encodeURIComponent(code)}`,
    level_rates: levelRates(rates),
    agent_level: level,
    agent_rate: agentRate === "0" ? "0" : bpToRate(rateToBp(agentRate) ?? 0),
    agent_next: next ? { level: next.level, threshold_usdt: next.threshold_usdt, fees_30d_usdt: fees30Text, extra_rate: next.extra_rate } : null,
    fees_30d_usdt: fees30Text,
    invitees: c,
    earned_usdt: formatUnits(BigInt((earned!.results[0] as { s: number }).s), scale),
    months: REBATE_MONTHS,
  };
}

export async function inviteTeam(db: D1Database, userId: number, q: { page: number; limit: number; level?: InviteLevel }, now = Date.now()): Promise<InviteTeamPage> {
  const scale = await usdtScale(db);
  const cutoff = dayStart(monthsBefore(beijingDay(now), REBATE_MONTHS));
  const level = q.level ?? 0;
  const [total, page] = await db.batch([
    db.prepare(`WITH ${TEAM} SELECT COUNT(*) AS n FROM team WHERE ?2 = 0 OR level = ?2`).bind(userId, level),
    db
      .prepare(
        `WITH ${TEAM} SELECT u.id, u.account, t.level, u.created_at, (SELECT COALESCE(MAX(k.level), 0) FROM kyc_submissions k WHERE k.user_id = u.id AND k.status = 2) AS kyc_level, (SELECT 1 FROM invite_refusals r WHERE r.user_id = u.id) AS refused,
           (SELECT COALESCE(SUM(fee_usdt), 0) FROM invite_rebates b WHERE b.inviter_id = ?1 AND b.invitee_id = u.id) AS fees
         FROM team t JOIN users u ON u.id = t.id WHERE ?2 = 0 OR t.level = ?2 ORDER BY u.created_at DESC, u.id DESC LIMIT ?3 OFFSET ?4`,
      )
      .bind(userId, level, q.limit, (q.page - 1) * q.limit),
  ]);
  type Row = { id: number; account: string; level: InviteLevel; created_at: number; kyc_level: number; refused: number | null; fees: number };
  const rows = page!.results as Row[];
  const paid = await feesPaid(db, rows.map((r) => r.id), scale);
  return {
    total: (total!.results[0] as { n: number }).n,
    data: rows.map((r) => {
      const verified = r.kyc_level >= REBATE_KYC_LEVEL;
      const status: InviteeStatus = r.refused ? "same_identity" : !verified ? "unverified" : r.created_at <= cutoff ? "expired" : "eligible";
      const counted = formatUnits(BigInt(r.fees), scale);
      return {
        account: maskAccount(r.account),
        level: r.level,
        joined_at: r.created_at,
        verified,
        kyc_level: Math.min(2, Math.max(0, r.kyc_level)),
        kyc_level_needed: REBATE_KYC_LEVEL,
        status,
        fees_usdt: counted,
        fees_paid_usdt: formatUnits(paid.get(r.id) ?? 0n, scale),
        fees_counted_usdt: counted,
      };
    }),
  };
}

/**
 * Every fee some users paid on settled days (invite_fees, written by the settlement), valued in
 * USDT at each day's reference price (invite_prices: the index ticks' median, as the rebates are).
 */
async function feesPaid(db: D1Database, userIds: number[], usdtScale: number): Promise<Map<number, bigint>> {
  const out = new Map<number, bigint>();
  if (userIds.length === 0) return out;
  const { results } = await db
    .prepare(
      `SELECT f.user_id, cu.name, cu.scale, COALESCE(pr.price, '0') AS price, CAST(SUM(f.fee) AS TEXT) AS fee
       FROM invite_fees f JOIN currencies cu ON cu.id = f.currency_id LEFT JOIN invite_prices pr ON pr.day = f.day AND pr.currency_id = f.currency_id
       WHERE f.user_id IN (${userIds.map(() => "?").join(", ")}) GROUP BY f.user_id, f.currency_id, pr.price`,
    )
    .bind(...userIds)
    .all<{ user_id: number; name: string; scale: number; price: string; fee: string }>();
  for (const r of results) {
    const fee = BigInt(r.fee);
    const v = r.name === "USDT" ? fee : toUsdt(fee, r.scale, r.price, { scale: usdtScale });
    out.set(r.user_id, (out.get(r.user_id) ?? 0n) + v);
  }
  return out;
}

export async function inviteRebates(db: D1Database, userId: number, q: { page: number; limit: number }): Promise<InviteRebatePage> {
  const scale = await usdtScale(db);
  const [total, page] = await db.batch([
    db.prepare("SELECT COUNT(*) AS n FROM invite_rebates WHERE inviter_id = ?").bind(userId),
    db
      .prepare(
        `SELECT b.day, b.level, u.account, b.product, b.fee_usdt, b.rate, b.agent_rate, b.amount, b.paid_to, b.created_at
         FROM invite_rebates b JOIN users u ON u.id = b.invitee_id WHERE b.inviter_id = ? ORDER BY b.day DESC, b.level, b.invitee_id, b.product LIMIT ? OFFSET ?`,
      )
      .bind(userId, q.limit, (q.page - 1) * q.limit),
  ]);
  type Row = { day: string; level: InviteLevel; account: string; product: InviteProduct; fee_usdt: number; rate: number; agent_rate: number; amount: number; paid_to: "lever" | "change"; created_at: number };
  return {
    total: (total!.results[0] as { n: number }).n,
    data: (page!.results as Row[]).map((r) => ({
      day: r.day,
      level: r.level,
      invitee: maskAccount(r.account),
      product: r.product,
      fee_usdt: formatUnits(BigInt(r.fee_usdt), scale),
      rate: bpToRate(r.rate),
      agent_rate: r.agent_rate === 0 ? "0" : bpToRate(r.agent_rate),
      amount: formatUnits(BigInt(r.amount), scale),
      currency: "USDT" as const,
      paid_to: r.paid_to,
      created_at: r.created_at,
    })),
  };
}

export async function inviteRuns(db: D1Database, q: { page: number; limit: number }): Promise<InviteRunPage> {
  const scale = await usdtScale(db);
  const [total, page] = await db.batch([
    db.prepare("SELECT COUNT(*) AS n FROM invite_runs"),
    db.prepare("SELECT * FROM invite_runs ORDER BY day DESC LIMIT ? OFFSET ?").bind(q.limit, (q.page - 1) * q.limit),
  ]);
  return { total: (total!.results[0] as { n: number }).n, data: (page!.results as RunRow[]).map((r) => runView(r, scale)) };
}
