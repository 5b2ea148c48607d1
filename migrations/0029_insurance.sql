-- Contract-asset cover, the spec's insurance (issue #19 §4; spec §9; worker/domain/insurance/).
--
-- No new wallet account. A cover insures the user's seconds (`micro`) account:
--   * buying pays the premium from the user's spot (`change`) account to the treasury and, in the
--     SAME movement, freezes the full cover in the treasury (user -3, `change`): no cover is sold
--     that is not reserved (the treasury trigger of 0005 refuses an overdraft);
--   * a paid claim moves that frozen cover to the user's `micro` account; an ended cover (reached
--     +100 %, or its end date) releases it to the treasury. Both are keyed `insurance:{id}:settle`,
--     so at most one of them ever applies.
-- The treasury's frozen cover is explained by exactly these rows (worker/domain/insurance/product.ts):
--   insurance_covers.cover   while status is 0 (bought) or 1 (claim queued)
--
-- Every state change is an UPDATE guarded on the state it read, followed in the same D1 batch by a
-- row in insurance_guards holding changes() of that UPDATE: an UPDATE that matched nothing aborts
-- the whole batch (movement included), so a stale read can never move money.

CREATE TABLE insurance_guards (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  changed INTEGER NOT NULL,
  what TEXT NOT NULL
);
CREATE TRIGGER insurance_guards_check BEFORE INSERT ON insurance_guards
WHEN NEW.changed != 1
BEGIN SELECT RAISE(ABORT, 'insurance_conflict'); END;
CREATE TRIGGER insurance_guards_forget AFTER INSERT ON insurance_guards
BEGIN DELETE FROM insurance_guards WHERE id = NEW.id; END;

-- Plans published by operators. Amounts in minimal units of the currency; rates in basis points.
-- amounts: JSON array of the insured amounts offered, decimal strings (e.g. ["100","500"]).
-- cover_bps ≤ 5000: a claim needs a loss of half the insured amount, so a payout never exceeds the
-- loss it answers. capacity: the most cover the plan may hold reserved at once ("quota").
-- premiums / paid: running totals, published (GET /api/insurance/plans).
CREATE TABLE insurance_plans (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  name TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 60),
  currency_id INTEGER NOT NULL REFERENCES currencies(id),
  amounts TEXT NOT NULL CHECK (json_valid(amounts)),
  premium_bps INTEGER NOT NULL CHECK (premium_bps BETWEEN 1 AND 10000),
  cover_bps INTEGER NOT NULL CHECK (cover_bps BETWEEN 1 AND 5000),
  days INTEGER NOT NULL CHECK (days BETWEEN 1 AND 365),
  capacity INTEGER NOT NULL CHECK (capacity > 0 AND capacity <= 9007199254740991),
  reserved INTEGER NOT NULL DEFAULT 0 CHECK (reserved >= 0),
  premiums INTEGER NOT NULL DEFAULT 0 CHECK (premiums >= 0),
  paid INTEGER NOT NULL DEFAULT 0 CHECK (paid >= 0),
  sold INTEGER NOT NULL DEFAULT 0 CHECK (sold >= 0),
  claims INTEGER NOT NULL DEFAULT 0 CHECK (claims >= 0),
  status INTEGER NOT NULL DEFAULT 1 CHECK (status IN (0, 1)),   -- 1 on sale, 0 closed
  created_by INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL,
  closed_by INTEGER,
  closed_at INTEGER,
  close_reason TEXT NOT NULL DEFAULT ''
);
-- What a plan promised is never edited (covers sold on it keep their own copy anyway).
CREATE TRIGGER insurance_plans_terms BEFORE UPDATE OF name, currency_id, amounts, premium_bps, cover_bps, days, capacity, created_by, created_at ON insurance_plans
BEGIN SELECT RAISE(ABORT, 'state_conflict: insurance plan terms are immutable'); END;
-- Closing is final.
CREATE TRIGGER insurance_plans_close BEFORE UPDATE OF status ON insurance_plans
WHEN NOT (NEW.status = OLD.status OR (OLD.status = 1 AND NEW.status = 0))
BEGIN SELECT RAISE(ABORT, 'state_conflict: insurance plan'); END;
-- The quota: parallel purchases cannot reserve more than the plan's capacity.
CREATE TRIGGER insurance_plans_quota BEFORE UPDATE OF reserved ON insurance_plans
WHEN NEW.reserved > NEW.capacity
BEGIN SELECT RAISE(ABORT, 'insurance_sold_out'); END;

