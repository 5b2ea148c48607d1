/** The audit log and the reconciliation reports, as operators read them. */
import type { z } from "zod";
import type { auditQuerySchema } from "../../../schemas/operator.ts";
import { auditStatement } from "../../lib/guarded.ts";
import { reconcileAndRecord } from "../ledger/reconcile.ts";
import { timeFormat } from "../wallet/currency.ts";
import { count, page } from "./rows.ts";

/** The audit log, newest first, filtered by operator, action and target. */
export async function auditLog(db: D1Database, q: z.output<typeof auditQuerySchema>) {
  const { page: p, limit, operator_id, action, target_type, target_id } = q;
  const where = "(?1 IS NULL OR a.operator_id = ?1) AND (?2 IS NULL OR a.action = ?2) AND (?3 IS NULL OR a.target_type = ?3) AND (?4 IS NULL OR a.target_id = ?4)";
  const binds = [operator_id ?? null, action ?? null, target_type ?? null, target_id ?? null];
  const [total, rows] = await db.batch([
    db.prepare(`SELECT count(*) AS n FROM audit_log a WHERE ${where}`).bind(...binds),
    db
      .prepare(`SELECT a.*, u.account AS operator_account FROM audit_log a LEFT JOIN users u ON u.id = a.operator_id WHERE ${where} ORDER BY a.id DESC LIMIT ?5 OFFSET ?6`)
      .bind(...binds, limit, (p - 1) * limit),
  ]);
  type Row = { id: number; operator_id: number; operator_account: string | null; action: string; target_type: string; target_id: string; reason: string; detail: string; created_at: number };
  return {
    total: count(total),
    lists: page<Row>(rows).map((r) => ({ ...r, detail: r.detail ? (JSON.parse(r.detail) as unknown) : null, time_format: timeFormat(r.created_at) })),
  };
}

/** Runs the reconciliation now, records the report and audits the run. */
export async function runReconciliation(db: D1Database, operatorId: number) {
  const result = await reconcileAndRecord(db, "operator");
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
