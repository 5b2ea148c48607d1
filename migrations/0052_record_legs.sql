-- Issue #28: products whose record lives in D1 (C2C orders, adverts, merchant deposits, invite
-- rebates) moving money in the account objects (ACCOUNTS = "objects"; worker/lib/record-legs.ts).
--
-- record_legs: the legs a record's transition owes the account objects, written in the SAME D1
-- batch as the transition (the order's new state, the run's step), so a committed transition
-- never loses its money. The Worker sends them right after the batch and deletes each row once its
-- object answered (applied, seen or refused: every answer acknowledges); a row still here after a
-- moment was not answered, and the every-minute job sends it again (the objects apply a key once).
CREATE TABLE record_legs (
  key TEXT PRIMARY KEY,
  dest TEXT NOT NULL,
  ops TEXT NOT NULL,
  record TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX record_legs_created ON record_legs (created_at);

-- record_tombstones: a hold whose record never came (the Worker died between the hold and the
-- record's batch) is released by its account object's orphan sweep after a grace, and the record's
-- id is tombstoned here first, so a late batch carrying that record is refused and moves nothing.
CREATE TABLE record_tombstones (
  kind TEXT NOT NULL,
  id INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (kind, id)
) WITHOUT ROWID;
