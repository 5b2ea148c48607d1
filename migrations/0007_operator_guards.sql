-- Operators never decide anything about their own account, and large deposit approvals need two
-- different operators. The routes refuse (and audit) first; these triggers make the same rules
-- hold for any statement that reaches the database.

-- needs_second: set when the claim's value is above the two-operator threshold (at the claim and
-- again at the first approval, whichever says so). first_approved_by: the first operator's yes.
ALTER TABLE deposits ADD COLUMN needs_second INTEGER NOT NULL DEFAULT 0 CHECK (needs_second IN (0, 1));
ALTER TABLE deposits ADD COLUMN first_approved_by INTEGER;
ALTER TABLE deposits ADD COLUMN first_approved_at INTEGER;

CREATE TRIGGER deposits_not_own_decision BEFORE UPDATE OF status, first_approved_by ON deposits
WHEN NEW.reviewed_by = OLD.user_id OR NEW.first_approved_by = OLD.user_id
BEGIN SELECT RAISE(ABORT, 'own_record: deposit'); END;

-- Credit (status 1) of a two-operator deposit needs a first approval by someone else.
CREATE TRIGGER deposits_four_eyes BEFORE UPDATE OF status ON deposits
WHEN NEW.status = 1 AND OLD.needs_second = 1
  AND (OLD.first_approved_by IS NULL OR NEW.reviewed_by IS NULL OR NEW.reviewed_by = OLD.first_approved_by)
BEGIN SELECT RAISE(ABORT, 'self_review: deposit'); END;

-- A first approval is recorded once, only on a pending claim, and never cleared.
CREATE TRIGGER deposits_first_approval_once BEFORE UPDATE OF first_approved_by ON deposits
WHEN OLD.first_approved_by IS NOT NULL OR OLD.status != 0 OR NEW.first_approved_by IS NULL
BEGIN SELECT RAISE(ABORT, 'state_conflict: deposit first approval'); END;

CREATE TRIGGER withdrawals_not_own_decision BEFORE UPDATE OF status ON withdrawals
WHEN OLD.status != 5 AND (NEW.reviewed_by = OLD.user_id OR NEW.settled_by = OLD.user_id)
BEGIN SELECT RAISE(ABORT, 'own_record: withdrawal'); END;

CREATE TRIGGER kyc_not_own_decision BEFORE UPDATE OF status ON kyc_submissions
WHEN NEW.reviewed_by = OLD.user_id
BEGIN SELECT RAISE(ABORT, 'own_record: kyc'); END;

CREATE TRIGGER balance_adjustments_not_own BEFORE INSERT ON balance_adjustments
WHEN NEW.requested_by = NEW.user_id
BEGIN SELECT RAISE(ABORT, 'own_record: adjustment'); END;

CREATE TRIGGER balance_adjustments_not_own_decision BEFORE UPDATE OF status ON balance_adjustments
WHEN NEW.decided_by = OLD.user_id
BEGIN SELECT RAISE(ABORT, 'own_record: adjustment'); END;
