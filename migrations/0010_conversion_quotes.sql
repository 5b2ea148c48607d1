-- Flash-exchange quotes: POST /api/user/shandui_quote prices a conversion and keeps it here for
-- 10 seconds; POST /api/user/shandui_sub with its quote_id executes exactly these amounts (the
-- movement key `conversion:q:{id}` lets a quote execute at most once) or refuses once expired.
-- Amounts are integer minimal units as TEXT, like the conversions table.
CREATE TABLE conversion_quotes (
  id TEXT PRIMARY KEY,                 -- 32 hex characters, random
  user_id INTEGER NOT NULL,
  from_currency INTEGER NOT NULL,
  to_currency INTEGER NOT NULL,
  money TEXT NOT NULL,
  money2 TEXT NOT NULL,
  treasury_out TEXT NOT NULL,
  fee TEXT NOT NULL,
  fee_percent TEXT NOT NULL,
  usdt_value TEXT NOT NULL,
  price TEXT NOT NULL,
  rate TEXT NOT NULL,
  expires_at INTEGER NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE INDEX conversion_quotes_user ON conversion_quotes(user_id, created_at);
