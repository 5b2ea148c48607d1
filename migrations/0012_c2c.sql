-- C2C: fiat trading with merchants (issue #10; DESIGN §8; worker/domain/c2c/).
--
-- Coins in escrow are frozen funds of the seller's `legal` account. The frozen amount of a user's
-- legal account is explained by exactly these rows (worker/domain/c2c/holds.ts, reconciliation):
--   merchant deposits   c2c_merchants.deposit        while the application is 0 applying or 1 approved
--   sell adverts        c2c_adverts.remaining        while 1 on shelf, 2 off shelf or 4 abnormal
--   running orders      c2c_orders.amount (seller)   while is_sure is 0 unpaid or 3 paid
-- Fiat (CNY) never enters the ledger: prices and fiat totals are INTEGER cents.
--
-- Every state change is an UPDATE guarded on the current state, followed in the same D1 batch by a
-- row in c2c_guards holding changes() of that UPDATE: an UPDATE that matched nothing aborts the
-- whole batch (ledger movement included), so a stale read can never move money. The triggers
-- below refuse what must never happen whatever statement reaches the database.

-- Statement guard: `INSERT INTO c2c_guards (changed, what) VALUES (changes(), '...')` right after
-- a guarded UPDATE aborts the batch unless that UPDATE changed exactly one row. Rows do not stay.
CREATE TABLE c2c_guards (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  changed INTEGER NOT NULL,
  what TEXT NOT NULL
);
CREATE TRIGGER c2c_guards_check BEFORE INSERT ON c2c_guards
WHEN NEW.changed != 1
BEGIN SELECT RAISE(ABORT, 'state_conflict: c2c guard'); END;
CREATE TRIGGER c2c_guards_forget AFTER INSERT ON c2c_guards
BEGIN DELETE FROM c2c_guards WHERE id = NEW.id; END;

-- Merchant applications: 0 applying (deposit frozen), 1 approved, 2 rejected (deposit returned),
-- 3 left or withdrew the application (deposit returned). One live (0/1) application per user and
-- per name. id is chosen by the worker (time-ordered) because movement keys carry it.
CREATE TABLE c2c_merchants (
  id INTEGER PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id),
  name TEXT NOT NULL,
  status INTEGER NOT NULL DEFAULT 0 CHECK (status IN (0, 1, 2, 3)),
  currency_id INTEGER NOT NULL REFERENCES currencies(id),
  deposit INTEGER NOT NULL CHECK (deposit >= 0 AND deposit <= 9007199254740991),
  reason TEXT NOT NULL DEFAULT '',
  decided_by INTEGER,
  decided_at INTEGER,
  left_at INTEGER,
  created_at INTEGER NOT NULL
);
CREATE UNIQUE INDEX c2c_merchants_live_user ON c2c_merchants(user_id) WHERE status IN (0, 1);
CREATE UNIQUE INDEX c2c_merchants_live_name ON c2c_merchants(lower(name)) WHERE status IN (0, 1);
CREATE INDEX c2c_merchants_status ON c2c_merchants(status, id);

CREATE TRIGGER c2c_merchants_insert BEFORE INSERT ON c2c_merchants
WHEN NEW.status != 0
  OR NOT EXISTS (SELECT 1 FROM users WHERE id = NEW.user_id AND review_status = 2 AND role = 'user')
BEGIN SELECT RAISE(ABORT, 'state_conflict: c2c merchant application'); END;

CREATE TRIGGER c2c_merchants_transition BEFORE UPDATE OF status ON c2c_merchants
WHEN NOT ((OLD.status = 0 AND NEW.status IN (1, 2, 3)) OR (OLD.status = 1 AND NEW.status = 3))
BEGIN SELECT RAISE(ABORT, 'state_conflict: c2c merchant'); END;

CREATE TRIGGER c2c_merchants_not_own_decision BEFORE UPDATE OF status ON c2c_merchants
WHEN NEW.status IN (1, 2) AND (NEW.decided_by IS NULL OR NEW.decided_by = OLD.user_id)
BEGIN SELECT RAISE(ABORT, 'own_record: c2c merchant'); END;

-- A merchant leaves only once every advert is withdrawn (no escrow, no running order left).
CREATE TRIGGER c2c_merchants_leave BEFORE UPDATE OF status ON c2c_merchants
WHEN NEW.status = 3 AND EXISTS (SELECT 1 FROM c2c_adverts WHERE user_id = OLD.user_id AND status IN (1, 2, 4))
BEGIN SELECT RAISE(ABORT, 'c2c_adverts_open'); END;

