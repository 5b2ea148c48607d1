-- Issue #28: D1 as the read model of the account objects (durable/account/). Each user's object
-- is the single writer of that user's balances once the products move onto it; it drains its
-- movements here in batches (durable/account/drain.ts). Nothing writes these tables yet but the
-- drain and the migration (scripts/migrate-accounts.mjs); today's `balances` and `ledger` stay
-- the record of every product until each one moves (docs/architecture/account-objects.md).

-- One row per movement of one account object, keyed by (user, the object's own seq): a second
-- copy of a drained batch inserts nothing (ON CONFLICT DO NOTHING), so the trigger below never
-- applies a movement twice. Append-only.
CREATE TABLE account_movements (
  user_id INTEGER NOT NULL CHECK (user_id > 0),
  seq INTEGER NOT NULL CHECK (seq > 0),
  ref TEXT NOT NULL,
  account TEXT NOT NULL,
  currency_id INTEGER NOT NULL,
  d_available INTEGER NOT NULL,
  d_frozen INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (user_id, seq)
) WITHOUT ROWID;

-- The read model's balances: the sum of the drained movements, per user, account and currency.
-- Every prefix of an object's movements leaves its balances non-negative (its own CHECKs), so
-- these CHECKs fail only on a drain that skipped or reordered movements.
CREATE TABLE account_balances (
  user_id INTEGER NOT NULL,
  currency_id INTEGER NOT NULL,
  account TEXT NOT NULL,
  available INTEGER NOT NULL CHECK (available >= 0),
  frozen INTEGER NOT NULL CHECK (frozen >= 0),
  seq INTEGER NOT NULL,
  PRIMARY KEY (user_id, currency_id, account)
) WITHOUT ROWID;

-- As the ledger's trigger (0001): the zero row first, then an UPDATE that checks the resulting
-- balance (an upsert would check the CHECKs against the bare delta of a debit).
CREATE TRIGGER account_movements_apply AFTER INSERT ON account_movements BEGIN
  INSERT INTO account_balances (user_id, currency_id, account, available, frozen, seq)
  VALUES (NEW.user_id, NEW.currency_id, NEW.account, 0, 0, 0)
  ON CONFLICT (user_id, currency_id, account) DO NOTHING;
  UPDATE account_balances SET available = available + NEW.d_available, frozen = frozen + NEW.d_frozen, seq = max(seq, NEW.seq)
  WHERE user_id = NEW.user_id AND currency_id = NEW.currency_id AND account = NEW.account;
END;
CREATE TRIGGER account_movements_no_update BEFORE UPDATE ON account_movements BEGIN
  SELECT RAISE(ABORT, 'account movements are append-only');
END;
CREATE TRIGGER account_movements_no_delete BEFORE DELETE ON account_movements BEGIN
  SELECT RAISE(ABORT, 'account movements are append-only');
END;

-- How far each object's drain has reached (the bookmark a reader compares with, to read its own writes).
CREATE TABLE account_drained (
  user_id INTEGER PRIMARY KEY,
  seq INTEGER NOT NULL,
  notice_seq INTEGER NOT NULL,
  drained_at INTEGER NOT NULL
);

-- The migration's cursor (scripts/migrate-accounts.mjs, worker/domain/accounts/migrate.ts): users
-- are opened in user id order, and a step that stops anywhere resumes after `cursor`.
CREATE TABLE account_migration (
  name TEXT PRIMARY KEY,
  cursor INTEGER NOT NULL DEFAULT 0,
  users INTEGER NOT NULL DEFAULT 0,
  started_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
