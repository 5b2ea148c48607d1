/**
 * Pool payouts (issue #20 §1): an operator records what the pool actually paid for one plan and
 * one hour (amount in the payout currency + evidence: the pool's payout id or a transaction hash);
 * a SECOND, different operator approves or rejects it. Approval freezes the amount in the
 * treasury (movement `mining:payout:{id}:hold`, kind mining_hold): the house holds what it will pay
 * before anything is owed, and the treasury's no-overdraft trigger refuses an approval it cannot
 * cover. Each step is audited in its own batch; the recorder's own approval is refused and audited
 * (and the database refuses it too: trigger mining_payouts_second).
 */
import type { z } from "zod";
import { HOUR_MS, type MiningAdminPayout, type miningPayoutRecordSchema } from "../../../schemas/mining.ts";
import { formatUnitsTrim } from "../../../schemas/money.ts";
import { ApiError, notFound } from "../../lib/errors.ts";
import { auditStatement, HOUSE_ACCOUNT, TREASURY } from "../../lib/guarded.ts";
import { classifyBatchError, movementStatements } from "../../lib/ledger.ts";
import { accountsOnObjects } from "../../lib/accounts.ts";
import { claimRecord, holdThenRecord, treasuryAt } from "../../lib/product-objects.ts";
import { IdTaken } from "../../lib/ids.ts";
import { amountOrThrow } from "../wallet/currency.ts";
import { firstHourOf, PAYOUT_SELECT, payoutOut, planRow, type PayoutRow } from "./plans.ts";

function adminOut(o: PayoutRow): MiningAdminPayout {
  return {
    ...payoutOut(o),
    plan_name: o.plan_name,
    recorded_by: o.recorded_by,
    recorded_at: o.recorded_at,
    record_reason: o.record_reason,
    decided_by: o.decided_by,
    decided_at: o.decided_at,
    decide_reason: o.decide_reason,
  };
}

/**
 * No operator acts on their own account: one who holds shares of the plan that count for the hour
 * (possible only where operators may hold money, OPERATOR_MONEY) neither records nor decides its
 * payout. The refusal is audited.
 */
async function refuseOwnHolding(db: D1Database, operatorId: number, planId: number, hour: number, action: string, targetId: string | number, now: number): Promise<void> {
  const own = await db
    .prepare("SELECT 1 FROM mining_holdings WHERE plan_id = ? AND user_id = ? AND start_at <= ? AND end_at > ? LIMIT 1")
    .bind(planId, operatorId, hour, hour)
    .first();
  if (!own) return;
  await auditStatement(db, { operatorId, action: `${action}.refused`, targetType: "mining_payout", targetId, reason: "own_record", detail: { plan_id: planId, hour: new Date(hour).toISOString() } }, now).run();
  throw new ApiError("own_record", 403);
}

async function payoutRow(db: D1Database, id: number): Promise<PayoutRow | null> {
  return db.prepare(`${PAYOUT_SELECT} WHERE o.id = ?`).bind(id).first<PayoutRow>();
}

/** The console's list: every record (or those of one status), newest hour first. */
export async function adminPayouts(db: D1Database, status: "recorded" | "approved" | "paid" | "rejected" | "all"): Promise<MiningAdminPayout[]> {
  const q = status === "all" ? db.prepare(`${PAYOUT_SELECT} ORDER BY o.id DESC LIMIT 200`) : db.prepare(`${PAYOUT_SELECT} WHERE o.status = ? ORDER BY o.id DESC LIMIT 200`).bind(status);
  return ((await q.all<PayoutRow>()).results ?? []).map(adminOut);
}

