-- A market buy "by total" (spend 500 USDT) carries its quote budget in price × quantity units:
-- the pair object spends at most this much, and a client_oid replay re-sends the same budget.
-- NULL for every other order. Kept below 2^53 like the other amounts.
ALTER TABLE spot_orders ADD COLUMN budget INTEGER CHECK (budget IS NULL OR (budget > 0 AND budget <= 9007199254740991));
