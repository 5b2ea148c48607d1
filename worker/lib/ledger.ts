/**
 * The only way balances change. A movement is one business event written as ledger rows in a
 * single D1 batch (one transaction): the movement key makes it idempotent, the ledger trigger
 * applies each row to `balances`, and the balances CHECKs abort the whole batch on an overdraft.
 */
import { ApiError } from "./errors.ts";
import type { AccountName } from "../../schemas/products.ts";

/** A wallet account: one of the products' declared accounts (schemas/products.ts, rows of `wallet_accounts`). */
export type WalletAccount = AccountName;

/**
 * System accounts (user ids ≤ 0). Only the external-flow counterparts (EXTERNAL_ACCOUNTS) may go
 * negative: they mirror money that came from or went to the outside world. The fee account, the
 * treasury and any other system account never do (migrations/0034's triggers refuse it).
 */
export const SYSTEM = { fees: 0, deposits: -1, withdrawals: -2 } as const;

/** The only accounts allowed below zero (see SYSTEM); the reconciler reports any other. */
export const EXTERNAL_ACCOUNTS: readonly number[] = [SYSTEM.deposits, SYSTEM.withdrawals];

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

/**
 * Movements or ledger rows per statement of `movementsStatements`: each statement binds ONE JSON
 * text (D1 allows 100 bound values but strings up to 2 MB), about 120 bytes per ledger row.
 */
const ROWS_PER_JSON_STATEMENT = 2000;

/**
 * The statements of many movements at once (each balanced, each keyed): for a drain that applies
 * thousands of small movements in one D1 batch. The movements and their ledger rows travel as JSON
 * arrays read by `json_each`, so the batch holds two statements per 2,000 rows however many
 * movements there are. Same rows, same triggers, the same key check and the same order as
 * `movementStatements` one by one.
 */
export function movementsStatements(db: D1Database, movements: { key: string; kind: string; entries: LedgerEntry[]; now: number }[]): D1PreparedStatement[] {
  const heads: [string, string, number][] = [];
  const rows: [string, number, number, WalletAccount, string, string, string, string, number][] = [];
  for (const m of movements) {
    assertBalanced(m.entries);
    heads.push([m.key, m.kind, m.now]);
    for (const e of m.entries) {
      if (e.dAvailable === 0n && e.dFrozen === 0n) continue;
      rows.push([m.key, e.userId, e.currencyId, e.account, e.dAvailable.toString(), e.dFrozen.toString(), m.kind, e.memo ?? "", m.now]);
    }
  }
  const stmts: D1PreparedStatement[] = [];
  for (let i = 0; i < heads.length; i += ROWS_PER_JSON_STATEMENT) {
    stmts.push(
      db
        .prepare("INSERT INTO movements (key, kind, created_at) SELECT value ->> 0, value ->> 1, value ->> 2 FROM json_each(?) ORDER BY key")
        .bind(JSON.stringify(heads.slice(i, i + ROWS_PER_JSON_STATEMENT))),
    );
  }
  // Amounts travel as decimal strings (exact beyond 2^53); the INTEGER columns store them as integers.
  for (let i = 0; i < rows.length; i += ROWS_PER_JSON_STATEMENT) {
    stmts.push(
      db
        .prepare(
          `INSERT INTO ledger (movement_key, user_id, currency_id, account, d_available, d_frozen, kind, memo, created_at)
           SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4, value ->> 5, value ->> 6, value ->> 7, value ->> 8 FROM json_each(?) ORDER BY key`,
        )
        .bind(JSON.stringify(rows.slice(i, i + ROWS_PER_JSON_STATEMENT))),
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
