-- Spot orders and trades as the ledger sees them. The pair Durable Object owns the live book;
-- these rows are written by the order path (freeze + insert, one batch) and by the outbox drain.
CREATE TABLE spot_orders (
  id INTEGER PRIMARY KEY,                  -- time-ordered id chosen by the Worker (also the engine's order id)
  user_id INTEGER NOT NULL REFERENCES users(id),
  pair_id INTEGER NOT NULL REFERENCES pairs(id),
  side TEXT NOT NULL CHECK (side IN ('buy', 'sell')),
  kind TEXT NOT NULL CHECK (kind IN ('limit', 'market')),
  price INTEGER NOT NULL,                  -- price units; for a market order the protective limit
  qty INTEGER NOT NULL CHECK (qty > 0),    -- quantity units
  filled INTEGER NOT NULL DEFAULT 0 CHECK (filled >= 0 AND filled <= qty),
  reserved_units INTEGER NOT NULL,         -- minimal units frozen at submission
  reserved_currency INTEGER NOT NULL,
  status INTEGER NOT NULL DEFAULT 0 CHECK (status IN (0, 1, 2, 3, 4)), -- 0 submitted, 1 open, 2 filled, 3 cancelled, 4 rejected
  done_reason TEXT,
  client_oid TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  UNIQUE (user_id, client_oid)
);
CREATE INDEX spot_orders_user ON spot_orders(user_id, status, id);
CREATE INDEX spot_orders_submitted ON spot_orders(status, created_at);

CREATE TABLE spot_trades (
  pair_id INTEGER NOT NULL,
  trade_id INTEGER NOT NULL,               -- the engine's trade sequence
  price INTEGER NOT NULL,
  qty INTEGER NOT NULL,
  taker_side TEXT NOT NULL,
  buyer_id INTEGER NOT NULL,
  seller_id INTEGER NOT NULL,
  buy_order_id INTEGER NOT NULL,
  sell_order_id INTEGER NOT NULL,
  buyer_fee INTEGER NOT NULL,              -- base minimal units
  seller_fee INTEGER NOT NULL,             -- quote minimal units
  created_at INTEGER NOT NULL,
  PRIMARY KEY (pair_id, trade_id)
);
CREATE INDEX spot_trades_buyer ON spot_trades(buyer_id, created_at);
CREATE INDEX spot_trades_seller ON spot_trades(seller_id, created_at);
