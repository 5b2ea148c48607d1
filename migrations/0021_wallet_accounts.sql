-- Wallet accounts as data (issue #18 §1: each product declared once). Until now balances.account
-- and balance_adjustments.account carried a CHECK listing the accounts (0001, 0005), and SQLite
-- cannot alter a CHECK, so each new account rebuilt both tables (0015, 0016). From here on the
-- accounts are rows of `wallet_accounts`, and both columns are foreign keys into it: a later
-- product adds its account with one INSERT in its own migration, e.g.
--   INSERT INTO wallet_accounts (name, product) VALUES ('savings', 'savings');
-- and declares it in schemas/products.ts. No table is rebuilt for an account again.
--
-- `product` is the id of the declaration that owns the account (schemas/products.ts);
-- tests/api/products.test.ts checks that the rows and the declarations agree.
CREATE TABLE wallet_accounts (
  name TEXT PRIMARY KEY,
  product TEXT NOT NULL
) WITHOUT ROWID;
INSERT INTO wallet_accounts (name, product) VALUES
  ('change', 'spot'),
  ('micro', 'seconds'),
  ('legal', 'c2c'),
  ('lever', 'lever');

-- A wallet account in use is never removed or renamed (its balances and adjustments name it).
CREATE TRIGGER wallet_accounts_no_delete BEFORE DELETE ON wallet_accounts
BEGIN SELECT RAISE(ABORT, 'wallet accounts are never removed'); END;
CREATE TRIGGER wallet_accounts_no_rename BEFORE UPDATE OF name ON wallet_accounts
BEGIN SELECT RAISE(ABORT, 'wallet accounts are never renamed'); END;

-- 1. balances: the last rebuild. Same columns, key and CHECKs as 0015, the account CHECK replaced
--    by the foreign key; every row copied as it is. The ledger trigger that writes balances
--    (ledger_apply) and the treasury's no-overdraft triggers are dropped with the old table and
--    re-created word for word (as in 0015); nothing else references balances. The file runs as
--    one transaction: all of it lands or none of it does.
DROP TRIGGER ledger_apply;

CREATE TABLE balances_rebuilt (
  user_id INTEGER NOT NULL,
  currency_id INTEGER NOT NULL REFERENCES currencies(id),
  account TEXT NOT NULL REFERENCES wallet_accounts(name),
  available INTEGER NOT NULL DEFAULT 0,
  frozen INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (user_id, currency_id, account),
  CHECK (user_id <= 0 OR (available >= 0 AND frozen >= 0)),
  CHECK (available BETWEEN -9007199254740991 AND 9007199254740991),
  CHECK (frozen BETWEEN -9007199254740991 AND 9007199254740991)
);
INSERT INTO balances_rebuilt (user_id, currency_id, account, available, frozen)
  SELECT user_id, currency_id, account, available, frozen FROM balances;
DROP TABLE balances;
ALTER TABLE balances_rebuilt RENAME TO balances;

CREATE TRIGGER ledger_apply AFTER INSERT ON ledger BEGIN
  INSERT INTO balances (user_id, currency_id, account) VALUES (NEW.user_id, NEW.currency_id, NEW.account)
  ON CONFLICT (user_id, currency_id, account) DO NOTHING;
  UPDATE balances SET available = available + NEW.d_available, frozen = frozen + NEW.d_frozen
  WHERE user_id = NEW.user_id AND currency_id = NEW.currency_id AND account = NEW.account;
END;
CREATE TRIGGER treasury_no_overdraft_insert AFTER INSERT ON balances
WHEN NEW.user_id = -3 AND (NEW.available < 0 OR NEW.frozen < 0)
BEGIN SELECT RAISE(ABORT, 'treasury_overdraft'); END;
CREATE TRIGGER treasury_no_overdraft_update AFTER UPDATE ON balances
WHEN NEW.user_id = -3 AND (NEW.available < 0 OR NEW.frozen < 0)
BEGIN SELECT RAISE(ABORT, 'treasury_overdraft'); END;

-- 2. balance_adjustments: the last rebuild. Same columns, key and CHECKs as 0016, the account
--    CHECK replaced by the foreign key; every row copied with its id (AUTOINCREMENT's sequence
--    is carried by the rename). Its index and triggers (0005, 0007, as re-created in 0016) are
--    dropped with the old table and re-created word for word.
CREATE TABLE balance_adjustments_rebuilt (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  user_id INTEGER NOT NULL,
  currency_id INTEGER NOT NULL REFERENCES currencies(id),
  account TEXT NOT NULL REFERENCES wallet_accounts(name),
  amount INTEGER NOT NULL CHECK (amount != 0 AND amount BETWEEN -9007199254740991 AND 9007199254740991),
  reason TEXT NOT NULL,
  status INTEGER NOT NULL DEFAULT 0 CHECK (status IN (0, 1, 2)),
  requested_by INTEGER NOT NULL,
  decided_by INTEGER,
  decision_reason TEXT NOT NULL DEFAULT '',
  created_at INTEGER NOT NULL,
  decided_at INTEGER
);
INSERT INTO balance_adjustments_rebuilt (id, user_id, currency_id, account, amount, reason, status, requested_by, decided_by, decision_reason, created_at, decided_at)
  SELECT id, user_id, currency_id, account, amount, reason, status, requested_by, decided_by, decision_reason, created_at, decided_at FROM balance_adjustments;
DROP TABLE balance_adjustments;
ALTER TABLE balance_adjustments_rebuilt RENAME TO balance_adjustments;

CREATE INDEX balance_adjustments_status ON balance_adjustments(status, id);
CREATE TRIGGER balance_adjustments_transition BEFORE UPDATE OF status ON balance_adjustments
WHEN NOT (OLD.status = 0 AND NEW.status IN (1, 2))
BEGIN SELECT RAISE(ABORT, 'state_conflict: adjustment'); END;
CREATE TRIGGER balance_adjustments_four_eyes BEFORE UPDATE OF status ON balance_adjustments
WHEN NEW.status = 1 AND (NEW.decided_by IS NULL OR NEW.decided_by = OLD.requested_by)
BEGIN SELECT RAISE(ABORT, 'self_review: adjustment'); END;
CREATE TRIGGER balance_adjustments_frozen_terms BEFORE UPDATE OF user_id, currency_id, account, amount, requested_by ON balance_adjustments
BEGIN SELECT RAISE(ABORT, 'state_conflict: adjustment terms are immutable'); END;
CREATE TRIGGER balance_adjustments_not_own BEFORE INSERT ON balance_adjustments
WHEN NEW.requested_by = NEW.user_id
BEGIN SELECT RAISE(ABORT, 'own_record: adjustment'); END;
CREATE TRIGGER balance_adjustments_not_own_decision BEFORE UPDATE OF status ON balance_adjustments
WHEN NEW.decided_by = OLD.user_id
BEGIN SELECT RAISE(ABORT, 'own_record: adjustment'); END;
