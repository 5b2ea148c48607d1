/**
 * Users as operators see them: search by id or account prefix, one user's profile, bank card and
 * balances (looking is audited), their ledger rows, and the system accounts' balances.
 */
import type { z } from "zod";
import type { userSearchQuerySchema } from "../../../schemas/operator.ts";
import { SYSTEM_ACCOUNTS, auditStatement } from "../../lib/guarded.ts";
import { notFound } from "../../lib/errors.ts";
import { kycState, maskCard } from "../kyc/state.ts";
import { timeFormat } from "../wallet/currency.ts";
import { MOVEMENT_ROW_ID, movementKind, movementOf } from "../wallet/object-reads.ts";
import { refOf } from "../wallet/statement.ts";
import { count, fmt, page } from "./rows.ts";
import { systemBalancesOnObjects, type SystemBalanceRow } from "./treasury-objects.ts";
import { accountsOnObjects } from "../../lib/accounts.ts";

/** The user row without its fund-password flag column (answered as has_fund_password). */
function withoutFp<T extends { fp: number }>(row: T): Omit<T, "fp"> {
  const { fp: _fp, ...rest } = row;
  return rest;
}

/** Users whose id is q, or whose account starts with q. */
export async function findUsers(db: D1Database, q: z.output<typeof userSearchQuerySchema>) {
  const { page: p, limit } = q;
  const text = q.q;
  const id = /^\d{1,12}$/.test(text) ? Number(text) : null;
  // An exact id, or accounts starting with q. A prefix compare, not LIKE: D1 refuses LIKE patterns
  // over 50 bytes ("pattern too complex"), and wildcards in q are then plain characters.
  const prefix = text.toLowerCase();
  const where = "(u.id = ?1 OR substr(u.account, 1, length(?2)) = ?2)";
  const [total, rows] = await db.batch([
    db.prepare(`SELECT count(*) AS n FROM users u WHERE ${where}`).bind(id, prefix),
    db
      .prepare(`SELECT u.id, u.account, u.role, u.review_status, u.real_name, u.locked, u.created_at FROM users u WHERE ${where} ORDER BY u.id LIMIT ?3 OFFSET ?4`)
      .bind(id, prefix, limit, (p - 1) * limit),
  ]);
  type Row = { id: number; account: string; role: string; review_status: number; real_name: string | null; locked: number; created_at: number };
  return { total: count(total), lists: page<Row>(rows).map((r) => ({ ...r, created_at: timeFormat(r.created_at) })) };
}

/**
 * One user's profile, bank card and balances; the look is audited. In objects mode (`objects`:
 * wallet/object-reads.ts) the balances are the read model's (`account_balances`: the user's
 * account object as of its last drain, a moment behind at most).
 */
export async function userDetail(db: D1Database, operatorId: number, id: number, objects = false) {
  const u = await db
    .prepare("SELECT id, account, role, review_status, real_name, locked, fund_password_hash IS NOT NULL AS fp, created_at FROM users WHERE id = ?")
    .bind(id)
    .first<{ id: number; account: string; role: string; review_status: number; real_name: string | null; locked: number; fp: number; created_at: number }>();
  if (!u) throw notFound();
  const [balances, bank, state] = await Promise.all([
    db
      .prepare(`SELECT b.currency_id, c.name, c.scale, b.account, CAST(b.available AS TEXT) AS a, CAST(b.frozen AS TEXT) AS f FROM ${objects ? "account_balances" : "balances"} b JOIN currencies c ON c.id = b.currency_id WHERE b.user_id = ? ORDER BY b.currency_id, b.account`)
      .bind(id)
      .all<{ currency_id: number; name: string; scale: number; account: string; a: string; f: string }>(),
    db.prepare("SELECT real_name, bank_account, bank_name, bank_branch FROM bank_cards WHERE user_id = ?").bind(id).first<{ real_name: string; bank_account: string; bank_name: string; bank_branch: string }>(),
    kycState(db, id),
  ]);
  // Looking at a customer's money is an operator action too.
  await auditStatement(db, { operatorId, action: "user.view", targetType: "user", targetId: id }).run();
  return {
    user: { ...withoutFp(u), has_fund_password: u.fp === 1, created_at: timeFormat(u.created_at), kyc_level: state.approvedLevel },
    bank: bank ? { ...bank, bank_account: maskCard(bank.bank_account) } : null,
    balances: balances.results.map((r) => ({ currency_id: r.currency_id, currency_name: r.name, account: r.account, available: fmt(r.a, r.scale), frozen: fmt(r.f, r.scale) })),
  };
}

