-- C2C advert editing (issue #10 follow-up): a merchant may change an advert's price, per-order
-- limits and accepted methods while it is OFF the shelf (status 2), through
-- POST /api/c2c/adverts/{id}/edit. 0012's c2c_adverts_terms made those columns immutable; it is
-- re-created without them, and a new trigger allows them to change only from and to status 2.
-- Identity, side, coin, fiat and total stay immutable: the coins (remaining, escrow) change only
-- through the shelf, orders and withdrawal. Orders keep their own price and payment snapshot.

DROP TRIGGER c2c_adverts_terms;

CREATE TRIGGER c2c_adverts_terms BEFORE UPDATE OF id, user_id, type, currency_id, fiat, total, created_at ON c2c_adverts
BEGIN SELECT RAISE(ABORT, 'state_conflict: c2c advert terms are immutable'); END;

CREATE TRIGGER c2c_adverts_edit BEFORE UPDATE OF price, min_money, max_money, pay_kinds ON c2c_adverts
WHEN OLD.status != 2 OR NEW.status != 2
BEGIN SELECT RAISE(ABORT, 'c2c_advert_state'); END;
