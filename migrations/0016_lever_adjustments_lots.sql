-- Leveraged contracts, second part (issue #11 follow-up).
--
-- 1. Operator balance adjustments may target the `lever` account. balance_adjustments.account has a
--    CHECK from 0005 and SQLite cannot alter a CHECK, so the table is rebuilt with the same columns,
--    key and CHECKs plus 'lever', every row copied as it is (ids kept: AUTOINCREMENT's sequence is
--    carried by the rename). Its index and triggers (0005: transition, four eyes, frozen terms;
--    0007: not own, not own decision) are dropped with the old table and re-created word for word.
--    Nothing else references balance_adjustments by key (the audit log joins on its id).
CREATE TABLE balance_adjustments_rebuilt (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  user_id INTEGER NOT NULL,
  currency_id INTEGER NOT NULL REFERENCES currencies(id),
  account TEXT NOT NULL CHECK (account IN ('change', 'micro', 'legal', 'lever')),
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

-- 2. The spec's lot rule (§5: "quantities sometimes multiples of 10 or 100"): per pair, lots are
--    a multiple of lot_step, 1 (any whole number), 10 or 100; operator-edited with the other terms.
ALTER TABLE lever_pairs ADD COLUMN lot_step INTEGER NOT NULL DEFAULT 1 CHECK (lot_step IN (1, 10, 100));
