-- Issue #28, session 15: the read model's collector objects (durable/account/collector.ts) write
-- many accounts' movements in one multi-row statement. A user's bookmark in D1 (account_drained,
-- 0041: how far the read model has the object's movements, what a reader of their own writes and
-- the reconciler compare with) now moves with the inserted movements themselves, as
-- system_drained does for the system shards (0049), so a collector batch needs no statement for
-- it. A second copy of a movement inserts nothing and so fires nothing. The direct drain
-- (durable/account/drain.ts) still writes the bookmark itself too; both only move it forward.
CREATE TRIGGER account_movements_drained AFTER INSERT ON account_movements BEGIN
  INSERT INTO account_drained (user_id, seq, notice_seq, drained_at) VALUES (NEW.user_id, NEW.seq, 0, NEW.created_at)
  ON CONFLICT (user_id) DO UPDATE SET seq = max(seq, excluded.seq), drained_at = max(drained_at, excluded.drained_at);
END;
