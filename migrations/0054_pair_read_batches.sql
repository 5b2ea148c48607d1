-- Issue #28, session 16: the pair's drain of spot orders and trades in objects mode
-- (ACCOUNTS=objects) in ONE statement, and through the collector objects with the accounts'
-- movements (durable/pair/read-model.ts, durable/account/collector.ts).
--
-- pair_read_batches: one row per drain batch of a pair, keyed (pair_id, batch) like the movement
-- head `spot:{pair}:b{n}` it replaces in objects mode: a batch sent twice (a pair or collector
-- that crashed after D1 committed, a direct drain racing a hand-over) inserts nothing the second
-- time (`ON CONFLICT DO NOTHING`) and so fires nothing. The inserted row carries the batch as JSON
-- (`body`); the trigger applies it in the same statement, in the order the pair's own batch did
-- (conditional orders' rows, orders' rows, children, conditional updates, order updates, trades,
-- the owners' notifications, the ticker); a second trigger forgets the body. A batch whose
-- movement head `spot:{pair}:b{n}` is in D1 was applied whole by the pair's own D1 batch (code
-- before this migration, or a batch with seconds, lever or alert rows, whose head is written after
-- this row in the same transaction): it is not applied again.
CREATE TABLE pair_read_batches (
  pair_id INTEGER NOT NULL,
  batch INTEGER NOT NULL,
  body TEXT,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (pair_id, batch)
);

CREATE TRIGGER pair_read_batches_apply AFTER INSERT ON pair_read_batches
WHEN NOT EXISTS (SELECT 1 FROM movements WHERE key = 'spot:' || NEW.pair_id || ':b' || NEW.batch) BEGIN
  INSERT INTO spot_conditional_orders (id, user_id, pair_id, side, type, qty, price, stop_price, limit_price, callback_bps, activation_price,
    reserved_units, reserved_currency, status, client_oid, created_at, updated_at)
  SELECT value ->> 0, value ->> 1, NEW.pair_id, value ->> 2, value ->> 3, value ->> 4, value ->> 5, value ->> 6, value ->> 7, value ->> 8, value ->> 9,
    value ->> 10, value ->> 11, 0, value ->> 12, value ->> 13, value ->> 13
  FROM json_each(NEW.body, '$.nc') WHERE true ORDER BY key ON CONFLICT DO NOTHING;

  INSERT INTO spot_orders (id, user_id, pair_id, side, kind, price, qty, reserved_units, reserved_currency, status, client_oid, budget, created_at, updated_at)
  SELECT value ->> 0, value ->> 1, NEW.pair_id, value ->> 2, value ->> 3, value ->> 4, value ->> 5, value ->> 6, value ->> 7, 0, value ->> 8, value ->> 9, value ->> 10, value ->> 10
  FROM json_each(NEW.body, '$.no') WHERE true ORDER BY key ON CONFLICT DO NOTHING;

  INSERT INTO spot_orders (id, user_id, pair_id, side, kind, price, qty, reserved_units, reserved_currency, status, created_at, updated_at)
  SELECT value ->> 0, value ->> 1, NEW.pair_id, value ->> 2, 'limit', value ->> 3, value ->> 4, value ->> 5, value ->> 6, 0, value ->> 7, value ->> 7
  FROM json_each(NEW.body, '$.cc') WHERE true ON CONFLICT (id) DO NOTHING;

  UPDATE spot_conditional_orders SET status = v.value ->> 1, reason = COALESCE(v.value ->> 2, reason),
    trigger_price = COALESCE(v.value ->> 3, trigger_price), child_order_id = COALESCE(v.value ->> 4, child_order_id), updated_at = NEW.created_at
  FROM json_each(NEW.body, '$.cu') AS v WHERE spot_conditional_orders.id = v.value ->> 0 AND spot_conditional_orders.status < v.value ->> 1;

  UPDATE spot_orders SET filled = filled + v.value ->> 1,
    status = CASE WHEN v.value ->> 2 = 0 THEN status WHEN v.value ->> 2 = 1 AND status > 1 THEN status ELSE v.value ->> 2 END,
    done_reason = COALESCE(v.value ->> 3, done_reason), updated_at = NEW.created_at
  FROM json_each(NEW.body, '$.ou') AS v WHERE spot_orders.id = v.value ->> 0;

  INSERT INTO spot_trades (pair_id, trade_id, price, qty, taker_side, buyer_id, seller_id, buy_order_id, sell_order_id, buyer_fee, seller_fee, created_at)
  SELECT NEW.pair_id, value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4, value ->> 5, value ->> 6, value ->> 7, value ->> 8, value ->> 9, value ->> 10
  FROM json_each(NEW.body, '$.t') ORDER BY key;

  INSERT INTO notifications (user_id, event_key, kind, params, link, created_at)
  SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4, value ->> 5 FROM json_each(NEW.body, '$.n') WHERE true
  ON CONFLICT (user_id, event_key) DO NOTHING;

  INSERT INTO tickers (pair_id, last_price, open_24h, high_24h, low_24h, volume_24h, quote_volume_24h, change_24h, updated_at)
  SELECT NEW.pair_id, value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4, value ->> 5, value ->> 6, value ->> 7
  FROM json_each(NEW.body, '$.tk') WHERE true
  ON CONFLICT (pair_id) DO UPDATE SET last_price = excluded.last_price, open_24h = excluded.open_24h, high_24h = excluded.high_24h,
    low_24h = excluded.low_24h, volume_24h = excluded.volume_24h, quote_volume_24h = excluded.quote_volume_24h,
    change_24h = excluded.change_24h, updated_at = excluded.updated_at
    WHERE excluded.updated_at >= tickers.updated_at;
