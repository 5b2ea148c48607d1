-- In-site withdrawals (spec §4 withdrawal status 5 "in-site success").
--
-- Every user may have one INTERNAL address: 'HX' + 30 hex characters of
-- HMAC-SHA256(PEPPER, 'internal:' || user_id) (worker/lib/internal-addresses.ts). It is not guessable
-- from the id and is the same on every run; the row is created the first time the user asks for
-- their deposit addresses, so an address that was never shown resolves to nobody.
CREATE TABLE internal_addresses (
  user_id INTEGER PRIMARY KEY REFERENCES users(id),
  address TEXT NOT NULL UNIQUE,
  created_at INTEGER NOT NULL
);

-- A withdrawal to another user's internal address is settled at once, in the batch that inserts it:
-- status 5, fee 0, recipient_user_id set, freeze_key = the key of the movement that moved the money
-- ('withdraw-internal:{id}', sender available -> recipient available; nothing is frozen).
ALTER TABLE withdrawals ADD COLUMN recipient_user_id INTEGER REFERENCES users(id);
CREATE INDEX withdrawals_recipient ON withdrawals(recipient_user_id, id) WHERE recipient_user_id IS NOT NULL;

-- 0005 has no insert trigger. Only two shapes may be inserted: a chain request (status 0, no
-- recipient) or a settled in-site transfer (status 5, another user as recipient, no fee).
CREATE TRIGGER withdrawals_insert_shape BEFORE INSERT ON withdrawals
WHEN NOT (
  (NEW.status = 0 AND NEW.recipient_user_id IS NULL)
  OR (NEW.status = 5 AND NEW.recipient_user_id IS NOT NULL AND NEW.recipient_user_id != NEW.user_id AND NEW.fee = 0)
)
BEGIN SELECT RAISE(ABORT, 'state_conflict: withdrawal insert'); END;

-- 0005 allows the edge 0 -> 5, but a chain request froze amount + fee and status 5 would never
-- release it: status 5 is reached only by inserting it. The recipient never changes.
CREATE TRIGGER withdrawals_no_update_to_in_site BEFORE UPDATE OF status ON withdrawals
WHEN NEW.status = 5
BEGIN SELECT RAISE(ABORT, 'state_conflict: withdrawal'); END;
CREATE TRIGGER withdrawals_recipient_immutable BEFORE UPDATE OF recipient_user_id ON withdrawals
BEGIN SELECT RAISE(ABORT, 'state_conflict: withdrawal terms are immutable'); END;
