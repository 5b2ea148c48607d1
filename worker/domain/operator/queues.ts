/**
 * The operator's review queues: deposit claims, withdrawals and identity submissions, filtered by
 * status and user, oldest first. Each row says whether it is the operator's own (never decided by
 * them); the decisions themselves are in ./reviews.ts and ../withdrawals/withdrawals.ts.
 */
import type { Locale } from "../../../schemas/locale.ts";
import { depositStatusLabels, networkName, withdrawalStatusLabels } from "../../../schemas/wallet.ts";
import { big, timeFormat } from "../wallet/currency.ts";
import { count, fmt, page, pic, type ListQuery } from "./rows.ts";

/** Deposit claims. */
export async function depositQueue(db: D1Database, operatorId: number, locale: Locale, q: ListQuery) {
  const { page: p, limit, status, user_id } = q;
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
  return {
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
      status_text: depositStatusLabels[locale][r.status],
      reason: r.reason,
      reviewed_by: r.reviewed_by,
      reviewed_at: r.reviewed_at ? timeFormat(r.reviewed_at) : null,
      needs_second: r.needs_second === 1,
      first_approved_by: r.first_approved_by,
      awaiting_second_approval: r.status === 0 && r.first_approved_by !== null,
      approved_first_by_you: r.status === 0 && r.first_approved_by === operatorId,
      own: r.user_id === operatorId,
      time_format: timeFormat(r.created_at),
    })),
  };
}

/** Withdrawals. */
export async function withdrawalQueue(db: D1Database, operatorId: number, locale: Locale, q: ListQuery) {
  const { page: p, limit, status, user_id } = q;
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
  return {
    total: count(total),
    lists: page<Row>(rows).map((r) => ({
      id: r.id,
      user_id: r.user_id,
      account: r.account,
      currency_id: r.currency_id,
      currency_name: r.currency_name,
      network: r.network,
      network_name: networkName(r.network, r.currency_name),
      address: r.address,
      memo: r.memo,
      number: fmt(r.amount, r.scale),
      charge: fmt(r.fee, r.scale),
      total: fmt(big(r.amount) + big(r.fee), r.scale),
      status: r.status,
      status_text: withdrawalStatusLabels[locale][r.status],
      reason: r.reason,
      txid: r.txid,
      reviewed_by: r.reviewed_by,
      settled_by: r.settled_by,
      own: r.user_id === operatorId,
      time_format: timeFormat(r.created_at),
    })),
  };
}

/** Identity submissions. */
export async function kycQueue(db: D1Database, operatorId: number, q: ListQuery) {
  const { page: p, limit, status, user_id } = q;
  const where = "(?1 IS NULL OR k.status = ?1) AND (?2 IS NULL OR k.user_id = ?2)";
  const [total, rows] = await db.batch([
    db.prepare(`SELECT count(*) AS n FROM kyc_submissions k WHERE ${where}`).bind(status ?? null, user_id ?? null),
    db
      .prepare(`SELECT k.*, u.account FROM kyc_submissions k JOIN users u ON u.id = k.user_id WHERE ${where} ORDER BY k.id LIMIT ?3 OFFSET ?4`)
      .bind(status ?? null, user_id ?? null, limit, (p - 1) * limit),
  ]);
  type Row = { id: number; user_id: number; account: string; level: number; name: string | null; type: number | null; card_id: string | null; front_pic: string | null; reverse_pic: string | null; hand_pic: string | null; asset_pic: string | null; asset_btc: string | null; status: number; reason: string; reviewed_by: number | null; created_at: number };
  return {
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
      own: r.user_id === operatorId,
      time_format: timeFormat(r.created_at),
    })),
  };
}
