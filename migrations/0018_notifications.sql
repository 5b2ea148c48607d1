-- The notification centre (issue #16 §1; worker/domain/notifications/).
--
-- One row per (user, event): `event_key` names the event that caused it (a deposit credited, a
-- contract settled, a C2C order paid, ...), so the INSERT that travels in the event's own D1 batch
-- is `ON CONFLICT (user_id, event_key) DO NOTHING`: a retried or re-run event never doubles a
-- notification, and a batch that fails takes its notification with it. Title and body are NOT
-- stored: `kind` and `params` (JSON) are rendered at read time in the reader's language, so a
-- language switch changes old items too.
CREATE TABLE notifications (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  user_id INTEGER NOT NULL REFERENCES users(id),
  event_key TEXT NOT NULL CHECK (length(event_key) BETWEEN 1 AND 200),
  kind TEXT NOT NULL CHECK (length(kind) BETWEEN 1 AND 64),
  params TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(params)),
  link TEXT NOT NULL DEFAULT '',
  created_at INTEGER NOT NULL,
  read_at INTEGER,
  UNIQUE (user_id, event_key)
);
CREATE INDEX notifications_user ON notifications (user_id, id);
CREATE INDEX notifications_unread ON notifications (user_id) WHERE read_at IS NULL;
