/**
 * The order dialog of an advert (spec §4, §5): the user types the coin amount or the CNY total
 * (the other follows: total = number × price to 2 decimals, computed in bigint), "All" fills the
 * largest amount allowed, and the amount is checked against the advert's limits, its remaining
 * amount and (selling) the user's balance before it is sent. It never closes on its own: `advert`
 * is the market list's live copy (refreshed while the dialog is open), so a changed price shows in
 * place with a notice, the typed amount is kept and the total follows the new price; the order
 * carries the price shown, and the server refuses it if the advert's price is another one by then.
 * A new order leads to its pay page (buying) or its detail.
 *
 * What ordering needs comes first (issue #26): a verified identity and a receiving account (for
 * selling, one of the kinds the merchant pays to), each with its way to get it, and the payment
 * window. The order button waits until both are there; the way to add an account leaves with a
 * return path that reopens this dialog with the typed amount, so nothing is lost on the way.
 */
import { useState } from "react";
import { Link, useNavigate } from "react-router";
import { m } from "../../../i18n/index.ts";
import { ApiFailure } from "../../../lib/api.ts";
import { sanitizeAmountInput } from "../../../lib/amount.ts";
import { toast } from "../../../lib/toast.ts";
import { Modal } from "../../../components/Modal.tsx";
import { Spinner } from "../../../components/States.tsx";
import { useC2cConfig, useCenter, usePayMethods, usePlaceOrder, useRefreshAdverts, type C2cAdvert } from "../api.ts";
import { allInNumber, checkOrder, numberForTotal, totalOf, type OrderProblem } from "../math.ts";
import { cny, PayKinds, payKindText } from "./common.tsx";
import { Icon } from "../../../components/Icon.tsx";
import s from "./c2c.module.css";
import { formatExact } from "../../../lib/format.ts";

function problemText(p: OrderProblem, coin: string): string {
  switch (p.kind) {
    case "empty":
      return m.c2c_err_amount_required();
    case "invalid":
      return m.c2c_err_amount_positive();
    case "decimals":
      return m.c2c_err_decimals({ decimals: p.decimals });
    case "below_min":
      return m.c2c_err_below_min({ min: cny(p.min) });
    case "above_max":
      return m.c2c_err_above_max({ max: cny(p.max) });
    case "above_remaining":
      return m.c2c_err_above_remaining({ amount: `${formatExact(p.remaining)} ${coin}` });
    case "above_balance":
      return m.c2c_err_above_balance({ amount: `${formatExact(p.balance)} ${coin}` });
  }
}

