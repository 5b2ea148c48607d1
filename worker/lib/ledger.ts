/**
 * The only way balances change. A movement is one business event written as ledger rows in a
 * single D1 batch (one transaction): the movement key makes it idempotent, the ledger trigger
 * applies each row to `balances`, and the balances CHECKs abort the whole batch on an overdraft.
 */
import { ApiError } from "./errors.ts";

export type WalletAccount = "change" | "micro" | "legal" | "lever";

/** System accounts (user ids ≤ 0) may go negative; they are the other side of external flows. */
export const SYSTEM = { fees: 0, deposits: -1, withdrawals: -2 } as const;

export interface LedgerEntry {
  userId: number;
  currencyId: number;
  account: WalletAccount;
  dAvailable: bigint;
  dFrozen: bigint;
  memo?: string;
}

/** Checks that every currency nets to zero across the movement: value is moved, never made. */
export function assertBalanced(entries: LedgerEntry[]): void {
  const sums = new Map<number, bigint>();
  for (const e of entries) sums.set(e.currencyId, (sums.get(e.currencyId) ?? 0n) + e.dAvailable + e.dFrozen);
  for (const [currency, sum] of sums) {
    if (sum !== 0n) throw new Error(`unbalanced movement: currency ${currency} nets ${sum}`);
  }
}

/** The statements of a movement, to run alone or inside a larger batch (they must come first). */
export function movementStatements(
  db: D1Database,
  key: string,
  kind: string,
  entries: LedgerEntry[],
  now = Date.now(),
): D1PreparedStatement[] {
  assertBalanced(entries);
  const stmts = [db.prepare("INSERT INTO movements (key, kind, created_at) VALUES (?, ?, ?)").bind(key, kind, now)];
  for (const e of entries) {
    if (e.dAvailable === 0n && e.dFrozen === 0n) continue;
    stmts.push(
      db
        .prepare(
          "INSERT INTO ledger (movement_key, user_id, currency_id, account, d_available, d_frozen, kind, memo, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        )
        .bind(key, e.userId, e.currencyId, e.account, e.dAvailable.toString(), e.dFrozen.toString(), kind, e.memo ?? "", now),
    );
  }
  return stmts;
}

/** D1 allows 100 bound values per statement: rows per multi-row INSERT of movements and of ledger rows. */
const MOVEMENTS_PER_INSERT = 33;
const LEDGER_ROWS_PER_INSERT = 11;

/**
 * The statements of many movements at once (each balanced, each keyed), packed into multi-row
 * INSERTs: for a drain that applies hundreds of small movements in one D1 batch. Same rows, same
 * triggers and the same key check as `movementStatements`, in far fewer statements.
 */
export function movementsStatements(db: D1Database, movements: { key: string; kind: string; entries: LedgerEntry[]; now: number }[]): D1PreparedStatement[] {
  const stmts: D1PreparedStatement[] = [];
  const rows: (string | number)[][] = [];
  for (const m of movements) {
    assertBalanced(m.entries);
    for (const e of m.entries) {
      if (e.dAvailable === 0n && e.dFrozen === 0n) continue;
      rows.push([m.key, e.userId, e.currencyId, e.account, e.dAvailable.toString(), e.dFrozen.toString(), m.kind, e.memo ?? "", m.now]);
    }
  }
  for (let i = 0; i < movements.length; i += MOVEMENTS_PER_INSERT) {
    const chunk = movements.slice(i, i + MOVEMENTS_PER_INSERT);
    stmts.push(db.prepare(`INSERT INTO movements (key, kind, created_at) VALUES ${chunk.map(() => "(?, ?, ?)").join(", ")}`).bind(...chunk.flatMap((m) => [m.key, m.kind, m.now])));
  }
  for (let i = 0; i < rows.length; i += LEDGER_ROWS_PER_INSERT) {
    const chunk = rows.slice(i, i + LEDGER_ROWS_PER_INSERT);
    stmts.push(
      db
        .prepare(
          `INSERT INTO ledger (movement_key, user_id, currency_id, account, d_available, d_frozen, kind, memo, created_at) VALUES ${chunk.map(() => "(?, ?, ?, ?, ?, ?, ?, ?, ?)").join(", ")}`,
        )
        .bind(...chunk.flat()),
    );
  }
  return stmts;
}

/** Which of these movement keys were applied already (for callers that must not send one twice). */
export async function appliedMovementKeys(db: D1Database, keys: string[]): Promise<Set<string>> {
  if (keys.length === 0) return new Set();
  const { results } = await db
    .prepare(`SELECT key FROM movements WHERE key IN (${keys.map(() => "?").join(", ")})`)
    .bind(...keys)
    .all<{ key: string }>();
  return new Set(results.map((r) => r.key));
}

export type BatchFailure = "duplicate" | "insufficient" | "other";

/** Classifies a failed D1 batch by the constraint that stopped it. */
export function classifyBatchError(err: unknown): BatchFailure {
  const msg = String((err as Error)?.message ?? err);
  if (/UNIQUE constraint failed: movements\.key/i.test(msg)) return "duplicate";
  if (/CHECK constraint failed/i.test(msg)) return "insufficient";
  return "other";
}

/**
 * Runs a movement (plus any extra statements of the same transaction).
 * Returns "applied", or "duplicate" when the key was applied before (nothing changes twice).
 * An overdraft throws ApiError insufficient_balance and changes nothing.
 */
export async function applyMovement(
  db: D1Database,
  key: string,
  kind: string,
  entries: LedgerEntry[],
  extra: D1PreparedStatement[] = [],
): Promise<"applied" | "duplicate"> {
  try {
    await db.batch([...movementStatements(db, key, kind, entries), ...extra]);
    return "applied";
  } catch (err) {
    const failure = classifyBatchError(err);
    if (failure === "duplicate") return "duplicate";
    if (failure === "insufficient") throw new ApiError("insufficient_balance", 409);
    throw err;
  }
}

export interface BalanceRow {
  currencyId: number;
  account: WalletAccount;
  available: bigint;
  frozen: bigint;
}

/** All balance rows of one user. */
export async function userBalances(db: D1Database, userId: number): Promise<BalanceRow[]> {
  const { results } = await db
    .prepare("SELECT currency_id, account, available, frozen FROM balances WHERE user_id = ?")
    .bind(userId)
    .all<{ currency_id: number; account: WalletAccount; available: number; frozen: number }>();
  return results.map((r) => ({
    currencyId: r.currency_id,
    account: r.account,
    available: BigInt(r.available),
    frozen: BigInt(r.frozen),
  }));
}

/** One balance (zero when the row does not exist yet). */
export async function balanceOf(
  db: D1Database,
  userId: number,
  currencyId: number,
  account: WalletAccount,
): Promise<{ available: bigint; frozen: bigint }> {
  const r = await db
    .prepare("SELECT available, frozen FROM balances WHERE user_id = ? AND currency_id = ? AND account = ?")
    .bind(userId, currencyId, account)
    .first<{ available: number; frozen: number }>();
  return { available: BigInt(r?.available ?? 0), frozen: BigInt(r?.frozen ?? 0) };
}
