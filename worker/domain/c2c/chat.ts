/**
 * Order chat (issue #10 §3) and the order's pictures. Messages (text or one's own uploaded
 * picture) belong to the order: its two parties read and write them; operators read them in the
 * appeal detail and write only on an appealed order (the database refuses anyone else). Pictures
 * of an order (proof, chat images, evidence, the seller's payment codes) are served to its parties
 * and, once it is under appeal, to operators, through the order, never by upload id alone.
 */
import type { C2cMessage } from "../../../schemas/c2c.ts";
import type { SessionUser } from "../../lib/context.ts";
import { timeFormat } from "../wallet/currency.ts";
import { ApiError, notFound } from "../../lib/errors.ts";
import { auditStatement, refuseOwnRecord } from "../../lib/guarded.ts";
import { ownUpload } from "../uploads/uploads.ts";
import { notifyUsers } from "./notify.ts";
import { announceNotifications } from "../notifications/inbox.ts";
import { orderFileUrl, orderRow, type OrderRow } from "./orders.ts";
import { orderNumber, runC2c } from "./shared.ts";

type MsgRow = { id: number; order_id: number; sender_id: number; sender_role: "buyer" | "seller" | "operator"; kind: "text" | "image"; body: string; upload_id: string | null; created_at: number };

function messageView(m: MsgRow, viewerId: number): C2cMessage {
  return {
    id: m.id,
    order_id: m.order_id,
    sender: m.sender_role === "operator" ? "operator" : m.sender_id === viewerId ? "me" : "counterparty",
    kind: m.kind,
    text: m.body,
    image: m.upload_id ? orderFileUrl(m.order_id, m.upload_id) : null,
    create_time: m.created_at,
    format_create_time: timeFormat(m.created_at),
  };
}

/** Messages of one of the user's orders after `afterId`, oldest first. */
export async function listMessages(db: D1Database, r: OrderRow, userId: number, afterId: number, limit: number): Promise<C2cMessage[]> {
  const { results } = await db.prepare("SELECT * FROM c2c_messages WHERE order_id = ? AND id > ? ORDER BY id LIMIT ?").bind(r.id, afterId, limit).all<MsgRow>();
  return results.map((m) => messageView(m, userId));
}

/** How much of a message its notification quotes. */
const QUOTE_CHARS = 80;

/**
 * The other party's inbox item for a message, in the message's own batch (its id is the newest of
 * the order's, read in the same transaction). Coalesced per order while unread: a conversation
 * leaves one unread item in the other party's inbox, not one per line; once that item is read, the
 * next message makes a new one. The sender is never notified of their own message.
 */
function chatNotification(db: D1Database, orderId: number, to: number, quote: string, now: number): D1PreparedStatement {
  const link = `/legal/chat?id=${orderId}`;
  return db
    .prepare(
      `INSERT INTO notifications (user_id, event_key, kind, params, link, created_at)
       SELECT ?1, 'c2c:' || ?2 || ':msg:' || (SELECT MAX(id) FROM c2c_messages WHERE order_id = ?2), 'c2c_message', ?3, ?4, ?5
        WHERE NOT EXISTS (SELECT 1 FROM notifications WHERE user_id = ?1 AND kind = 'c2c_message' AND link = ?4 AND read_at IS NULL)
       ON CONFLICT (user_id, event_key) DO NOTHING`,
    )
    .bind(to, orderId, JSON.stringify({ id: orderNumber(orderId), text: quote }), link, now);
}

