/**
 * Operator decisions other than withdrawals: deposit claims, identity submissions and two-operator
 * balance adjustments. Each decision is one guarded batch: the status change (its trigger refuses
 * anything but a pending → decided edge), the ledger movement when money moves (keyed by the
 * record, so it can apply once) and the audit row with the operator and the reason.
 */
import { changingSessions } from "../../lib/session-push.ts";
import { parseUnits } from "../../../schemas/money.ts";
import { USDT_ID } from "../../../schemas/wallet.ts";
import { big, getCurrency } from "../wallet/currency.ts";
import { ApiError, notFound } from "../../lib/errors.ts";
import { auditStatement, refuseOwnRecord, runGuarded, TREASURY } from "../../lib/guarded.ts";
import { mulPrice, usdtPrice } from "../spot/prices.ts";
import { movementStatements, SYSTEM, type LedgerEntry, type WalletAccount } from "../../lib/ledger.ts";
import { announceNotifications, notificationStatement } from "../notifications/inbox.ts";
import { depositCredited, depositRejected, kycDecided } from "../notifications/events.ts";
import { sameIdentityStatement } from "../invite/identity.ts";
import { accountsOnObjects } from "../../lib/accounts.ts";
import { deliverRecordLegs, recordLegsStatements } from "../../lib/record-legs.ts";
import { depositLegs } from "../wallet/deposit-objects.ts";
import { approveOnObjects } from "./adjustment-objects.ts";

/** Whether a deposit claim's value needs a second operator (unknown value: yes). */
export async function depositNeedsSecond(db: D1Database, currencyId: number, amount: bigint, thresholdUsdt: string): Promise<boolean> {
  const usdt = await getCurrency(db, USDT_ID);
  const threshold = parseUnits(thresholdUsdt.trim() || "10000", usdt.scale);
  if (threshold === null) return true;
  if (currencyId === USDT_ID) return amount > threshold;
  const cur = await getCurrency(db, currencyId);
  const price = await usdtPrice(db, currencyId);
  if (!price) return true;
  return mulPrice(amount, cur.scale, price, usdt.scale) > threshold;
}

/**
 * Deposit claim: 0 applying → 1 credited (SYSTEM.deposits → user) or 2 rejected (reason). A claim
 * worth more than the threshold (USDT at the last price) is credited only when a second, different
 * operator approves after the first: the first approval is recorded and the claim stays 0,
 * "awaiting second approval". No operator decides on a claim of their own account. The decision
 * (credit or rejection, not a first approval) notifies the owner in its own batch.
 */
