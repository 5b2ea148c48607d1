-- Core schema: users, sessions, auth helpers, currencies and pairs, the ledger, content, settings, audit.
-- Amounts are INTEGER minimal units of the currency (10^-scale), kept below 2^53 by CHECKs so that
-- D1's JavaScript numbers read them exactly; code converts to bigint at once.

CREATE TABLE users (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  account TEXT NOT NULL UNIQUE,            -- lower-cased e-mail or phone digits
  account_type INTEGER NOT NULL CHECK (account_type IN (1, 2)), -- 1 e-mail, 2 phone
  country_code TEXT NOT NULL DEFAULT '86',
  password_hash TEXT NOT NULL,
  fund_password_hash TEXT,
  extension_code TEXT NOT NULL UNIQUE,     -- this user's own invite code
  parent_id INTEGER REFERENCES users(id),  -- who invited them
  role TEXT NOT NULL DEFAULT 'user' CHECK (role IN ('user', 'operator', 'system')),
  is_seller INTEGER NOT NULL DEFAULT 0,
  review_status INTEGER NOT NULL DEFAULT 0 CHECK (review_status IN (0, 1, 2, 3)), -- 3 = rejected
  real_name TEXT,
  locked INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL,
  last_login_at INTEGER
);

CREATE TABLE sessions (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  token_hash TEXT NOT NULL UNIQUE,         -- SHA-256 of the bearer token; the token itself is never stored
  user_id INTEGER NOT NULL REFERENCES users(id),
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  revoked_at INTEGER,
  ip TEXT
);
CREATE INDEX sessions_user ON sessions(user_id);

CREATE TABLE captchas (
  id TEXT PRIMARY KEY,
  answer_hash TEXT NOT NULL,
  expires_at INTEGER NOT NULL
);

CREATE TABLE verification_codes (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  account TEXT NOT NULL,
  purpose TEXT NOT NULL,                   -- 'forget'
  code_hash TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  consumed_at INTEGER
);
CREATE INDEX verification_codes_account ON verification_codes(account, purpose, created_at);

-- Fixed-window counters; one UPSERT ... RETURNING per hit keeps them strongly consistent.
CREATE TABLE rate_limits (
  key TEXT PRIMARY KEY,
  window_start INTEGER NOT NULL,
  count INTEGER NOT NULL
);

-- Failed logins per (account, client address): a lock never spills over to other addresses.
CREATE TABLE login_failures (
  key TEXT PRIMARY KEY,
  failures INTEGER NOT NULL,
  locked_until INTEGER NOT NULL DEFAULT 0,
  updated_at INTEGER NOT NULL
);

-- Messages "sent" while DEV_OUTBOX is on (local development and tests only).
CREATE TABLE dev_outbox (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  channel TEXT NOT NULL,                   -- 'email' | 'sms' | 'captcha'
  recipient TEXT NOT NULL,
  subject TEXT NOT NULL,
  body TEXT NOT NULL,
  code TEXT,
  created_at INTEGER NOT NULL
);

CREATE TABLE countries (
  country_id INTEGER PRIMARY KEY,
  area_code TEXT NOT NULL,
  name_cn TEXT NOT NULL,
  name_en TEXT NOT NULL
);

