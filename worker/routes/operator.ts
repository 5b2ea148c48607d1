/**
 * Operator console API (/api/admin/*; role operator only, anyone else 403 no_permission).
 * Queues for deposits, withdrawals and identity reviews; a user's balances and ledger; balance
 * adjustments that a second, different operator must approve; the audit log; reconciliation.
 * Every action writes an audit row (in the same batch as the action). Operators never edit a
 * balance directly, and nothing here can change a trade, a price or a contract outcome.
 * The queries and decisions are in worker/domain/operator/ (and withdrawals/, ledger/).
 */
import { Hono } from "hono";
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
  withdrawalActionParamSchema,
  userSearchQuerySchema,
} from "../../schemas/operator.ts";
import { requireOperator, requireUser } from "../lib/auth.ts";
import type { AppEnv } from "../lib/context.ts";
import { answers, ok } from "../lib/respond.ts";
import { jsonBody, params, query } from "../lib/validate.ts";
import { adjustmentList, requestAdjustment } from "../domain/operator/adjustments.ts";
import { auditLog, reconcileReports, runReconciliation } from "../domain/operator/audit.ts";
import { depositQueue, kycQueue, withdrawalQueue } from "../domain/operator/queues.ts";
import { decideAdjustment, decideDeposit, decideKyc } from "../domain/operator/reviews.ts";
import { findUsers, treasuryBalances, userDetail, userLedger } from "../domain/operator/users.ts";
import { readsOnObjects } from "../domain/wallet/object-reads.ts";
import { transitionWithdrawal, type WithdrawalAction } from "../domain/withdrawals/withdrawals.ts";

const withdrawalActions: Record<string, WithdrawalAction> = {
  approve: "approve",
  reject: "reject",
  "chain-success": "chain_success",
  "chain-failure": "chain_failure",
};

