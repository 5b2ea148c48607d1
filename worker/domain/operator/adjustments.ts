/**
 * Balance adjustments (four eyes): one operator requests, a second, different one approves
 * (./reviews.ts decideAdjustment). No operator adjusts their own balance; every request is audited
 * in the same batch.
 */
import type { z } from "zod";
import { formatUnits } from "../../../schemas/money.ts";
import { checkAmount } from "../../../schemas/wallet.ts";
import type { adjustmentRequestSchema } from "../../../schemas/operator.ts";
import { ApiError, notFound } from "../../lib/errors.ts";
import { auditStatement, refuseOwnRecord, runGuarded, TREASURY } from "../../lib/guarded.ts";
import { getCurrency, timeFormat } from "../wallet/currency.ts";
import { count, fmt, page, type ListQuery } from "./rows.ts";

/** Adjustments, filtered by status and user, oldest first. */
export async function adjustmentList(db: D1Database, q: ListQuery) {
  const { page: p, limit, status, user_id } = q;
  const where = "(?1 IS NULL OR a.status = ?1) AND (?2 IS NULL OR a.user_id = ?2)";
  const [total, rows] = await db.batch([
    db.prepare(`SELECT count(*) AS n FROM balance_adjustments a WHERE ${where}`).bind(status ?? null, user_id ?? null),
    db
      .prepare(
        `SELECT a.*, u.account AS user_account, c.name AS currency_name, c.scale FROM balance_adjustments a
           LEFT JOIN users u ON u.id = a.user_id JOIN currencies c ON c.id = a.currency_id
          WHERE ${where} ORDER BY a.id LIMIT ?3 OFFSET ?4`,
      )
      .bind(status ?? null, user_id ?? null, limit, (p - 1) * limit),
  ]);
  type Row = { id: number; user_id: number; user_account: string | null; currency_id: number; currency_name: string; scale: number; account: string; amount: number; reason: string; status: number; requested_by: number; decided_by: number | null; decision_reason: string; created_at: number; decided_at: number | null };
  return {
    total: count(total),
    lists: page<Row>(rows).map((r) => ({
      id: r.id,
      user_id: r.user_id,
      user_account: r.user_id === TREASURY ? "treasury" : r.user_account,
      currency_id: r.currency_id,
      currency_name: r.currency_name,
      account: r.account,
      amount: fmt(r.amount, r.scale),
      reason: r.reason,
      status: r.status,
      requested_by: r.requested_by,
      decided_by: r.decided_by,
      decision_reason: r.decision_reason,
      time_format: timeFormat(r.created_at),
      decided_at: r.decided_at ? timeFormat(r.decided_at) : null,
    })),
  };
}

/** Records a request for a second operator to approve. */
export async function requestAdjustment(db: D1Database, operatorId: number, b: z.output<typeof adjustmentRequestSchema>) {
  const op = operatorId;
  const cur = await getCurrency(db, b.currency_id);
  const check = checkAmount(b.amount, cur.scale, { signed: true });
  if (!check.ok) throw new ApiError(check.key, 400, check.params);
  if (b.user_id === TREASURY) {
    if (b.account !== "change") throw new ApiError("invalid_field", 400, { field: "account" });
  } else {
    if (b.user_id <= 0) throw new ApiError("invalid_field", 400, { field: "user_id" });
    // No operator adjusts their own balance, even with a second approval.
    await refuseOwnRecord(db, op, b.user_id, { action: "adjustment.request", targetType: "user", targetId: b.user_id, detail: { currency_id: b.currency_id } });
    const target = await db.prepare("SELECT id FROM users WHERE id = ?").bind(b.user_id).first();
    if (!target) throw notFound();
  }
  const now = Date.now();
  const [inserted] = await runGuarded(db, [
    db
      .prepare("INSERT INTO balance_adjustments (user_id, currency_id, account, amount, reason, requested_by, created_at) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id")
      .bind(b.user_id, cur.id, b.account, check.units.toString(), b.reason, op, now),
    auditStatement(
      db,
      { operatorId: op, action: "adjustment.request", targetType: "user", targetId: b.user_id, reason: b.reason, detail: { currency_id: cur.id, account: b.account, amount: formatUnits(check.units, cur.scale) } },
      now,
    ),
  ]);
  const id = (inserted?.results?.[0] as { id: number } | undefined)?.id ?? 0;
  return { id, status: 0 as const, amount: formatUnits(check.units, cur.scale) };
}