/** Records a pool payout for one plan and one ended hour (audited). Nothing moves until a second operator approves it. */
export async function recordPayout(db: D1Database, operatorId: number, e: z.output<typeof miningPayoutRecordSchema>, now = Date.now()): Promise<MiningAdminPayout> {
  const plan = await planRow(db, e.plan_id);
  if (!plan) throw notFound();
  const amount = amountOrThrow(e.amount, plan.payout_scale);
  if (e.hour + HOUR_MS > now || e.hour < firstHourOf(plan)) throw new ApiError("mining_hour_open", 400);
  await refuseOwnHolding(db, operatorId, plan.id, e.hour, "mining.payout.record", `${plan.id}:${e.hour}`, now);
  let id: number;
  try {
    const [inserted] = await db.batch([
      db
        .prepare(
          `INSERT INTO mining_payouts (plan_id, hour, currency_id, amount, evidence, recorded_by, recorded_at, record_reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
        )
        .bind(plan.id, e.hour, plan.payout_currency_id, amount.toString(), e.evidence, operatorId, now, e.reason),
      db
        .prepare(
          "INSERT INTO audit_log (operator_id, action, target_type, target_id, reason, detail, created_at) VALUES (?, 'mining.payout.record', 'mining_payout', CAST(last_insert_rowid() AS TEXT), ?, ?, ?)",
        )
        .bind(operatorId, e.reason, JSON.stringify({ plan_id: plan.id, hour: new Date(e.hour).toISOString(), amount: formatUnitsTrim(amount, plan.payout_scale), currency: plan.payout_currency, evidence: e.evidence }), now),
    ]);
    id = (inserted!.results[0] as { id: number }).id;
  } catch (err) {
    if (/UNIQUE constraint failed: mining_payouts/.test(String((err as Error)?.message ?? err))) throw new ApiError("mining_hour_taken", 409);
    throw err;
  }
  return adminOut((await payoutRow(db, id))!);
}

/** An approved payout's amount, held in its treasury shard (objects mode) until the cron pays it out: `mining_payout:{id}`. */
export const PAYOUT_HOLD = "mining_payout";
export const payoutHold = (id: number) => `${PAYOUT_HOLD}:${id}`;

/**
 * A second operator's decision on a recorded payout (audited). Approving freezes the amount in the
 * treasury in the same batch; the cron pays it out once its hour has ended (it has: recording
 * requires it). The recorder's own decision is refused, and the refusal audited. With balances in
 * the account objects (`ACCOUNTS=objects`) the approval holds the amount in the payout's treasury
 * shard first (`payoutHold`), then writes the decision, which claims that hold.
 */
export async function decidePayout(env: Pick<Env, "DB" | "USER"> & { ACCOUNTS?: string }, operatorId: number, e: { id: number; reason: string }, approve: boolean, now = Date.now()): Promise<MiningAdminPayout> {
  const db = env.DB;
  const o = await payoutRow(db, e.id);
  if (!o) throw notFound();
  const action = approve ? "mining.payout.approve" : "mining.payout.reject";
  if (o.status !== "recorded") throw new ApiError("mining_decided", 409);
  if (o.recorded_by === operatorId) {
    await auditStatement(db, { operatorId, action: `${action}.refused`, targetType: "mining_payout", targetId: o.id, reason: "self_review" }, now).run();
    throw new ApiError("self_review", 409);
  }
  await refuseOwnHolding(db, operatorId, o.plan_id, o.hour, action, o.id, now);
  const amount = BigInt(o.amount);
  const detail = { plan_id: o.plan_id, hour: new Date(o.hour).toISOString(), amount: formatUnitsTrim(amount, o.scale), currency: o.currency, evidence: o.evidence, recorded_by: o.recorded_by };
  const objects = approve && accountsOnObjects(env);
  const stmts = [
    ...(objects ? [claimRecord(db, payoutHold(o.id), now)] : []),
    ...(approve && !objects
      ? movementStatements(
          db,
          `mining:payout:${o.id}:hold`,
          "mining_hold",
          [{ userId: TREASURY, currencyId: o.currency_id, account: HOUSE_ACCOUNT, dAvailable: -amount, dFrozen: amount, memo: `mining payout #${o.id} held for plan ${o.plan_id}` }],
          now,
        )
      : []),
    db
      .prepare("UPDATE mining_payouts SET status = ?, decided_by = ?, decided_at = ?, decide_reason = ? WHERE id = ? AND status = 'recorded'")
      .bind(approve ? "approved" : "rejected", operatorId, now, e.reason, o.id),
    db.prepare("INSERT INTO mining_guards (changed, what) VALUES (changes(), 'payout decision')"),
    auditStatement(db, { operatorId, action, targetType: "mining_payout", targetId: o.id, reason: e.reason, detail }, now),
  ];
  const short = () => new ApiError("mining_treasury_short", 409, { amount: formatUnitsTrim(amount, o.scale), currency: o.currency });
  try {
    if (!objects) await db.batch(stmts);
    else await holdThenRecord(env, [{ to: treasuryAt(o.id), hold: { forKind: PAYOUT_HOLD, forId: String(o.id), account: HOUSE_ACCOUNT, currencyId: o.currency_id, amount } }], short, () => db.batch(stmts));
  } catch (err) {
    if (err instanceof ApiError) throw err;
    // Objects mode: the payout's hold is there already (a parallel approval made it first).
    if (err instanceof IdTaken) throw new ApiError("mining_decided", 409);
    const msg = String((err as Error)?.message ?? err);
    if (msg.includes("self_review")) throw new ApiError("self_review", 409);
    if (msg.includes("treasury_overdraft") || classifyBatchError(err) === "insufficient") throw short();
    if (msg.includes("mining_conflict") || msg.includes("state_conflict") || classifyBatchError(err) === "duplicate") throw new ApiError("mining_decided", 409);
    throw err;
  }
  return adminOut((await payoutRow(db, o.id))!);
}