export async function decideDeposit(env: Pick<Env, "DB" | "USER"> & { ACCOUNTS?: string }, operatorId: number, id: number, approve: boolean, reason: string, thresholdUsdt: string) {
  const db = env.DB;
  const d = await db
    .prepare(
      `SELECT d.id, d.user_id, d.currency_id, d.amount, d.status, d.needs_second, d.first_approved_by, c.name AS currency, c.scale
       FROM deposits d JOIN currencies c ON c.id = d.currency_id WHERE d.id = ?`,
    )
    .bind(id)
    .first<{ id: number; user_id: number; currency_id: number; amount: number; status: number; needs_second: number; first_approved_by: number | null; currency: string; scale: number }>();
  if (!d) throw notFound();
  const action = approve ? "deposit.approve" : "deposit.reject";
  await refuseOwnRecord(db, operatorId, d.user_id, { action, targetType: "deposit", targetId: d.id, detail: { user_id: d.user_id } });
  if (!approve && !reason) throw new ApiError("reason_required");
  const now = Date.now();
  const amount = big(d.amount);
  const detail = { user_id: d.user_id, currency_id: d.currency_id, amount: amount.toString() };
  if (approve && d.status === 0 && d.first_approved_by === null) {
    const needsSecond = d.needs_second === 1 || (await depositNeedsSecond(db, d.currency_id, amount, thresholdUsdt));
    if (needsSecond) {
      await runGuarded(db, [
        db
          .prepare("UPDATE deposits SET needs_second = 1, first_approved_by = ?, first_approved_at = ? WHERE id = ? AND status = 0 AND first_approved_by IS NULL")
          .bind(operatorId, now, d.id),
        auditStatement(db, { operatorId, action: "deposit.approve_first", targetType: "deposit", targetId: d.id, reason, detail }, now),
      ]);
      return { id: d.id, status: 0, awaiting_second_approval: true };
    }
  }
  if (approve && d.first_approved_by === operatorId) {
    await auditStatement(db, { operatorId, action: "deposit.approve.refused", targetType: "deposit", targetId: d.id, reason: "self_review", detail }).run();
    throw new ApiError("self_review", 409);
  }
  // Objects mode: the credit is legs to the user's object and a deposits shard, written with the decision (../wallet/deposit-objects.ts).
  const legs = approve && accountsOnObjects(env) ? depositLegs({ id: d.id, userId: d.user_id, currencyId: d.currency_id, amount }) : null;
  const stmts: D1PreparedStatement[] = legs
    ? recordLegsStatements(db, `deposit:${d.id}`, legs, now)
    : approve
      ? movementStatements(
          db,
          `deposit:${d.id}`,
          "deposit",
          [
            { userId: d.user_id, currencyId: d.currency_id, account: "change", dAvailable: amount, dFrozen: 0n },
            { userId: SYSTEM.deposits, currencyId: d.currency_id, account: "change", dAvailable: -amount, dFrozen: 0n, memo: `deposit ${d.id}` },
          ],
          now,
        )
      : [];
  const status = approve ? 1 : 2;
  const fact = { id: d.id, userId: d.user_id, amount, currency: d.currency, scale: d.scale };
  stmts.push(
    db.prepare("UPDATE deposits SET status = ?, reason = ?, reviewed_by = ?, reviewed_at = ? WHERE id = ?").bind(status, reason, operatorId, now, d.id),
    auditStatement(db, { operatorId, action, targetType: "deposit", targetId: d.id, reason, detail: { ...detail, first_approved_by: d.first_approved_by ?? undefined } }, now),
    notificationStatement(db, approve ? depositCredited(fact, now) : depositRejected({ ...fact, reason }, now)),
  );
  await runGuarded(db, stmts);
  if (legs) await deliverRecordLegs(env, legs);
  await announceNotifications(env, [d.user_id]);
  return { id: d.id, status, awaiting_second_approval: false };
}

/**
 * Identity submission: 1 under review → 2 approved or 3 rejected. The user's review_status follows:
 * approved → 2 (and the verified name is recorded); rejected → 3, unless a lower level was already
 * approved, in which case the user stays verified (2). The decision notifies the owner in its own batch.
 */
export async function decideKyc(env: Pick<Env, "DB" | "USER" | "ACCOUNTS">, operatorId: number, id: number, approve: boolean, reason: string) {
  const db = env.DB;
  const k = await db
    .prepare("SELECT id, user_id, level, name, status FROM kyc_submissions WHERE id = ?")
    .bind(id)
    .first<{ id: number; user_id: number; level: number; name: string | null; status: number }>();
  if (!k) throw notFound();
  await refuseOwnRecord(db, operatorId, k.user_id, { action: approve ? "kyc.approve" : "kyc.reject", targetType: "kyc", targetId: k.id, detail: { user_id: k.user_id } });
  if (!approve && !reason) throw new ApiError("reason_required");
  const now = Date.now();
  const status = approve ? 2 : 3;
  const stmts = [
    db.prepare("UPDATE kyc_submissions SET status = ?, reason = ?, reviewed_by = ?, reviewed_at = ? WHERE id = ?").bind(status, reason, operatorId, now, k.id),
    approve
      ? db.prepare("UPDATE users SET review_status = 2, real_name = COALESCE(?, real_name) WHERE id = ?").bind(k.name, k.user_id)
      : db
          .prepare("UPDATE users SET review_status = CASE WHEN EXISTS (SELECT 1 FROM kyc_submissions WHERE user_id = ?1 AND status = 2) THEN 2 ELSE 3 END WHERE id = ?1")
          .bind(k.user_id),
    auditStatement(db, { operatorId, action: approve ? "kyc.approve" : "kyc.reject", targetType: "kyc", targetId: k.id, reason, detail: { user_id: k.user_id, level: k.level } }, now),
    notificationStatement(db, kycDecided({ id: k.id, userId: k.user_id, level: k.level, approved: approve, reason }, now)),
    // Invitation rebates: a verified identity equal to an inviter's up the chain refuses that binding for good.
    ...(approve ? [sameIdentityStatement(db, k.user_id, now)] : []),
  ];
  // review_status changes: the user's account object is told first (objects mode: worker/lib/session-push.ts).
  await changingSessions(env, k.user_id, () => runGuarded(db, stmts));
  await announceNotifications(env, [k.user_id]);
  return { id: k.id, status };
}

