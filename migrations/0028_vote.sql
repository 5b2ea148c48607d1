-- Listing votes (issue #19 §3): operators open rounds of candidate coins; one verified account casts
-- at most one vote per candidate per round, holding the round's published minimum balance in its own
-- spot account (`change`) for the whole round: ONE hold per voter per round, however many candidates
-- it votes for, released exactly once when the round ends or is cancelled. No fee, nothing bought.
-- Amounts are integer minimal units of the round's currency; times epoch milliseconds.

CREATE TABLE vote_rounds (
  id INTEGER PRIMARY KEY,
  title TEXT NOT NULL CHECK (length(title) BETWEEN 1 AND 120),
  currency_id INTEGER NOT NULL REFERENCES currencies(id),
  min_units INTEGER NOT NULL CHECK (min_units > 0),
  starts_at INTEGER NOT NULL,
  ends_at INTEGER NOT NULL CHECK (ends_at > starts_at),
  -- 'open' (before, during or after its window: the window says which), 'closed' early by an
  -- operator (the tally stands), 'cancelled' (the tally is void). Holds are released in every case.
  status TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'closed', 'cancelled')),
  created_by INTEGER NOT NULL REFERENCES users(id),
  created_at INTEGER NOT NULL,
  closed_by INTEGER REFERENCES users(id),
  closed_at INTEGER
);
CREATE INDEX vote_rounds_ends ON vote_rounds(ends_at);

-- A round is closed or cancelled once, from open only.
CREATE TRIGGER vote_rounds_status BEFORE UPDATE OF status ON vote_rounds
WHEN OLD.status <> 'open' OR NEW.status NOT IN ('closed', 'cancelled')
BEGIN SELECT RAISE(ABORT, 'state_conflict'); END;
-- The published terms never change under the voters.
CREATE TRIGGER vote_rounds_terms BEFORE UPDATE OF currency_id, min_units, starts_at, ends_at, title ON vote_rounds
BEGIN SELECT RAISE(ABORT, 'state_conflict'); END;

CREATE TABLE vote_candidates (
  id INTEGER PRIMARY KEY,
  round_id INTEGER NOT NULL REFERENCES vote_rounds(id),
  position INTEGER NOT NULL,
  name TEXT NOT NULL,
  symbol TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  link TEXT NOT NULL DEFAULT '',
  UNIQUE (round_id, symbol),
  UNIQUE (round_id, position)
);

-- One hold per voter per round: the round's minimum balance, frozen in the voter's spot account by
-- the movement `vote:hold:{round}:{user}` in the same batch; released (released_at) by the movement
-- `vote:release:{round}:{user}`. Open holds (released_at IS NULL) are the hold source of
-- worker/domain/vote/product.ts.
CREATE TABLE vote_holds (
  round_id INTEGER NOT NULL REFERENCES vote_rounds(id),
  user_id INTEGER NOT NULL REFERENCES users(id),
  currency_id INTEGER NOT NULL,
  units INTEGER NOT NULL CHECK (units > 0),
  created_at INTEGER NOT NULL,
  released_at INTEGER,
  PRIMARY KEY (round_id, user_id)
);
CREATE INDEX vote_holds_open ON vote_holds(round_id) WHERE released_at IS NULL;

-- A hold is taken only while the round is open for votes, by a verified plain user, for exactly
-- the round's published amount and currency.
CREATE TRIGGER vote_holds_open_round BEFORE INSERT ON vote_holds
WHEN NOT EXISTS (SELECT 1 FROM vote_rounds r WHERE r.id = NEW.round_id AND r.status = 'open'
                  AND NEW.created_at >= r.starts_at AND NEW.created_at < r.ends_at
                  AND r.currency_id = NEW.currency_id AND r.min_units = NEW.units)
BEGIN SELECT RAISE(ABORT, 'vote_round_not_open'); END;
CREATE TRIGGER vote_holds_verified BEFORE INSERT ON vote_holds
WHEN NOT EXISTS (SELECT 1 FROM users u WHERE u.id = NEW.user_id AND u.review_status = 2 AND u.role = 'user' AND u.locked = 0)
BEGIN SELECT RAISE(ABORT, 'vote_not_eligible'); END;
-- Released once, and only when the round is over (its window ended, or closed or cancelled).
CREATE TRIGGER vote_holds_release BEFORE UPDATE ON vote_holds
WHEN OLD.released_at IS NOT NULL OR NEW.released_at IS NULL
  OR NEW.units <> OLD.units OR NEW.user_id <> OLD.user_id OR NEW.round_id <> OLD.round_id
  OR EXISTS (SELECT 1 FROM vote_rounds r WHERE r.id = OLD.round_id AND r.status = 'open' AND NEW.released_at < r.ends_at)
BEGIN SELECT RAISE(ABORT, 'state_conflict'); END;
CREATE TRIGGER vote_holds_no_delete BEFORE DELETE ON vote_holds
BEGIN SELECT RAISE(ABORT, 'state_conflict'); END;

-- One vote per verified account per candidate: the UNIQUE key is what makes parallel casts count once.
CREATE TABLE vote_ballots (
  id INTEGER PRIMARY KEY,
  round_id INTEGER NOT NULL REFERENCES vote_rounds(id),
  candidate_id INTEGER NOT NULL REFERENCES vote_candidates(id),
  user_id INTEGER NOT NULL REFERENCES users(id),
  created_at INTEGER NOT NULL,
  UNIQUE (candidate_id, user_id)
);
CREATE INDEX vote_ballots_round_user ON vote_ballots(round_id, user_id);

-- A ballot needs the round open for votes, the candidate in that round and the voter's open hold.
CREATE TRIGGER vote_ballots_valid BEFORE INSERT ON vote_ballots
WHEN NOT EXISTS (SELECT 1 FROM vote_rounds r JOIN vote_candidates c ON c.round_id = r.id
                  WHERE r.id = NEW.round_id AND c.id = NEW.candidate_id AND r.status = 'open'
                    AND NEW.created_at >= r.starts_at AND NEW.created_at < r.ends_at)
BEGIN SELECT RAISE(ABORT, 'vote_round_not_open'); END;
CREATE TRIGGER vote_ballots_held BEFORE INSERT ON vote_ballots
WHEN NOT EXISTS (SELECT 1 FROM vote_holds h WHERE h.round_id = NEW.round_id AND h.user_id = NEW.user_id AND h.released_at IS NULL)
BEGIN SELECT RAISE(ABORT, 'vote_no_hold'); END;
CREATE TRIGGER vote_ballots_append_only BEFORE UPDATE ON vote_ballots
BEGIN SELECT RAISE(ABORT, 'state_conflict'); END;
CREATE TRIGGER vote_ballots_no_delete BEFORE DELETE ON vote_ballots
BEGIN SELECT RAISE(ABORT, 'state_conflict'); END;
