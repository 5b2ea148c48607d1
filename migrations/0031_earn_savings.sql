-- Earn: savings (issue #19 §1; worker/domain/earn/). No new wallet account: a user's principal is
-- frozen in their own spot (`change`) account while the position is open, and a product's interest
-- budget is frozen in the treasury's (user -3) `change` account from the moment the product is
-- created. worker/domain/earn/product.ts explains both to the reconciler:
--   user      SUM(earn_positions.amount)                     of open positions (status 1)
--   treasury  SUM(budget - paid - released) of earn_products  (the part of the budget not yet paid
--             out nor handed back to the treasury)
-- Amounts are INTEGER minimal units of the product's currency, kept below 2^53.
--
-- The budget is split by `reserved` (interest promised to open positions, not yet paid), `paid`
-- (interest paid) and `released` (given back to the treasury when the product closed); the rest is
-- what new subscriptions can still be promised. The CHECK `earn_budget` makes the database refuse
-- any promise the budget cannot cover, whatever races reach it.

-- Statement guard (as c2c_guards): `INSERT INTO earn_guards (changed, what) VALUES (changes(), '...')`
-- right after a guarded UPDATE aborts the whole batch unless that UPDATE changed exactly one row.
CREATE TABLE earn_guards (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  changed INTEGER NOT NULL,
  what TEXT NOT NULL
);
CREATE TRIGGER earn_guards_check BEFORE INSERT ON earn_guards
WHEN NEW.changed != 1
BEGIN SELECT RAISE(ABORT, 'state_conflict: earn guard'); END;
CREATE TRIGGER earn_guards_forget AFTER INSERT ON earn_guards
BEGIN DELETE FROM earn_guards WHERE id = NEW.id; END;

-- Products, set by operators. term_days 0 = flexible. apr_bps: basis points (525 = 5.25 % a year).
-- id is chosen by the worker (time-ordered) because the funding movement's key carries it.
-- status: 1 open (takes subscriptions), 2 closed (takes none; open positions run to their end).
CREATE TABLE earn_products (
  id INTEGER PRIMARY KEY,
  currency_id INTEGER NOT NULL REFERENCES currencies(id),
  term_days INTEGER NOT NULL CHECK (term_days IN (0, 7, 30, 90)),
  apr_bps INTEGER NOT NULL CHECK (apr_bps BETWEEN 1 AND 10000),
  min_amount INTEGER NOT NULL CHECK (min_amount > 0),
  max_amount INTEGER NOT NULL CHECK (max_amount >= min_amount AND max_amount <= 9007199254740991),
  budget INTEGER NOT NULL CHECK (budget > 0 AND budget <= 9007199254740991),
  reserved INTEGER NOT NULL DEFAULT 0,
  paid INTEGER NOT NULL DEFAULT 0,
  released INTEGER NOT NULL DEFAULT 0,
  status INTEGER NOT NULL DEFAULT 1 CHECK (status IN (1, 2)),
  created_by INTEGER NOT NULL REFERENCES users(id),
  created_at INTEGER NOT NULL,
  closed_by INTEGER REFERENCES users(id),
  closed_at INTEGER,
  CONSTRAINT earn_budget CHECK (reserved >= 0 AND paid >= 0 AND released >= 0 AND reserved + paid + released <= budget)
);
CREATE INDEX earn_products_status ON earn_products (status, id);

-- A product's terms never change once published, and a closed product never reopens.
CREATE TRIGGER earn_products_terms BEFORE UPDATE ON earn_products
WHEN NEW.currency_id != OLD.currency_id OR NEW.term_days != OLD.term_days OR NEW.apr_bps != OLD.apr_bps
  OR NEW.min_amount != OLD.min_amount OR NEW.max_amount != OLD.max_amount OR NEW.budget != OLD.budget
  OR (OLD.status = 2 AND NEW.status != 2)
BEGIN SELECT RAISE(ABORT, 'state_conflict: earn product terms are fixed'); END;

-- Positions. A position copies its product's terms. `daily` = amount × apr_bps / (10000 × 365),
-- rounded down to the unit. `reserved`: interest promised to it and not yet paid (fixed: daily ×
-- term; flexible: the next 30 days, renewed day by day while the budget lasts). `earned`: interest
-- accrued so far; `paid`: the part of it paid (flexible: every day; fixed: at maturity, or never
-- when redeemed early). `days`: interest days accrued, counted from `first_day` (the UTC day after
-- the subscription). status: 1 open, 2 redeemed, 3 matured.
CREATE TABLE earn_positions (
  id INTEGER PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id),
  product_id INTEGER NOT NULL REFERENCES earn_products(id),
  currency_id INTEGER NOT NULL REFERENCES currencies(id),
  term_days INTEGER NOT NULL,
  apr_bps INTEGER NOT NULL,
  amount INTEGER NOT NULL CHECK (amount > 0 AND amount <= 9007199254740991),
  daily INTEGER NOT NULL CHECK (daily >= 0),
  reserved INTEGER NOT NULL CHECK (reserved >= 0),
  earned INTEGER NOT NULL DEFAULT 0 CHECK (earned >= 0),
  paid INTEGER NOT NULL DEFAULT 0 CHECK (paid >= 0 AND paid <= earned),
  days INTEGER NOT NULL DEFAULT 0 CHECK (days >= 0),
  first_day TEXT NOT NULL,
  status INTEGER NOT NULL DEFAULT 1 CHECK (status IN (1, 2, 3)),
  created_at INTEGER NOT NULL,
  closed_at INTEGER,
  CHECK (term_days = 0 OR days <= term_days)
);
CREATE INDEX earn_positions_user ON earn_positions (user_id, id);
CREATE INDEX earn_positions_open ON earn_positions (status, product_id, user_id) WHERE status = 1;