type AdjustmentRow = {
  id: number;
  user_id: number;
  currency_id: number;
  account: WalletAccount;
  amount: number;
  status: number;
  requested_by: number;
};

/** The ledger entries of an adjustment (see migrations/0005_wallet.sql for the counterparts). */
export function adjustmentEntries(a: { user_id: number; currency_id: number; account: WalletAccount; amount: bigint }): LedgerEntry[] {
  const target: LedgerEntry = { userId: a.user_id, currencyId: a.currency_id, account: a.account, dAvailable: a.amount, dFrozen: 0n, memo: "adjustment" };
  if (a.user_id === TREASURY) {
    const external = a.amount > 0n ? SYSTEM.deposits : SYSTEM.withdrawals;
    return [target, { userId: external, currencyId: a.currency_id, account: "change", dAvailable: -a.amount, dFrozen: 0n, memo: "treasury funding" }];
  }
  return [target, { userId: TREASURY, currencyId: a.currency_id, account: "change", dAvailable: -a.amount, dFrozen: 0n, memo: "adjustment" }];
}

/** Second-operator decision on an adjustment: approve applies it through the ledger; reject cancels. */
export async function decideAdjustment(env: Pick<Env, "DB" | "USER"> & { ACCOUNTS?: string }, operatorId: number, id: number, approve: boolean, reason: string) {
  const db = env.DB;
  const a = await db
    .prepare("SELECT id, user_id, currency_id, account, amount, status, requested_by FROM balance_adjustments WHERE id = ?")
    .bind(id)
    .first<AdjustmentRow>();
  if (!a) throw notFound();
  await refuseOwnRecord(db, operatorId, a.user_id, { action: approve ? "adjustment.approve" : "adjustment.reject", targetType: "adjustment", targetId: a.id, detail: { user_id: a.user_id } });
  if (approve && a.requested_by === operatorId) throw new ApiError("self_review", 409);
  if (!approve && !reason) throw new ApiError("reason_required");
  const now = Date.now();
  const status = approve ? 1 : 2;
  // Objects mode: the payer's hold, then this batch with the legs it owes the objects (./adjustment-objects.ts).
  const objects = approve && accountsOnObjects(env);
  // D1's path answers a decided adjustment from its batch's guard; in objects mode the payer's hold
  // comes before that batch, so the row just read decides first (a short payer is no reason to give).
  if (objects && a.status !== 0) throw new ApiError("state_conflict", 409);
  const stmts: D1PreparedStatement[] =
    approve && !objects ? movementStatements(db, `adjustment:${a.id}`, "adjustment", adjustmentEntries({ ...a, amount: big(a.amount) }), now) : [];
  stmts.push(
    db
      .prepare("UPDATE balance_adjustments SET status = ?, decided_by = ?, decision_reason = ?, decided_at = ? WHERE id = ?")
      .bind(status, operatorId, reason, now, a.id),
    auditStatement(
      db,
      { operatorId, action: approve ? "adjustment.approve" : "adjustment.reject", targetType: "adjustment", targetId: a.id, reason, detail: { user_id: a.user_id, currency_id: a.currency_id, account: a.account, amount: String(a.amount), requested_by: a.requested_by } },
      now,
    ),
  );
  if (objects) await approveOnObjects(env, { ...a, amount: big(a.amount) }, stmts, now);
  else await runGuarded(db, stmts);
  return { id: a.id, status };
}