export function OrderDialog({
  advert,
  scale,
  onClose,
  initialAmount = "",
  returnPath,
}: {
  advert: C2cAdvert;
  scale: number;
  onClose: () => void;
  /** The coin amount typed before leaving to add an account. */
  initialAmount?: string;
  /** Where adding an account brings the user back to: this dialog with this amount. */
  returnPath: (amount: string) => string;
}) {
  const navigate = useNavigate();
  const center = useCenter();
  const methods = usePayMethods();
  const config = useC2cConfig();
  const place = usePlaceOrder();
  const refreshAdverts = useRefreshAdverts();
  const userBuys = advert.type === "sell";
  const coin = advert.currency_name;
  const [by, setBy] = useState<"number" | "total">("number");
  const [number, setNumber] = useState(initialAmount);
  const [total, setTotal] = useState("");
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  // The price when the dialog opened: a different live price is pointed out.
  const [openedAt] = useState(advert.price);
  const repriced = advert.price !== openedAt;

  // The amount that is sent, whichever field the user types in.
  const qty = by === "number" ? number : (numberForTotal(total, advert.price, scale) ?? "");
  const shownTotal = totalOf(qty, advert.price, scale);

  // What ordering needs, as the server checks it (998 unverified, 997 no receiving account).
  const verified = center.data ? center.data.review_status === 2 : null;
  const usable = (methods.data?.lists ?? []).filter((p) => !p.name_mismatch);
  const hasAccount = methods.data ? (userBuys ? usable.length > 0 : usable.some((p) => advert.pay_kinds.includes(p.kind))) : null;
  const ready = verified === true && hasAccount === true;
  const minutes = config.data ? String(Math.round(config.data.pay_window_seconds / 60)) : null;

  const submit = async () => {
    if (busy || !ready) return;
    const problem = checkOrder(qty, advert, scale);
    if (problem) {
      setError(problemText(problem, coin));
      return;
    }
    setBusy(true);
    try {
      const r = await place(advert.id, qty, advert.price);
      toast.success(r.msg || m.c2c_order_placed());
      onClose();
      navigate(userBuys ? `/legal/pay?id=${r.data.id}` : `/legal/show?id=${r.data.id}`);
    } catch (e) {
      // 998/997 open the app's reminder (verification, receiving method): make way for it.
      if (e instanceof ApiFailure && (e.kind === "998" || e.kind === "997" || e.kind === "999")) onClose();
      else if (e instanceof ApiFailure) {
        setError(e.message);
        // The advert changed under the user (price, remaining, shelf): show it as it is now.
        refreshAdverts();
      }
    } finally {
      setBusy(false);
    }
  };

  const fillAll = () => {
    const all = allInNumber(advert, scale);
    setBy("number");
    setNumber(all);
    setError("");
  };

  const title = userBuys ? m.c2c_buy_coin({ coin }) : m.c2c_sell_coin({ coin });
  return (
    <Modal
      title={title}
      onClose={onClose}
      busy={busy}
      testId="c2c-order-dialog"
      dismiss
      actions={
        <button type="button" className={`btn ${userBuys ? s.btnBuy : s.btnSell}`} onClick={submit} disabled={busy || !ready} data-testid="c2c-order-submit">
          {busy && <Spinner size={16} />}
          {userBuys ? m.c2c_buy() : m.c2c_sell()}
        </button>
      }
    >
      <div className={s.dialogBody}>
        <section className={s.reqs} aria-label={m.c2c_req_title()} data-testid="c2c-reqs">
          <h3 className={s.reqsTitle}>{m.c2c_req_title()}</h3>
          <ul>
            <li className={verified ? s.reqOk : s.reqTodo} data-testid="req-verified" data-ok={verified === true}>
              <Icon name={verified ? "check" : "alert"} size={16} />
              {verified === null ? (
                <Spinner size={14} />
              ) : verified ? (
                <span>{m.c2c_req_verified({ level: String(center.data?.level ?? 1) })}</span>
              ) : (
                <>
                  <span>{m.c2c_req_verify()}</span>
                  <Link to="/verifyed" className="btn btn-small btn-outline" data-testid="req-verify-link">{m.c2c_req_verify_go()}</Link>
                </>
              )}
            </li>
            <li className={hasAccount ? s.reqOk : s.reqTodo} data-testid="req-account" data-ok={hasAccount === true}>
              <Icon name={hasAccount ? "check" : "alert"} size={16} />
              {hasAccount === null ? (
                <Spinner size={14} />
              ) : hasAccount ? (
                <span>{m.c2c_req_account_ok({ kinds: [...new Set(usable.map((p) => payKindText(p.kind)))].join(", ") })}</span>
              ) : (
                <>
                  <span>{userBuys ? m.c2c_req_account_buy() : m.c2c_req_account_sell({ kinds: advert.pay_kinds.map(payKindText).join(", ") })}</span>
                  <Link to={`/legal/payment?back=${encodeURIComponent(returnPath(qty))}`} className="btn btn-small btn-outline" data-testid="req-account-link">
                    {m.c2c_req_account_go()}
                  </Link>
                </>
              )}
            </li>
            {minutes !== null && (
              <li className={s.reqInfo} data-testid="req-window">
                <Icon name="trade" size={16} />
                <span>{userBuys ? m.c2c_window_buyer({ minutes }) : m.c2c_window_seller({ minutes })}</span>
              </li>
            )}
          </ul>
        </section>
        <dl className={s.kv}>
          <div>
            <dt>{m.c2c_merchant()}</dt>
            <dd>{advert.seller_name}</dd>
          </div>
          <div>
            <dt>{m.c2c_price()}</dt>
            <dd className="num" data-testid="dialog-price">{cny(advert.price)}</dd>
          </div>
          <div>
            <dt>{m.c2c_limits()}</dt>
            <dd className="num">{cny(advert.min_money)} – {cny(advert.max_money)}</dd>
          </div>
          <div>
            <dt>{m.c2c_available()}</dt>
            <dd className="num">{formatExact(advert.surplus_number)} {coin}</dd>
          </div>
          {!userBuys && (
            <div>
              <dt>{m.c2c_your_balance()}</dt>
              <dd className="num" data-testid="dialog-balance">{formatExact(advert.user_sell_all_balance)} {coin}</dd>
            </div>
          )}
        </dl>
        <PayKinds kinds={advert.pay_kinds} />
        {advert.remark && <p className={`${s.remark} form-note`}>{advert.remark}</p>}

        <div className={s.byTabs} role="radiogroup" aria-label={m.c2c_order_by()}>
          <button type="button" role="radio" aria-checked={by === "number"} className={by === "number" ? "active" : ""} onClick={() => { setBy("number"); setError(""); }} data-testid="dialog-by-number">
            {m.c2c_by_amount()}
          </button>
          <button type="button" role="radio" aria-checked={by === "total"} className={by === "total" ? "active" : ""} onClick={() => { setBy("total"); setError(""); }} data-testid="dialog-by-total">
            {m.c2c_by_total()}
          </button>
        </div>
        <label className="field">
          <span className="field-label">{by === "number" ? m.c2c_amount_of({ coin }) : m.c2c_total_cny()}</span>
          <div className="input-wrap">
            <input
              className="input num"
              inputMode="decimal"
              autoComplete="off"
              value={by === "number" ? number : total}
              placeholder={by === "number" ? `${formatExact(advert.min_number)} – ${formatExact(advert.max_number)}` : `${advert.min_money} – ${advert.max_money}`}
              onChange={(e) => {
                setError("");
                if (by === "number") setNumber(sanitizeAmountInput(e.target.value, scale));
                else setTotal(sanitizeAmountInput(e.target.value, 2));
              }}
              aria-invalid={!!error}
              data-testid="dialog-input"
            />
            <span className={`input-addon ${s.inputAddon}`}>
              <span className="muted">{by === "number" ? coin : "CNY"}</span>
              <button type="button" className="text-btn" onClick={fillAll} data-testid="dialog-all">
                {m.c2c_all()}
              </button>
            </span>
          </div>
        </label>
        <dl className={s.kv}>
          {by === "total" && (
            <div>
              <dt>{m.c2c_amount()}</dt>
              <dd className="num" data-testid="dialog-number">{qty ? `${formatExact(qty)} ${coin}` : "--"}</dd>
            </div>
          )}
          <div className={s.strong}>
            <dt>{userBuys ? m.c2c_you_pay() : m.c2c_you_receive()}</dt>
            <dd className="num" data-testid="dialog-total">{shownTotal ? cny(shownTotal) : "--"}</dd>
          </div>
        </dl>
        {repriced && (
          <p className={`${s.notice} ${s.noticeWarn}`} role="status" data-testid="dialog-repriced">
            {m.c2c_price_updated({ price: cny(advert.price) })}
          </p>
        )}
        {error && <p className="field-error" role="alert" data-testid="dialog-error">{error}</p>}
      </div>
    </Modal>
  );
}
