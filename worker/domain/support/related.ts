/**
 * The orders a ticket can be about: each kind is a table of the user's own records, and a query
 * always names the user, so another user's order (or one that does not exist) reads the same:
 * not found. Read-only; the owning areas keep writing these tables.
 */
import { formatUnitsTrim } from "../../../schemas/money.ts";
import type { SupportOrder, SupportRelatedKind } from "../../../schemas/support.ts";
import { ApiError } from "../../lib/errors.ts";
import { formatShanghai } from "../../lib/time.ts";

interface Source {
  /** One row per order of `?1` (the user), newest first; `?2` narrows to one id (NULL: all). */
  sql: string;
}

const PAIR = "JOIN pairs p ON p.id = o.pair_id JOIN currencies b ON b.id = p.currency_id JOIN currencies q ON q.id = p.legal_id";
const CUR = "JOIN currencies c ON c.id = o.currency_id";
const MINE = "(?2 IS NULL OR o.id = ?2)";

/** Columns: id, name, side, units, scale, unit, created_at. */
const SOURCES: Record<SupportRelatedKind, Source> = {
  spot: {
    sql: `SELECT o.id, b.name || '/' || q.name AS name, o.side, o.qty AS units, p.qty_decimals AS scale, b.name AS unit, o.created_at
          FROM spot_orders o ${PAIR} WHERE o.user_id = ?1 AND ${MINE}`,
  },
  seconds: {
    sql: `SELECT o.id, b.name || '/' || q.name AS name, CASE o.type WHEN 1 THEN 'up' ELSE 'down' END AS side, o.stake AS units, c.scale, c.name AS unit, o.created_at
          FROM micro_orders o ${PAIR} ${CUR} WHERE o.user_id = ?1 AND ${MINE}`,
  },
  lever: {
    sql: `SELECT o.id, b.name || '/' || q.name AS name, CASE o.type WHEN 1 THEN 'long' ELSE 'short' END AS side, o.lots AS units, 0 AS scale, 'lots' AS unit, o.created_at
          FROM lever_positions o ${PAIR} WHERE o.user_id = ?1 AND ${MINE}`,
  },
  c2c: {
    sql: `SELECT o.id, c.name AS name, CASE WHEN o.buyer_id = ?1 THEN 'buy' ELSE 'sell' END AS side, o.amount AS units, c.scale, c.name AS unit, o.created_at
          FROM c2c_orders o ${CUR} WHERE (o.buyer_id = ?1 OR o.seller_id = ?1) AND ${MINE}`,
  },
  deposit: {
    sql: `SELECT o.id, c.name AS name, '' AS side, o.amount AS units, c.scale, c.name AS unit, o.created_at
          FROM deposits o ${CUR} WHERE o.user_id = ?1 AND ${MINE}`,
  },
  withdrawal: {
    sql: `SELECT o.id, c.name AS name, '' AS side, o.amount AS units, c.scale, c.name AS unit, o.created_at
          FROM withdrawals o ${CUR} WHERE o.user_id = ?1 AND ${MINE}`,
  },
};

interface Row {
  id: number;
  name: string;
  side: string;
  units: number;
  scale: number;
  unit: string;
  created_at: number;
}

const view = (r: Row): SupportOrder => ({
  id: r.id,
  name: r.name,
  side: r.side,
  amount: formatUnitsTrim(BigInt(r.units), r.scale),
  unit: r.unit,
  created_at: formatShanghai(r.created_at),
});

/** The user's 20 most recent orders of a kind, to choose the one a ticket is about. */
export async function recentOrders(db: D1Database, userId: number, kind: SupportRelatedKind): Promise<SupportOrder[]> {
  const { results } = await db.prepare(`${SOURCES[kind].sql} ORDER BY o.created_at DESC, o.id DESC LIMIT 20`).bind(userId, null).all<Row>();
  return results.map(view);
}

/** Checks that the order is the user's own; anything else is support_related_not_found (404). */
export async function ownOrder(db: D1Database, userId: number, kind: SupportRelatedKind, id: number): Promise<SupportOrder> {
  const row = await db.prepare(SOURCES[kind].sql).bind(userId, id).first<Row>();
  if (!row) throw new ApiError("support_related_not_found", 404, { field: "related_id" });
  return view(row);
}