export const operatorRoutes = new Hono<AppEnv>()
  .use("/admin/*", requireUser, requireOperator)

  // ── Deposits ────────────────────────────────────────────────────────────────────────────────
  .get("/admin/deposits", query(adminListQuerySchema), answers(adminDepositPageSchema, { summary: "Deposit claims (filter by status, user)", auth: true }), async (c) =>
    ok(c, await depositQueue(c.env.DB, c.get("user").id, c.get("locale"), c.req.valid("query"))),
  )
  .post("/admin/deposits/:id/approve", params(idParamSchema), jsonBody(decisionSchema), answers(depositDecisionSchema, { summary: "Credit a deposit claim", auth: true }), async (c) =>
    ok(c, await decideDeposit(c.env, c.get("user").id, c.req.valid("param").id, true, c.req.valid("json").reason, c.env.DEPOSIT_SECOND_APPROVAL_USDT)),
  )
  .post("/admin/deposits/:id/reject", params(idParamSchema), jsonBody(decisionSchema), answers(depositDecisionSchema, { summary: "Reject a deposit claim (reason required)", auth: true }), async (c) =>
    ok(c, await decideDeposit(c.env, c.get("user").id, c.req.valid("param").id, false, c.req.valid("json").reason, c.env.DEPOSIT_SECOND_APPROVAL_USDT)),
  )

  // ── Withdrawals ─────────────────────────────────────────────────────────────────────────────
  .get("/admin/withdrawals", query(adminListQuerySchema), answers(adminWithdrawalPageSchema, { summary: "Withdrawals (filter by status, user)", auth: true }), async (c) =>
    ok(c, await withdrawalQueue(c.env.DB, c.get("user").id, c.get("locale"), c.req.valid("query"))),
  )
  .post("/admin/withdrawals/:id/:action{approve|reject|chain-success|chain-failure}", params(withdrawalActionParamSchema), jsonBody(decisionSchema), answers(decisionResultSchema, { summary: "Approve, reject, or record the chain result of a withdrawal", auth: true }), async (c) => {
    const { id, action: name } = c.req.valid("param");
    const action = withdrawalActions[name]!;
    const b = c.req.valid("json");
    return ok(c, await transitionWithdrawal(c.env, c.get("user").id, id, action, b.reason, b.txid));
  })

  // ── Identity reviews ────────────────────────────────────────────────────────────────────────
  .get("/admin/kyc", query(adminListQuerySchema), answers(adminKycPageSchema, { summary: "Identity submissions (filter by status, user)", auth: true }), async (c) =>
    ok(c, await kycQueue(c.env.DB, c.get("user").id, c.req.valid("query"))),
  )
  .post("/admin/kyc/:id/approve", params(idParamSchema), jsonBody(decisionSchema), answers(decisionResultSchema, { summary: "Approve an identity submission", auth: true }), async (c) =>
    ok(c, await decideKyc(c.env, c.get("user").id, c.req.valid("param").id, true, c.req.valid("json").reason)),
  )
  .post("/admin/kyc/:id/reject", params(idParamSchema), jsonBody(decisionSchema), answers(decisionResultSchema, { summary: "Reject an identity submission (reason required)", auth: true }), async (c) =>
    ok(c, await decideKyc(c.env, c.get("user").id, c.req.valid("param").id, false, c.req.valid("json").reason)),
  )

  // ── Users, balances and ledger ──────────────────────────────────────────────────────────────
  .get("/admin/users", query(userSearchQuerySchema), answers(adminUserPageSchema, { summary: "Find users by id or account prefix", auth: true }), async (c) => ok(c, await findUsers(c.env.DB, c.req.valid("query"))))
  .get("/admin/users/:id", params(idParamSchema), answers(adminUserDetailSchema, { summary: "A user's profile, bank card and balances (audited)", auth: true }), async (c) =>
    ok(c, await userDetail(c.env.DB, c.get("user").id, c.req.valid("param").id, readsOnObjects(c.env))),
  )
  .get("/admin/users/:id/ledger", params(idParamSchema), query(adminListQuerySchema), answers(ledgerPageSchema, { summary: "A user's ledger rows, newest first", auth: true }), async (c) =>
    ok(c, await userLedger(c.env.DB, c.req.valid("param").id, c.req.valid("query"), readsOnObjects(c.env))),
  )
  .get("/admin/treasury", answers(treasurySchema, { summary: "Balances of the system accounts", auth: true }), async (c) => ok(c, await treasuryBalances(c.env)))

  // ── Balance adjustments (four eyes) ─────────────────────────────────────────────────────────
  .get("/admin/adjustments", query(adminListQuerySchema), answers(adjustmentPageSchema, { summary: "Balance adjustments (filter by status, user)", auth: true }), async (c) => ok(c, await adjustmentList(c.env.DB, c.req.valid("query"))))
  .post("/admin/adjustments", jsonBody(adjustmentRequestSchema), answers(adjustmentRequestedSchema, { summary: "Request a balance adjustment (a second operator approves)", auth: true }), async (c) =>
    ok(c, await requestAdjustment(c.env.DB, c.get("user").id, c.req.valid("json"))),
  )
  .post("/admin/adjustments/:id/approve", params(idParamSchema), jsonBody(decisionSchema), answers(decisionResultSchema, { summary: "Approve another operator's adjustment", auth: true }), async (c) =>
    ok(c, await decideAdjustment(c.env, c.get("user").id, c.req.valid("param").id, true, c.req.valid("json").reason)),
  )
  .post("/admin/adjustments/:id/reject", params(idParamSchema), jsonBody(decisionSchema), answers(decisionResultSchema, { summary: "Reject an adjustment", auth: true }), async (c) =>
    ok(c, await decideAdjustment(c.env, c.get("user").id, c.req.valid("param").id, false, c.req.valid("json").reason)),
  )

  // ── Audit log and reconciliation ────────────────────────────────────────────────────────────
  .get("/admin/audit", query(auditQuerySchema), answers(auditPageSchema, { summary: "The audit log, newest first", auth: true }), async (c) => ok(c, await auditLog(c.env.DB, c.req.valid("query"))))
  .get("/admin/reconcile", answers(reconcileResultSchema, { summary: "Run the reconciliation now (recorded as a report)", auth: true }), async (c) => ok(c, await runReconciliation(c.env.DB, c.get("user").id, c.env)))
  .get("/admin/reconcile/reports", query(adminListQuerySchema), answers(reconcileReportPageSchema, { summary: "Past reconciliation reports", auth: true }), async (c) => ok(c, await reconcileReports(c.env.DB, c.req.valid("query"))));
