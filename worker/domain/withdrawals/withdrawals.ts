/**
 * Withdrawals: the one published fee table (DESIGN §1: nothing else is ever charged — no profit
 * tax, no turnover gate, no wash penalty, no VIP fee) and the lifecycle after the request:
 *
 *   0 applying ──approve──▶ 1 approved, awaiting chain ──chain success──▶ 2 (frozen → withdrawals + fees)
 *       │                                              └─chain failure──▶ 3 (frozen → available)
 *       └──reject──▶ 4 rejected (frozen → available)
 *   5 in-site success: inserted settled, never reached by a transition (worker/domain/wallet/internal-addresses.ts).
 *
 * The request freezes amount + fee (available → frozen) in one movement. Every terminal transition
 * is one movement keyed `withdrawal-final:{id}`, in the same batch as the status change (guarded by
 * the migration's trigger) and the audit row, so no withdrawal can settle twice. The terminal
 * transitions also notify the owner in that batch (sent with its transaction id, which chain
 * success requires; rejected or failed on chain with the reason). In objects mode the batch
 * carries the legs the decision owes the user's object instead of the movement (./objects.ts).
 */
import type { Currency } from "../wallet/currency.ts";
import { big } from "../wallet/currency.ts";
import { ApiError, notFound } from "../../lib/errors.ts";
import { auditStatement, refuseOwnRecord, runGuarded } from "../../lib/guarded.ts";
import { movementStatements, SYSTEM, type LedgerEntry } from "../../lib/ledger.ts";
import { parseUnits } from "../../../schemas/money.ts";
import { chainTxidSchema } from "../../../schemas/operator.ts";
import { networkNames } from "../../../schemas/wallet.ts";
import { parseOrThrow } from "../../lib/validate.ts";
import { announceNotifications, notificationStatement } from "../notifications/inbox.ts";
import { withdrawalReturned, withdrawalSent } from "../notifications/events.ts";
import { accountsOnObjects } from "../../lib/accounts.ts";
import { deliverRecordLegs, recordLegsStatements } from "../../lib/record-legs.ts";
import { decisionLegs } from "./objects.ts";

export interface FeeRow {
  network: -1 | 0 | 1;
  fee: bigint;
  min: bigint;
  max: bigint;
}

/** The published rows of one currency, parsed at its scale. */
export async function feeRows(db: D1Database, currency: Currency): Promise<FeeRow[]> {
  const { results } = await db
    .prepare("SELECT network, fee, min_amount, max_amount FROM withdrawal_fees WHERE currency_id = ? ORDER BY network")
    .bind(currency.id)
    .all<{ network: -1 | 0 | 1; fee: string; min_amount: string; max_amount: string }>();
  return results.map((r) => {
    const fee = parseUnits(r.fee, currency.scale);
    const min = parseUnits(r.min_amount, currency.scale);
    const max = parseUnits(r.max_amount, currency.scale);
    if (fee === null || min === null || max === null) throw new Error(`withdrawal_fees row of ${currency.name} does not fit its scale`);
    return { network: r.network, fee, min, max };
  });
}

/** Network rows by their effective fee, lowest first (the table's order for equal fees). */
export function cheaperFirst(rows: FeeRow[]): FeeRow[] {
  const fee = (r: FeeRow) => termsFor(rows.concat(), r.network)?.fee ?? r.fee;
  return [...rows].sort((a, b) => (fee(a) < fee(b) ? -1 : fee(a) > fee(b) ? 1 : a.network - b.network));
}

/** Whether a currency is withdrawn on one of several networks (USDT: ERC20 / TRC20). */
export const hasNetworks = (rows: FeeRow[]) => rows.some((r) => r.network !== -1);

/**
 * The terms of a withdrawal on `network`: the network's own fee when above zero, else the general
 * rate (spec §4); min and max from the network's row when it has one. Null when not withdrawable.
 */
export function termsFor(rows: FeeRow[], network: -1 | 0 | 1): { fee: bigint; min: bigint; max: bigint } | null {
  const general = rows.find((r) => r.network === -1);
  const own = network === -1 ? general : rows.find((r) => r.network === network);
  if (!own && !general) return null;
  if (network !== -1 && !own) return null;
  const base = own ?? general!;
  const fee = own && own.fee > 0n ? own.fee : (general?.fee ?? base.fee);
  return { fee, min: base.min, max: base.max };
}

