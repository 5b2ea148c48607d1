-- Issue #26: proofs of liabilities that reveal nobody else. From format 2 on, a snapshot ranks its
-- users in a secret shuffle (liab_users.idx), splits each user's balances into two leaves bound to
-- their account, and counts the tree in hundredths of a minimal unit (root_sums); format 1 was one
-- leaf per user in id order. Only format 2 snapshots are served (published totals and proofs).
ALTER TABLE liab_snapshots ADD COLUMN format INTEGER NOT NULL DEFAULT 1;

-- A format 1 snapshot still building when this lands cannot be finished by the new code (its copy
-- ranked every user, zero balances included): it ends as not published; the next one is format 2.
UPDATE liab_snapshots
SET status = 'failed', phase = 'done', problem = '{"negative_users":0,"mismatches":[]}', finished_at = CAST(unixepoch('subsec') * 1000 AS INTEGER)
WHERE status = 'running';
