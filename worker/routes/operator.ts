/**
 * Operator console API (/api/admin/*; role operator only, anyone else 403 no_permission).
 * Queues for deposits, withdrawals and identity reviews; a user's balances and ledger; balance
 * adjustments that a second, different operator must approve; the audit log; reconciliation.
 * Every action writes an audit row (in the same batch as the action). Operators never edit a
 * balance directly, and nothing here can change a trade, a price or a contract outcome.
 */
import { Hono } from "hono";
import { formatUnits } from "../../schemas/money.ts";
import {
  adjustmentPageSchema,
  adjustmentRequestedSchema,
  adminDepositPageSchema,
  adminKycPageSchema,
  adminUserDetailSchema,
  adminUserPageSchema,
  adminWithdrawalPageSchema,
  auditPageSchema,
  decisionResultSchema,
  depositDecisionSchema,
  ledgerPageSchema,
  reconcileReportPageSchema,
  reconcileResultSchema,
  treasurySchema,
  adjustmentRequestSchema,
  adminListQuerySchema,
  auditQuerySchema,
  decisionSchema,
  idParamSchema,
  userSearchQuerySchema,
} from "../../schemas/operator.ts";
import { checkAmount, depositStatusLabels, networkNames, withdrawalStatusLabels } from "../../schemas/wallet.ts";
import { requireOperator, requireUser } from "../lib/auth.ts";
import type { AppEnv } from "../lib/context.ts";
import { big, getCurrency, timeFormat } from "../domain/wallet/currency.ts";
import { ApiError, notFound } from "../lib/errors.ts";
import { auditStatement, refuseOwnRecord, runGuarded, SYSTEM_ACCOUNTS, TREASURY } from "../lib/guarded.ts";
import { kycState, maskCard } from "../domain/kyc/state.ts";
import { reconcileAndRecord } from "../lib/reconcile.ts";
import { answers, ok } from "../lib/respond.ts";
import { decideAdjustment, decideDeposit, decideKyc } from "../lib/reviews.ts";
import { uploadUrl } from "../domain/uploads/uploads.ts";
import { jsonBody, params, query } from "../lib/validate.ts";
import { transitionWithdrawal, type WithdrawalAction } from "../domain/withdrawals/withdrawals.ts";

const fmt = (units: number | string | bigint, scale: number) => formatUnits(big(units), scale);
const pic = (id: string | null) => (id ? uploadUrl(id) : null);
const count = (r: D1Result | undefined) => (r?.results?.[0] as { n: number } | undefined)?.n ?? 0;

/** The user row without its fund-password flag column (answered as has_fund_password). */
function withoutFp<T extends { fp: number }>(row: T): Omit<T, "fp"> {
  const { fp: _fp, ...rest } = row;
  return rest;
}

function page<T>(r: D1Result | undefined) {
  return (r?.results ?? []) as T[];
}

const withdrawalActions: Record<string, WithdrawalAction> = {
  approve: "approve",
  reject: "reject",
  "chain-success": "chain_success",
  "chain-failure": "chain_failure",
};