-- Subscriptions only to an open product, and never beyond its per-user maximum (the sum of one's
-- open positions in it): D1 runs one batch at a time, so parallel subscriptions cannot both pass.
CREATE TRIGGER earn_positions_subscribe BEFORE INSERT ON earn_positions
BEGIN
  SELECT RAISE(ABORT, 'earn_closed') WHERE (SELECT status FROM earn_products WHERE id = NEW.product_id) IS NOT 1;
  SELECT RAISE(ABORT, 'earn_user_max')
   WHERE (SELECT COALESCE(SUM(amount), 0) FROM earn_positions WHERE user_id = NEW.user_id AND product_id = NEW.product_id AND status = 1) + NEW.amount
         > (SELECT max_amount FROM earn_products WHERE id = NEW.product_id);
END;

-- A position ends once (open → redeemed or matured), and its principal and terms never change.
CREATE TRIGGER earn_positions_state BEFORE UPDATE ON earn_positions
WHEN OLD.status != 1 OR NEW.amount != OLD.amount OR NEW.daily != OLD.daily OR NEW.user_id != OLD.user_id
  OR NEW.product_id != OLD.product_id OR NEW.term_days != OLD.term_days OR NEW.apr_bps != OLD.apr_bps
BEGIN SELECT RAISE(ABORT, 'state_conflict: earn position'); END;

-- One row per (position, interest day): the daily cron accrues each day of each position exactly
-- once (a second run, a retry or two runs at once hit the key), and only while it is open.
CREATE TABLE earn_accruals (
  position_id INTEGER NOT NULL REFERENCES earn_positions(id),
  day TEXT NOT NULL,
  amount INTEGER NOT NULL CHECK (amount >= 0),
  created_at INTEGER NOT NULL,
  PRIMARY KEY (position_id, day)
) WITHOUT ROWID;
CREATE TRIGGER earn_accruals_open BEFORE INSERT ON earn_accruals
WHEN (SELECT status FROM earn_positions WHERE id = NEW.position_id) IS NOT 1
BEGIN SELECT RAISE(ABORT, 'state_conflict: earn position not open'); END;
