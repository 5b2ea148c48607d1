-- Issue #28: the D1 products (savings, cover, mining, launches, votes) on the account objects
-- (`ACCOUNTS=objects`; worker/lib/product-objects.ts, docs/architecture/account-objects.md
-- "Savings, cover, mining, launch and vote in objects mode"). Unused with `ACCOUNTS=d1`.

-- One row per record that a hold in an account object was made for (`savings:{id}`, `cover:{id}`, ...):
-- 'record' is written in the record's own batch; 'orphan' by the account object's sweep when the
-- record had not come after the grace. Whichever comes first stays, so a record written after its
-- hold was released as an orphan aborts (primary key), and a hold is never released under a record.
CREATE TABLE object_hold_claims (
  hold TEXT PRIMARY KEY,
  state TEXT NOT NULL CHECK (state IN ('record', 'orphan')),
  created_at INTEGER NOT NULL
) WITHOUT ROWID;

-- The legs a record's transition owes the account objects (an interest day, a payout, a close),
-- written in the transition's own batch and delivered afterwards, at least once: each object
-- applies a leg once by its key. `sent_at` is set when the object answered.
CREATE TABLE object_legs (
  key TEXT NOT NULL,
  to_object TEXT NOT NULL,
  leg TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  sent_at INTEGER,
  result TEXT,
  PRIMARY KEY (key, to_object)
) WITHOUT ROWID;
CREATE INDEX object_legs_unsent ON object_legs (created_at) WHERE sent_at IS NULL;