-- Covers. status: 0 bought (pending until start_at, then active), 1 claim queued (the day's two
-- payouts were made; paid T+1 by the cron), 2 paid, 3 ended (end_reason 'profit' or 'expired').
-- id is chosen by the worker (time-ordered) because movement keys carry it.
CREATE TABLE insurance_covers (
  id INTEGER PRIMARY KEY,
  plan_id INTEGER NOT NULL REFERENCES insurance_plans(id),
  user_id INTEGER NOT NULL REFERENCES users(id),
  currency_id INTEGER NOT NULL REFERENCES currencies(id),
  insured INTEGER NOT NULL CHECK (insured > 0 AND insured <= 9007199254740991),
  premium INTEGER NOT NULL CHECK (premium >= 0),
  cover INTEGER NOT NULL CHECK (cover > 0),
  start_at INTEGER NOT NULL,
  end_at INTEGER NOT NULL CHECK (end_at > start_at),
  status INTEGER NOT NULL DEFAULT 0 CHECK (status IN (0, 1, 2, 3)),
  end_reason TEXT NOT NULL DEFAULT '' CHECK (end_reason IN ('', 'profit', 'expired')),
  claimed_at INTEGER,
  claim_day TEXT,
  paid_at INTEGER,
  ended_at INTEGER,
  checked_at INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL
);
-- "Already bought": one live cover per user and plan, whatever races.
CREATE UNIQUE INDEX insurance_covers_live ON insurance_covers(user_id, plan_id) WHERE status IN (0, 1);
CREATE INDEX insurance_covers_user ON insurance_covers(user_id, id);
CREATE INDEX insurance_covers_status ON insurance_covers(status, checked_at);
-- Forward only: 0 → 1 | 2 | 3, 1 → 2. Paid and ended never change again.
CREATE TRIGGER insurance_covers_transition BEFORE UPDATE OF status ON insurance_covers
WHEN NOT (NEW.status = OLD.status AND OLD.status IN (0, 1)
  OR (OLD.status = 0 AND NEW.status IN (1, 2, 3)) OR (OLD.status = 1 AND NEW.status = 2))
BEGIN SELECT RAISE(ABORT, 'insurance_conflict'); END;
CREATE TRIGGER insurance_covers_terms BEFORE UPDATE OF plan_id, user_id, currency_id, insured, premium, cover, start_at, end_at, created_at ON insurance_covers
BEGIN SELECT RAISE(ABORT, 'state_conflict: insurance cover terms are immutable'); END;

-- Each user's last claim: the loss a claim answers is counted from the later of the cover's start
-- and this moment, so one loss is never paid twice by two covers. A claim moves it with a guarded
-- UPDATE: of two parallel claims only one passes.
CREATE TABLE insurance_claimants (
  user_id INTEGER PRIMARY KEY REFERENCES users(id),
  last_claim_at INTEGER NOT NULL
);

-- Payouts per user and UTC day: at most two (spec §9); a third claim is queued and paid T+1.
CREATE TABLE insurance_payout_days (
  user_id INTEGER NOT NULL REFERENCES users(id),
  day TEXT NOT NULL,
  payouts INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (user_id, day)
);
CREATE TRIGGER insurance_payout_days_limit BEFORE UPDATE OF payouts ON insurance_payout_days
WHEN NEW.payouts > 2
BEGIN SELECT RAISE(ABORT, 'insurance_day_limit'); END;
