-- Accounts people can defend (issue #29): passkeys, the anti-phishing code, the withdrawal
-- whitelist, the settings lock and a proven e-mail or phone (worker/domain/account/guards.ts,
-- worker/domain/account/passkeys.ts, worker/domain/auth/contact.ts).

-- Passkeys (WebAuthn credentials). The credential id is the authenticator's (base64url), unique
-- across the exchange: a sign-in finds its account by it. The public key is stored as base64url
-- COSE; `counter` is the signature counter last seen (0 for authenticators that keep none).
CREATE TABLE passkeys (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  user_id INTEGER NOT NULL REFERENCES users(id),
  credential_id TEXT NOT NULL UNIQUE CHECK (length(credential_id) BETWEEN 16 AND 1400),
  public_key TEXT NOT NULL,
  counter INTEGER NOT NULL DEFAULT 0 CHECK (counter >= 0),
  transports TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(transports)),
  name TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 40),
  created_at INTEGER NOT NULL,
  last_used_at INTEGER
);
CREATE INDEX passkeys_user ON passkeys (user_id, id);

-- WebAuthn challenges: single use (`used_at` is set by the conditional UPDATE that claims one,
-- before its answer is checked) and short-lived. `user_id` is NULL for a sign-in (the account is
-- not known until the passkey answers).
CREATE TABLE webauthn_challenges (
  challenge TEXT PRIMARY KEY,
  user_id INTEGER REFERENCES users(id),
  purpose TEXT NOT NULL CHECK (purpose IN ('register', 'login', 'confirm')),
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  used_at INTEGER
);
CREATE INDEX webauthn_challenges_expiry ON webauthn_challenges (expires_at);

-- The anti-phishing code every e-mail and SMS of the exchange carries (4-20 letters/digits).
ALTER TABLE users ADD COLUMN anti_phishing_code TEXT CHECK (anti_phishing_code IS NULL OR length(anti_phishing_code) BETWEEN 4 AND 20);
-- Withdrawals only to the address book (1) and the settings lock (ms; 0 = never locked).
ALTER TABLE users ADD COLUMN withdraw_whitelist INTEGER NOT NULL DEFAULT 0 CHECK (withdraw_whitelist IN (0, 1));
ALTER TABLE users ADD COLUMN settings_locked_until INTEGER NOT NULL DEFAULT 0;
-- When the e-mail or phone of the account was proven with a code; NULL: not yet. Registration
-- writes NULL; 0 marks accounts made before the proof existed (every row here now) or by the
-- operators' own tools (seed, tests), which count as proven.
ALTER TABLE users ADD COLUMN contact_verified_at INTEGER DEFAULT 0;
-- An address added while the whitelist is on can be used only from `usable_at` (24 h later).
ALTER TABLE withdraw_addresses ADD COLUMN usable_at INTEGER NOT NULL DEFAULT 0;

-- The settings lock's guard: a statement in a change's own batch inserts a row here only when the
-- account is locked, and the CHECK refuses it, so the whole batch (the change with it) rolls back.
-- It is never written otherwise; the check and the change are one transaction, so a change can
-- never slip past a lock committed in parallel.
CREATE TABLE settings_lock_guard (
  user_id INTEGER NOT NULL,
  CONSTRAINT settings_locked CHECK (user_id IS NULL)
);