export const operatorRoutes = new Hono<AppEnv>()
  .use("/admin/*", requireUser, requireOperator)

  // ── Deposits ────────────────────────────────────────────────────────────────────────────────
  .get("/admin/deposits", query(adminListQuerySchema), answers(adminDepositPageSchema, { summary: "Deposit claims (filter by status, user)", auth: true }), async (c) => {
    const db = c.env.DB;
    const { page: p, limit, status, user_id } = c.req.valid("query");
    const where = "(?1 IS NULL OR d.status = ?1) AND (?2 IS NULL OR d.user_id = ?2)";
    const [total, rows] = await db.batch([
      db.prepare(`SELECT count(*) AS n FROM deposits d WHERE ${where}`).bind(status ?? null, user_id ?? null),
      db
        .prepare(
          `SELECT d.*, u.account, c.name AS currency_name, c.scale FROM deposits d JOIN users u ON u.id = d.user_id JOIN currencies c ON c.id = d.currency_id
            WHERE ${where} ORDER BY d.id LIMIT ?3 OFFSET ?4`,
        )
        .bind(status ?? null, user_id ?? null, limit, (p - 1) * limit),
    ]);
    type Row = { id: number; user_id: number; account: string; currency_id: number; currency_name: string; scale: number; amount: number; address: string; network: string; tx_hash: string; pic: string; status: 0 | 1 | 2; reason: string; reviewed_by: number | null; reviewed_at: number | null; needs_second: number; first_approved_by: number | null; created_at: number };
    return ok(c, {
      total: count(total),
      lists: page<Row>(rows).map((r) => ({
        id: r.id,
        user_id: r.user_id,
        account: r.account,
        currency_id: r.currency_id,
        currency_name: r.currency_name,
        amount: fmt(r.amount, r.scale),
        address: r.address,
        network: r.network,
        hash: r.tx_hash,
        pic: pic(r.pic),
        status: r.status,
        status_text: depositStatusLabels[c.get("locale")][r.status],
        reason: r.reason,
        reviewed_by: r.reviewed_by,
        reviewed_at: r.reviewed_at ? timeFormat(r.reviewed_at) : null,
        needs_second: r.needs_second === 1,
        first_approved_by: r.first_approved_by,
        awaiting_second_approval: r.status === 0 && r.first_approved_by !== null,
        approved_first_by_you: r.status === 0 && r.first_approved_by === c.get("user").id,
        own: r.user_id === c.get("user").id,
        time_format: timeFormat(r.created_at),
      })),
    });
  })
  .post("/admin/deposits/:id/approve", params(idParamSchema), jsonBody(decisionSchema), answers(depositDecisionSchema, { summary: "Credit a deposit claim", auth: true }), async (c) =>
    ok(c, await decideDeposit(c.env.DB, c.get("user").id, c.req.valid("param").id, true, c.req.valid("json").reason, c.env.DEPOSIT_SECOND_APPROVAL_USDT)),
  )
  .post("/admin/deposits/:id/reject", params(idParamSchema), jsonBody(decisionSchema), answers(depositDecisionSchema, { summary: "Reject a deposit claim (reason required)", auth: true }), async (c) =>
    ok(c, await decideDeposit(c.env.DB, c.get("user").id, c.req.valid("param").id, false, c.req.valid("json").reason, c.env.DEPOSIT_SECOND_APPROVAL_USDT)),
  )

  // ── Withdrawals ─────────────────────────────────────────────────────────────────────────────
  .get("/admin/withdrawals", query(adminListQuerySchema), answers(adminWithdrawalPageSchema, { summary: "Withdrawals (filter by status, user)", auth: true }), async (c) => {
    const db = c.env.DB;
    const { page: p, limit, status, user_id } = c.req.valid("query");
    const where = "(?1 IS NULL OR w.status = ?1) AND (?2 IS NULL OR w.user_id = ?2)";
    const [total, rows] = await db.batch([
      db.prepare(`SELECT count(*) AS n FROM withdrawals w WHERE ${where}`).bind(status ?? null, user_id ?? null),
      db
        .prepare(
          `SELECT w.*, u.account, c.name AS currency_name, c.scale FROM withdrawals w JOIN users u ON u.id = w.user_id JOIN currencies c ON c.id = w.currency_id
            WHERE ${where} ORDER BY w.id LIMIT ?3 OFFSET ?4`,
        )
        .bind(status ?? null, user_id ?? null, limit, (p - 1) * limit),
    ]);
    type Row = { id: number; user_id: number; account: string; currency_id: number; currency_name: string; scale: number; network: number; address: string; memo: string; amount: number; fee: number; status: 0 | 1 | 2 | 3 | 4 | 5; reason: string; txid: string; reviewed_by: number | null; settled_by: number | null; created_at: number };
    return ok(c, {
      total: count(total),
      lists: page<Row>(rows).map((r) => ({
        id: r.id,
        user_id: r.user_id,
        account: r.account,
        currency_id: r.currency_id,
        currency_name: r.currency_name,
        network: r.network,
        network_name: networkNames[r.network] ?? "",
        address: r.address,
        memo: r.memo,
        number: fmt(r.amount, r.scale),
        charge: fmt(r.fee, r.scale),
        total: fmt(big(r.amount) + big(r.fee), r.scale),
        status: r.status,
        status_text: withdrawalStatusLabels[c.get("locale")][r.status],
        reason: r.reason,
        txid: r.txid,
        reviewed_by: r.reviewed_by,
        settled_by: r.settled_by,
        own: r.user_id === c.get("user").id,
        time_format: timeFormat(r.created_at),
      })),
    });
  })
  .post("/admin/withdrawals/:id/:action{approve|reject|chain-success|chain-failure}", jsonBody(decisionSchema), answers(decisionResultSchema, { summary: "Approve, reject, or record the chain result of a withdrawal", auth: true }), async (c) => {
    const id = Number(c.req.param("id"));
    if (!Number.isSafeInteger(id) || id <= 0) throw new ApiError("invalid_param");
    const action = withdrawalActions[c.req.param("action")]!;
    const b = c.req.valid("json");
    return ok(c, await transitionWithdrawal(c.env.DB, c.get("user").id, id, action, b.reason, b.txid));
  })

  // ── Identity reviews ────────────────────────────────────────────────────────────────────────
  .get("/admin/kyc", query(adminListQuerySchema), answers(adminKycPageSchema, { summary: "Identity submissions (filter by status, user)", auth: true }), async (c) => {
    const db = c.env.DB;
    const { page: p, limit, status, user_id } = c.req.valid("query");
    const where = "(?1 IS NULL OR k.status = ?1) AND (?2 IS NULL OR k.user_id = ?2)";
    const [total, rows] = await db.batch([
      db.prepare(`SELECT count(*) AS n FROM kyc_submissions k WHERE ${where}`).bind(status ?? null, user_id ?? null),
      db
        .prepare(`SELECT k.*, u.account FROM kyc_submissions k JOIN users u ON u.id = k.user_id WHERE ${where} ORDER BY k.id LIMIT ?3 OFFSET ?4`)
        .bind(status ?? null, user_id ?? null, limit, (p - 1) * limit),
    ]);
    type Row = { id: number; user_id: number; account: string; level: number; name: string | null; type: number | null; card_id: string | null; front_pic: string | null; reverse_pic: string | null; hand_pic: string | null; asset_pic: string | null; asset_btc: string | null; status: number; reason: string; reviewed_by: number | null; created_at: number };
    return ok(c, {
      total: count(total),
      lists: page<Row>(rows).map((r) => ({
        id: r.id,
        user_id: r.user_id,
        account: r.account,
        level: r.level,
        name: r.name,
        type: r.type,
        card_id: r.card_id,
        front_pic: pic(r.front_pic),
        reverse_pic: pic(r.reverse_pic),
        hand_pic: pic(r.hand_pic),
        asset_pic: pic(r.asset_pic),
        asset_btc: r.asset_btc,
        status: r.status,
        reason: r.reason,
        reviewed_by: r.reviewed_by,
        own: r.user_id === c.get("user").id,
        time_format: timeFormat(r.created_at),
      })),
    });
  })
  .post("/admin/kyc/:id/approve", params(idParamSchema), jsonBody(decisionSchema), answers(decisionResultSchema, { summary: "Approve an identity submission", auth: true }), async (c) =>
    ok(c, await decideKyc(c.env.DB, c.get("user").id, c.req.valid("param").id, true, c.req.valid("json").reason)),
  )
  .post("/admin/kyc/:id/reject", params(idParamSchema), jsonBody(decisionSchema), answers(decisionResultSchema, { summary: "Reject an identity submission (reason required)", auth: true }), async (c) =>
    ok(c, await decideKyc(c.env.DB, c.get("user").id, c.req.valid("param").id, false, c.req.valid("json").reason)),
  )

  // ── Users, balances and ledger ──────────────────────────────────────────────────────────────
  .get("/admin/users", query(userSearchQuerySchema), answers(adminUserPageSchema, { summary: "Find users by id or account prefix", auth: true }), async (c) => {
    const db = c.env.DB;
    const { q, page: p, limit } = c.req.valid("query");
    const id = /^\d{1,12}$/.test(q) ? Number(q) : null;
    // An exact id, or accounts starting with q. A prefix compare, not LIKE: D1 refuses LIKE patterns
    // over 50 bytes ("pattern too complex"), and wildcards in q are then plain characters.
    const prefix = q.toLowerCase();
    const where = "(u.id = ?1 OR substr(u.account, 1, length(?2)) = ?2)";
    const [total, rows] = await db.batch([
      db.prepare(`SELECT count(*) AS n FROM users u WHERE ${where}`).bind(id, prefix),
      db
        .prepare(`SELECT u.id, u.account, u.role, u.review_status, u.real_name, u.locked, u.created_at FROM users u WHERE ${where} ORDER BY u.id LIMIT ?3 OFFSET ?4`)
        .bind(id, prefix, limit, (p - 1) * limit),
    ]);
    type Row = { id: number; account: string; role: string; review_status: number; real_name: string | null; locked: number; created_at: number };
    return ok(c, { total: count(total), lists: page<Row>(rows).map((r) => ({ ...r, created_at: timeFormat(r.created_at) })) });
  })
  .get("/admin/users/:id", params(idParamSchema), answers(adminUserDetailSchema, { summary: "A user's profile, bank card and balances (audited)", auth: true }), async (c) => {
    const db = c.env.DB;
    const id = c.req.valid("param").id;
    const u = await db
      .prepare("SELECT id, account, role, review_status, real_name, locked, fund_password_hash IS NOT NULL AS fp, created_at FROM users WHERE id = ?")
      .bind(id)
      .first<{ id: number; account: string; role: string; review_status: number; real_name: string | null; locked: number; fp: number; created_at: number }>();
    if (!u) throw notFound();
    const [balances, bank, state] = await Promise.all([
      db
        .prepare("SELECT b.currency_id, c.name, c.scale, b.account, CAST(b.available AS TEXT) AS a, CAST(b.frozen AS TEXT) AS f FROM balances b JOIN currencies c ON c.id = b.currency_id WHERE b.user_id = ? ORDER BY b.currency_id, b.account")
        .bind(id)
        .all<{ currency_id: number; name: string; scale: number; account: string; a: string; f: string }>(),
      db.prepare("SELECT real_name, bank_account, bank_name, bank_branch FROM bank_cards WHERE user_id = ?").bind(id).first<{ real_name: string; bank_account: string; bank_name: string; bank_branch: string }>(),
      kycState(db, id),
    ]);
    // Looking at a customer's money is an operator action too.
    await auditStatement(db, { operatorId: c.get("user").id, action: "user.view", targetType: "user", targetId: id }).run();
    return ok(c, {
      user: { ...withoutFp(u), has_fund_password: u.fp === 1, created_at: timeFormat(u.created_at), kyc_level: state.approvedLevel },
      bank: bank ? { ...bank, bank_account: maskCard(bank.bank_account) } : null,
      balances: balances.results.map((r) => ({ currency_id: r.currency_id, currency_name: r.name, account: r.account, available: fmt(r.a, r.scale), frozen: fmt(r.f, r.scale) })),
    });
  })
  .get("/admin/users/:id/ledger", params(idParamSchema), query(adminListQuerySchema), answers(ledgerPageSchema, { summary: "A user's ledger rows, newest first", auth: true }), async (c) => {
    const db = c.env.DB;
    const id = c.req.valid("param").id;
    const { page: p, limit } = c.req.valid("query");
    const [total, rows] = await db.batch([
      db.prepare("SELECT count(*) AS n FROM ledger WHERE user_id = ?").bind(id),
      db
        .prepare(
          `SELECT l.id, l.movement_key, l.currency_id, c.name, c.scale, l.account, CAST(l.d_available AS TEXT) AS da, CAST(l.d_frozen AS TEXT) AS df, l.kind, l.memo, l.created_at
             FROM ledger l JOIN currencies c ON c.id = l.currency_id WHERE l.user_id = ? ORDER BY l.id DESC LIMIT ? OFFSET ?`,
        )
        .bind(id, limit, (p - 1) * limit),
    ]);
    type Row = { id: number; movement_key: string; currency_id: number; name: string; scale: number; account: string; da: string; df: string; kind: string; memo: string; created_at: number };
    return ok(c, {
      total: count(total),
      lists: page<Row>(rows).map((r) => ({
        id: r.id,
        movement_key: r.movement_key,
        kind: r.kind,
        currency_id: r.currency_id,
        currency_name: r.name,
        account: r.account,
        d_available: fmt(r.da, r.scale),
        d_frozen: fmt(r.df, r.scale),
        memo: r.memo,
        time_format: timeFormat(r.created_at),
      })),
    });
  })
  .get("/admin/treasury", answers(treasurySchema, { summary: "Balances of the system accounts", auth: true }), async (c) => {
    const { results } = await c.env.DB.prepare(
      "SELECT b.user_id, b.currency_id, c.name, c.scale, b.account, CAST(b.available AS TEXT) AS a, CAST(b.frozen AS TEXT) AS f FROM balances b JOIN currencies c ON c.id = b.currency_id WHERE b.user_id <= 0 ORDER BY b.user_id DESC, b.currency_id",
    ).all<{ user_id: number; currency_id: number; name: string; scale: number; account: string; a: string; f: string }>();
    return ok(
      c,
      results.map((r) => ({ system_account: SYSTEM_ACCOUNTS[r.user_id] ?? String(r.user_id), user_id: r.user_id, currency_id: r.currency_id, currency_name: r.name, account: r.account, available: fmt(r.a, r.scale), frozen: fmt(r.f, r.scale) })),
    );
  })

  // ── Balance adjustments (four eyes) ─────────────────────────────────────────────────────────
  .get("/admin/adjustments", query(adminListQuerySchema), answers(adjustmentPageSchema, { summary: "Balance adjustments (filter by status, user)", auth: true }), async (c) => {
    const db = c.env.DB;
    const { page: p, limit, status, user_id } = c.req.valid("query");
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
    return ok(c, {
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
    });
  })
  .post("/admin/adjustments", jsonBody(adjustmentRequestSchema), answers(adjustmentRequestedSchema, { summary: "Request a balance adjustment (a second operator approves)", auth: true }), async (c) => {
    const db = c.env.DB;
    const op = c.get("user").id;
    const b = c.req.valid("json");
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
    return ok(c, { id, status: 0, amount: formatUnits(check.units, cur.scale) });
  })
  .post("/admin/adjustments/:id/approve", params(idParamSchema), jsonBody(decisionSchema), answers(decisionResultSchema, { summary: "Approve another operator's adjustment", auth: true }), async (c) =>
    ok(c, await decideAdjustment(c.env.DB, c.get("user").id, c.req.valid("param").id, true, c.req.valid("json").reason)),
  )
  .post("/admin/adjustments/:id/reject", params(idParamSchema), jsonBody(decisionSchema), answers(decisionResultSchema, { summary: "Reject an adjustment", auth: true }), async (c) =>
    ok(c, await decideAdjustment(c.env.DB, c.get("user").id, c.req.valid("param").id, false, c.req.valid("json").reason)),
  )

  // ── Audit log and reconciliation ────────────────────────────────────────────────────────────
  .get("/admin/audit", query(auditQuerySchema), answers(auditPageSchema, { summary: "The audit log, newest first", auth: true }), async (c) => {
    const db = c.env.DB;
    const { page: p, limit, operator_id, action, target_type, target_id } = c.req.valid("query");
    const where = "(?1 IS NULL OR a.operator_id = ?1) AND (?2 IS NULL OR a.action = ?2) AND (?3 IS NULL OR a.target_type = ?3) AND (?4 IS NULL OR a.target_id = ?4)";
    const binds = [operator_id ?? null, action ?? null, target_type ?? null, target_id ?? null];
    const [total, rows] = await db.batch([
      db.prepare(`SELECT count(*) AS n FROM audit_log a WHERE ${where}`).bind(...binds),
      db
        .prepare(`SELECT a.*, u.account AS operator_account FROM audit_log a LEFT JOIN users u ON u.id = a.operator_id WHERE ${where} ORDER BY a.id DESC LIMIT ?5 OFFSET ?6`)
        .bind(...binds, limit, (p - 1) * limit),
    ]);
    type Row = { id: number; operator_id: number; operator_account: string | null; action: string; target_type: string; target_id: string; reason: string; detail: string; created_at: number };
    return ok(c, {
      total: count(total),
      lists: page<Row>(rows).map((r) => ({ ...r, detail: r.detail ? (JSON.parse(r.detail) as unknown) : null, time_format: timeFormat(r.created_at) })),
    });
  })
  .get("/admin/reconcile", answers(reconcileResultSchema, { summary: "Run the reconciliation now (recorded as a report)", auth: true }), async (c) => {
    const result = await reconcileAndRecord(c.env.DB, "operator");
    await auditStatement(c.env.DB, { operatorId: c.get("user").id, action: "reconcile.run", targetType: "reconciliation", targetId: result.report_id, detail: { ok: result.ok, differences: result.differences.length } }).run();
    return ok(c, result);
  })
  .get("/admin/reconcile/reports", query(adminListQuerySchema), answers(reconcileReportPageSchema, { summary: "Past reconciliation reports", auth: true }), async (c) => {
    const db = c.env.DB;
    const { page: p, limit } = c.req.valid("query");
    const [total, rows] = await db.batch([
      db.prepare("SELECT count(*) AS n FROM reconciliation_reports"),
      db.prepare("SELECT * FROM reconciliation_reports ORDER BY id DESC LIMIT ? OFFSET ?").bind(limit, (p - 1) * limit),
    ]);
    type Row = { id: number; ok: number; source: string; differences: string; stats: string; created_at: number };
    return ok(c, {
      total: count(total),
      lists: page<Row>(rows).map((r) => ({ id: r.id, ok: r.ok === 1, source: r.source, differences: JSON.parse(r.differences) as unknown, stats: JSON.parse(r.stats) as unknown, time_format: timeFormat(r.created_at) })),
    });
  });