CREATE TRIGGER c2c_merchants_terms BEFORE UPDATE OF id, user_id, currency_id, deposit, created_at ON c2c_merchants
BEGIN SELECT RAISE(ABORT, 'state_conflict: c2c merchant terms are immutable'); END;

-- users.is_seller follows the application (spec §3 user info).
CREATE TRIGGER c2c_merchants_is_seller AFTER UPDATE OF status ON c2c_merchants
BEGIN UPDATE users SET is_seller = CASE WHEN NEW.status = 1 THEN 1 ELSE 0 END WHERE id = NEW.user_id; END;

-- Receiving methods besides the bank card (bank_cards): the holder is always the verified real name.
CREATE TABLE c2c_pay_methods (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  user_id INTEGER NOT NULL REFERENCES users(id),
  kind TEXT NOT NULL CHECK (kind IN ('alipay', 'wechat', 'other')),
  holder_name TEXT NOT NULL,
  account TEXT NOT NULL CHECK (length(account) BETWEEN 1 AND 64),
  label TEXT NOT NULL DEFAULT '',
  qr_code TEXT REFERENCES uploads(id),
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX c2c_pay_methods_user ON c2c_pay_methods(user_id, id);
CREATE TRIGGER c2c_pay_methods_holder_insert BEFORE INSERT ON c2c_pay_methods
WHEN NEW.holder_name IS NOT (SELECT real_name FROM users WHERE id = NEW.user_id AND review_status = 2)
BEGIN SELECT RAISE(ABORT, 'c2c_holder_name'); END;
CREATE TRIGGER c2c_pay_methods_holder_update BEFORE UPDATE ON c2c_pay_methods
WHEN NEW.user_id != OLD.user_id OR NEW.holder_name IS NOT (SELECT real_name FROM users WHERE id = NEW.user_id AND review_status = 2)
BEGIN SELECT RAISE(ABORT, 'c2c_holder_name'); END;

-- Adverts. price, min_money, max_money: CNY cents. total, remaining: coin minimal units.
-- status: 1 on shelf, 2 off shelf, 3 withdrawn (final), 4 abnormal (operator). A sell advert's
-- remaining is escrow (frozen in the merchant's legal account); a buy advert's is what it still buys.
CREATE TABLE c2c_adverts (
  id INTEGER PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id),
  type TEXT NOT NULL CHECK (type IN ('buy', 'sell')),
  currency_id INTEGER NOT NULL REFERENCES currencies(id),
  fiat TEXT NOT NULL DEFAULT 'CNY' CHECK (fiat = 'CNY'),
  price INTEGER NOT NULL CHECK (price > 0 AND price <= 100000000000),
  total INTEGER NOT NULL CHECK (total > 0 AND total <= 9007199254740991),
  remaining INTEGER NOT NULL CHECK (remaining >= 0 AND remaining <= total),
  min_money INTEGER NOT NULL CHECK (min_money > 0),
  max_money INTEGER NOT NULL CHECK (max_money >= min_money AND max_money <= 9007199254740991),
  pay_kinds TEXT NOT NULL,                 -- comma-separated: bank, alipay, wechat, other
  remark TEXT NOT NULL DEFAULT '',
  status INTEGER NOT NULL DEFAULT 1 CHECK (status IN (1, 2, 3, 4)),
  reason TEXT NOT NULL DEFAULT '',         -- the operator's reason when abnormal
  marked_by INTEGER,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX c2c_adverts_market ON c2c_adverts(status, type, currency_id, price);
CREATE INDEX c2c_adverts_user ON c2c_adverts(user_id, id);

-- Only approved merchants post adverts, in an is_legal coin, on the shelf with all of it remaining.
CREATE TRIGGER c2c_adverts_insert BEFORE INSERT ON c2c_adverts
WHEN NEW.status != 1 OR NEW.remaining != NEW.total
  OR NOT EXISTS (SELECT 1 FROM c2c_merchants WHERE user_id = NEW.user_id AND status = 1)
  OR NOT EXISTS (SELECT 1 FROM currencies WHERE id = NEW.currency_id AND is_legal = 1)
BEGIN SELECT RAISE(ABORT, 'c2c_not_merchant'); END;

-- Spec §4: on ↔ off; withdrawn only after being taken off (or from abnormal); abnormal from on/off.
CREATE TRIGGER c2c_adverts_transition BEFORE UPDATE OF status ON c2c_adverts
WHEN NEW.status != OLD.status AND NOT (
  (OLD.status = 1 AND NEW.status IN (2, 4)) OR (OLD.status = 2 AND NEW.status IN (1, 3, 4)) OR (OLD.status = 4 AND NEW.status = 3))
BEGIN SELECT RAISE(ABORT, 'c2c_advert_state'); END;

-- Withdrawing or marking abnormal waits for every order of the advert to finish.
CREATE TRIGGER c2c_adverts_running BEFORE UPDATE OF status ON c2c_adverts
WHEN NEW.status IN (3, 4) AND NEW.status != OLD.status AND EXISTS (SELECT 1 FROM c2c_orders WHERE advert_id = OLD.id AND is_sure IN (0, 3))
BEGIN SELECT RAISE(ABORT, 'c2c_trade_running'); END;

-- A withdrawn advert keeps nothing; an order never takes more than remains.
CREATE TRIGGER c2c_adverts_remaining BEFORE UPDATE OF remaining, status ON c2c_adverts
WHEN NEW.remaining < 0 OR (NEW.status = 3 AND NEW.remaining != 0) OR (OLD.status = 3 AND NEW.remaining != 0)
BEGIN SELECT RAISE(ABORT, 'c2c_remaining'); END;

CREATE TRIGGER c2c_adverts_terms BEFORE UPDATE OF id, user_id, type, currency_id, fiat, price, total, min_money, max_money, pay_kinds, created_at ON c2c_adverts
BEGIN SELECT RAISE(ABORT, 'state_conflict: c2c advert terms are immutable'); END;

-- Orders. amount: coin minimal units (the escrow); price, deal_money: CNY cents.
-- is_sure: 0 unpaid, 3 paid, 1 finished, 2 cancelled. type is the advert's: 'sell' = the merchant
-- sells (seller = merchant, buyer = taker), 'buy' = the merchant buys (buyer = merchant, seller = taker).
CREATE TABLE c2c_orders (
  id INTEGER PRIMARY KEY,
  advert_id INTEGER NOT NULL REFERENCES c2c_adverts(id),
  type TEXT NOT NULL CHECK (type IN ('buy', 'sell')),
  merchant_id INTEGER NOT NULL,
  taker_id INTEGER NOT NULL,
  buyer_id INTEGER NOT NULL,
  seller_id INTEGER NOT NULL,
  currency_id INTEGER NOT NULL REFERENCES currencies(id),
  amount INTEGER NOT NULL CHECK (amount > 0 AND amount <= 9007199254740991),
  price INTEGER NOT NULL CHECK (price > 0),
  deal_money INTEGER NOT NULL CHECK (deal_money > 0 AND deal_money <= 9007199254740991),
  is_sure INTEGER NOT NULL DEFAULT 0 CHECK (is_sure IN (0, 1, 2, 3)),
  pay_deadline INTEGER NOT NULL,
  pay_methods TEXT NOT NULL,               -- JSON: the seller's accepted receiving methods at creation
  pay_orders_img TEXT REFERENCES uploads(id),
  paid_at INTEGER,
  ended_at INTEGER,
  cancel_reason TEXT CHECK (cancel_reason IN ('buyer', 'expired', 'appeal')),
  created_at INTEGER NOT NULL,
  CHECK (buyer_id != seller_id),
  CHECK ((type = 'sell' AND seller_id = merchant_id AND buyer_id = taker_id) OR (type = 'buy' AND buyer_id = merchant_id AND seller_id = taker_id)),
  CHECK (is_sure NOT IN (1, 3) OR (paid_at IS NOT NULL AND pay_orders_img IS NOT NULL)),
  CHECK (is_sure IN (0, 3) OR ended_at IS NOT NULL),
  CHECK ((is_sure = 2) = (cancel_reason IS NOT NULL))
);
CREATE INDEX c2c_orders_buyer ON c2c_orders(buyer_id, id);
CREATE INDEX c2c_orders_seller ON c2c_orders(seller_id, id);
CREATE INDEX c2c_orders_taker_open ON c2c_orders(taker_id, is_sure);
CREATE INDEX c2c_orders_advert ON c2c_orders(advert_id, is_sure);
CREATE INDEX c2c_orders_merchant ON c2c_orders(merchant_id, is_sure);
CREATE INDEX c2c_orders_deadline ON c2c_orders(is_sure, pay_deadline);

-- A new order: unpaid, on an advert on the shelf with its type, owner and price, by someone else
-- (CHECK buyer != seller), within the taker's limits: at most 3 unfinished orders, and not after
-- 3 cancellations on the same Beijing day (spec §9).
CREATE TRIGGER c2c_orders_insert BEFORE INSERT ON c2c_orders
WHEN NEW.is_sure != 0 OR NOT EXISTS (
  SELECT 1 FROM c2c_adverts a WHERE a.id = NEW.advert_id AND a.status = 1 AND a.type = NEW.type
    AND a.user_id = NEW.merchant_id AND a.price = NEW.price AND a.currency_id = NEW.currency_id)
BEGIN SELECT RAISE(ABORT, 'c2c_advert_closed'); END;
CREATE TRIGGER c2c_orders_unfinished_limit BEFORE INSERT ON c2c_orders
WHEN (SELECT count(*) FROM c2c_orders WHERE taker_id = NEW.taker_id AND is_sure IN (0, 3)) >= 3
BEGIN SELECT RAISE(ABORT, 'c2c_unfinished_limit'); END;
CREATE TRIGGER c2c_orders_cancel_limit BEFORE INSERT ON c2c_orders
WHEN (SELECT count FROM c2c_cancel_days WHERE user_id = NEW.taker_id AND day = date(NEW.created_at / 1000 + 28800, 'unixepoch')) >= 3
BEGIN SELECT RAISE(ABORT, 'c2c_cancel_limit'); END;

-- The machine (worker/domain/c2c/machine.ts): 0→3 paid (only before the deadline), 0→2, 3→1, 3→2.
CREATE TRIGGER c2c_orders_transition BEFORE UPDATE OF is_sure ON c2c_orders
WHEN NOT ((OLD.is_sure = 0 AND NEW.is_sure IN (2, 3)) OR (OLD.is_sure = 3 AND NEW.is_sure IN (1, 2)))
BEGIN SELECT RAISE(ABORT, 'state_conflict: c2c order'); END;
CREATE TRIGGER c2c_orders_pay_window BEFORE UPDATE OF is_sure ON c2c_orders
WHEN OLD.is_sure = 0 AND NEW.is_sure = 3 AND (NEW.paid_at IS NULL OR NEW.paid_at >= OLD.pay_deadline)
BEGIN SELECT RAISE(ABORT, 'c2c_pay_window'); END;
CREATE TRIGGER c2c_orders_terms BEFORE UPDATE OF id, advert_id, type, merchant_id, taker_id, buyer_id, seller_id, currency_id, amount, price, deal_money, pay_deadline, pay_methods, created_at ON c2c_orders
BEGIN SELECT RAISE(ABORT, 'state_conflict: c2c order terms are immutable'); END;

-- Cancellations per user and Beijing day (own cancels and expired unpaid orders, as the buyer).
CREATE TABLE c2c_cancel_days (
  user_id INTEGER NOT NULL,
  day TEXT NOT NULL,                       -- YYYY-MM-DD in Beijing time
  count INTEGER NOT NULL CHECK (count >= 0),
  PRIMARY KEY (user_id, day)
);
CREATE TRIGGER c2c_orders_count_cancel AFTER UPDATE OF is_sure ON c2c_orders
WHEN NEW.is_sure = 2 AND NEW.cancel_reason IN ('buyer', 'expired')
BEGIN
  INSERT INTO c2c_cancel_days (user_id, day, count) VALUES (NEW.buyer_id, date(NEW.ended_at / 1000 + 28800, 'unixepoch'), 1)
  ON CONFLICT (user_id, day) DO UPDATE SET count = count + 1;
END;

-- Every state change of an order, in the batch that makes it: the order's record for appeals.
-- The machine is acyclic, so each state is left at most once: UNIQUE (order_id, from_state).
CREATE TABLE c2c_order_events (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  order_id INTEGER NOT NULL REFERENCES c2c_orders(id),
  from_state INTEGER NOT NULL,
  to_state INTEGER NOT NULL,
  action TEXT NOT NULL,                    -- pay, confirm, cancel, expire, release, return
  actor_id INTEGER,                        -- user or operator; NULL for the expiry job
  created_at INTEGER NOT NULL,
  UNIQUE (order_id, from_state)
);
CREATE TRIGGER c2c_order_events_insert BEFORE INSERT ON c2c_order_events
WHEN NOT EXISTS (SELECT 1 FROM c2c_orders WHERE id = NEW.order_id AND is_sure = NEW.to_state)
  OR EXISTS (SELECT 1 FROM c2c_order_events WHERE order_id = NEW.order_id AND from_state = NEW.from_state)
BEGIN SELECT RAISE(ABORT, 'state_conflict: c2c order event'); END;
CREATE TRIGGER c2c_order_events_no_update BEFORE UPDATE ON c2c_order_events
BEGIN SELECT RAISE(ABORT, 'c2c order events are append-only'); END;
CREATE TRIGGER c2c_order_events_no_delete BEFORE DELETE ON c2c_order_events
BEGIN SELECT RAISE(ABORT, 'c2c order events are append-only'); END;

-- Chat: kept with the order; the two parties write, operators only on an appealed order.
CREATE TABLE c2c_messages (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  order_id INTEGER NOT NULL REFERENCES c2c_orders(id),
  sender_id INTEGER NOT NULL,
  sender_role TEXT NOT NULL CHECK (sender_role IN ('buyer', 'seller', 'operator')),
  kind TEXT NOT NULL CHECK (kind IN ('text', 'image')),
  body TEXT NOT NULL DEFAULT '' CHECK (length(body) <= 2000),
  upload_id TEXT REFERENCES uploads(id),
  created_at INTEGER NOT NULL,
  CHECK ((kind = 'text') = (upload_id IS NULL))
);
CREATE INDEX c2c_messages_order ON c2c_messages(order_id, id);
CREATE TRIGGER c2c_messages_sender BEFORE INSERT ON c2c_messages
WHEN NOT EXISTS (
  SELECT 1 FROM c2c_orders o WHERE o.id = NEW.order_id AND (
    (NEW.sender_role = 'buyer' AND o.buyer_id = NEW.sender_id) OR
    (NEW.sender_role = 'seller' AND o.seller_id = NEW.sender_id) OR
    (NEW.sender_role = 'operator' AND o.buyer_id != NEW.sender_id AND o.seller_id != NEW.sender_id
      AND EXISTS (SELECT 1 FROM c2c_appeals p WHERE p.order_id = o.id))))
BEGIN SELECT RAISE(ABORT, 'no_permission: c2c message'); END;
CREATE TRIGGER c2c_messages_no_update BEFORE UPDATE ON c2c_messages
BEGIN SELECT RAISE(ABORT, 'c2c messages are append-only'); END;

-- Appeals: one per order, by a party of a paid order. status 0 open, 1 released to the buyer,
-- 2 returned to the seller, 3 closed (the seller confirmed). No operator decides an order of their own.
CREATE TABLE c2c_appeals (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  order_id INTEGER NOT NULL UNIQUE REFERENCES c2c_orders(id),
  by_user_id INTEGER NOT NULL,
  by_role TEXT NOT NULL CHECK (by_role IN ('buyer', 'seller')),
  reason TEXT NOT NULL CHECK (length(reason) BETWEEN 1 AND 2000),
  evidence TEXT NOT NULL DEFAULT '[]',     -- JSON array of upload ids
  status INTEGER NOT NULL DEFAULT 0 CHECK (status IN (0, 1, 2, 3)),
  decided_by INTEGER,
  decision_reason TEXT NOT NULL DEFAULT '',
  decided_at INTEGER,
  created_at INTEGER NOT NULL
);
CREATE INDEX c2c_appeals_status ON c2c_appeals(status, id);
CREATE TRIGGER c2c_appeals_insert BEFORE INSERT ON c2c_appeals
WHEN NEW.status != 0 OR NOT EXISTS (
  SELECT 1 FROM c2c_orders o WHERE o.id = NEW.order_id AND o.is_sure = 3 AND (
    (NEW.by_role = 'buyer' AND o.buyer_id = NEW.by_user_id) OR (NEW.by_role = 'seller' AND o.seller_id = NEW.by_user_id)))
BEGIN SELECT RAISE(ABORT, 'state_conflict: c2c appeal'); END;
CREATE TRIGGER c2c_appeals_transition BEFORE UPDATE OF status ON c2c_appeals
WHEN NOT (OLD.status = 0 AND NEW.status IN (1, 2, 3))
BEGIN SELECT RAISE(ABORT, 'state_conflict: c2c appeal'); END;
CREATE TRIGGER c2c_appeals_not_own BEFORE UPDATE OF status ON c2c_appeals
WHEN NEW.status IN (1, 2) AND (NEW.decided_by IS NULL OR EXISTS (
  SELECT 1 FROM c2c_orders o WHERE o.id = OLD.order_id AND NEW.decided_by IN (o.buyer_id, o.seller_id, o.merchant_id)))
BEGIN SELECT RAISE(ABORT, 'own_record: c2c appeal'); END;
CREATE TRIGGER c2c_appeals_terms BEFORE UPDATE OF id, order_id, by_user_id, by_role, reason, evidence, created_at ON c2c_appeals
BEGIN SELECT RAISE(ABORT, 'state_conflict: c2c appeal terms are immutable'); END;