type WithdrawalRow = {
  id: number;
  user_id: number;
  currency_id: number;
  network: number;
  amount: number;
  fee: number;
  status: number;
  currency: string;
  scale: number;
};

export type WithdrawalAction = "approve" | "reject" | "chain_success" | "chain_failure";
const TARGET: Record<WithdrawalAction, number> = { approve: 1, reject: 4, chain_success: 2, chain_failure: 3 };

/**
 * Drives one operator transition; refused transitions throw state_conflict and change nothing.
 * Chain success needs the transaction id (chainTxidSchema), whatever path marks a withdrawal sent.
 */
export async function transitionWithdrawal(
  env: Pick<Env, "DB" | "USER"> & { ACCOUNTS?: string },
  operatorId: number,
  id: number,
  action: WithdrawalAction,
  reason: string,
  txid = "",
): Promise<{ id: number; status: number }> {
  const db = env.DB;
  if (action === "chain_success") txid = parseOrThrow(chainTxidSchema, txid);
  const w = await db
    .prepare(
      `SELECT w.id, w.user_id, w.currency_id, w.network, w.amount, w.fee, w.status, c.name AS currency, c.scale
       FROM withdrawals w JOIN currencies c ON c.id = w.currency_id WHERE w.id = ?`,
    )
    .bind(id)
    .first<WithdrawalRow>();
  if (!w) throw notFound();
  await refuseOwnRecord(db, operatorId, w.user_id, { action: `withdrawal.${action}`, targetType: "withdrawal", targetId: w.id, detail: { user_id: w.user_id } });
  if ((action === "reject" || action === "chain_failure") && !reason) throw new ApiError("reason_required");
  const status = TARGET[action];
  const now = Date.now();
  const amount = big(w.amount);
  const fee = big(w.fee);
  const total = amount + fee;
  const stmts: D1PreparedStatement[] = [];
  const user = (dAvailable: bigint, dFrozen: bigint): LedgerEntry => ({ userId: w.user_id, currencyId: w.currency_id, account: "change", dAvailable, dFrozen });
  // Objects mode: the money is the hold in the user's object; the decision owes it legs, written with it (./objects.ts).
  const legs = accountsOnObjects(env) ? decisionLegs({ ...w, amount, fee }, action) : null;
  if (legs) stmts.push(...recordLegsStatements(db, `withdrawal:${w.id}`, legs, now));
  else if (action === "reject" || action === "chain_failure") {
    stmts.push(...movementStatements(db, `withdrawal-final:${w.id}`, `withdrawal_${action}`, [user(total, -total)], now));
  } else if (action === "chain_success") {
    stmts.push(
      ...movementStatements(
        db,
        `withdrawal-final:${w.id}`,
        "withdrawal_sent",
        [
          user(0n, -total),
          { userId: SYSTEM.withdrawals, currencyId: w.currency_id, account: "change", dAvailable: amount, dFrozen: 0n },
          { userId: SYSTEM.fees, currencyId: w.currency_id, account: "change", dAvailable: fee, dFrozen: 0n, memo: `withdrawal ${w.id}` },
        ],
        now,
      ),
    );
  }
  const reviewCols = action === "approve" || action === "reject" ? "reviewed_by = ?2, reviewed_at = ?3" : "settled_by = ?2, settled_at = ?3";
  stmts.push(
    db
      .prepare(`UPDATE withdrawals SET status = ?1, ${reviewCols}, reason = CASE WHEN ?4 = '' THEN reason ELSE ?4 END, txid = CASE WHEN ?5 = '' THEN txid ELSE ?5 END WHERE id = ?6`)
      .bind(status, operatorId, now, reason, txid, w.id),
    auditStatement(db, { operatorId, action: `withdrawal.${action}`, targetType: "withdrawal", targetId: w.id, reason, detail: { from: w.status, to: status, txid: txid || undefined } }, now),
  );
  const fact = { id: w.id, userId: w.user_id, amount, currency: w.currency, scale: w.scale };
  const notice =
    action === "chain_success"
      ? withdrawalSent({ ...fact, network: networkNames[w.network] ?? "", txid }, now)
      : action === "approve"
        ? null
        : withdrawalReturned({ ...fact, reason, how: action === "reject" ? "rejected" : "failed" }, now);
  if (notice) stmts.push(notificationStatement(db, notice));
  await runGuarded(db, stmts);
  if (legs?.length) await deliverRecordLegs(env, legs);
  if (notice) await announceNotifications(env, [w.user_id]);
  return { id: w.id, status };
}
