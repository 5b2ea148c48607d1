-- Wallet, account security and the operator console: the published withdrawal fee table, the
-- exchange's deposit addresses, uploads, deposits, withdrawals, the withdrawal address book, bank
-- cards, identity submissions, authenticator secrets, flash-exchange records, two-operator balance
-- adjustments and reconciliation reports.
--
-- Amounts are INTEGER minimal units of their currency (like balances), except where a column says
-- it holds a decimal string: the fee table is written in coin units so it reads like the page the
-- users see, and it does not depend on a currency's scale.
--
-- State machines are enforced here, not only in code: a BEFORE UPDATE trigger refuses any status
-- change that is not an edge of the machine, so a double approval, an approval after a rejection
-- or a chain result on an unapproved withdrawal aborts its whole D1 batch (ledger rows included).

-- The one published withdrawal fee table (DESIGN §1). network: -1 the coin's own chain (and the
-- general rate of USDT), 0 ERC20, 1 TRC20. For a network row a fee of 0 means "use the general rate"
-- (spec §4). min/max bound the amount that is sent (the fee comes on top).
CREATE TABLE withdrawal_fees (
  currency_id INTEGER NOT NULL,
  network INTEGER NOT NULL DEFAULT -1 CHECK (network IN (-1, 0, 1)),
  fee TEXT NOT NULL,                       -- decimal string in coin units, e.g. '0.0005'
  min_amount TEXT NOT NULL,                -- decimal string
  max_amount TEXT NOT NULL,                -- decimal string
  updated_at INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (currency_id, network)
);
INSERT INTO withdrawal_fees (currency_id, network, fee, min_amount, max_amount) VALUES
  (1, -1, '0.0005', '0.001', '100'),          -- BTC
  (2, -1, '0.005', '0.01', '1000'),           -- ETH
  (3, -1, '1', '10', '1000000'),              -- USDT, general rate
  (3, 0, '5', '20', '1000000'),               -- USDT ERC20
  (3, 1, '1', '10', '1000000'),               -- USDT TRC20
  (5, -1, '0.25', '20', '1000000'),           -- XRP
  (6, -1, '0.001', '0.01', '10000'),          -- LTC
  (10, -1, '0.001', '0.01', '10000'),         -- BCH
  (11, -1, '5', '50', '10000000');            -- DOGE

-- The exchange's receiving addresses, per currency (spec: deposit address entries). The seeded ones
-- are DEMO strings for local development: replace them with real addresses before deploying.
CREATE TABLE deposit_addresses (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  currency_id INTEGER NOT NULL,
  title TEXT NOT NULL,                     -- shown in the address selector, e.g. 'USDT-TRC20'
  network TEXT NOT NULL DEFAULT '',
  address TEXT NOT NULL,
  tips TEXT NOT NULL DEFAULT '',
  enabled INTEGER NOT NULL DEFAULT 1,
  sort INTEGER NOT NULL DEFAULT 0,
  UNIQUE (currency_id, address)
);
INSERT INTO deposit_addresses (currency_id, title, network, address, tips, sort) VALUES
  (1, 'BTC', 'BTC', 'DEMO-btc-address-not-real-do-not-send', 'Demo address: do not send real funds. Send only BTC.', 0),
  (2, 'ETH', 'ERC20', 'DEMO-eth-address-not-real-do-not-send', 'Demo address: do not send real funds. Send only ETH.', 0),
  (3, 'USDT-TRC20', 'TRC20', 'DEMO-usdt-trc20-address-not-real-do-not-send', 'Demo address: do not send real funds. Send only USDT on TRC20.', 0),
  (3, 'USDT-ERC20', 'ERC20', 'DEMO-usdt-erc20-address-not-real-do-not-send', 'Demo address: do not send real funds. Send only USDT on ERC20.', 1),
  (5, 'XRP', 'XRP', 'DEMO-xrp-address-not-real-do-not-send', 'Demo address: do not send real funds. Send only XRP.', 0),
  (6, 'LTC', 'LTC', 'DEMO-ltc-address-not-real-do-not-send', 'Demo address: do not send real funds. Send only LTC.', 0),
  (10, 'BCH', 'BCH', 'DEMO-bch-address-not-real-do-not-send', 'Demo address: do not send real funds. Send only BCH.', 0),
  (11, 'DOGE', 'DOGE', 'DEMO-doge-address-not-real-do-not-send', 'Demo address: do not send real funds. Send only DOGE.', 0);

