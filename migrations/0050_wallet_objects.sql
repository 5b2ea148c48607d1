-- Issue #28: deposits, withdrawals and conversion on the account objects (ACCOUNTS=objects;
-- docs/architecture/account-objects.md "Deposits, withdrawals and conversion in objects mode").

-- Legs a D1 decision owes the account objects: written in the same batch as the decision (a
-- deposit credited, a withdrawal rejected / failed / sent, an in-site withdrawal), sent right after
-- it, deleted once the object answered (applied, seen or refused: each leg is keyed, so a copy sent
-- again applies nothing). A row left behind (the Worker died after the batch) is sent again by the
-- every-minute job (worker/jobs/object-legs.ts). `dest` is the object's name (`user:{id}`,
-- `system:{id}:{k}`), `ops` the money core's ops (durable/money/types.ts) as JSON.
CREATE TABLE object_legs (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  dest TEXT NOT NULL,
  key TEXT NOT NULL,
  ops TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  UNIQUE (dest, key)
);
CREATE INDEX object_legs_created ON object_legs (created_at);

-- Withdrawal ids whose hold the user's object released because no record came within the grace
-- (the Worker died between the hold and the record's insert): the record can never be written after.
CREATE TABLE withdrawal_orphans (
  id INTEGER PRIMARY KEY,
  user_id INTEGER NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE TRIGGER withdrawals_not_orphaned BEFORE INSERT ON withdrawals
WHEN EXISTS (SELECT 1 FROM withdrawal_orphans WHERE id = NEW.id)
BEGIN SELECT RAISE(ABORT, 'state_conflict: withdrawal orphaned'); END;
