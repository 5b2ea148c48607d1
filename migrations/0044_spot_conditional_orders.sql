-- Conditional spot orders (stop-limit, OCO, trailing stop): the read model of what the pair object
-- watches, and a hold source. Funds are frozen at placement in the same batch as this row (movement
-- spot-freeze:{id}); `reserved_units` is this order's own hold while it is submitted (0) or open (1):
-- the whole hold of a stop-limit or trailing stop, and for an OCO what its limit leg (the spot order
-- with the same id) does not already hold. When it fires (2) its child order (spot_orders row
-- child_order_id, written by the drain) holds the funds; cancelled (3) or refused (4) released them.
-- Prices are in the pair's price units, qty in quantity units, as spot_orders.
CREATE TABLE spot_conditional_orders (
  id INTEGER PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id),
  pair_id INTEGER NOT NULL REFERENCES pairs(id),
  side TEXT NOT NULL CHECK (side IN ('buy', 'sell')),
  type TEXT NOT NULL CHECK (type IN ('stop_limit', 'oco', 'trailing')),
  qty INTEGER NOT NULL CHECK (qty > 0),
  price INTEGER NOT NULL CHECK (price > 0),   -- the child's limit (stop_limit, trailing); the OCO leg's limit
  stop_price INTEGER,
  limit_price INTEGER,                         -- OCO: the stop child's limit
  callback_bps INTEGER,
  activation_price INTEGER,
  reserved_units INTEGER NOT NULL CHECK (reserved_units >= 0),
  reserved_currency INTEGER NOT NULL,
  status INTEGER NOT NULL DEFAULT 0 CHECK (status IN (0, 1, 2, 3, 4)), -- 0 submitted, 1 open, 2 triggered, 3 cancelled, 4 refused
  reason TEXT,
  trigger_price INTEGER,
  child_order_id INTEGER,
  client_oid TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  UNIQUE (user_id, client_oid)
);
CREATE INDEX spot_conditional_user ON spot_conditional_orders(user_id, status, id);
CREATE INDEX spot_conditional_open ON spot_conditional_orders(status, user_id) WHERE status IN (0, 1);
