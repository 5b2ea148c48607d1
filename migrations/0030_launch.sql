-- Launch subscriptions and locked positions (issue #19 §2; worker/domain/launch/).
--
-- No new wallet account. Every hold is explained by worker/domain/launch/product.ts:
--   the treasury (-3), token, change   launch_projects.supply - Σ allocated, while published and not finished
--   a committer, payment currency       launch_subscriptions.amount            while status = 'committed'
--   a committer, token (locked)         launch_subscriptions.alloc - claimed   while status = 'allocated'
-- Amounts are INTEGER minimal units of their currency; prices are minimal units of the payment
-- currency per one whole token.

-- Statement guard: `INSERT INTO launch_guards (changed, what) VALUES (changes(), '...')` right
-- after a guarded UPDATE aborts the batch unless that UPDATE changed exactly one row.
CREATE TABLE launch_guards (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  changed INTEGER NOT NULL,
  what TEXT NOT NULL
);
CREATE TRIGGER launch_guards_check BEFORE INSERT ON launch_guards
WHEN NEW.changed != 1
BEGIN SELECT RAISE(ABORT, 'state_conflict: launch guard'); END;
CREATE TRIGGER launch_guards_forget AFTER INSERT ON launch_guards
BEGIN DELETE FROM launch_guards WHERE id = NEW.id; END;

-- status: draft (created, nothing reserved) → open (published: supply frozen in the treasury;
-- commits between start_at and end_at) → allocating (window over: the cron settles each
-- subscription) → done; draft/open → cancelling (every commitment refunded in full) → cancelled.
CREATE TABLE launch_projects (
  id INTEGER PRIMARY KEY,
  title TEXT NOT NULL,
  token_id INTEGER NOT NULL REFERENCES currencies(id),
  supply INTEGER NOT NULL CHECK (supply > 0 AND supply <= 9007199254740991),
  cap INTEGER NOT NULL CHECK (cap > 0 AND cap <= supply),
  start_at INTEGER NOT NULL,
  end_at INTEGER NOT NULL CHECK (end_at > start_at),
  cliff_days INTEGER NOT NULL CHECK (cliff_days BETWEEN 0 AND 3650),
  vest_days INTEGER NOT NULL CHECK (vest_days BETWEEN 0 AND 3650),
  -- 0: linear (by the second) over vest_days after the cliff; n > 0: n equal steps over vest_days.
  vest_steps INTEGER NOT NULL DEFAULT 0 CHECK (vest_steps BETWEEN 0 AND 120),
  listing_note TEXT NOT NULL DEFAULT '',
  status TEXT NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'open', 'allocating', 'done', 'cancelling', 'cancelled')),
  -- Σ of every subscription's demand (token units it would buy at its price), fixed once the window closes.
  total_demand INTEGER,
  created_by INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  published_at INTEGER,
  finished_at INTEGER
);
CREATE INDEX launch_projects_status ON launch_projects(status, end_at);

CREATE TRIGGER launch_projects_transition BEFORE UPDATE OF status ON launch_projects
WHEN NOT ((OLD.status = 'draft' AND NEW.status IN ('open', 'cancelling'))
       OR (OLD.status = 'open' AND NEW.status IN ('allocating', 'cancelling'))
       OR (OLD.status = 'allocating' AND NEW.status = 'done')
       OR (OLD.status = 'cancelling' AND NEW.status = 'cancelled'))
BEGIN SELECT RAISE(ABORT, 'state_conflict: launch project'); END;

-- The published terms never change.
CREATE TRIGGER launch_projects_terms BEFORE UPDATE OF token_id, supply, cap, start_at, end_at, cliff_days, vest_days, vest_steps ON launch_projects
WHEN OLD.status != 'draft'
BEGIN SELECT RAISE(ABORT, 'state_conflict: launch terms are immutable'); END;

-- One price per accepted currency (USDT, BTC, ETH).
CREATE TABLE launch_prices (
  project_id INTEGER NOT NULL REFERENCES launch_projects(id),
  currency_id INTEGER NOT NULL REFERENCES currencies(id),
  price INTEGER NOT NULL CHECK (price > 0 AND price <= 9007199254740991),
  -- the most one user may commit in this currency: the cap's cost, cap × price rounded down
  max_amount INTEGER NOT NULL CHECK (max_amount > 0 AND max_amount <= 9007199254740991),
  PRIMARY KEY (project_id, currency_id)
);

