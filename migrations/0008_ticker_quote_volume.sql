-- 24 h volume in the quote currency (USDT), next to the base-currency volume the spec names
-- `volume`: a BTC pair's base volume reads "0.00K" on screens, its USDT value does not.
-- Decimal string like the other ticker columns; a ticker written before this column reads "0"
-- until the pair's next trade rewrites it.
ALTER TABLE tickers ADD COLUMN quote_volume_24h TEXT NOT NULL DEFAULT '0';
