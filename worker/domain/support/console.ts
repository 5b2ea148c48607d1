/**
 * Support tickets in the operator console (issue #16 §2): the queue (oldest waiting first, with
 * how long the user has waited and the first-response time), a ticket with its whole history
 * (internal notes included), a reply (public: the user is notified once, in the reply's own
 * batch, keyed by the reply's id) or an internal note (only operators ever see it), and a change of
 * state. Each action writes its audit row in its own batch; an operator never handles a ticket
 * they opened themselves (refused and audited; the database refuses it too).
 */
import type { z } from "zod";
import { operatorSteps, type AdminTicket, type AdminTicketDetail, type adminTicketQuerySchema, type SupportStatus } from "../../../schemas/support.ts";
import { ApiError } from "../../lib/errors.ts";
import { auditStatement, refuseOwnRecord } from "../../lib/guarded.ts";
import { formatShanghai } from "../../lib/time.ts";
import { announceNotifications, notificationStatement } from "../notifications/inbox.ts";
import { eventRows, eventStatement, eventView, newEventIds, runTicketBatch, summaryView, TICKET_COLUMNS, ticketRow, withRetry, type TicketRow } from "./store.ts";

/** Tickets whose next move is support's: new or open, and the user wrote last. */
const WAITING = "(t.status IN ('new', 'open') AND t.last_reply_by = 'user')";

type QueueRow = TicketRow & { account: string; waiting: number };

function adminView(t: QueueRow, operatorId: number, now: number): AdminTicket {
  return {
    ...summaryView(t),
    user_id: t.user_id,
    account: t.account,
    last_user_at: formatShanghai(t.last_user_at),
    waiting_seconds: t.waiting ? Math.max(0, Math.floor((now - t.last_user_at) / 1000)) : null,
    first_response_seconds: t.first_response_at === null ? null : Math.max(0, Math.floor((t.first_response_at - t.created_at) / 1000)),
    own: t.user_id === operatorId,
  };
}

/** The queue: tickets waiting on support first, the longest-waiting at the top; then the rest, latest activity first. */
export async function adminTickets(db: D1Database, operatorId: number, q: z.output<typeof adminTicketQuerySchema>, now = Date.now()): Promise<{ total: number; lists: AdminTicket[] }> {
  const where = "(?1 IS NULL OR t.status = ?1) AND (?2 IS NULL OR t.category = ?2)";
  const binds = [q.status ?? null, q.category ?? null];
  const [total, rows] = await db.batch([
    db.prepare(`SELECT count(*) AS n FROM support_tickets t WHERE ${where}`).bind(...binds),
    db
      .prepare(
        `SELECT ${TICKET_COLUMNS}, u.account, ${WAITING} AS waiting FROM support_tickets t JOIN users u ON u.id = t.user_id
         WHERE ${where}
         ORDER BY waiting DESC, CASE WHEN ${WAITING} THEN t.last_user_at END ASC, t.updated_at DESC, t.id DESC
         LIMIT ?3 OFFSET ?4`,
      )
      .bind(...binds, q.limit, (q.page - 1) * q.limit),
  ]);
  return {
    total: (total?.results[0] as { n: number } | undefined)?.n ?? 0,
    lists: ((rows?.results ?? []) as QueueRow[]).map((t) => adminView(t, operatorId, now)),
  };
}

async function queueRow(db: D1Database, id: number): Promise<QueueRow> {
  const t = await db
    .prepare(`SELECT ${TICKET_COLUMNS}, u.account, ${WAITING} AS waiting FROM support_tickets t JOIN users u ON u.id = t.user_id WHERE t.id = ?`)
    .bind(id)
    .first<QueueRow>();
  if (!t) throw new ApiError("not_found", 404);
  return t;
}

