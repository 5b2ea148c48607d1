/**
 * Support tickets, the user's side (issue #16 §2): open one (a complaint, feedback, a question,
 * or about one of one's own orders) with up to 4 of one's own pictures, read one's tickets and
 * their conversations (internal notes never), reply (a reply reopens a ticket waiting on the user
 * or resolved), and close. Every query names the user: another user's ticket is not found.
 */
import type { SupportTicketDetail, SupportTicketPage, TicketCreate, TicketMessage } from "../../../schemas/support.ts";
import { ApiError } from "../../lib/errors.ts";
import { rateLimit } from "../../lib/ratelimit.ts";
import { ownUpload } from "../uploads/uploads.ts";
import { ownOrder } from "./related.ts";
import { eventRows, eventStatement, eventView, newEventIds, runTicketBatch, summaryView, TICKET_COLUMNS, ticketRow, withRetry, type TicketRow } from "./store.ts";

const HOUR = 3600 * 1000;
/** New tickets per user per hour (counted before anything is written, so parallel requests cannot outrun it). */
export const TICKETS_PER_HOUR = 5;
/** Replies per user per 10 minutes, over all their tickets. */
export const MESSAGES_PER_10_MIN = 30;

async function ownImages(db: D1Database, userId: number, refs: string[]): Promise<string[]> {
  const ids: string[] = [];
  for (const [i, ref] of refs.entries()) ids.push(await ownUpload(db, userId, ref, `images.${i}`));
  return [...new Set(ids)];
}

/** The user's own ticket, or not found. */
async function ownTicket(db: D1Database, userId: number, id: number): Promise<TicketRow> {
  const t = await ticketRow(db, id);
  if (!t || t.user_id !== userId) throw new ApiError("not_found", 404);
  return t;
}

/** Opens a ticket: its first message is the body (with the pictures). */
export async function createTicket(db: D1Database, userId: number, input: TicketCreate, now = Date.now()): Promise<SupportTicketDetail> {
  // Read-only checks first (a mistyped order number costs no quota), then the count, then the write:
  // parallel requests each take a count before any of them writes.
  if (input.related_kind !== undefined && input.related_id !== undefined) await ownOrder(db, userId, input.related_kind, input.related_id);
  const images = await ownImages(db, userId, input.images);
  await rateLimit(db, `support:ticket:${userId}`, TICKETS_PER_HOUR, HOUR, now);
  const id = await withRetry(async () => {
    const [eventId] = newEventIds(now, 1) as [number];
    const [ticket] = await runTicketBatch(db, [
      db
        .prepare(
          `INSERT INTO support_tickets (user_id, category, subject, related_kind, related_id, status, created_at, updated_at, last_user_at)
           VALUES (?, ?, ?, ?, ?, 'new', ?, ?, ?) RETURNING id`,
        )
        .bind(userId, input.category, input.subject, input.related_kind ?? null, input.related_id ?? null, now, now, now),
      // the ticket just inserted is last_insert_rowid() within this transaction
      db
        .prepare(
          "INSERT INTO support_events (id, ticket_id, kind, author_role, author_id, body, images, created_at) VALUES (?, last_insert_rowid(), 'message', 'user', ?, ?, ?, ?)",
        )
        .bind(eventId, userId, input.body, JSON.stringify(images), now),
    ]);
    return (ticket!.results[0] as { id: number }).id;
  });
  return ticketDetail(db, userId, id);
}

/** The user's tickets, newest activity first. */
export async function listTickets(db: D1Database, userId: number, page: number, limit: number): Promise<SupportTicketPage> {
  const [total, rows] = await db.batch([
    db.prepare("SELECT count(*) AS n FROM support_tickets WHERE user_id = ?").bind(userId),
    db.prepare(`SELECT ${TICKET_COLUMNS} FROM support_tickets t WHERE t.user_id = ? ORDER BY t.updated_at DESC, t.id DESC LIMIT ? OFFSET ?`).bind(userId, limit, (page - 1) * limit),
  ]);
  return { total: (total?.results[0] as { n: number } | undefined)?.n ?? 0, lists: ((rows?.results ?? []) as TicketRow[]).map(summaryView) };
}

/** One of the user's tickets with its conversation and state changes (never internal notes). */
export async function ticketDetail(db: D1Database, userId: number, id: number): Promise<SupportTicketDetail> {
  const t = await ownTicket(db, userId, id);
  return { ...summaryView(t), events: (await eventRows(db, id, false)).map(eventView) };
}

/** The user writes on their ticket; a ticket waiting on them or resolved opens again. */
export async function addUserMessage(db: D1Database, userId: number, id: number, input: TicketMessage, now = Date.now()): Promise<SupportTicketDetail> {
  await ownTicket(db, userId, id);
  const images = await ownImages(db, userId, input.images);
  await rateLimit(db, `support:message:${userId}`, MESSAGES_PER_10_MIN, 10 * 60 * 1000, now);
  await withRetry(async () => {
    const t = await ownTicket(db, userId, id);
    if (t.status === "closed") throw new ApiError("support_closed", 409);
    const reopen = t.status === "pending_customer" || t.status === "resolved";
    const [messageId, statusId] = newEventIds(now, 2) as [number, number];
    await runTicketBatch(db, [
      eventStatement(db, { id: messageId, ticketId: id, kind: "message", role: "user", authorId: userId, body: input.body, images, now }),
      ...(reopen ? [eventStatement(db, { id: statusId, ticketId: id, kind: "status", role: "user", authorId: userId, from: t.status, to: "open", now })] : []),
    ]);
  });
  return ticketDetail(db, userId, id);
}

/** The user closes their ticket (closing a closed one changes nothing). */
export async function closeTicket(db: D1Database, userId: number, id: number, now = Date.now()): Promise<SupportTicketDetail> {
  await withRetry(async () => {
    const t = await ownTicket(db, userId, id);
    if (t.status === "closed") return;
    const [eventId] = newEventIds(now, 1) as [number];
    await runTicketBatch(db, [eventStatement(db, { id: eventId, ticketId: id, kind: "status", role: "user", authorId: userId, from: t.status, to: "closed", now })]);
  });
  return ticketDetail(db, userId, id);
}

/** Cron: closes tickets resolved at least `afterMs` ago, as the system (at most 500 a run). */
export async function closeResolvedTickets(db: D1Database, now: number, afterMs: number): Promise<number> {
  // One statement: each row's status event checks the ticket is still resolved as it is written;
  // the id is left to SQLite (one above the largest), after every id chosen so far.
  const r = await db
    .prepare(
      `INSERT INTO support_events (ticket_id, kind, author_role, author_id, body, images, from_status, to_status, created_at)
       SELECT id, 'status', 'system', NULL, '', '[]', 'resolved', 'closed', ?1 FROM support_tickets
       WHERE status = 'resolved' AND resolved_at <= ?2 ORDER BY resolved_at LIMIT 500`,
    )
    .bind(now, now - afterMs)
    .run();
  return r.meta.changes ?? 0;
}