END;

CREATE TRIGGER pair_read_batches_forget AFTER INSERT ON pair_read_batches BEGIN
  UPDATE pair_read_batches SET body = NULL WHERE pair_id = NEW.pair_id AND batch = NEW.batch;
END;

-- read_model_batches: what a collector object writes, ONE row (one statement) per D1 batch,
-- however many accounts, system shards and pairs handed over in its window. The trigger spreads
-- the row: users' movements (each skipped when its (user, seq) is there: a hand-over sent again),
-- notifications (skipped by (user, event key)), system shards' movements (by (user, shard, seq)),
-- and the pairs' batches into pair_read_batches above (by (pair, batch)); the triggers of those
-- tables then do what they do for any insert (balances, bookmarks, the pair's rows). Then the row
-- is deleted: nothing is kept here.
CREATE TABLE read_model_batches (
  id INTEGER PRIMARY KEY,
  body TEXT NOT NULL
);

CREATE TRIGGER read_model_batches_apply AFTER INSERT ON read_model_batches BEGIN
  INSERT INTO account_movements (user_id, seq, ref, account, currency_id, d_available, d_frozen, created_at)
  SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4, value ->> 5, value ->> 6, value ->> 7 FROM json_each(NEW.body, '$.m') WHERE true
  ON CONFLICT (user_id, seq) DO NOTHING;

  INSERT INTO notifications (user_id, event_key, kind, params, link, created_at)
  SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4, value ->> 5 FROM json_each(NEW.body, '$.n') WHERE true
  ON CONFLICT (user_id, event_key) DO NOTHING;

  INSERT INTO system_movements (user_id, shard, seq, ref, account, currency_id, d_available, d_frozen, created_at)
  SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4, value ->> 5, value ->> 6, value ->> 7, value ->> 8 FROM json_each(NEW.body, '$.s') WHERE true
  ON CONFLICT (user_id, shard, seq) DO NOTHING;

  INSERT INTO pair_read_batches (pair_id, batch, body, created_at)
  SELECT value ->> 0, value ->> 1, value -> 2, value ->> 3 FROM json_each(NEW.body, '$.p') WHERE true ORDER BY key
  ON CONFLICT (pair_id, batch) DO NOTHING;

  DELETE FROM read_model_batches WHERE id = NEW.id;
END;