-- One subscription per (project, user), in one currency; each commit adds to it.
-- status: committed (amount frozen) → allocated (cost paid, rest refunded, alloc locked) or refunded.
CREATE TABLE launch_subscriptions (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  project_id INTEGER NOT NULL REFERENCES launch_projects(id),
  user_id INTEGER NOT NULL REFERENCES users(id),
  currency_id INTEGER NOT NULL REFERENCES currencies(id),
  amount INTEGER NOT NULL CHECK (amount > 0),
  max_amount INTEGER NOT NULL,
  status TEXT NOT NULL DEFAULT 'committed' CHECK (status IN ('committed', 'allocated', 'refunded')),
  alloc INTEGER NOT NULL DEFAULT 0 CHECK (alloc >= 0),
  cost INTEGER NOT NULL DEFAULT 0 CHECK (cost >= 0 AND cost <= amount),
  refund INTEGER NOT NULL DEFAULT 0 CHECK (refund >= 0),
  claimed INTEGER NOT NULL DEFAULT 0 CHECK (claimed >= 0 AND claimed <= alloc),
  created_at INTEGER NOT NULL,
  settled_at INTEGER,
  UNIQUE (project_id, user_id),
  CHECK (amount <= max_amount),
  CHECK (status = 'committed' OR cost + refund = amount)
);
CREATE INDEX launch_subscriptions_user ON launch_subscriptions(user_id, id);
CREATE INDEX launch_subscriptions_settle ON launch_subscriptions(project_id, status);

-- The per-user cap, by name (a CHECK would read as an overdraft).
CREATE TRIGGER launch_subscriptions_cap_insert BEFORE INSERT ON launch_subscriptions
WHEN NEW.amount > NEW.max_amount
BEGIN SELECT RAISE(ABORT, 'launch_cap'); END;
CREATE TRIGGER launch_subscriptions_cap_update BEFORE UPDATE OF amount ON launch_subscriptions
WHEN NEW.amount > NEW.max_amount
BEGIN SELECT RAISE(ABORT, 'launch_cap'); END;

-- Commits only while the project is open: a commit racing the window's close is refused whole.
CREATE TRIGGER launch_subscriptions_open_insert BEFORE INSERT ON launch_subscriptions
WHEN (SELECT status FROM launch_projects WHERE id = NEW.project_id) IS NOT 'open'
BEGIN SELECT RAISE(ABORT, 'launch_closed'); END;
CREATE TRIGGER launch_subscriptions_open_update BEFORE UPDATE OF amount ON launch_subscriptions
WHEN (SELECT status FROM launch_projects WHERE id = NEW.project_id) IS NOT 'open' OR OLD.status != 'committed'
BEGIN SELECT RAISE(ABORT, 'launch_closed'); END;

-- A subscription stays in the currency of its first commit.
CREATE TRIGGER launch_subscriptions_currency BEFORE UPDATE OF currency_id ON launch_subscriptions
WHEN NEW.currency_id != OLD.currency_id
BEGIN SELECT RAISE(ABORT, 'launch_currency_fixed'); END;

CREATE TRIGGER launch_subscriptions_settle BEFORE UPDATE OF status ON launch_subscriptions
WHEN NOT (OLD.status = 'committed' AND NEW.status IN ('allocated', 'refunded'))
BEGIN SELECT RAISE(ABORT, 'state_conflict: launch subscription'); END;

-- Each commit, as it was made (history; the subscription holds the sum).
CREATE TABLE launch_commits (
  id INTEGER PRIMARY KEY,
  movement_key TEXT NOT NULL UNIQUE,
  project_id INTEGER NOT NULL REFERENCES launch_projects(id),
  user_id INTEGER NOT NULL REFERENCES users(id),
  currency_id INTEGER NOT NULL REFERENCES currencies(id),
  amount INTEGER NOT NULL CHECK (amount > 0),
  created_at INTEGER NOT NULL
);
CREATE INDEX launch_commits_user ON launch_commits(user_id, project_id);
