-- System accounts never go negative (issue #26 "A price nobody can print").
--
-- balances' CHECK lets user ids <= 0 go below zero (migrations/0001_core.sql), and SQLite cannot
-- alter a CHECK. These triggers refuse it for every system account except the two external-flow
-- counterparts, which mirror money that came from or went to the outside world and so are
-- negative (deposits, -1) or positive (withdrawals, -2) by design in double entry:
--    0 fees       what users paid in fees; rebates are paid out of it, never more than it holds
--   -3 treasury   the exchange's own money: already guarded by 0005_wallet.sql's triggers
--                 (treasury_overdraft, which callers read), so left out here
--   any other id <= 0 added later (a house or reserve account) is guarded the same way.
-- Only a change that leaves the balance below zero AND lower than it was is refused: a credit to
-- an account a bug had already driven negative still goes through (the reconciler reports the
-- negative balance until it is repaired), a debit can never make it negative.
CREATE TRIGGER system_no_overdraft_insert AFTER INSERT ON balances
WHEN NEW.user_id <= 0 AND NEW.user_id NOT IN (-1, -2, -3) AND (NEW.available < 0 OR NEW.frozen < 0)
BEGIN SELECT RAISE(ABORT, 'system_overdraft'); END;
CREATE TRIGGER system_no_overdraft_update AFTER UPDATE ON balances
WHEN NEW.user_id <= 0 AND NEW.user_id NOT IN (-1, -2, -3)
  AND ((NEW.available < 0 AND NEW.available < OLD.available) OR (NEW.frozen < 0 AND NEW.frozen < OLD.frozen))
BEGIN SELECT RAISE(ABORT, 'system_overdraft'); END;
