-- Mining plans: shares of real, named hashrate (issue #20 §1; worker/domain/mining/).
--
-- No new wallet account. A share's price is paid from the buyer's spot account (`change`) to the
-- treasury (-3). Pool payouts are recorded by one operator (amount + evidence) and approved by a
-- second, different one; approval freezes the amount in the treasury's `change` account in the
-- payout currency ("whoever pays holds it first"). The hourly cron pays it out pro rata to the
-- shares held during that hour, minus the plan's stated fee, and releases the rest (fees, the
-- unsold shares' part, rounding) back to the treasury. The only hold, explained by
-- worker/domain/mining/product.ts:
--   the treasury (-3), payout currency, change   mining_payouts.amount - credited   while status = 'approved'
-- Amounts are INTEGER minimal units of their currency; times epoch milliseconds; an hour is
-- named by its start (a multiple of 3,600,000 ms, UTC).

-- Statement guard: `INSERT INTO mining_guards (changed, what) VALUES (changes(), '...')` right
-- after a guarded UPDATE aborts the batch unless that UPDATE changed exactly one row.
CREATE TABLE mining_guards (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  changed INTEGER NOT NULL,
  what TEXT NOT NULL
);
CREATE TRIGGER mining_guards_check BEFORE INSERT ON mining_guards
WHEN NEW.changed != 1
BEGIN SELECT RAISE(ABORT, 'mining_conflict'); END;
CREATE TRIGGER mining_guards_forget AFTER INSERT ON mining_guards
BEGIN DELETE FROM mining_guards WHERE id = NEW.id; END;

-- A plan: the stated terms. status: open (on sale) → closed (no new shares; holdings run on).
CREATE TABLE mining_plans (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  pool TEXT NOT NULL,
  pool_account TEXT NOT NULL,
  worker TEXT NOT NULL,
  -- the stated total hashrate with its unit, e.g. "100 TH/s" (what all `shares` together are)
  hashrate TEXT NOT NULL,
  shares INTEGER NOT NULL CHECK (shares > 0 AND shares <= 100000000),
  sold INTEGER NOT NULL DEFAULT 0 CHECK (sold >= 0),
  price_currency_id INTEGER NOT NULL REFERENCES currencies(id),
  price INTEGER NOT NULL CHECK (price > 0 AND price <= 9007199254740991),
  days INTEGER NOT NULL CHECK (days BETWEEN 1 AND 3650),
  -- the stated fee, basis points of each payout, and any other stated fee (text, shown as written)
  fee_bps INTEGER NOT NULL CHECK (fee_bps BETWEEN 0 AND 10000),
  other_fees TEXT NOT NULL DEFAULT '',
  payout_currency_id INTEGER NOT NULL REFERENCES currencies(id),
  status TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'closed')),
  created_by INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  closed_by INTEGER,
  closed_at INTEGER,
  close_reason TEXT NOT NULL DEFAULT '',
  CHECK (sold <= shares)
);

-- Shares sold never pass the plan's shares (by name: a CHECK would read as an overdraft).
CREATE TRIGGER mining_plans_sold_out BEFORE UPDATE OF sold ON mining_plans
WHEN NEW.sold > NEW.shares
BEGIN SELECT RAISE(ABORT, 'mining_sold_out'); END;

-- Shares are sold only while the plan is open (a buy racing the close is refused whole).
CREATE TRIGGER mining_plans_sell_open BEFORE UPDATE OF sold ON mining_plans
WHEN NEW.sold > OLD.sold AND OLD.status != 'open'
BEGIN SELECT RAISE(ABORT, 'mining_plan_closed'); END;

-- The stated terms never change.
CREATE TRIGGER mining_plans_terms BEFORE UPDATE OF name, pool, pool_account, worker, hashrate, shares, price_currency_id, price, days, fee_bps, other_fees, payout_currency_id, created_by, created_at ON mining_plans
BEGIN SELECT RAISE(ABORT, 'state_conflict: mining plan terms are immutable'); END;

CREATE TRIGGER mining_plans_close BEFORE UPDATE OF status ON mining_plans
WHEN NOT (OLD.status = 'open' AND NEW.status = 'closed')
BEGIN SELECT RAISE(ABORT, 'state_conflict: mining plan'); END;

