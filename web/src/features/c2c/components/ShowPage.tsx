/**
 * /legal/show?id=: one order (spec §2, §4): its state, amounts, the other party, the seller's
 * receiving account the buyer pays to, the payment proof, the chat, and the actions the viewer has
 * now: the buyer of an unpaid order goes to pay; the seller of a paid order confirms the money
 * arrived (after a confirmation step: it releases the coins and cannot be undone); either party
 * may appeal once the seller's time to confirm is over. Changes by the other party arrive through
 * the private channel's `c2c_order` event.
 */
import { useState } from "react";
import { Link } from "react-router";
import { m } from "../../../i18n/index.ts";
import { formatDateTime, formatExact } from "../../../lib/format.ts";
import { toast } from "../../../lib/toast.ts";
import { AuthImage } from "../../../components/AuthImage.tsx";
import { Icon } from "../../../components/Icon.tsx";
import { Modal } from "../../../components/Modal.tsx";
import { ErrorState, SkeletonBlock, Spinner } from "../../../components/States.tsx";
import { useCenter, useConfirmReceived, useOrder, type C2cOrder } from "../api.ts";
import { ApiFailure } from "../../../lib/api.ts";
import { errText } from "../../../i18n/errors.ts";
import { FundPasswordField, TotpField } from "../../../components/SecondFactors.tsx";
import { useIdParam, useNow } from "../hooks.ts";
import { canAppeal } from "../math.ts";
import { C2cGate, cny, PayMethodCard, Row, sideText, StateBadge } from "./common.tsx";
import { ChatLink } from "./ChatLink.tsx";
import s from "./c2c.module.css";

export default function ShowPage() {
  return (
    <C2cGate>
      <Show />
    </C2cGate>
  );
}

function Show() {
  const id = useIdParam();
  const order = useOrder(id);
  if (id === 0) return <ErrorState message={m.c2c_order_missing()} />;
  if (order.error && !order.data) return <ErrorState message={order.error.message} onRetry={order.reload} />;
  if (!order.data) return <div className={s.page}><SkeletonBlock height={120} /><SkeletonBlock height={220} /></div>;
  return <Detail order={order.data} />;
}

function stateNote(o: C2cOrder): string {
  const buyer = o.role === "buyer";
  switch (o.is_sure) {
    case 0:
      return buyer ? m.c2c_note_unpaid_buyer() : m.c2c_note_unpaid_seller();
    case 3:
      // Under appeal an operator decides (unless the seller releases after all).
      if (o.appeal !== null && o.appeal.status === 0) return buyer ? m.c2c_note_appeal() : m.c2c_note_appeal_seller();
      return buyer ? m.c2c_note_paid_buyer() : m.c2c_note_paid_seller();
    case 1:
      return buyer ? m.c2c_note_finished_buyer() : m.c2c_note_finished_seller();
    case 2:
      // The seller is told what happened to their own coins.
      if (!buyer) return o.cancel_reason === "expired" ? m.c2c_note_expired_seller() : o.cancel_reason === "appeal" ? m.c2c_note_returned_seller() : m.c2c_note_cancelled_seller();
      return o.cancel_reason === "expired" ? m.c2c_note_expired() : o.cancel_reason === "appeal" ? m.c2c_note_returned() : m.c2c_note_cancelled();
  }
}

function appealText(status: number): string {
  return status === 0 ? m.c2c_appeal_open() : status === 1 ? m.c2c_appeal_released() : status === 2 ? m.c2c_appeal_returned() : m.c2c_appeal_closed();
}

