-- Trader tools (issue #30): price alerts and favourite pairs.
--
-- price_alerts is the record of every alert (durable/pair/desks/alerts.ts says how it fires).
-- The route writes a row (status 0 active) and then hands it to its pair's object, which keeps the
-- pair's active alerts in memory, sorted, and also loads them from here when it starts. An alert
-- fires once: the object writes "fired" into its own SQLite with an outbox entry in the
-- transaction of the trade that reached it; the drain then sets status 1 here and writes the
-- owner's notification keyed `alert:{id}`, only while the row is still active (a deleted alert
-- never notifies). status 2 = deleted by its owner. Prices are decimal strings at the pair's
-- price decimals and, for the object, integer price ticks (`price_ticks`); `percent_bps` is the
-- move of a "move" alert in basis points over `window_s` seconds (3600 or 86400).
CREATE TABLE price_alerts (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  user_id INTEGER NOT NULL REFERENCES users(id),
  pair_id INTEGER NOT NULL REFERENCES pairs(id),
  kind TEXT NOT NULL CHECK (kind IN ('above', 'below', 'move')),
  price TEXT,
  price_ticks INTEGER CHECK (price_ticks IS NULL OR price_ticks > 0),
  percent_bps INTEGER CHECK (percent_bps IS NULL OR percent_bps > 0),
  window_s INTEGER CHECK (window_s IS NULL OR window_s IN (3600, 86400)),
  status INTEGER NOT NULL DEFAULT 0 CHECK (status IN (0, 1, 2)),
  created_at INTEGER NOT NULL,
  fired_at INTEGER,
  fired_price TEXT,
  CHECK ((kind = 'move') = (percent_bps IS NOT NULL AND window_s IS NOT NULL AND price_ticks IS NULL)),
  CHECK ((kind <> 'move') = (price_ticks IS NOT NULL AND price IS NOT NULL))
);
CREATE INDEX price_alerts_user ON price_alerts (user_id, status, id);
CREATE INDEX price_alerts_pair_active ON price_alerts (pair_id) WHERE status = 0;

-- A user's starred pairs (the markets screen's favourites tab), one row per (user, pair).
CREATE TABLE market_favourites (
  user_id INTEGER NOT NULL REFERENCES users(id),
  pair_id INTEGER NOT NULL REFERENCES pairs(id),
  created_at INTEGER NOT NULL,
  PRIMARY KEY (user_id, pair_id)
) WITHOUT ROWID;
