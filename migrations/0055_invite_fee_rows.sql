-- Issue #28, session 17: invitation rebates never lose a fee that reaches D1 late.
--
-- Until now a rebate run counted the fee rows whose own time (created_at, settled_at) fell in its
-- window, which ends at `now` for today's early run. In objects mode (ACCOUNTS=objects) the fee rows
-- reach D1 through the read model's drains (about 1 s later as a rule, up to 30 s or more while D1
-- fails), in D1 mode a spot trade's row through the pair's drain: a row whose time was inside a
-- finished run's window but which landed after that run was never counted by any run.
--
-- invite_fee_rows: every fee row as it LANDS in D1, numbered by D1 (`seq`, AUTOINCREMENT: increasing
-- in commit order, never reused; D1 commits one write at a time). The triggers below append one row
-- per fee of an invitee (a user with a parent) when its source row is inserted (or, for a seconds
-- contract, when its status becomes 3, settled). A run records the highest `seq` when it starts
-- (invite_runs.fee_seq) and counts the rows up to it that no run has claimed (`day` IS NULL) and that
-- are its own (time inside its window) or late (time before its window, in the window of a run
-- that already exists); it claims them (`day` = the run's day) in the same batch that adds them
-- to invite_fees. So a row is counted once, by the first run that can see it, however late it lands.
-- A source row sent twice (a re-sent drain batch: ON CONFLICT DO NOTHING) inserts nothing and so
-- fires nothing.
--
-- Sources (worker/domain/invite/fees.ts and object-fees.ts read the same):
--   ledger      fee-account (user 0) rows of the fee kinds; the payer is resolved at settlement
--               through the movement (`ref` = movement_key), as the batch that wrote them is whole;
--   spot        spot_trades: the buyer's fee in the base coin, the seller's in the quote;
--   lever       objects mode: fee-shard (user 0) movements under a position's key
--               (`position_id`; the payer is resolved at settlement from lever_positions, whose row
--               may land after the shard's drain: the row waits unclaimed until it has);
--   seconds     objects mode: a settled contract's fee (micro_orders status 3);
--   conversion  objects mode: a conversion's fee (USDT).
-- In D1 mode the settlement counts `ledger` and `spot` only (the others are booked in the ledger
-- there); their rows are claimed all the same.
CREATE TABLE invite_fee_rows (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  source TEXT NOT NULL CHECK (source IN ('ledger', 'spot', 'lever', 'seconds', 'conversion')),
  user_id INTEGER,
  kind TEXT,
  ref TEXT,
  position_id INTEGER,
  currency_id INTEGER NOT NULL,
  fee INTEGER NOT NULL,
  at INTEGER NOT NULL,
  day TEXT
);
-- The rows no run has claimed yet: few (today's, and late ones), read in seq order by every step.
CREATE INDEX invite_fee_rows_open ON invite_fee_rows(seq) WHERE day IS NULL;

-- The highest seq a run may count (NULL: a run made before this migration, settled by its window).
ALTER TABLE invite_runs ADD COLUMN fee_seq INTEGER;

CREATE TRIGGER invite_fee_rows_ledger AFTER INSERT ON ledger
WHEN NEW.user_id = 0 AND NEW.d_available + NEW.d_frozen <> 0 AND NEW.kind IN ('micro_open', 'micro_refund', 'lever_open', 'lever_overnight', 'lever_close',
  'lever_profit', 'lever_loss', 'lever_liquidation', 'lever_cap', 'lever_refund', 'lever_revoke', 'conversion') BEGIN
  INSERT INTO invite_fee_rows (source, kind, ref, currency_id, fee, at)
  VALUES ('ledger', NEW.kind, NEW.movement_key, NEW.currency_id, NEW.d_available + NEW.d_frozen, NEW.created_at);
END;

CREATE TRIGGER invite_fee_rows_spot AFTER INSERT ON spot_trades
WHEN NEW.buyer_fee > 0 OR NEW.seller_fee > 0 BEGIN
  INSERT INTO invite_fee_rows (source, user_id, currency_id, fee, at)
  SELECT 'spot', NEW.buyer_id, p.currency_id, NEW.buyer_fee, NEW.created_at FROM pairs p
  WHERE p.id = NEW.pair_id AND NEW.buyer_fee > 0 AND EXISTS (SELECT 1 FROM users u WHERE u.id = NEW.buyer_id AND u.parent_id IS NOT NULL);
  INSERT INTO invite_fee_rows (source, user_id, currency_id, fee, at)
  SELECT 'spot', NEW.seller_id, p.legal_id, NEW.seller_fee, NEW.created_at FROM pairs p
  WHERE p.id = NEW.pair_id AND NEW.seller_fee > 0 AND EXISTS (SELECT 1 FROM users u WHERE u.id = NEW.seller_id AND u.parent_id IS NOT NULL);
END;

CREATE TRIGGER invite_fee_rows_lever AFTER INSERT ON system_movements
WHEN NEW.user_id = 0 AND substr(NEW.ref, 1, 6) = 'lever:' AND NEW.d_available > 0 BEGIN
  INSERT INTO invite_fee_rows (source, position_id, currency_id, fee, at)
  VALUES ('lever', CAST(substr(NEW.ref, 7, instr(substr(NEW.ref, 7), ':') - 1) AS INTEGER), NEW.currency_id, NEW.d_available, NEW.created_at);
END;

CREATE TRIGGER invite_fee_rows_seconds AFTER UPDATE OF status ON micro_orders
WHEN NEW.status = 3 AND OLD.status <> 3 AND NEW.fee > 0 BEGIN
  INSERT INTO invite_fee_rows (source, user_id, currency_id, fee, at)
  SELECT 'seconds', NEW.user_id, NEW.currency_id, NEW.fee, COALESCE(NEW.settled_at, NEW.created_at)
  WHERE EXISTS (SELECT 1 FROM users u WHERE u.id = NEW.user_id AND u.parent_id IS NOT NULL);
END;

CREATE TRIGGER invite_fee_rows_seconds_new AFTER INSERT ON micro_orders
WHEN NEW.status = 3 AND NEW.fee > 0 BEGIN
  INSERT INTO invite_fee_rows (source, user_id, currency_id, fee, at)
  SELECT 'seconds', NEW.user_id, NEW.currency_id, NEW.fee, COALESCE(NEW.settled_at, NEW.created_at)
  WHERE EXISTS (SELECT 1 FROM users u WHERE u.id = NEW.user_id AND u.parent_id IS NOT NULL);
END;

CREATE TRIGGER invite_fee_rows_conversion AFTER INSERT ON conversions
WHEN NEW.fee > 0 BEGIN
  INSERT INTO invite_fee_rows (source, user_id, currency_id, fee, at)
  SELECT 'conversion', NEW.user_id, c.id, NEW.fee, NEW.created_at FROM currencies c
  WHERE c.name = 'USDT' AND EXISTS (SELECT 1 FROM users u WHERE u.id = NEW.user_id AND u.parent_id IS NOT NULL);
END;

-- The fees already in D1 that no run has covered yet (time at or after the end of every run's
-- window, `(SELECT ... FROM invite_runs)` below): the runs after this migration count them from here.

INSERT INTO invite_fee_rows (source, kind, ref, currency_id, fee, at)
SELECT 'ledger', kind, movement_key, currency_id, d_available + d_frozen, created_at FROM ledger
WHERE user_id = 0 AND created_at >= (SELECT COALESCE(MAX(COALESCE(window_to, (unixepoch(day) + 57600) * 1000)), 0) FROM invite_runs) AND d_available + d_frozen <> 0
  AND kind IN ('micro_open', 'micro_refund', 'lever_open', 'lever_overnight', 'lever_close', 'lever_profit', 'lever_loss', 'lever_liquidation', 'lever_cap',
    'lever_refund', 'lever_revoke', 'conversion')
ORDER BY id;

INSERT INTO invite_fee_rows (source, user_id, currency_id, fee, at)
SELECT 'spot', t.buyer_id, p.currency_id, t.buyer_fee, t.created_at FROM spot_trades t JOIN pairs p ON p.id = t.pair_id JOIN users u ON u.id = t.buyer_id AND u.parent_id IS NOT NULL
WHERE t.created_at >= (SELECT COALESCE(MAX(COALESCE(window_to, (unixepoch(day) + 57600) * 1000)), 0) FROM invite_runs) AND t.buyer_fee > 0
UNION ALL
SELECT 'spot', t.seller_id, p.legal_id, t.seller_fee, t.created_at FROM spot_trades t JOIN pairs p ON p.id = t.pair_id JOIN users u ON u.id = t.seller_id AND u.parent_id IS NOT NULL
WHERE t.created_at >= (SELECT COALESCE(MAX(COALESCE(window_to, (unixepoch(day) + 57600) * 1000)), 0) FROM invite_runs) AND t.seller_fee > 0;

INSERT INTO invite_fee_rows (source, position_id, currency_id, fee, at)
SELECT 'lever', CAST(substr(ref, 7, instr(substr(ref, 7), ':') - 1) AS INTEGER), currency_id, d_available, created_at FROM system_movements
WHERE user_id = 0 AND substr(ref, 1, 6) = 'lever:' AND d_available > 0 AND created_at >= (SELECT COALESCE(MAX(COALESCE(window_to, (unixepoch(day) + 57600) * 1000)), 0) FROM invite_runs);

INSERT INTO invite_fee_rows (source, user_id, currency_id, fee, at)
SELECT 'seconds', o.user_id, o.currency_id, o.fee, COALESCE(o.settled_at, o.created_at) FROM micro_orders o JOIN users u ON u.id = o.user_id AND u.parent_id IS NOT NULL
WHERE o.status = 3 AND o.fee > 0 AND COALESCE(o.settled_at, o.created_at) >= (SELECT COALESCE(MAX(COALESCE(window_to, (unixepoch(day) + 57600) * 1000)), 0) FROM invite_runs)
  -- A contract lasts minutes: one settled after the cut was opened at most a week before it (a range of micro_orders_status).
  AND o.created_at >= (SELECT COALESCE(MAX(COALESCE(window_to, (unixepoch(day) + 57600) * 1000)), 0) FROM invite_runs) - 7 * 86400000;

INSERT INTO invite_fee_rows (source, user_id, currency_id, fee, at)
SELECT 'conversion', v.user_id, c.id, v.fee, v.created_at FROM conversions v JOIN currencies c ON c.name = 'USDT' JOIN users u ON u.id = v.user_id AND u.parent_id IS NOT NULL
WHERE v.fee > 0 AND v.created_at >= (SELECT COALESCE(MAX(COALESCE(window_to, (unixepoch(day) + 57600) * 1000)), 0) FROM invite_runs);
