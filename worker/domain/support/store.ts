/**
 * The support store (migrations/0020_support.sql): a ticket's history is append-only
 * `support_events`, and the ticket row follows it by trigger. This module writes events, reads
 * tickets and turns rows into the API's shapes; tickets.ts (the user's side) and console.ts (the
 * operators') decide what to write.
 *
 * Event ids are chosen here (time-ordered, like spot order ids) so a reply's notification can be
 * keyed by the reply's own id inside the reply's batch. A batch that finds the ticket moved under
 * it (another change landed first) or hits an id taken in the same millisecond is run again from a
 * fresh read, at most a few times.
 */
import type { SupportCategory, SupportRelatedKind, SupportStatus, TicketEvent, TicketSummary } from "../../../schemas/support.ts";
import { timeOrderedId } from "../../lib/ids.ts";
import { ApiError } from "../../lib/errors.ts";
import { formatShanghai } from "../../lib/time.ts";
import { uploadUrl } from "../uploads/uploads.ts";

/** `count` consecutive time-ordered event ids for one batch (worker/lib/ids.ts); a batch that meets a taken one is retried (withRetry). */
export function newEventIds(now: number, count: number): number[] {
  const base = timeOrderedId(now, count);
  return Array.from({ length: count }, (_, i) => base + i);
}

export interface TicketRow {
  id: number;
  user_id: number;
  category: SupportCategory;
  subject: string;
  related_kind: SupportRelatedKind | null;
  related_id: number | null;
  status: SupportStatus;
  created_at: number;
  updated_at: number;
  last_user_at: number;
  first_response_at: number | null;
  last_reply_by: "user" | "support";
}

export interface EventRow {
  id: number;
  ticket_id: number;
  kind: "message" | "note" | "status";
  author_role: "user" | "operator" | "system";
  author_id: number | null;
  body: string;
  images: string;
  from_status: SupportStatus | null;
  to_status: SupportStatus | null;
  created_at: number;
}

export const TICKET_COLUMNS = "t.id, t.user_id, t.category, t.subject, t.related_kind, t.related_id, t.status, t.created_at, t.updated_at, t.last_user_at, t.first_response_at, t.last_reply_by";

export async function ticketRow(db: D1Database, id: number): Promise<TicketRow | null> {
  return db.prepare(`SELECT ${TICKET_COLUMNS} FROM support_tickets t WHERE t.id = ?`).bind(id).first<TicketRow>();
}

export function summaryView(t: TicketRow): TicketSummary {
  return {
    id: t.id,
    category: t.category,
    subject: t.subject,
    status: t.status,
    related_kind: t.related_kind,
    related_id: t.related_id,
    last_reply_by: t.last_reply_by,
    created_at: formatShanghai(t.created_at),
    updated_at: formatShanghai(t.updated_at),
  };
}

function imageUrls(json: string): string[] {
  try {
    const ids = JSON.parse(json) as unknown;
    return Array.isArray(ids) ? ids.filter((x): x is string => typeof x === "string").map(uploadUrl) : [];
  } catch {
    return []; // CHECK (json_valid) keeps this from happening
  }
}

export function eventView(e: EventRow): TicketEvent {
  return {
    id: e.id,
    kind: e.kind,
    author: e.author_role === "operator" ? "support" : e.author_role,
    body: e.body,
    images: imageUrls(e.images),
    from_status: e.from_status,
    to_status: e.to_status,
    created_at: formatShanghai(e.created_at),
  };
}

/** A ticket's history in order; `withNotes` only for the console. */
export async function eventRows(db: D1Database, ticketId: number, withNotes: boolean): Promise<EventRow[]> {
  const { results } = await db
    .prepare(`SELECT * FROM support_events WHERE ticket_id = ? ${withNotes ? "" : "AND kind != 'note'"} ORDER BY created_at, id`)
    .bind(ticketId)
    .all<EventRow>();
  return results;
}

export interface NewEvent {
  id: number;
  ticketId: number;
  kind: EventRow["kind"];
  role: EventRow["author_role"];
  authorId: number | null;
  body?: string;
  images?: string[];
  from?: SupportStatus;
  to?: SupportStatus;
  now: number;
}

export function eventStatement(db: D1Database, e: NewEvent): D1PreparedStatement {
  return db
    .prepare(
      "INSERT INTO support_events (id, ticket_id, kind, author_role, author_id, body, images, from_status, to_status, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    )
    .bind(e.id, e.ticketId, e.kind, e.role, e.authorId, e.body ?? "", JSON.stringify(e.images ?? []), e.from ?? null, e.to ?? null, e.now);
}

/** Raised inside `withRetry` when the batch should be built again from a fresh read. */
class Moved extends Error {}

/** Runs a batch; a ticket that moved under it or an event id taken this millisecond asks for a retry. */
export async function runTicketBatch(db: D1Database, stmts: D1PreparedStatement[]): Promise<D1Result[]> {
  try {
    return await db.batch(stmts);
  } catch (err) {
    const msg = String((err as Error)?.message ?? err);
    if (msg.includes("support_closed")) throw new ApiError("support_closed", 409);
    if (msg.includes("own_record")) throw new ApiError("own_record", 403);
    if (msg.includes("no_permission")) throw new ApiError("not_found", 404);
    if (msg.includes("state_conflict") || /UNIQUE constraint failed: support_events\.id/i.test(msg)) throw new Moved(msg);
    throw err;
  }
}

/** Reads, decides and writes again while the ticket keeps moving under the batch (at most 4 times). */
export async function withRetry<T>(attempt: () => Promise<T>): Promise<T> {
  for (let i = 0; ; i++) {
    try {
      return await attempt();
    } catch (err) {
      if (!(err instanceof Moved)) throw err;
      if (i >= 3) throw new ApiError("state_conflict", 409);
    }
  }
}