function Detail({ order: o }: { order: C2cOrder }) {
  const now = useNow(1000, o.is_sure === 3 && o.appeal === null);
  const [confirming, setConfirming] = useState(false);
  const appealable = canAppeal(o, now);
  const buyer = o.role === "buyer";
  return (
    <div className={s.page} data-testid="c2c-show" data-id={o.id} data-state={o.is_sure}>
      <section className={s.showHead}>
        <div className={s.showTitle}>
          <span className={buyer ? "up" : "down"}>{sideText(o)}</span>
          <StateBadge isSure={o.is_sure} appealed={o.appeal !== null && o.appeal.status === 0} />
        </div>
        <strong className={`${s.showTotal} num`} data-testid="show-total">{cny(o.deal_money)}</strong>
        <p className="form-note" data-testid="show-note">{stateNote(o)}</p>
      </section>

      {buyer && o.is_sure === 0 && (
        <Link to={`/legal/pay?id=${o.id}`} className="btn btn-primary btn-block btn-large" data-testid="show-go-pay">
          {m.c2c_go_pay()}
        </Link>
      )}
      {!buyer && o.is_sure === 3 && (
        <button type="button" className={`btn btn-block btn-large ${s.btnBuy}`} onClick={() => setConfirming(true)} data-testid="show-confirm-received">
          {m.c2c_confirm_received()}
        </button>
      )}

      <dl className={`${s.kv} card`}>
        <Row label={m.c2c_amount()} testId="show-number">{formatExact(o.number)} {o.currency_name}</Row>
        <Row label={m.c2c_price()}>{cny(o.price)}</Row>
        <Row label={m.c2c_total()} strong>{cny(o.deal_money)}</Row>
        <Row label={m.c2c_order_no()}><span className="num">{o.ordernumber}</span></Row>
        <Row label={buyer ? m.c2c_seller() : m.c2c_buyer()} testId="show-counterparty">{o.counterparty_name}</Row>
        {o.counterparty_real_name !== null && (
          <Row label={m.c2c_verified_name()} testId="show-real-name" strong>{o.counterparty_real_name}</Row>
        )}
        {o.is_merchant && <Row label={m.c2c_role()}>{m.c2c_you_merchant()}</Row>}
        <Row label={m.c2c_window()} testId="show-window">
          <span className="num">{o.is_sure === 0 ? m.c2c_window_until({ minutes: String(windowMinutes(o)), time: formatDateTime(o.pay_deadline) }) : m.c2c_window_minutes({ minutes: String(windowMinutes(o)) })}</span>
        </Row>
        <Row label={m.c2c_created()} testId="show-created"><span className="num">{formatDateTime(o.create_time)}</span></Row>
        {o.paid_time !== null && <Row label={m.c2c_paid_at()} testId="show-paid-at"><span className="num">{formatDateTime(o.paid_time)}</span></Row>}
        {o.end_time !== null && <Row label={o.is_sure === 1 ? m.c2c_finished_at() : m.c2c_cancelled_at()}><span className="num">{formatDateTime(o.end_time)}</span></Row>}
      </dl>

      {!buyer && o.counterparty_real_name !== null && (
        <p className={`${s.notice} ${s.noticeInfo}`} data-testid="show-check-payer">{m.c2c_check_payer()}</p>
      )}

      {o.is_sure === 0 && o.pay_methods.length > 0 && (
        <>
          <h2 className={s.sectionTitle}>{buyer ? m.c2c_pay_to() : m.c2c_your_accounts()}</h2>
          {o.pay_methods.map((pm, i) => <PayMethodCard key={`${pm.kind}-${i}`} method={pm} orderId={o.id} />)}
        </>
      )}

      {o.pay_orders_img && (
        <section className="card">
          <h2 className={s.sectionTitle}>{m.c2c_proof()}</h2>
          <AuthImage src={o.pay_orders_img} alt={m.c2c_proof()} className={s.proof} testId="show-proof" />
        </section>
      )}

      {o.appeal && (
        <section className={`${s.notice} ${o.appeal.status === 0 ? s.noticeWarn : s.noticeInfo}`} data-testid="show-appeal">
          <strong>{appealText(o.appeal.status)}</strong>
          <p>{m.c2c_appeal_reason()}: {o.appeal.reason}</p>
          {o.appeal.decision_reason && <p>{m.c2c_decision()}: {o.appeal.decision_reason}</p>}
        </section>
      )}

      <div className={s.actionRow}>
        <ChatLink order={o} />
        {appealable && (
          <Link to={`/legal/appeal?id=${o.id}`} className="btn btn-outline" data-testid="show-appeal-link">
            {m.c2c_appeal()}
          </Link>
        )}
      </div>
      {o.is_sure === 3 && o.appeal === null && !appealable && o.appeal_from !== null && (
        <p className="form-note" data-testid="show-appeal-later">{m.c2c_appeal_from({ time: formatDateTime(o.appeal_from) })}</p>
      )}

      {confirming && <ConfirmReceived order={o} onClose={() => setConfirming(false)} />}
    </div>
  );
}

