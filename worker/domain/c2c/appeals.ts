/**
 * Appeals (issue #10 §3): once payment is marked and the seller has not confirmed within
 * C2C_APPEAL_AFTER_SECONDS, either party may appeal with a reason and evidence pictures. An
 * operator sees the order, the proof, the whole chat and the order's events, and decides: release
 * the coins to the buyer or return them to the seller, with a reason, audited, in the same batch
 * as the movement. No operator decides an order they are a party of (refused and audited; the
 * database refuses it too). Nothing else an operator does can move escrow.
 */
import { timeFormat } from "../wallet/currency.ts";
import { ApiError, notFound } from "../../lib/errors.ts";
import { refuseOwnRecord } from "../../lib/guarded.ts";
import { ownUpload } from "../uploads/uploads.ts";
import { canAppeal } from "./machine.ts";
import { announceNotifications } from "../notifications/inbox.ts";
import { noticeStatements, orderNotices } from "./notices.ts";
import { notifyUsers } from "./notify.ts";
import { adminOrderView, noticeOrder, ORDER_SELECT, orderFileUrl, orderRow, transitionOrder, type OrderRow } from "./orders.ts";
import { c2cSettings, guard, runC2c } from "./shared.ts";

/** A party appeals a paid order (one appeal per order). */
export async function createAppeal(env: Env, r: OrderRow, userId: number, reason: string, evidence: string[], now = Date.now()): Promise<void> {
  const db = env.DB;
  const role = r.buyer_id === userId ? "buyer" : "seller";
  const afterMs = c2cSettings(env).appealAfterMs;
  const verdict = canAppeal(r.is_sure, r.paid_at, now, afterMs, r.appeal_id !== null);
  if (verdict === "exists") throw new ApiError("c2c_appeal_exists", 409);
  if (verdict === "state") throw new ApiError("c2c_appeal_state", 409);
  if (verdict === "too_early") throw new ApiError("c2c_appeal_too_early", 409, { minutes: Math.ceil(afterMs / 60_000) });
  const ids: string[] = [];
  for (const [i, ref] of evidence.entries()) ids.push(await ownUpload(db, userId, ref, `evidence.${i}`));
  const notice = noticeStatements(db, orderNotices(noticeOrder(r), [{ notice: "appeal_opened" }], now), now);
  await runC2c(db, [
    // The time rule is in the statement too: it inserts only into a paid order old enough.
    db
      .prepare(
        `INSERT INTO c2c_appeals (order_id, by_user_id, by_role, reason, evidence, status, created_at)
         SELECT ?1, ?2, ?3, ?4, ?5, 0, ?6 FROM c2c_orders WHERE id = ?1 AND is_sure = 3 AND paid_at <= ?7`,
      )
      .bind(r.id, userId, role, reason, JSON.stringify(ids), now, now - afterMs),
    guard(db, `appeal of order ${r.id}`),
    // Both parties' items, in the appeal's own batch (after its guard).
    ...notice.stmts,
  ], "c2c_appeal_state");
  await notifyUsers(env, [r.buyer_id, r.seller_id].filter((u) => u !== userId), { type: "c2c_order", id: r.id, is_sure: r.is_sure });
  await announceNotifications(env, notice.userIds);
}

type AppealRow = { id: number; order_id: number; by_user_id: number; status: number };

/** An operator decides an open appeal: release to the buyer or return to the seller. */
export async function decideAppeal(env: Env, operatorId: number, appealId: number, release: boolean, reason: string, now = Date.now()) {
  const db = env.DB;
  const p = await db.prepare("SELECT id, order_id, by_user_id, status FROM c2c_appeals WHERE id = ?").bind(appealId).first<AppealRow>();
  if (!p) throw notFound();
  const r = await orderRow(db, p.order_id);
  if (!r) throw notFound();
  const action = release ? "release" : "return";
  for (const party of new Set([r.buyer_id, r.seller_id, r.merchant_id])) {
    await refuseOwnRecord(db, operatorId, party, { action: `c2c.appeal.${action}`, targetType: "c2c_order", targetId: r.id, detail: { appeal_id: p.id } });
  }
  if (p.status !== 0) throw new ApiError("c2c_order_handled", 409);
  const to = await transitionOrder(env, r, action, "operator", operatorId, { now, operatorId, reason });
  return { id: p.id, status: to === 1 ? 1 : 2 };
}

const ADMIN_APPEAL_SELECT = `${ORDER_SELECT} WHERE p.id IS NOT NULL`;

function adminAppealView(r: OrderRow, operatorId: number, env: Env, now: number) {
  const order = adminOrderView(r, c2cSettings(env), now);
  return {
    ...order.appeal!,
    by_user_id: r.appeal_by_user_id ?? 0,
    decided_by: r.appeal_decided_by,
    order,
    own: [r.buyer_id, r.seller_id, r.merchant_id].includes(operatorId),
  };
}

/** Operator list of appeals (open first by default: filter with status). */
export async function adminAppeals(env: Env, operatorId: number, status: number | undefined, userId: number | undefined, page: number, limit: number) {
  const db = env.DB;
  const where = "(?1 IS NULL OR p.status = ?1) AND (?2 IS NULL OR o.buyer_id = ?2 OR o.seller_id = ?2)";
  const [total, rows] = await db.batch([
    db.prepare(`SELECT count(*) AS n FROM c2c_appeals p JOIN c2c_orders o ON o.id = p.order_id WHERE ${where}`).bind(status ?? null, userId ?? null),
    db.prepare(`${ADMIN_APPEAL_SELECT} AND ${where} ORDER BY p.status = 0 DESC, p.id DESC LIMIT ?3 OFFSET ?4`).bind(status ?? null, userId ?? null, limit, (page - 1) * limit),
  ]);
  const now = Date.now();
  const n = (total?.results?.[0] as { n: number } | undefined)?.n ?? 0;
  return { total: n, lists: ((rows?.results ?? []) as OrderRow[]).map((r) => adminAppealView(r, operatorId, env, now)) };
}

/** One appeal with the order, proof, whole chat and the order's state changes. */
export async function adminAppealDetail(env: Env, operatorId: number, appealId: number) {
  const db = env.DB;
  const r = await db.prepare(`${ADMIN_APPEAL_SELECT} AND p.id = ?`).bind(appealId).first<OrderRow>();
  if (!r) throw notFound();
  const [messages, events] = await db.batch([
    db.prepare("SELECT * FROM c2c_messages WHERE order_id = ? ORDER BY id").bind(r.id),
    db.prepare("SELECT * FROM c2c_order_events WHERE order_id = ? ORDER BY id").bind(r.id),
  ]);
  type Msg = { id: number; order_id: number; sender_role: "buyer" | "seller" | "operator"; kind: "text" | "image"; body: string; upload_id: string | null; created_at: number };
  type Ev = { from_state: 0 | 1 | 2 | 3; to_state: 0 | 1 | 2 | 3; action: string; actor_id: number | null; created_at: number };
  return {
    ...adminAppealView(r, operatorId, env, Date.now()),
    messages: ((messages?.results ?? []) as Msg[]).map((m) => ({
      id: m.id,
      order_id: m.order_id,
      sender: m.sender_role,
      kind: m.kind,
      text: m.body,
      image: m.upload_id ? orderFileUrl(m.order_id, m.upload_id) : null,
      create_time: m.created_at,
      format_create_time: timeFormat(m.created_at),
    })),
    events: ((events?.results ?? []) as Ev[]).map((e) => ({ from: e.from_state, to: e.to_state, action: e.action, actor_id: e.actor_id, time: e.created_at, format_time: timeFormat(e.created_at) })),
  };
}
