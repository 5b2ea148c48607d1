-- Market data the pair objects publish for the HTTP endpoints (quotations, home list).
-- Written only from executed trades: a pair with no trades has no row, never an invented price.
CREATE TABLE tickers (
  pair_id INTEGER PRIMARY KEY REFERENCES pairs(id),
  last_price TEXT NOT NULL,      -- decimal string at the pair's price decimals
  open_24h TEXT NOT NULL,
  high_24h TEXT NOT NULL,
  low_24h TEXT NOT NULL,
  volume_24h TEXT NOT NULL,      -- base quantity, decimal string
  change_24h TEXT NOT NULL,      -- percent, 2 decimals, e.g. "-1.25"
  updated_at INTEGER NOT NULL
);
