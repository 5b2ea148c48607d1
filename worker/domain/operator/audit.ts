/** The audit log and the reconciliation reports, as operators read them. */
import type { AccountsEnv } from "../wallet/object-reads.ts";
import type { z } from "zod";
import { formatUnits } from "../../../schemas/money.ts";
import type { AuditRow, auditQuerySchema } from "../../../schemas/operator.ts";
import { auditStatement } from "../../lib/guarded.ts";
import { reconcileAndRecord } from "../ledger/reconcile.ts";
import { big, timeFormat } from "../wallet/currency.ts";
import { count, page } from "./rows.ts";

interface AuditDbRow {
  id: number;
  operator_id: number;
  operator_account: string | null;
  action: string;
  target_type: string;
  target_id: string;
  reason: string;
  detail: string;
  created_at: number;
  subject_id: number | null;
  subject_account: string | null;
  record_amount: number | null;
  record_account: string | null;
  currency_name: string | null;
  currency_scale: number | null;
}

/** User ids named in an audit detail, by key (the people an operator wants to see by name). */
const USER_KEYS = ["user_id", "requested_by", "first_approved_by"] as const;

/**
 * The audit log, newest first, filtered by operator, action and target. Rows are stored as written
 * (append-only, `detail` as JSON, amounts in minimal units for some actions); each is read with what
 * a person needs beside it: the account of the user the action concerned, the amount as a decimal
 * with its currency (the reviewed record's own amount, or an adjustment request's recorded decimal),
 * the wallet account, and the accounts of every user id the detail names.
 */
export async function auditLog(db: D1Database, q: z.output<typeof auditQuerySchema>): Promise<{ total: number; lists: AuditRow[] }> {
  const { page: p, limit } = q;
  const where = "(?1 IS NULL OR a.operator_id = ?1) AND (?2 IS NULL OR a.action = ?2) AND (?3 IS NULL OR a.target_type = ?3) AND (?4 IS NULL OR a.target_id = ?4)";
  const binds = [q.operator_id ?? null, q.action ?? null, q.target_type ?? null, q.target_id ?? null];
  const subject = `COALESCE(d.user_id, w.user_id, b.user_id, k.user_id, CASE WHEN a.target_type = 'user' THEN CAST(a.target_id AS INTEGER) END)`;
  const [total, rows] = await db.batch([
    db.prepare(`SELECT count(*) AS n FROM audit_log a WHERE ${where}`).bind(...binds),
    db
      .prepare(
        `SELECT a.*, op.account AS operator_account,
                ${subject} AS subject_id, su.account AS subject_account,
                COALESCE(d.amount, w.amount, b.amount) AS record_amount, b.account AS record_account,
                cu.name AS currency_name, cu.scale AS currency_scale
         FROM audit_log a
         LEFT JOIN users op ON op.id = a.operator_id
         LEFT JOIN deposits d ON a.target_type = 'deposit' AND d.id = CAST(a.target_id AS INTEGER)
         LEFT JOIN withdrawals w ON a.target_type = 'withdrawal' AND w.id = CAST(a.target_id AS INTEGER)
         LEFT JOIN balance_adjustments b ON a.target_type = 'adjustment' AND b.id = CAST(a.target_id AS INTEGER)
         LEFT JOIN kyc_submissions k ON a.target_type = 'kyc' AND k.id = CAST(a.target_id AS INTEGER)
         LEFT JOIN users su ON su.id = ${subject}
         LEFT JOIN currencies cu ON cu.id = COALESCE(d.currency_id, w.currency_id, b.currency_id,
           CASE WHEN json_valid(a.detail) THEN json_extract(a.detail, '$.currency_id') END)
         WHERE ${where} ORDER BY a.id DESC LIMIT ?5 OFFSET ?6`,
      )
      .bind(...binds, limit, (p - 1) * limit),
  ]);
  const list = (rows!.results ?? []) as AuditDbRow[];
  const details = list.map((r) => parseDetail(r.detail));

  // Accounts of the other users the details name (who requested an adjustment, who approved first).
  const ids = new Set<number>();
  for (const d of details) for (const k of USER_KEYS) if (d && Number.isSafeInteger(d[k])) ids.add(d[k] as number);
  const accounts = new Map<number, string>();
  if (ids.size > 0) {
    const { results } = await db
      .prepare(`SELECT id, account FROM users WHERE id IN (${[...ids].map(() => "?").join(",")})`)
      .bind(...ids)
      .all<{ id: number; account: string }>();
    for (const u of results) accounts.set(u.id, u.account);
  }

  return {
    total: count(total),
    lists: list.map((r, i) => {
      const detail = details[i] ?? null;
      const named: Record<string, string> = {};
      for (const k of USER_KEYS) {
        const id = detail?.[k];
        if (typeof id === "number" && accounts.has(id)) named[String(id)] = accounts.get(id)!;
      }
      if (r.subject_id !== null && r.subject_account !== null) named[String(r.subject_id)] = r.subject_account;
      return {
        id: r.id,
        operator_id: r.operator_id,
        operator_account: r.operator_account,
        action: r.action,
        target_type: r.target_type,
        target_id: r.target_id,
        reason: r.reason,
        detail,
        created_at: r.created_at,
        time_format: timeFormat(r.created_at),
        subject: r.subject_id !== null && r.subject_account !== null ? { id: r.subject_id, account: r.subject_account } : null,
        amount: amountOf(r, detail),
        wallet_account: r.record_account ?? (typeof detail?.account === "string" ? detail.account : null),
        accounts: named,
      };
    }),
  };
}

function parseDetail(text: string): Record<string, unknown> | null {
  if (!text) return null;
  try {
    const v = JSON.parse(text) as unknown;
    return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/**
 * The amount the action moved or was about: the reviewed record's own amount (minimal units, so
 * exact whatever the detail says), else an adjustment request's decimal amount as recorded.
 */
function amountOf(r: AuditDbRow, detail: Record<string, unknown> | null): { value: string; currency: string } | null {
  if (r.currency_name === null || r.currency_scale === null) return null;
  if (r.record_amount !== null) return { value: formatUnits(big(r.record_amount), r.currency_scale), currency: r.currency_name };
  const recorded = detail?.amount;
  if (typeof recorded === "string" && /^-?\d+(\.\d+)?$/.test(recorded)) return { value: recorded, currency: r.currency_name };
  return null;
}

/** Runs the reconciliation now, records the report and audits the run. */
export async function runReconciliation(db: D1Database, operatorId: number, env?: AccountsEnv) {
  const result = await reconcileAndRecord(db, "operator", env);
  await auditStatement(db, { operatorId, action: "reconcile.run", targetType: "reconciliation", targetId: result.report_id, detail: { ok: result.ok, differences: result.differences.length } }).run();
  return result;
}

/** Past reconciliation reports, newest first. */
export async function reconcileReports(db: D1Database, q: { page: number; limit: number }) {
  const { page: p, limit } = q;
  const [total, rows] = await db.batch([
    db.prepare("SELECT count(*) AS n FROM reconciliation_reports"),
    db.prepare("SELECT * FROM reconciliation_reports ORDER BY id DESC LIMIT ? OFFSET ?").bind(limit, (p - 1) * limit),
  ]);
  type Row = { id: number; ok: number; source: string; differences: string; stats: string; created_at: number };
  return {
    total: count(total),
    lists: page<Row>(rows).map((r) => ({ id: r.id, ok: r.ok === 1, source: r.source, differences: JSON.parse(r.differences) as unknown, stats: JSON.parse(r.stats) as unknown, time_format: timeFormat(r.created_at) })),
  };
}
