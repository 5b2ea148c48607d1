-- Support tickets, complaints and feedback (issue #16 §2; worker/domain/support/).
--
-- The history is the source of truth: `support_events` is append-only (no UPDATE, no DELETE) and
-- holds every message, internal note and state change of a ticket. The ticket row is its summary,
-- kept by the AFTER INSERT trigger below (status, last activity, the user's last message, first
-- response), the way the ledger keeps `balances`. A state change is an event whose `from_status`
-- must be the ticket's status at the moment it is written and whose step must be one of the
-- machine's, so two parallel changes cannot both apply: the second finds the status moved and
-- aborts its whole batch (state_conflict).
--
-- States: new → open → pending_customer → resolved → closed. An operator moves a ticket between
-- open, pending_customer and resolved (and may close it); a user reply reopens a pending_customer
-- or resolved ticket; the user may close their own ticket; a resolved ticket closes itself 7 days
-- after it was resolved (worker/jobs/support-autoclose.ts). Nothing leaves `closed`.
CREATE TABLE support_tickets (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  user_id INTEGER NOT NULL REFERENCES users(id),
  category TEXT NOT NULL CHECK (category IN ('complaint', 'feedback', 'question', 'order')),
  subject TEXT NOT NULL CHECK (length(subject) BETWEEN 1 AND 200),
  related_kind TEXT CHECK (related_kind IN ('spot', 'seconds', 'lever', 'c2c', 'deposit', 'withdrawal')),
  related_id INTEGER,
  status TEXT NOT NULL DEFAULT 'new' CHECK (status IN ('new', 'open', 'pending_customer', 'resolved', 'closed')),
  created_at INTEGER NOT NULL,
  -- last thing the user can see happen (a message or a state change; internal notes do not count)
  updated_at INTEGER NOT NULL,
  -- the user's last message: how long the ticket has waited on support
  last_user_at INTEGER NOT NULL,
  -- the first public reply of an operator
  first_response_at INTEGER,
  last_reply_by TEXT NOT NULL DEFAULT 'user' CHECK (last_reply_by IN ('user', 'support')),
  resolved_at INTEGER,
  closed_at INTEGER,
  CHECK ((related_kind IS NULL) = (related_id IS NULL)),
  CHECK (category != 'order' OR related_kind IS NOT NULL)
);
CREATE INDEX support_tickets_user ON support_tickets (user_id, updated_at);
CREATE INDEX support_tickets_queue ON support_tickets (status, last_user_at);
CREATE INDEX support_tickets_resolved ON support_tickets (resolved_at) WHERE status = 'resolved';

-- A ticket is born `new`, and its terms (owner, category, subject, related order) never change.
CREATE TRIGGER support_tickets_insert BEFORE INSERT ON support_tickets
WHEN NEW.status != 'new'
BEGIN SELECT RAISE(ABORT, 'state_conflict: a ticket starts new'); END;
CREATE TRIGGER support_tickets_terms BEFORE UPDATE OF id, user_id, category, subject, related_kind, related_id, created_at ON support_tickets
BEGIN SELECT RAISE(ABORT, 'state_conflict: ticket terms are immutable'); END;
CREATE TRIGGER support_tickets_transition BEFORE UPDATE OF status ON support_tickets
WHEN NEW.status != OLD.status AND NOT (
  (OLD.status = 'new' AND NEW.status IN ('open', 'pending_customer', 'resolved', 'closed')) OR
  (OLD.status = 'open' AND NEW.status IN ('pending_customer', 'resolved', 'closed')) OR
  (OLD.status = 'pending_customer' AND NEW.status IN ('open', 'resolved', 'closed')) OR
  (OLD.status = 'resolved' AND NEW.status IN ('open', 'closed')))
BEGIN SELECT RAISE(ABORT, 'state_conflict: support ticket'); END;
CREATE TRIGGER support_tickets_no_delete BEFORE DELETE ON support_tickets
BEGIN SELECT RAISE(ABORT, 'support tickets are kept'); END;

-- kind: message (public: the user's or support's), note (internal: operators only, never shown
-- to the user), status (a state change). author_role: user (the ticket's owner), operator, system
-- (the auto-close job). images: JSON array of upload ids (the user's own uploads, at most 4).
CREATE TABLE support_events (
  id INTEGER PRIMARY KEY,
  ticket_id INTEGER NOT NULL REFERENCES support_tickets(id),
  kind TEXT NOT NULL CHECK (kind IN ('message', 'note', 'status')),
  author_role TEXT NOT NULL CHECK (author_role IN ('user', 'operator', 'system')),
  author_id INTEGER,
  body TEXT NOT NULL DEFAULT '' CHECK (length(body) <= 4000),
  images TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(images) AND json_type(images) = 'array' AND json_array_length(images) <= 4),
  from_status TEXT,
  to_status TEXT,
  created_at INTEGER NOT NULL,
  CHECK ((kind = 'status') = (to_status IS NOT NULL AND from_status IS NOT NULL)),
  CHECK (kind != 'status' OR from_status != to_status),
  CHECK (kind = 'status' OR length(body) >= 1),
  CHECK (kind != 'note' OR author_role = 'operator'),
  CHECK ((author_role = 'system') = (author_id IS NULL)),
  CHECK (author_role = 'user' OR images = '[]')
);
CREATE INDEX support_events_ticket ON support_events (ticket_id, id);

CREATE TRIGGER support_events_no_update BEFORE UPDATE ON support_events
BEGIN SELECT RAISE(ABORT, 'support events are append-only'); END;
CREATE TRIGGER support_events_no_delete BEFORE DELETE ON support_events
BEGIN SELECT RAISE(ABORT, 'support events are append-only'); END;

-- Who may write what: the user only on their own ticket; an operator never on a ticket they opened.
CREATE TRIGGER support_events_author BEFORE INSERT ON support_events
WHEN NEW.author_role = 'user' AND NOT EXISTS (SELECT 1 FROM support_tickets t WHERE t.id = NEW.ticket_id AND t.user_id = NEW.author_id)
BEGIN SELECT RAISE(ABORT, 'no_permission: support ticket'); END;
CREATE TRIGGER support_events_not_own BEFORE INSERT ON support_events
WHEN NEW.author_role = 'operator' AND EXISTS (SELECT 1 FROM support_tickets t WHERE t.id = NEW.ticket_id AND t.user_id = NEW.author_id)
BEGIN SELECT RAISE(ABORT, 'own_record: support ticket'); END;
-- Nothing is written to a closed ticket.
CREATE TRIGGER support_events_closed BEFORE INSERT ON support_events
WHEN NEW.kind != 'status' AND EXISTS (SELECT 1 FROM support_tickets t WHERE t.id = NEW.ticket_id AND t.status = 'closed')
BEGIN SELECT RAISE(ABORT, 'support_closed'); END;
-- A state change starts from the ticket's current status (the transition trigger checks the step).
CREATE TRIGGER support_events_status BEFORE INSERT ON support_events
WHEN NEW.kind = 'status' AND NOT EXISTS (SELECT 1 FROM support_tickets t WHERE t.id = NEW.ticket_id AND t.status = NEW.from_status)
BEGIN SELECT RAISE(ABORT, 'state_conflict: support ticket moved'); END;

-- The ticket row follows its history.
CREATE TRIGGER support_events_apply_user AFTER INSERT ON support_events
WHEN NEW.kind = 'message' AND NEW.author_role = 'user'
BEGIN
  UPDATE support_tickets SET last_user_at = NEW.created_at, updated_at = NEW.created_at, last_reply_by = 'user' WHERE id = NEW.ticket_id;
END;
CREATE TRIGGER support_events_apply_reply AFTER INSERT ON support_events
WHEN NEW.kind = 'message' AND NEW.author_role = 'operator'
BEGIN
  UPDATE support_tickets SET first_response_at = COALESCE(first_response_at, NEW.created_at), updated_at = NEW.created_at, last_reply_by = 'support' WHERE id = NEW.ticket_id;
END;
CREATE TRIGGER support_events_apply_status AFTER INSERT ON support_events
WHEN NEW.kind = 'status'
BEGIN
  UPDATE support_tickets SET
    status = NEW.to_status,
    updated_at = NEW.created_at,
    resolved_at = CASE WHEN NEW.to_status = 'resolved' THEN NEW.created_at ELSE resolved_at END,
    closed_at = CASE WHEN NEW.to_status = 'closed' THEN NEW.created_at ELSE closed_at END
  WHERE id = NEW.ticket_id;
END;