/** A ticket with its whole history, internal notes included, each entry naming its operator. */
export async function adminTicketDetail(db: D1Database, operatorId: number, id: number, now = Date.now()): Promise<AdminTicketDetail> {
  const t = await queueRow(db, id);
  const events = await eventRows(db, id, true);
  const ops = [...new Set(events.filter((e) => e.author_role === "operator" && e.author_id !== null).map((e) => e.author_id!))];
  const accounts = new Map<number, string>();
  if (ops.length > 0) {
    const { results } = await db
      .prepare(`SELECT id, account FROM users WHERE id IN (${ops.map(() => "?").join(",")})`)
      .bind(...ops)
      .all<{ id: number; account: string }>();
    for (const u of results) accounts.set(u.id, u.account);
  }
  return {
    ...adminView(t, operatorId, now),
    events: events.map((e) => ({
      ...eventView(e),
      operator_id: e.author_role === "operator" ? e.author_id : null,
      operator_account: e.author_role === "operator" && e.author_id !== null ? (accounts.get(e.author_id) ?? null) : null,
    })),
  };
}

async function handleable(db: D1Database, operatorId: number, id: number, action: string): Promise<TicketRow> {
  const t = await ticketRow(db, id);
  if (!t) throw new ApiError("not_found", 404);
  await refuseOwnRecord(db, operatorId, t.user_id, { action, targetType: "support_ticket", targetId: id });
  return t;
}

/**
 * A public reply (a `new` ticket becomes `open`; the user gets one `support_reply` notification,
 * written in the same batch and keyed by the reply's id) or an internal note (nothing reaches the user).
 */
export async function adminReply(env: Pick<Env, "DB" | "USER">, operatorId: number, id: number, body: string, internal: boolean, now = Date.now()): Promise<AdminTicketDetail> {
  const db = env.DB;
  const action = internal ? "support.note" : "support.reply";
  let notified: number | null = null;
  await withRetry(async () => {
    const t = await handleable(db, operatorId, id, action);
    if (t.status === "closed") throw new ApiError("support_closed", 409);
    const [openId, eventId] = newEventIds(now, 2) as [number, number];
    const opens = !internal && t.status === "new";
    await runTicketBatch(db, [
      ...(opens ? [eventStatement(db, { id: openId, ticketId: id, kind: "status", role: "operator", authorId: operatorId, from: "new", to: "open", now })] : []),
      eventStatement(db, { id: eventId, ticketId: id, kind: internal ? "note" : "message", role: "operator", authorId: operatorId, body, now }),
      ...(internal
        ? []
        : [
            notificationStatement(db, {
              userId: t.user_id,
              kind: "support_reply",
              key: `support:${eventId}:reply`,
              params: { id: String(id), subject: t.subject },
              link: `/support/ticket?id=${id}`,
              now,
            }),
          ]),
      auditStatement(db, { operatorId, action, targetType: "support_ticket", targetId: id, detail: { event_id: eventId, user_id: t.user_id, ...(opens ? { from: "new", to: "open" } : {}) } }, now),
    ]);
    notified = internal ? null : t.user_id;
  });
  if (notified !== null) await announceNotifications(env, [notified]);
  return adminTicketDetail(db, operatorId, id, now);
}

/** Moves a ticket to another state along the machine's steps (operatorSteps). */
export async function adminSetStatus(db: D1Database, operatorId: number, id: number, to: SupportStatus, now = Date.now()): Promise<AdminTicketDetail> {
  await withRetry(async () => {
    const t = await handleable(db, operatorId, id, "support.status");
    if (!operatorSteps[t.status].includes(to)) throw new ApiError("support_transition", 409);
    const [eventId] = newEventIds(now, 1) as [number];
    await runTicketBatch(db, [
      eventStatement(db, { id: eventId, ticketId: id, kind: "status", role: "operator", authorId: operatorId, from: t.status, to, now }),
      auditStatement(db, { operatorId, action: "support.status", targetType: "support_ticket", targetId: id, detail: { event_id: eventId, user_id: t.user_id, from: t.status, to } }, now),
    ]);
  });
  return adminTicketDetail(db, operatorId, id, now);
}