/** Objects mode: a movement of the read model is listed with this added to its seq (ledger ids stay below it). */

/**
 * One user's ledger rows, newest first. In objects mode (`objects`) first the rows of the user's
 * account object as drained into the read model (`account_movements`: its `ref` as the key, the
 * kind read from it as the statement reads it, the migration's opening included), then D1's
 * ledger up to the cut-over.
 */
export async function userLedger(db: D1Database, id: number, q: { page: number; limit: number }, objects = false) {
  const { page: p, limit } = q;
  const ledgerRows = `SELECT l.id, l.movement_key, l.currency_id, c.name, c.scale, l.account, CAST(l.d_available AS TEXT) AS da, CAST(l.d_frozen AS TEXT) AS df, l.kind, l.memo, l.created_at
           FROM ledger l JOIN currencies c ON c.id = l.currency_id WHERE l.user_id = ?1`;
  const rowsSql = objects
    ? `SELECT * FROM (
         SELECT ${MOVEMENT_ROW_ID} + m.seq AS id, m.ref AS movement_key, m.currency_id, c.name, c.scale, m.account, CAST(m.d_available AS TEXT) AS da, CAST(m.d_frozen AS TEXT) AS df, '' AS kind, '' AS memo, m.created_at
           FROM account_movements m JOIN currencies c ON c.id = m.currency_id WHERE m.user_id = ?1
         UNION ALL ${ledgerRows}) ORDER BY id DESC`
    : `${ledgerRows} ORDER BY l.id DESC`;
  const [total, rows] = await db.batch([
    db.prepare(objects ? "SELECT (SELECT count(*) FROM ledger WHERE user_id = ?1) + (SELECT count(*) FROM account_movements WHERE user_id = ?1) AS n" : "SELECT count(*) AS n FROM ledger WHERE user_id = ?1").bind(id),
    db.prepare(`${rowsSql} LIMIT ?2 OFFSET ?3`).bind(id, limit, (p - 1) * limit),
  ]);
  type Row = { id: number; movement_key: string; currency_id: number; name: string; scale: number; account: string; da: string; df: string; kind: string; memo: string; created_at: number };
  return {
    total: count(total),
    lists: page<Row>(rows).map((r) => ({
      id: r.id,
      movement_key: r.movement_key,
      kind: r.id > MOVEMENT_ROW_ID ? movementKind(movementOf(r.movement_key), (k) => refOf(k, "")).kind : r.kind,
      currency_id: r.currency_id,
      currency_name: r.name,
      account: r.account,
      d_available: fmt(r.da, r.scale),
      d_frozen: fmt(r.df, r.scale),
      memo: r.memo,
      time_format: timeFormat(r.created_at),
    })),
  };
}

/**
 * Balances of the system accounts (fees, deposits, withdrawals, treasury): D1's, or in objects
 * mode their shards' (./treasury-objects.ts, which says what each row then means).
 */
export async function treasuryBalances(env: Pick<Env, "DB" | "USER"> & { ACCOUNTS?: string }) {
  const results = accountsOnObjects(env) ? await systemBalancesOnObjects(env) : await d1SystemBalances(env.DB);
  return results.map((r) => ({ system_account: SYSTEM_ACCOUNTS[r.user_id] ?? String(r.user_id), user_id: r.user_id, currency_id: r.currency_id, currency_name: r.name, account: r.account, available: fmt(r.a, r.scale), frozen: fmt(r.f, r.scale) }));
}

async function d1SystemBalances(db: D1Database): Promise<SystemBalanceRow[]> {
  const { results } = await db.prepare(
    "SELECT b.user_id, b.currency_id, c.name, c.scale, b.account, CAST(b.available AS TEXT) AS a, CAST(b.frozen AS TEXT) AS f FROM balances b JOIN currencies c ON c.id = b.currency_id WHERE b.user_id <= 0 ORDER BY b.user_id DESC, b.currency_id",
  ).all<SystemBalanceRow>();
  return results;
}