/** A party writes to the other party (text or a picture of their own). */
export async function sendMessage(env: Env, r: OrderRow, userId: number, body: { text?: string; image?: string }, now = Date.now()): Promise<C2cMessage> {
  const db = env.DB;
  const role = r.buyer_id === userId ? "buyer" : "seller";
  const upload = body.image !== undefined ? await ownUpload(db, userId, body.image, "image") : null;
  const other = role === "buyer" ? r.seller_id : r.buyer_id;
  const text = upload ? "" : (body.text ?? "");
  const cut = [...text].length > QUOTE_CHARS ? `${[...text].slice(0, QUOTE_CHARS).join("")}…` : text;
  // The texts' "@word" is a translated word: the user's own "@..." is escaped as "@@...".
  const quote = upload ? "@image" : cut.startsWith("@") ? `@${cut}` : cut;
  const [res] = await runC2c(db, [
    db
      .prepare("INSERT INTO c2c_messages (order_id, sender_id, sender_role, kind, body, upload_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING *")
      .bind(r.id, userId, role, upload ? "image" : "text", text, upload, now),
    chatNotification(db, r.id, other, quote, now),
  ]);
  const row = res?.results?.[0] as MsgRow | undefined;
  if (!row) throw new ApiError("try_again", 500);
  await notifyUsers(env, [other], { type: "c2c_message", order_id: r.id });
  await announceNotifications(env, [other]);
  return messageView(row, userId);
}

/**
 * An operator writes in the chat of an appealed order (never one of their own; audited). Both
 * parties are told.
 */
export async function sendOperatorMessage(env: Env, operatorId: number, appealId: number, text: string, now = Date.now()) {
  const db = env.DB;
  const p = await db.prepare("SELECT order_id FROM c2c_appeals WHERE id = ?").bind(appealId).first<{ order_id: number }>();
  const r = p ? await orderRow(db, p.order_id) : null;
  if (!r) throw notFound();
  for (const party of new Set([r.buyer_id, r.seller_id, r.merchant_id])) {
    await refuseOwnRecord(db, operatorId, party, { action: "c2c.appeal.message", targetType: "c2c_order", targetId: r.id, detail: { appeal_id: appealId } });
  }
  const [res] = await runC2c(db, [
    db
      .prepare("INSERT INTO c2c_messages (order_id, sender_id, sender_role, kind, body, created_at) VALUES (?, ?, 'operator', 'text', ?, ?) RETURNING *")
      .bind(r.id, operatorId, text, now),
    auditStatement(db, { operatorId, action: "c2c.appeal.message", targetType: "c2c_order", targetId: r.id, detail: { appeal_id: appealId } }, now),
  ]);
  const row = res?.results?.[0] as MsgRow | undefined;
  if (!row) throw new ApiError("try_again", 500);
  await notifyUsers(env, [r.buyer_id, r.seller_id], { type: "c2c_message", order_id: r.id });
  return messageView(row, operatorId);
}

/**
 * A picture of an order, for its parties and operators: the proof, a chat image, appeal evidence
 * or a payment code recorded in the order. Anything else answers the same 404 as a missing file.
 */
export async function orderFile(env: Env, viewer: SessionUser, orderId: number, uploadId: string): Promise<Response> {
  const db = env.DB;
  const r = await orderRow(db, orderId);
  const party = r && (r.buyer_id === viewer.id || r.seller_id === viewer.id);
  // Operators see an order's pictures only once it is under appeal.
  if (!r || (!party && !(viewer.role === "operator" && r.appeal_id !== null))) throw notFound();
  const snapshot = JSON.parse(r.pay_methods) as { qr_code: string | null }[];
  const evidence = JSON.parse(r.appeal_evidence ?? "[]") as string[];
  let belongs = r.pay_orders_img === uploadId || snapshot.some((s) => s.qr_code === uploadId) || evidence.includes(uploadId);
  if (!belongs) belongs = (await db.prepare("SELECT 1 AS x FROM c2c_messages WHERE order_id = ? AND upload_id = ?").bind(orderId, uploadId).first()) !== null;
  if (!belongs) throw notFound();
  const file = await db.prepare("SELECT r2_key, content_type FROM uploads WHERE id = ?").bind(uploadId).first<{ r2_key: string; content_type: string }>();
  const obj = file ? await env.UPLOADS.get(file.r2_key) : null;
  if (!file || !obj) throw notFound();
  return new Response(obj.body, {
    headers: { "content-type": file.content_type, "cache-control": "private, no-store", "x-content-type-options": "nosniff", "content-security-policy": "default-src 'none'" },
  });
}