CREATE TABLE currencies (
  id INTEGER PRIMARY KEY,                  -- the spec's ids: BTC 1, ETH 2, USDT 3, XRP 5, LTC 6, BCH 10, DOGE 11
  name TEXT NOT NULL UNIQUE,
  scale INTEGER NOT NULL CHECK (scale BETWEEN 0 AND 8),
  logo TEXT NOT NULL DEFAULT '',
  show INTEGER NOT NULL DEFAULT 1,
  is_legal INTEGER NOT NULL DEFAULT 0,
  is_lever INTEGER NOT NULL DEFAULT 0,
  is_match INTEGER NOT NULL DEFAULT 0,
  is_micro INTEGER NOT NULL DEFAULT 0,
  sort INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE pairs (
  id INTEGER PRIMARY KEY,                  -- the "match id"
  currency_id INTEGER NOT NULL REFERENCES currencies(id),
  legal_id INTEGER NOT NULL REFERENCES currencies(id),
  price_decimals INTEGER NOT NULL,
  qty_decimals INTEGER NOT NULL,
  min_notional INTEGER NOT NULL,           -- quote minimal units
  maker_fee_bps INTEGER NOT NULL DEFAULT 10,
  taker_fee_bps INTEGER NOT NULL DEFAULT 10,
  open INTEGER NOT NULL DEFAULT 1,
  sort INTEGER NOT NULL DEFAULT 0,
  UNIQUE (currency_id, legal_id),
  CHECK (price_decimals >= 0 AND qty_decimals >= 0)
);

-- Balances are written ONLY by the ledger trigger below. System accounts have user_id <= 0:
--  0 fees, -1 external deposits, -2 external withdrawals; they may go negative, users may not.
CREATE TABLE balances (
  user_id INTEGER NOT NULL,
  currency_id INTEGER NOT NULL REFERENCES currencies(id),
  account TEXT NOT NULL CHECK (account IN ('change', 'micro', 'legal')),
  available INTEGER NOT NULL DEFAULT 0,
  frozen INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (user_id, currency_id, account),
  CHECK (user_id <= 0 OR (available >= 0 AND frozen >= 0)),
  CHECK (available BETWEEN -9007199254740991 AND 9007199254740991),
  CHECK (frozen BETWEEN -9007199254740991 AND 9007199254740991)
);

-- One movement = one business event (a deposit, a freeze, a fill, a transfer). Its key makes it
-- idempotent: a second batch carrying the same key aborts on the primary key and applies nothing.
CREATE TABLE movements (
  key TEXT PRIMARY KEY,
  kind TEXT NOT NULL,
  created_at INTEGER NOT NULL
);

-- Append-only journal; every row moves available and/or frozen of one account.
-- Per movement and currency the deltas sum to zero (checked by the reconciliation job).
-- Never insert with OR IGNORE / OR REPLACE: the outer conflict policy would leak into the trigger.
CREATE TABLE ledger (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  movement_key TEXT NOT NULL REFERENCES movements(key),
  user_id INTEGER NOT NULL,
  currency_id INTEGER NOT NULL,
  account TEXT NOT NULL,
  d_available INTEGER NOT NULL,
  d_frozen INTEGER NOT NULL,
  kind TEXT NOT NULL,
  memo TEXT NOT NULL DEFAULT '',
  created_at INTEGER NOT NULL
);
CREATE INDEX ledger_user ON ledger(user_id, currency_id, account);
CREATE INDEX ledger_movement ON ledger(movement_key);

-- The zero row first, then an UPDATE: an upsert would check the CHECKs against the bare delta of a
-- debit before resolving the conflict. The UPDATE checks the resulting balance, as it should.
CREATE TRIGGER ledger_apply AFTER INSERT ON ledger BEGIN
  INSERT INTO balances (user_id, currency_id, account) VALUES (NEW.user_id, NEW.currency_id, NEW.account)
  ON CONFLICT (user_id, currency_id, account) DO NOTHING;
  UPDATE balances SET available = available + NEW.d_available, frozen = frozen + NEW.d_frozen
  WHERE user_id = NEW.user_id AND currency_id = NEW.currency_id AND account = NEW.account;
END;
CREATE TRIGGER ledger_no_update BEFORE UPDATE ON ledger BEGIN
  SELECT RAISE(ABORT, 'ledger is append-only');
END;
CREATE TRIGGER ledger_no_delete BEFORE DELETE ON ledger BEGIN
  SELECT RAISE(ABORT, 'ledger is append-only');
END;

-- Content: news, help articles and notices in every language; banners point at a news id.
CREATE TABLE news (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  lang TEXT NOT NULL,
  category TEXT NOT NULL CHECK (category IN ('news', 'help', 'notice')),
  title TEXT NOT NULL,
  cover TEXT NOT NULL DEFAULT '',
  content TEXT NOT NULL,
  sort INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL,
  slug TEXT NOT NULL,                      -- the same article in another language shares the slug
  UNIQUE (slug, lang)
);
CREATE INDEX news_list ON news(lang, category, created_at);

CREATE TABLE banners (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  lang TEXT NOT NULL,
  cover TEXT NOT NULL,
  news_id INTEGER NOT NULL REFERENCES news(id),
  sort INTEGER NOT NULL DEFAULT 0,
  UNIQUE (lang, news_id)
);

CREATE TABLE agreements (
  lang TEXT PRIMARY KEY,
  title TEXT NOT NULL,
  content TEXT NOT NULL
);

CREATE TABLE settings (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);

CREATE TABLE audit_log (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  operator_id INTEGER NOT NULL,
  action TEXT NOT NULL,
  target_type TEXT NOT NULL,
  target_id TEXT NOT NULL,
  reason TEXT NOT NULL DEFAULT '',
  detail TEXT NOT NULL DEFAULT '',
  created_at INTEGER NOT NULL
);
CREATE TRIGGER audit_no_update BEFORE UPDATE ON audit_log BEGIN
  SELECT RAISE(ABORT, 'audit log is append-only');
END;
CREATE TRIGGER audit_no_delete BEFORE DELETE ON audit_log BEGIN
  SELECT RAISE(ABORT, 'audit log is append-only');
END;