-- Configuration with sensible defaults (a deployment may change the values, never the keys).
INSERT INTO settings (key, value) VALUES
  ('shandui_sxf1', '0.2'),                 -- flash-exchange fee, percent
  ('shandui_sxf2', '0.1'),                 -- fee, percent, when the USDT value exceeds shandui_sxf_money
  ('shandui_sxf_money', '10000'),          -- USDT
  ('shanduiMin', '10'),                    -- USDT value bounds of one conversion
  ('shanduiMax', '100000'),
  ('shandui_time', '0'),                   -- minutes between two conversions of a user (0 = none)
  ('userchongbi_type', '1'),               -- 1 address list; 2 show deposit_tips instead
  ('deposit_tips', 'Deposits are credited after 1 network confirmation and a check of your proof.'),
  ('kyc_level3_min_btc', '20')             -- level 3 needs total assets above this many BTC
ON CONFLICT (key) DO NOTHING;

-- Uploaded images (R2 binding UPLOADS). Served only to the owner and to operators.
CREATE TABLE uploads (
  id TEXT PRIMARY KEY,                     -- random and unguessable; also the public reference
  user_id INTEGER NOT NULL REFERENCES users(id),
  r2_key TEXT NOT NULL UNIQUE,             -- u/{user_id}/{id}.{png|jpg}
  scene TEXT NOT NULL,
  content_type TEXT NOT NULL CHECK (content_type IN ('image/png', 'image/jpeg')),
  size INTEGER NOT NULL CHECK (size > 0 AND size <= 4194304),
  width INTEGER NOT NULL,
  height INTEGER NOT NULL,
  sha256 TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE INDEX uploads_user ON uploads(user_id, created_at);

-- Deposit claims: 0 applying, 1 credited, 2 rejected.
CREATE TABLE deposits (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  user_id INTEGER NOT NULL REFERENCES users(id),
  currency_id INTEGER NOT NULL REFERENCES currencies(id),
  amount INTEGER NOT NULL CHECK (amount > 0 AND amount <= 9007199254740991),
  address TEXT NOT NULL,                   -- the exchange address the user sent to (acc)
  network TEXT NOT NULL DEFAULT '',        -- type
  tx_hash TEXT NOT NULL DEFAULT '',
  pic TEXT NOT NULL REFERENCES uploads(id),
  status INTEGER NOT NULL DEFAULT 0 CHECK (status IN (0, 1, 2)),
  reason TEXT NOT NULL DEFAULT '',
  reviewed_by INTEGER,
  reviewed_at INTEGER,
  created_at INTEGER NOT NULL
);
CREATE INDEX deposits_user ON deposits(user_id, id);
CREATE INDEX deposits_status ON deposits(status, id);
CREATE TRIGGER deposits_transition BEFORE UPDATE OF status ON deposits
WHEN NOT (OLD.status = 0 AND NEW.status IN (1, 2))
BEGIN SELECT RAISE(ABORT, 'state_conflict: deposit'); END;
CREATE TRIGGER deposits_frozen_terms BEFORE UPDATE OF user_id, currency_id, amount, pic ON deposits
BEGIN SELECT RAISE(ABORT, 'state_conflict: deposit terms are immutable'); END;

-- Withdrawals: 0 applying, 1 approved awaiting chain, 2 chain success, 3 chain failure,
-- 4 rejected, 5 in-site success (not produced yet). amount + fee are frozen at request.
CREATE TABLE withdrawals (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  user_id INTEGER NOT NULL REFERENCES users(id),
  currency_id INTEGER NOT NULL REFERENCES currencies(id),
  network INTEGER NOT NULL DEFAULT -1 CHECK (network IN (-1, 0, 1)),
  address TEXT NOT NULL,
  memo TEXT NOT NULL DEFAULT '',
  amount INTEGER NOT NULL CHECK (amount > 0),   -- what is sent to the address
  fee INTEGER NOT NULL CHECK (fee >= 0),        -- from withdrawal_fees at request time
  status INTEGER NOT NULL DEFAULT 0 CHECK (status BETWEEN 0 AND 5),
  freeze_key TEXT NOT NULL UNIQUE,              -- the movement that froze amount + fee
  reason TEXT NOT NULL DEFAULT '',
  txid TEXT NOT NULL DEFAULT '',
  reviewed_by INTEGER,
  reviewed_at INTEGER,
  settled_by INTEGER,
  settled_at INTEGER,
  created_at INTEGER NOT NULL,
  CHECK (amount + fee <= 9007199254740991)
);
CREATE INDEX withdrawals_user ON withdrawals(user_id, id);
CREATE INDEX withdrawals_status ON withdrawals(status, id);
CREATE TRIGGER withdrawals_transition BEFORE UPDATE OF status ON withdrawals
WHEN NOT ((OLD.status = 0 AND NEW.status IN (1, 4, 5)) OR (OLD.status = 1 AND NEW.status IN (2, 3)))
BEGIN SELECT RAISE(ABORT, 'state_conflict: withdrawal'); END;
CREATE TRIGGER withdrawals_frozen_terms BEFORE UPDATE OF user_id, currency_id, network, address, amount, fee, freeze_key ON withdrawals
BEGIN SELECT RAISE(ABORT, 'state_conflict: withdrawal terms are immutable'); END;

-- The user's withdrawal address book.
CREATE TABLE withdraw_addresses (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  user_id INTEGER NOT NULL REFERENCES users(id),
  currency_id INTEGER NOT NULL,
  network INTEGER NOT NULL DEFAULT -1 CHECK (network IN (-1, 0, 1)),
  address TEXT NOT NULL,
  label TEXT NOT NULL DEFAULT '',
  memo TEXT NOT NULL DEFAULT '',
  created_at INTEGER NOT NULL,
  UNIQUE (user_id, currency_id, network, address)
);

-- Receiving information (spec "bank card"): one card per user, replaced on save.
CREATE TABLE bank_cards (
  user_id INTEGER PRIMARY KEY REFERENCES users(id),
  real_name TEXT NOT NULL,
  bank_account TEXT NOT NULL,              -- digits only, Luhn-valid
  bank_name TEXT NOT NULL,
  bank_branch TEXT NOT NULL DEFAULT '',
  updated_at INTEGER NOT NULL
);

-- Identity submissions. level = the level applied for; a submission carries the fields of every
-- level above the one already approved, up to `level`. status: 1 under review, 2 approved, 3 rejected.
CREATE TABLE kyc_submissions (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  user_id INTEGER NOT NULL REFERENCES users(id),
  level INTEGER NOT NULL CHECK (level IN (1, 2, 3)),
  name TEXT,
  type INTEGER CHECK (type IS NULL OR type IN (1, 2, 3)),
  card_id TEXT,
  front_pic TEXT REFERENCES uploads(id),
  reverse_pic TEXT REFERENCES uploads(id),
  hand_pic TEXT REFERENCES uploads(id),
  asset_pic TEXT REFERENCES uploads(id),
  asset_btc TEXT,                          -- total assets in BTC at real prices when submitted
  status INTEGER NOT NULL DEFAULT 1 CHECK (status IN (1, 2, 3)),
  reason TEXT NOT NULL DEFAULT '',
  reviewed_by INTEGER,
  reviewed_at INTEGER,
  created_at INTEGER NOT NULL
);
CREATE INDEX kyc_user ON kyc_submissions(user_id, id);
CREATE INDEX kyc_status ON kyc_submissions(status, id);
-- At most one submission under review per user, whatever races.
CREATE UNIQUE INDEX kyc_one_pending ON kyc_submissions(user_id) WHERE status = 1;
CREATE TRIGGER kyc_transition BEFORE UPDATE OF status ON kyc_submissions
WHEN NOT (OLD.status = 1 AND NEW.status IN (2, 3))
BEGIN SELECT RAISE(ABORT, 'state_conflict: kyc'); END;

-- Authenticator (TOTP) secrets, encrypted with a key derived from the PEPPER secret.
-- last_step is the newest accepted 30-second step: a code works once.
CREATE TABLE totp_secrets (
  user_id INTEGER PRIMARY KEY REFERENCES users(id),
  secret_enc TEXT NOT NULL,
  enabled INTEGER NOT NULL DEFAULT 0,
  last_step INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL,
  enabled_at INTEGER
);

-- Flash exchange records (coin <-> USDT against the exchange's treasury at the last traded price).
CREATE TABLE conversions (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  user_id INTEGER NOT NULL REFERENCES users(id),
  from_currency INTEGER NOT NULL,
  to_currency INTEGER NOT NULL,
  money INTEGER NOT NULL CHECK (money > 0),    -- paid, minimal units of from_currency
  money2 INTEGER NOT NULL CHECK (money2 > 0),  -- received, minimal units of to_currency
  price TEXT NOT NULL,                     -- last traded coin/USDT price used
  rate TEXT NOT NULL,                      -- huilv: to per 1 from, 8 decimals
  fee INTEGER NOT NULL CHECK (fee >= 0),   -- USDT minimal units, to the fee account
  fee_percent TEXT NOT NULL,
  usdt_value INTEGER NOT NULL,             -- value checked against min/max and the fee tier
  movement_key TEXT NOT NULL UNIQUE,
  created_at INTEGER NOT NULL
);
CREATE INDEX conversions_user ON conversions(user_id, id);

-- Balance adjustments: requested by one operator, applied only when a different operator approves.
-- user_id > 0: a user's account, counterpart the treasury (-3).
-- user_id = -3: funding (+) or defunding (-) the treasury, counterpart external deposits/withdrawals.
-- status: 0 pending, 1 approved (applied), 2 rejected.
CREATE TABLE balance_adjustments (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  user_id INTEGER NOT NULL,
  currency_id INTEGER NOT NULL REFERENCES currencies(id),
  account TEXT NOT NULL CHECK (account IN ('change', 'micro', 'legal')),
  amount INTEGER NOT NULL CHECK (amount != 0 AND amount BETWEEN -9007199254740991 AND 9007199254740991),
  reason TEXT NOT NULL,
  status INTEGER NOT NULL DEFAULT 0 CHECK (status IN (0, 1, 2)),
  requested_by INTEGER NOT NULL,
  decided_by INTEGER,
  decision_reason TEXT NOT NULL DEFAULT '',
  created_at INTEGER NOT NULL,
  decided_at INTEGER
);
CREATE INDEX balance_adjustments_status ON balance_adjustments(status, id);
CREATE TRIGGER balance_adjustments_transition BEFORE UPDATE OF status ON balance_adjustments
WHEN NOT (OLD.status = 0 AND NEW.status IN (1, 2))
BEGIN SELECT RAISE(ABORT, 'state_conflict: adjustment'); END;
CREATE TRIGGER balance_adjustments_four_eyes BEFORE UPDATE OF status ON balance_adjustments
WHEN NEW.status = 1 AND (NEW.decided_by IS NULL OR NEW.decided_by = OLD.requested_by)
BEGIN SELECT RAISE(ABORT, 'self_review: adjustment'); END;
CREATE TRIGGER balance_adjustments_frozen_terms BEFORE UPDATE OF user_id, currency_id, account, amount, requested_by ON balance_adjustments
BEGIN SELECT RAISE(ABORT, 'state_conflict: adjustment terms are immutable'); END;

-- The treasury (-3) is the exchange's own money: unlike the external-flow accounts it may never go
-- below zero, so users are never paid from funds the exchange does not hold.
CREATE TRIGGER treasury_no_overdraft_insert AFTER INSERT ON balances
WHEN NEW.user_id = -3 AND (NEW.available < 0 OR NEW.frozen < 0)
BEGIN SELECT RAISE(ABORT, 'treasury_overdraft'); END;
CREATE TRIGGER treasury_no_overdraft_update AFTER UPDATE ON balances
WHEN NEW.user_id = -3 AND (NEW.available < 0 OR NEW.frozen < 0)
BEGIN SELECT RAISE(ABORT, 'treasury_overdraft'); END;

-- Results of the reconciliation job (worker/jobs/reconcile.ts), one row per run.
CREATE TABLE reconciliation_reports (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  ok INTEGER NOT NULL,
  source TEXT NOT NULL,                    -- 'cron' | 'operator'
  differences TEXT NOT NULL,               -- JSON array
  stats TEXT NOT NULL,                     -- JSON object
  created_at INTEGER NOT NULL
);