-- A purchase (the spec's mining order): its shares count for every hour that starts at or after
-- start_at and before end_at (start_at + the plan's days). Movement `mining:{id}:buy`.
CREATE TABLE mining_holdings (
  id INTEGER PRIMARY KEY,
  plan_id INTEGER NOT NULL REFERENCES mining_plans(id),
  user_id INTEGER NOT NULL REFERENCES users(id),
  shares INTEGER NOT NULL CHECK (shares > 0),
  cost INTEGER NOT NULL CHECK (cost > 0),
  start_at INTEGER NOT NULL,
  end_at INTEGER NOT NULL CHECK (end_at > start_at),
  created_at INTEGER NOT NULL
);
CREATE INDEX mining_holdings_user ON mining_holdings(user_id, id);
CREATE INDEX mining_holdings_plan ON mining_holdings(plan_id, start_at, end_at);

CREATE TRIGGER mining_holdings_immutable BEFORE UPDATE ON mining_holdings
BEGIN SELECT RAISE(ABORT, 'state_conflict: a mining holding never changes'); END;

-- What the pool paid for one plan and one hour. status: recorded → approved (a second operator;
-- the amount frozen in the treasury) → paid (the cron), or recorded → rejected. One live record
-- per (plan, hour): a rejected one may be recorded again.
CREATE TABLE mining_payouts (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  plan_id INTEGER NOT NULL REFERENCES mining_plans(id),
  hour INTEGER NOT NULL CHECK (hour % 3600000 = 0),
  currency_id INTEGER NOT NULL REFERENCES currencies(id),
  amount INTEGER NOT NULL CHECK (amount > 0 AND amount <= 9007199254740991),
  evidence TEXT NOT NULL CHECK (length(evidence) > 0),
  status TEXT NOT NULL DEFAULT 'recorded' CHECK (status IN ('recorded', 'approved', 'rejected', 'paid')),
  recorded_by INTEGER NOT NULL,
  recorded_at INTEGER NOT NULL,
  record_reason TEXT NOT NULL,
  decided_by INTEGER,
  decided_at INTEGER,
  decide_reason TEXT NOT NULL DEFAULT '',
  -- Σ of the gross shares credited to users so far (their net + the fee on it), and Σ of those fees
  credited INTEGER NOT NULL DEFAULT 0 CHECK (credited >= 0 AND credited <= amount),
  fees INTEGER NOT NULL DEFAULT 0 CHECK (fees >= 0 AND fees <= credited),
  holders INTEGER NOT NULL DEFAULT 0,
  -- shares held in the hour (set when paid)
  held INTEGER NOT NULL DEFAULT 0,
  paid_at INTEGER
);
CREATE UNIQUE INDEX mining_payouts_plan_hour ON mining_payouts(plan_id, hour) WHERE status != 'rejected';
CREATE INDEX mining_payouts_status ON mining_payouts(status, hour);
CREATE INDEX mining_payouts_plan ON mining_payouts(plan_id, hour DESC);

CREATE TRIGGER mining_payouts_transition BEFORE UPDATE OF status ON mining_payouts
WHEN NOT ((OLD.status = 'recorded' AND NEW.status IN ('approved', 'rejected'))
       OR (OLD.status = 'approved' AND NEW.status = 'paid'))
BEGIN SELECT RAISE(ABORT, 'state_conflict: mining payout'); END;

-- The recorder never decides their own record.
CREATE TRIGGER mining_payouts_second BEFORE UPDATE OF decided_by ON mining_payouts
WHEN NEW.decided_by = OLD.recorded_by
BEGIN SELECT RAISE(ABORT, 'self_review'); END;

CREATE TRIGGER mining_payouts_terms BEFORE UPDATE OF plan_id, hour, currency_id, amount, evidence, recorded_by, recorded_at ON mining_payouts
BEGIN SELECT RAISE(ABORT, 'state_conflict: a recorded payout never changes'); END;

-- Money moves only for an approved record.
CREATE TRIGGER mining_payouts_credit BEFORE UPDATE OF credited ON mining_payouts
WHEN OLD.status != 'approved'
BEGIN SELECT RAISE(ABORT, 'mining_conflict'); END;

-- One credit per (payout, user): the pay movement `mining:{plan}:{hour}:{user}` carries the same.
CREATE TABLE mining_credits (
  payout_id INTEGER NOT NULL REFERENCES mining_payouts(id),
  user_id INTEGER NOT NULL REFERENCES users(id),
  plan_id INTEGER NOT NULL,
  hour INTEGER NOT NULL,
  currency_id INTEGER NOT NULL,
  shares INTEGER NOT NULL CHECK (shares > 0),
  gross INTEGER NOT NULL CHECK (gross >= 0),
  fee INTEGER NOT NULL CHECK (fee >= 0 AND fee <= gross),
  created_at INTEGER NOT NULL,
  PRIMARY KEY (payout_id, user_id)
);
CREATE INDEX mining_credits_user ON mining_credits(user_id, hour DESC);
