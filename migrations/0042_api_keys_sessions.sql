-- Issue #29: API keys for bots, sessions as devices, and the sign-in history.
--
-- api_keys: a key's secret is never stored. It is derived when the key is made,
-- secret = HMAC-SHA256(server key from the PEPPER secret, "api-key-secret:v1:" || api_key || ":" || salt),
-- shown once, and derived again from `salt` to check a signature (worker/lib/api-keys.ts). The row keeps
-- only the salt and the secret's SHA-256 (a derived secret is used only when it hashes to it), so a
-- copy of the database alone can neither sign nor recover a secret. `scopes` is 'read', 'trade' or
-- 'read,trade'; `ips` a JSON array of addresses or NULL; a key without addresses expires (expires_at).
CREATE TABLE api_keys (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  user_id INTEGER NOT NULL REFERENCES users(id),
  api_key TEXT NOT NULL UNIQUE,
  label TEXT NOT NULL CHECK (length(label) BETWEEN 1 AND 40),
  scopes TEXT NOT NULL CHECK (scopes IN ('read', 'trade', 'read,trade')),
  ips TEXT,
  salt TEXT NOT NULL,
  secret_hash TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER,
  last_used_at INTEGER,
  deleted_at INTEGER,
  CHECK ((ips IS NULL) = (expires_at IS NOT NULL))
);
CREATE INDEX api_keys_user ON api_keys(user_id, id);

-- Signatures seen within the timestamp window: a second request with the same signature is a replay.
-- Rows older than a minute are pruned (worker/jobs/prune.ts); the window is ±5 s.
CREATE TABLE api_key_signatures (
  key_id INTEGER NOT NULL,
  signature TEXT NOT NULL,
  seen_at INTEGER NOT NULL,
  PRIMARY KEY (key_id, signature)
) WITHOUT ROWID;
CREATE INDEX api_key_signatures_seen ON api_key_signatures(seen_at);

-- Sessions as the devices list shows them (NULL for sessions made before this migration).
ALTER TABLE sessions ADD COLUMN browser TEXT;
ALTER TABLE sessions ADD COLUMN system TEXT;
ALTER TABLE sessions ADD COLUMN place TEXT;
ALTER TABLE sessions ADD COLUMN last_seen_at INTEGER;

-- Sign-ins and failed attempts of existing accounts (an unknown account has no one to show them to),
-- kept 90 days (worker/jobs/prune.ts).
CREATE TABLE login_events (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  user_id INTEGER NOT NULL REFERENCES users(id),
  at INTEGER NOT NULL,
  ok INTEGER NOT NULL CHECK (ok IN (0, 1)),
  ip TEXT NOT NULL,
  device TEXT NOT NULL,
  place TEXT
);
CREATE INDEX login_events_user ON login_events(user_id, at);
CREATE INDEX login_events_at ON login_events(at);
