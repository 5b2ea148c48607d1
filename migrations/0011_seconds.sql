-- Seconds contracts (issue #9 §4, DESIGN §7): the duration options, the currencies a contract may
-- be paid in with their limits, and the contracts themselves.
--
-- Nothing here can choose an outcome: options and limits apply to contracts accepted AFTER an
-- edit (each contract copies its ratio, fee and hold when it is accepted), and a contract's
-- terms and result are immutable once written (triggers below). The result is computed by the
-- pair object from the public index ticks only.

-- Durations offered (spec: seconds + profit ratio + status). Ratios in basis points: 8500 = 85 %.
CREATE TABLE seconds_options (
  seconds INTEGER PRIMARY KEY CHECK (seconds BETWEEN 1 AND 86400),
  profit_ratio_bps INTEGER NOT NULL CHECK (profit_ratio_bps BETWEEN 1 AND 10000),
  status INTEGER NOT NULL DEFAULT 1 CHECK (status IN (0, 1)),   -- 1 offered, 0 withdrawn
  updated_at INTEGER NOT NULL DEFAULT 0
);
-- Honest ratios: a win pays less than a loss costs, which is the house's edge, stated up front.
INSERT INTO seconds_options (seconds, profit_ratio_bps) VALUES (30, 8000), (60, 8200), (120, 8500), (300, 8800);

-- Currencies a contract may be paid in. Amounts are decimal strings in coin units (like the
-- withdrawal fee table): the amount choices, the stake bounds, and the most the house may hold
-- for open contracts per pair and per user (exposure limits, counted in maximum payouts).
CREATE TABLE micro_currencies (
  currency_id INTEGER PRIMARY KEY,
  micro_numbers TEXT NOT NULL,             -- JSON array of decimal strings, e.g. ["10","50"]
  min_number TEXT NOT NULL,
  max_number TEXT NOT NULL,
  fee_bps INTEGER NOT NULL DEFAULT 200 CHECK (fee_bps BETWEEN 0 AND 1000),
  pair_exposure TEXT NOT NULL,
  user_exposure TEXT NOT NULL,
  status INTEGER NOT NULL DEFAULT 1 CHECK (status IN (0, 1)),
  updated_at INTEGER NOT NULL DEFAULT 0
);
INSERT INTO micro_currencies (currency_id, micro_numbers, min_number, max_number, fee_bps, pair_exposure, user_exposure) VALUES
  (3, '["10","50","100","500","1000"]', '1', '5000', 200, '200000', '20000');

-- Contracts. status: 0 held (money frozen in D1, not yet accepted by the pair object),
-- 1 trading, 2 settling, 3 settled, 4 revoked (refused after its money was held; all returned).
-- Amounts are integer minimal units of the payable currency; prices are the pair's price ticks.
CREATE TABLE micro_orders (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  user_id INTEGER NOT NULL REFERENCES users(id),
  pair_id INTEGER NOT NULL,
  currency_id INTEGER NOT NULL,
  type INTEGER NOT NULL CHECK (type IN (1, 2)),          -- 1 up, 2 down
  stake INTEGER NOT NULL CHECK (stake > 0 AND stake <= 9007199254740991),
  fee INTEGER NOT NULL CHECK (fee >= 0),
  hold INTEGER NOT NULL CHECK (hold >= 0),                -- the house's hold: the maximum payout
  seconds INTEGER NOT NULL CHECK (seconds > 0),
  profit_ratio_bps INTEGER NOT NULL,
  open_tick_id INTEGER,
  open_price INTEGER,
  end_tick_id INTEGER,
  end_price INTEGER,
  result INTEGER,                                         -- + win / − stake, set at settlement
  status INTEGER NOT NULL DEFAULT 0 CHECK (status BETWEEN 0 AND 4),
  client_oid TEXT,
  created_at INTEGER NOT NULL,
  end_at INTEGER,
  settled_at INTEGER,
  UNIQUE (user_id, client_oid)
);
CREATE INDEX micro_orders_user ON micro_orders(user_id, id);
CREATE INDEX micro_orders_status ON micro_orders(status, created_at);
-- Forward only: 0 → 1 | 3 | 4, 1 → 2 | 3, 2 → 3 (a settlement may reach D1 before the acceptance
-- note does). A settled or revoked contract never changes again.
CREATE TRIGGER micro_orders_transition BEFORE UPDATE OF status ON micro_orders
WHEN NOT ((NEW.status = OLD.status AND OLD.status < 3)
  OR (OLD.status = 0 AND NEW.status IN (1, 3, 4)) OR (OLD.status = 1 AND NEW.status IN (2, 3)) OR (OLD.status = 2 AND NEW.status = 3))
BEGIN SELECT RAISE(ABORT, 'state_conflict: micro order'); END;
-- The terms a contract was accepted on are never edited.
CREATE TRIGGER micro_orders_frozen_terms BEFORE UPDATE OF user_id, pair_id, currency_id, type, stake, fee, hold, seconds, profit_ratio_bps ON micro_orders
BEGIN SELECT RAISE(ABORT, 'state_conflict: micro order terms are immutable'); END;
-- Entry and result, once written, stay.
CREATE TRIGGER micro_orders_frozen_result BEFORE UPDATE OF open_tick_id, open_price, end_tick_id, end_price, result ON micro_orders
WHEN (OLD.open_tick_id IS NOT NULL AND NEW.open_tick_id IS NOT OLD.open_tick_id)
  OR (OLD.open_price IS NOT NULL AND NEW.open_price IS NOT OLD.open_price)
  OR (OLD.end_tick_id IS NOT NULL AND NEW.end_tick_id IS NOT OLD.end_tick_id)
  OR (OLD.end_price IS NOT NULL AND NEW.end_price IS NOT OLD.end_price)
  OR (OLD.result IS NOT NULL AND NEW.result IS NOT OLD.result)
BEGIN SELECT RAISE(ABORT, 'state_conflict: micro order result is immutable'); END;
