-- Invitation rebates (issue #18 §2): settings, the daily settlement's run and its records.
-- Rates are integers in 1/10000 (2000 = 20 %); amounts are integer minimal units (USDT for *_usdt).

-- A binding is for good: no path may change who invited a user, and an operator is never an inviter.
CREATE TRIGGER users_inviter_bound BEFORE UPDATE OF parent_id ON users
WHEN NEW.parent_id IS NOT OLD.parent_id
BEGIN SELECT RAISE(ABORT, 'invite_bound'); END;
CREATE TRIGGER users_inviter_not_operator BEFORE INSERT ON users
WHEN NEW.parent_id IS NOT NULL AND COALESCE((SELECT role FROM users WHERE id = NEW.parent_id), '') <> 'user'
BEGIN SELECT RAISE(ABORT, 'invite_invalid'); END;
CREATE INDEX users_parent ON users(parent_id) WHERE parent_id IS NOT NULL;

-- Rates by the Beijing day they apply from; the row with the greatest effective_from <= a day rules it.
-- agents: JSON [{level, threshold_usdt, extra_rate}] (decimal strings), levels 1..5.
CREATE TABLE invite_settings (
  effective_from TEXT PRIMARY KEY,         -- 'YYYY-MM-DD', Beijing
  l1_rate INTEGER NOT NULL CHECK (l1_rate BETWEEN 0 AND 10000),
  l2_rate INTEGER NOT NULL CHECK (l2_rate BETWEEN 0 AND 10000),
  l3_rate INTEGER NOT NULL CHECK (l3_rate BETWEEN 0 AND 10000),
  agents TEXT NOT NULL,
  updated_by INTEGER,
  updated_at INTEGER NOT NULL
);
INSERT INTO invite_settings (effective_from, l1_rate, l2_rate, l3_rate, agents, updated_by, updated_at) VALUES (
  '2000-01-01', 2000, 500, 200,
  '[{"level":1,"threshold_usdt":"100","extra_rate":"0.005"},{"level":2,"threshold_usdt":"1000","extra_rate":"0.01"},{"level":3,"threshold_usdt":"10000","extra_rate":"0.015"},{"level":4,"threshold_usdt":"50000","extra_rate":"0.02"},{"level":5,"threshold_usdt":"200000","extra_rate":"0.03"}]',
  NULL, 0);

-- Invitees whose binding pays nothing for good: verified with the same identity (document number)
-- as an inviter up their chain. Written in the identity approval's own batch.
CREATE TABLE invite_refusals (
  user_id INTEGER PRIMARY KEY REFERENCES users(id),
  reason TEXT NOT NULL,                    -- 'same_identity'
  created_at INTEGER NOT NULL
);

-- One day's settlement: phases 'fees' (aggregate the day's fee movements by time window), 'lines'
-- (value them and write rebate lines, by invitee), 'pay' (one movement per inviter), then 'done'.
-- The cursor is where the phase stands; every step's batch also inserts its invite_run_steps row,
-- so two invocations working on the same step cannot both commit.
CREATE TABLE invite_runs (
  day TEXT PRIMARY KEY,
  phase TEXT NOT NULL CHECK (phase IN ('fees', 'lines', 'pay', 'done')),
  cursor INTEGER NOT NULL DEFAULT 0,
  step INTEGER NOT NULL DEFAULT 0,
  paid_to TEXT NOT NULL CHECK (paid_to IN ('lever', 'change')),
  l1_rate INTEGER NOT NULL,
  l2_rate INTEGER NOT NULL,
  l3_rate INTEGER NOT NULL,
  agents TEXT NOT NULL,
  inviters_paid INTEGER NOT NULL DEFAULT 0,
  total_paid INTEGER NOT NULL DEFAULT 0,    -- USDT minimal units
  fees_counted INTEGER NOT NULL DEFAULT 0,  -- USDT minimal units
  invocations INTEGER NOT NULL DEFAULT 0,
  statements INTEGER NOT NULL DEFAULT 0,
  started_at INTEGER NOT NULL,
  finished_at INTEGER
);
CREATE TABLE invite_run_steps (
  day TEXT NOT NULL,
  step INTEGER NOT NULL,
  phase TEXT NOT NULL,
  cursor INTEGER NOT NULL,
  at INTEGER NOT NULL,
  PRIMARY KEY (day, step)
);

-- The price fixed for (day, currency) the first time the day is settled: USDT per coin, a decimal string.
CREATE TABLE invite_prices (
  day TEXT NOT NULL,
  currency_id INTEGER NOT NULL,
  price TEXT NOT NULL,
  source TEXT NOT NULL,                    -- 'usdt', 'trade:{pair}:{trade_id}', 'none'
  PRIMARY KEY (day, currency_id)
);

-- The day's fees of invitees (users with an inviter), per product and currency, in its minimal units.
CREATE TABLE invite_fees (
  day TEXT NOT NULL,
  user_id INTEGER NOT NULL,
  product TEXT NOT NULL,
  currency_id INTEGER NOT NULL,
  fee INTEGER NOT NULL,
  PRIMARY KEY (day, user_id, product, currency_id)
);

-- Agent level per (day, inviter), from the 30 settled days before it (only levels >= 1 are stored).
CREATE TABLE invite_agents (
  day TEXT NOT NULL,
  inviter_id INTEGER NOT NULL,
  fees_30d INTEGER NOT NULL,
  level INTEGER NOT NULL CHECK (level BETWEEN 1 AND 5),
  extra_rate INTEGER NOT NULL,
  PRIMARY KEY (day, inviter_id)
);

-- What one invitee's fees of one product on one day paid one inviter.
CREATE TABLE invite_rebates (
  day TEXT NOT NULL,
  inviter_id INTEGER NOT NULL,
  invitee_id INTEGER NOT NULL,
  level INTEGER NOT NULL CHECK (level IN (1, 2, 3)),
  product TEXT NOT NULL,
  fee_usdt INTEGER NOT NULL CHECK (fee_usdt > 0),
  rate INTEGER NOT NULL,                   -- level rate + agent extra, 1/10000
  agent_rate INTEGER NOT NULL DEFAULT 0,
  amount INTEGER NOT NULL CHECK (amount >= 0),
  paid_to TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (day, inviter_id, invitee_id, level, product)
);
CREATE INDEX invite_rebates_inviter ON invite_rebates(inviter_id, day);

-- The settlement reads one day's spot trades by time.
CREATE INDEX spot_trades_time ON spot_trades(created_at);
-- ... and one day's fee rows of the ledger (the fee account, user 0) by time.
CREATE INDEX ledger_fees_time ON ledger(created_at) WHERE user_id = 0;
