-- Issue #20 §2: proof of liabilities. A snapshot copies every user's balances (user ids > 0;
-- available + frozen over every account) in one D1 batch together with the balances' and the
-- ledger's totals, then builds a Merkle-sum tree over the copy in resumable steps
-- (worker/domain/transparency/snapshot.ts; hashing in schemas/liabilities.ts).

CREATE TABLE liab_snapshots (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  -- the UTC day of the daily job's snapshot (one per day); NULL for an operator's
  day TEXT,
  trigger TEXT NOT NULL CHECK (trigger IN ('cron', 'operator')),
  operator_id INTEGER,
  status TEXT NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'published', 'failed')),
  phase TEXT NOT NULL DEFAULT 'copy' CHECK (phase IN ('copy', 'check', 'leaves', 'top', 'prune', 'done')),
  cursor INTEGER NOT NULL DEFAULT 0,
  step INTEGER NOT NULL DEFAULT 0,
  -- leaves per step = 2^block_level; levels below stored_level are recomputed for a proof, not stored
  block_level INTEGER NOT NULL,
  stored_level INTEGER NOT NULL,
  -- JSON [{id, name, scale}] in tree order, fixed at the copy
  currencies TEXT NOT NULL DEFAULT '[]',
  user_count INTEGER NOT NULL DEFAULT 0,
  negative_users INTEGER NOT NULL DEFAULT 0,
  root_hash TEXT,
  -- comma-separated minimal units, one per currency
  root_sums TEXT,
  -- JSON: why it was not published
  problem TEXT,
  invocations INTEGER NOT NULL DEFAULT 0,
  statements INTEGER NOT NULL DEFAULT 0,
  started_at INTEGER NOT NULL,
  taken_at INTEGER,
  finished_at INTEGER
);
CREATE UNIQUE INDEX liab_snapshots_day ON liab_snapshots(day) WHERE trigger = 'cron';
-- at most one snapshot builds at a time
CREATE UNIQUE INDEX liab_snapshots_running ON liab_snapshots(status) WHERE status = 'running';
CREATE INDEX liab_snapshots_status ON liab_snapshots(status, id);

-- Each step's batch inserts its (snapshot, step): two invocations racing on a step cannot both commit.
CREATE TABLE liab_steps (
  snapshot_id INTEGER NOT NULL,
  step INTEGER NOT NULL,
  phase TEXT NOT NULL,
  at INTEGER NOT NULL,
  PRIMARY KEY (snapshot_id, step)
) WITHOUT ROWID;

-- The copy: per user and currency, available + frozen summed over the accounts.
CREATE TABLE liab_balances (
  snapshot_id INTEGER NOT NULL,
  user_id INTEGER NOT NULL,
  currency_id INTEGER NOT NULL,
  amount INTEGER NOT NULL,
  PRIMARY KEY (snapshot_id, user_id, currency_id)
) WITHOUT ROWID;

-- The leaves' order: idx = rank of the user id.
CREATE TABLE liab_users (
  snapshot_id INTEGER NOT NULL,
  idx INTEGER NOT NULL,
  user_id INTEGER NOT NULL,
  PRIMARY KEY (snapshot_id, idx)
) WITHOUT ROWID;
CREATE UNIQUE INDEX liab_users_user ON liab_users(snapshot_id, user_id);

-- Tree nodes from stored_level up (hash hex, sums comma-separated minimal units).
CREATE TABLE liab_nodes (
  snapshot_id INTEGER NOT NULL,
  level INTEGER NOT NULL,
  idx INTEGER NOT NULL,
  hash TEXT NOT NULL,
  sums TEXT NOT NULL,
  PRIMARY KEY (snapshot_id, level, idx)
) WITHOUT ROWID;

-- Per-currency totals taken in the copy's batch (balances table and ledger rows of users > 0, and
-- the copy), and the tree root's sums when built: all four must agree for the snapshot to publish.
-- Text: a total over every user may pass 2^53.
CREATE TABLE liab_totals (
  snapshot_id INTEGER NOT NULL,
  currency_id INTEGER NOT NULL,
  balances_total TEXT NOT NULL,
  ledger_total TEXT NOT NULL,
  copy_total TEXT NOT NULL,
  tree_total TEXT,
  PRIMARY KEY (snapshot_id, currency_id)
) WITHOUT ROWID;
