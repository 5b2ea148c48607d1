/**
 * Guarded batches: one D1 batch (one transaction) holding a state transition, its ledger movement
 * and its audit row. The database refuses what must not happen (status triggers, movement keys,
 * balance CHECKs, the treasury trigger) and this module turns each refusal into a translated error,
 * so a refused batch changes nothing and says why.
 */
import { ApiError } from "./errors.ts";
import { SYSTEM, classifyBatchError, type LedgerEntry, type WalletAccount } from "./ledger.ts";

/**
 * The exchange's own money (flash-exchange counterparty, counterpart of balance adjustments).
 * Unlike the external-flow accounts (SYSTEM in ledger.ts) it may never go negative
 * (migrations/0005_wallet.sql trigger).
 */
export const TREASURY = -3;

/** Every system account the reconciliation knows (user id → name). */
export const SYSTEM_ACCOUNTS: Record<number, string> = { 0: "fees", [-1]: "deposits", [-2]: "withdrawals", [TREASURY]: "treasury" };

/** The house's holds and results (seconds contracts, leveraged positions) live in the treasury's `change` account, where it is funded. */
export const HOUSE_ACCOUNT = "change" as const;

/** One leg of a house-backed product's movement: the user's product account, the fee account or the house. */
export interface RoleLeg {
  role: "user" | "fees" | "house";
  dAvailable: bigint;
  dFrozen: bigint;
}

/** Ledger entries of a product's legs: the user's side in `userAccount`, fees and the house where they always are. */
export function roleEntries(legs: RoleLeg[], userId: number, userAccount: WalletAccount, currencyId: number, memo: string): LedgerEntry[] {
  return legs.map((l) => ({
    userId: l.role === "user" ? userId : l.role === "fees" ? SYSTEM.fees : TREASURY,
    currencyId,
    account: l.role === "user" ? userAccount : HOUSE_ACCOUNT,
    dAvailable: l.dAvailable,
    dFrozen: l.dFrozen,
    memo,
  }));
}

/** Runs a batch; maps constraint failures to ApiErrors (409) and rethrows anything else. */
export async function runGuarded(db: D1Database, stmts: D1PreparedStatement[]): Promise<D1Result[]> {
  try {
    return await db.batch(stmts);
  } catch (err) {
    throw guardedError(err);
  }
}

/** What a failed guarded batch answers: its guard's or the ledger's refusal as an ApiError, anything else as it was. */
export function guardedError(err: unknown): unknown {
  const msg = String((err as Error)?.message ?? err);
  if (msg.includes("own_record")) return new ApiError("own_record", 403);
  if (msg.includes("self_review")) return new ApiError("self_review", 409);
  if (msg.includes("state_conflict")) return new ApiError("state_conflict", 409);
  if (msg.includes("treasury_overdraft")) return new ApiError("treasury_insufficient", 409);
  const kind = classifyBatchError(err);
  // A decision movement is keyed by its record: a second decision hits the key.
  if (kind === "duplicate") return new ApiError("state_conflict", 409);
  if (kind === "insufficient") return new ApiError("insufficient_balance", 409);
  return err;
}

export interface AuditEntry {
  operatorId: number;
  action: string;
  targetType: string;
  targetId: string | number;
  reason?: string;
  detail?: unknown;
}

/** The audit row of an operator action, to put in the same batch as the action itself. */
export function auditStatement(db: D1Database, e: AuditEntry, now = Date.now()): D1PreparedStatement {
  return db
    .prepare("INSERT INTO audit_log (operator_id, action, target_type, target_id, reason, detail, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)")
    .bind(e.operatorId, e.action, e.targetType, String(e.targetId), e.reason ?? "", e.detail === undefined ? "" : JSON.stringify(e.detail), now);
}

/**
 * Refuses an operator decision about the operator's own account: writes the refusal to the audit
 * log (action `{action}.refused`), then throws own_record. The database refuses the same decision
 * (migrations/0007_operator_guards.sql) should any path reach it.
 */
export async function refuseOwnRecord(db: D1Database, operatorId: number, ownerId: number, e: Omit<AuditEntry, "operatorId">): Promise<void> {
  if (operatorId !== ownerId) return;
  await auditStatement(db, { ...e, operatorId, action: `${e.action}.refused`, reason: "own_record" }).run();
  throw new ApiError("own_record", 403);
}
