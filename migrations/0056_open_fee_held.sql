-- Issue #28, session 19: in objects mode (ACCOUNTS=objects) the open fee of a seconds contract and
-- of a leveraged position leaves the user's hold at the open, as D1 mode charges it there.
--
-- fee_held: 1 while the record's open fee is still in its owner's hold in the account object (with
-- the stake or the margin), 0 once it went to the fee shard. Only the reconciler's objects-mode hold
-- sources read it (worker/domain/seconds/orders.ts `secondsHolds`, worker/domain/lever/positions.ts
-- `leverHolds`): the user's frozen funds are the stake (the margin less overnight fees) plus the fee
-- while it is held. Every row from before is 1: in objects mode its fee stayed in the hold until the
-- settle or the close, and so it still does (the pair keeps the old settle shape for it). A contract
-- accepted after this is 0 from its insert (the pair's drain); a position becomes 0 when the pair
-- tells D1 it opened with its fee paid (at once, or at a pending limit's fill). D1 mode's rows are
-- never read for it (D1 charged the fee at the open in its ledger).
ALTER TABLE micro_orders ADD COLUMN fee_held INTEGER NOT NULL DEFAULT 1;
ALTER TABLE lever_positions ADD COLUMN fee_held INTEGER NOT NULL DEFAULT 1;
