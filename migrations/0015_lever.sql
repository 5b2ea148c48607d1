-- Leveraged contracts (issue #11, DESIGN §9): the `lever` wallet account, per-pair contract
-- settings, and the positions.
--
-- 1. The `lever` account. balances.account has a CHECK from 0001 and SQLite cannot alter a CHECK,
--    so the table is rebuilt here with the same columns, key and CHECKs plus 'lever', every row
--    copied as it is. The ledger trigger that writes balances (ledger_apply) and the treasury's
--    no-overdraft triggers are dropped with the old table and re-created word for word; nothing
--    else references balances. The whole file runs as one transaction, so either all of it lands
--    or none of it does (tests/api/lever.test.ts checks the old accounts, the CHECKs and the
--    triggers afterwards).

DROP TRIGGER ledger_apply;

CREATE TABLE balances_rebuilt (
  user_id INTEGER NOT NULL,
  currency_id INTEGER NOT NULL REFERENCES currencies(id),
  account TEXT NOT NULL CHECK (account IN ('change', 'micro', 'legal', 'lever')),
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

-- As in 0001: the zero row first, then an UPDATE that checks the resulting balance.
CREATE TRIGGER ledger_apply AFTER INSERT ON ledger BEGIN
  INSERT INTO balances (user_id, currency_id, account) VALUES (NEW.user_id, NEW.currency_id, NEW.account)
  ON CONFLICT (user_id, currency_id, account) DO NOTHING;
  UPDATE balances SET available = available + NEW.d_available, frozen = frozen + NEW.d_frozen
  WHERE user_id = NEW.user_id AND currency_id = NEW.currency_id AND account = NEW.account;
END;
-- As in 0005: the treasury (-3) may never go below zero.
CREATE TRIGGER treasury_no_overdraft_insert AFTER INSERT ON balances
WHEN NEW.user_id = -3 AND (NEW.available < 0 OR NEW.frozen < 0)
BEGIN SELECT RAISE(ABORT, 'treasury_overdraft'); END;
CREATE TRIGGER treasury_no_overdraft_update AFTER UPDATE ON balances
WHEN NEW.user_id = -3 AND (NEW.available < 0 OR NEW.frozen < 0)
BEGIN SELECT RAISE(ABORT, 'treasury_overdraft'); END;

-- 2. Contract settings per pair, edited by operators (audited) and copied onto each position when
--    it is opened, so an edit never reaches a running position. share_num: coin per lot (decimal
--    text, the spec's lever_share_num); multiples: JSON array of the leverages offered; rates in
--    basis points (fee per open and per close, overnight fee per day, maintenance margin as a
--    share of the margin); pair_exposure: the most the house may hold for this pair's open
--    positions (USDT, decimal text); max_positions: a user's open + pending positions per pair.
CREATE TABLE lever_pairs (
  pair_id INTEGER PRIMARY KEY,
  share_num TEXT NOT NULL,
  multiples TEXT NOT NULL,
  min_lots INTEGER NOT NULL CHECK (min_lots >= 1),
  max_lots INTEGER NOT NULL CHECK (max_lots >= min_lots AND max_lots <= 1000000),
  fee_bps INTEGER NOT NULL CHECK (fee_bps BETWEEN 0 AND 1000),
  overnight_bps INTEGER NOT NULL CHECK (overnight_bps BETWEEN 0 AND 100),
  maintenance_bps INTEGER NOT NULL CHECK (maintenance_bps BETWEEN 0 AND 9900),
  pair_exposure TEXT NOT NULL,
  max_positions INTEGER NOT NULL CHECK (max_positions BETWEEN 1 AND 1000),
  status INTEGER NOT NULL DEFAULT 1 CHECK (status IN (0, 1)),
  updated_at INTEGER NOT NULL DEFAULT 0
);
-- BTC/USDT: 0.01 BTC a lot; ETH/USDT: 0.1 ETH a lot. 0.05 % a side, 0.02 % a night, liquidation
-- at 20 % of the margin left.
INSERT INTO lever_pairs (pair_id, share_num, multiples, min_lots, max_lots, fee_bps, overnight_bps, maintenance_bps, pair_exposure, max_positions) VALUES
  (1, '0.01', '[1,2,5,10,20,50,100]', 1, 1000, 5, 2, 2000, '5000000', 20),
  (2, '0.1', '[1,2,5,10,20,50,100]', 1, 1000, 5, 2, 2000, '2000000', 20);

-- 3. Positions. status: 0 held (money held in D1, the pair object has not answered yet),
-- 1 pending (a limit open waiting for the index), 2 trading, 3 closing (closed by the object,
-- on its way to D1), 4 closed, 5 revoked (a pending order cancelled, or an open refused: all
-- returned). Money in USDT minimal units; prices in the pair's price ticks. The terms are copied
-- from lever_pairs at submit and never change; the close is written once.
CREATE TABLE lever_positions (
  id INTEGER PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id),
  pair_id INTEGER NOT NULL,
  currency_id INTEGER NOT NULL,            -- the margin currency (USDT)
  type INTEGER NOT NULL CHECK (type IN (1, 2)), -- 1 long, 2 short
  lots INTEGER NOT NULL CHECK (lots > 0),
  multiple INTEGER NOT NULL CHECK (multiple > 0),
  share_units INTEGER NOT NULL CHECK (share_units > 0),  -- coin minimal units per lot
  quote_price INTEGER NOT NULL CHECK (quote_price > 0),  -- the index (or limit) the money was held at
  target_price INTEGER,                    -- a limit open's price; NULL at market
  margin INTEGER NOT NULL CHECK (margin > 0 AND margin <= 9007199254740991),
  fee INTEGER NOT NULL CHECK (fee >= 0),
  hold INTEGER NOT NULL CHECK (hold >= 0),
  fee_bps INTEGER NOT NULL,
  overnight_bps INTEGER NOT NULL,
  maintenance_bps INTEGER NOT NULL,
  overnight INTEGER NOT NULL DEFAULT 0 CHECK (overnight >= 0 AND overnight <= margin),
  stop_profit INTEGER,
  stop_loss INTEGER,
  open_price INTEGER,
  open_tick_id INTEGER,
  close_price INTEGER,
  close_tick_id INTEGER,
  close_fee INTEGER,
  profit INTEGER,                          -- the P/L at close (before the close fee)
  close_reason TEXT,                       -- user | profit | loss | liquidation | cap | revoked
  status INTEGER NOT NULL DEFAULT 0 CHECK (status BETWEEN 0 AND 5),
  created_at INTEGER NOT NULL,
  open_at INTEGER,
  closed_at INTEGER
);
CREATE INDEX lever_positions_user ON lever_positions(user_id, pair_id, status, id);
CREATE INDEX lever_positions_status ON lever_positions(status, created_at);
-- Forward only: 0 → 1 | 2 | 3 | 4 | 5, 1 → 2 | 3 | 4 | 5, 2 → 3 | 4, 3 → 4 (the close may reach D1
-- before the open's note does). A closed or revoked position never changes again.
CREATE TRIGGER lever_positions_transition BEFORE UPDATE OF status ON lever_positions
WHEN NOT ((NEW.status = OLD.status AND OLD.status < 4)
  OR (OLD.status IN (0, 1) AND NEW.status > OLD.status) OR (OLD.status = 2 AND NEW.status IN (3, 4)) OR (OLD.status = 3 AND NEW.status = 4))
BEGIN SELECT RAISE(ABORT, 'state_conflict: lever position'); END;
CREATE TRIGGER lever_positions_frozen_terms BEFORE UPDATE OF user_id, pair_id, currency_id, type, lots, multiple, share_units, quote_price, target_price, margin, fee, hold, fee_bps, overnight_bps, maintenance_bps ON lever_positions
BEGIN SELECT RAISE(ABORT, 'state_conflict: lever position terms are immutable'); END;
CREATE TRIGGER lever_positions_frozen_close BEFORE UPDATE OF close_price, profit, close_fee, close_reason ON lever_positions
WHEN (OLD.close_price IS NOT NULL AND NEW.close_price IS NOT OLD.close_price)
  OR (OLD.profit IS NOT NULL AND NEW.profit IS NOT OLD.profit)
  OR (OLD.close_fee IS NOT NULL AND NEW.close_fee IS NOT OLD.close_fee)
  OR (OLD.close_reason IS NOT NULL AND NEW.close_reason IS NOT OLD.close_reason)
BEGIN SELECT RAISE(ABORT, 'state_conflict: lever position close is immutable'); END;
