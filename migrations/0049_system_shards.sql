-- Issue #28: system accounts as sharded objects (durable/account/address.ts). Shard k of system
-- account u (D1's system user ids, u <= 0: 0 fees, -1 deposits, -2 withdrawals, -3 treasury) is
-- the account object named `system:{u}:{k}`; each shard numbers its own movements, so the read
-- model keys them by (user, shard, seq): two shards of one account never collide, and a second
-- copy of a drained batch inserts nothing (ON CONFLICT DO NOTHING), as account_movements (0041).
CREATE TABLE system_movements (
  user_id INTEGER NOT NULL CHECK (user_id <= 0),
  shard INTEGER NOT NULL CHECK (shard >= 0),
  seq INTEGER NOT NULL CHECK (seq > 0),
  ref TEXT NOT NULL,
  account TEXT NOT NULL,
  currency_id INTEGER NOT NULL,
  d_available INTEGER NOT NULL,
  d_frozen INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (user_id, shard, seq)
) WITHOUT ROWID;

-- Each shard's balances (a shard never goes below zero: its object's CHECKs); a system account's
-- balance is the sum over its shards (reports, the reconciler).
CREATE TABLE system_balances (
  user_id INTEGER NOT NULL,
  shard INTEGER NOT NULL,
  currency_id INTEGER NOT NULL,
  account TEXT NOT NULL,
  available INTEGER NOT NULL CHECK (available >= 0),
  frozen INTEGER NOT NULL CHECK (frozen >= 0),
  seq INTEGER NOT NULL,
  PRIMARY KEY (user_id, shard, currency_id, account)
) WITHOUT ROWID;

CREATE TRIGGER system_movements_apply AFTER INSERT ON system_movements BEGIN
  INSERT INTO system_balances (user_id, shard, currency_id, account, available, frozen, seq)
  VALUES (NEW.user_id, NEW.shard, NEW.currency_id, NEW.account, 0, 0, 0)
  ON CONFLICT (user_id, shard, currency_id, account) DO NOTHING;
  UPDATE system_balances SET available = available + NEW.d_available, frozen = frozen + NEW.d_frozen, seq = max(seq, NEW.seq)
  WHERE user_id = NEW.user_id AND shard = NEW.shard AND currency_id = NEW.currency_id AND account = NEW.account;
END;
CREATE TRIGGER system_movements_no_update BEFORE UPDATE ON system_movements BEGIN
  SELECT RAISE(ABORT, 'system movements are append-only');
END;
CREATE TRIGGER system_movements_no_delete BEFORE DELETE ON system_movements BEGIN
  SELECT RAISE(ABORT, 'system movements are append-only');
END;

-- How far each shard's drain has reached, moved by the inserts themselves (a drain step is one statement).
CREATE TABLE system_drained (
  user_id INTEGER NOT NULL,
  shard INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  drained_at INTEGER NOT NULL,
  PRIMARY KEY (user_id, shard)
);
CREATE TRIGGER system_movements_drained AFTER INSERT ON system_movements BEGIN
  INSERT INTO system_drained (user_id, shard, seq, drained_at) VALUES (NEW.user_id, NEW.shard, NEW.seq, NEW.created_at)
  ON CONFLICT (user_id, shard) DO UPDATE SET seq = max(seq, excluded.seq), drained_at = max(drained_at, excluded.drained_at);
END;