/** The payment window of an order in whole minutes (the deployment's setting when it was placed). */
function windowMinutes(o: C2cOrder): number {
  return Math.max(1, Math.round((o.pay_deadline - o.create_time) / 60_000));
}

/**
 * The seller's confirmation step: ticking that the money is in their account, then releasing with
 * the fund password (and the authenticator code when on), as a withdrawal asks: the coins leave for good.
 */
function ConfirmReceived({ order, onClose }: { order: C2cOrder; onClose: () => void }) {
  const confirm = useConfirmReceived();
  const center = useCenter();
  const [checked, setChecked] = useState(false);
  const [password, setPassword] = useState("");
  const [totp, setTotp] = useState("");
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const hasFundPassword = center.data?.has_fund_password ?? true;
  const needsTotp = center.data?.totp_enabled ?? false;
  const go = async () => {
    if (!checked || busy) return;
    if (!/^\d{6}$/.test(password)) return setError(errText("c2c_release_password"));
    if (needsTotp && !/^\d{6}$/.test(totp)) return setError(errText("totp_required"));
    setBusy(true);
    setError("");
    try {
      await confirm({ id: order.id, password, ...(needsTotp ? { totp_code: totp } : {}) });
      toast.success(m.c2c_released());
      onClose();
    } catch (e) {
      // A wrong password or code is said here, beside the field; the order stays as it was.
      if (e instanceof ApiFailure && e.kind !== "999") setError(e.message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Modal
      title={m.c2c_confirm_received()}
      onClose={onClose}
      busy={busy}
      testId="confirm-received-dialog"
      dismiss
      actions={
        <button type="button" className={`btn ${s.btnBuy}`} onClick={go} disabled={!checked || busy || !hasFundPassword} data-testid="confirm-received-go">
          {busy && <Spinner size={16} />}
          {m.c2c_release()}
        </button>
      }
    >
      <div className={s.dialogBody}>
        <p className="form-note">{m.c2c_release_warning({ amount: cny(order.deal_money), coin: `${formatExact(order.number)} ${order.currency_name}` })}</p>
        <label className="checkbox">
          <input type="checkbox" checked={checked} onChange={(e) => setChecked(e.target.checked)} data-testid="confirm-received-check" />
          <span className="checkbox-box" aria-hidden="true"><Icon name="check" size={14} /></span>
          <span>{m.c2c_release_check({ amount: cny(order.deal_money) })}</span>
        </label>
        {!hasFundPassword ? (
          <p className={`${s.notice} ${s.noticeWarn}`} data-testid="release-need-fund-password">
            {m.c2c_release_need_fund_password()} <Link to="/security/fund-password">{m.wallet_go_set()}</Link>
          </p>
        ) : (
          <FundPasswordField
            value={password}
            onChange={(v) => {
              setPassword(v);
              setError("");
            }}
            testId="release-password"
          />
        )}
        {needsTotp && (
          <TotpField
            value={totp}
            onChange={(v) => {
              setTotp(v);
              setError("");
            }}
            testId="release-totp"
          />
        )}
        {error && <p className="field-error" role="alert" data-testid="release-error">{error}</p>}
      </div>
    </Modal>
  );
}
