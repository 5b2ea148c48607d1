-- Issue #28: products whose record lives in D1 (C2C, savings, cover, mining, launches, votes,
-- rebates, deposits, withdrawals, conversion) moving their money in the account objects
-- (ACCOUNTS = "objects"; docs/architecture/account-objects.md). Unused with ACCOUNTS = "d1".

-- record_legs: the legs a record's transition owes the account objects (a C2C release, an interest
-- day, a payout, a deposit credited, a withdrawal rejected), written in the SAME D1 batch as the
-- transition, so a committed transition never loses its money (worker/lib/record-legs.ts). The
-- Worker sends them right after the batch and deletes each row once its object answered (applied,
-- seen or refused: every answer acknowledges); a row still here after a moment was not answered,
-- and the every-minute job sends it again (each object applies a key once). A leg's key names its
-- receiver, so one key is one row.
CREATE TABLE record_legs (
  key TEXT PRIMARY KEY,
  dest TEXT NOT NULL,
  ops TEXT NOT NULL,
  record TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX record_legs_created ON record_legs (created_at);
CREATE INDEX record_legs_record ON record_legs (record);

-- object_hold_claims: one row per hold an account object made for a record that lives in D1
-- (`savings:{id}`, `c2c_order:{id}`, `withdrawal:{id}`, ...; durable/account/claims.ts). 'record' is
-- written in the record's own batch; 'orphan' by the account object's sweep when the record had not
-- come after the grace. Whichever comes first stays: a record written after its hold was released as
-- an orphan aborts its batch (primary key), and a hold with a record is never released by the sweep.
CREATE TABLE object_hold_claims (
  hold TEXT PRIMARY KEY,
  state TEXT NOT NULL CHECK (state IN ('record', 'orphan')),
  created_at INTEGER NOT NULL
) WITHOUT ROWID;
