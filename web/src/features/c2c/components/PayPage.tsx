/**
 * /legal/pay?id=: the buyer pays an unpaid order (spec §2, §4): the amount to send, the countdown
 * of the payment window (from `cancel_time`), the seller's receiving methods, the proof picture
 * (required; kept per order while the buyer opens the chat and comes back, proofs.ts) and "I have
 * paid", after a confirmation that names the amount and the payee; or cancel. At zero the client
 * asks the server to handle the order (it decides; idempotent) and shows what it answers. An order
 * that is no longer waiting for this buyer's payment shows its detail instead.
 */
import { useEffect, useMemo, useRef, useState } from "react";
import { Link, Navigate, useNavigate } from "react-router";
import { m } from "../../../i18n/index.ts";
import { openConfirm } from "../../../lib/dialog.ts";
import { toast } from "../../../lib/toast.ts";
import type { UploadInfo } from "../../../lib/upload.ts";
import { Icon } from "../../../components/Icon.tsx";
import { PhotoPicker } from "../../../components/PhotoPicker.tsx";
import { ErrorState, SkeletonBlock, Spinner } from "../../../components/States.tsx";
import { useCancelOrder, useHandleExpired, useMarkPaid, useOrder, type C2cOrder } from "../api.ts";
import { useIdParam, useNow } from "../hooks.ts";
import { formatCountdown, secondsLeft } from "../math.ts";
import { C2cGate, cny, PayMethodCard } from "./common.tsx";
import { ChatLink } from "./ChatLink.tsx";
import s from "./c2c.module.css";
import { formatExact, formatDateTime } from "../../../lib/format.ts";
import { keepProof, proofOf } from "../proofs.ts";

export default function PayPage() {
  return (
    <C2cGate>
      <Pay />
    </C2cGate>
  );
}

function Pay() {
  const id = useIdParam();
  const order = useOrder(id);
  const state = order.data?.is_sure;
  // A proof is kept only while the order waits for payment.
  useEffect(() => {
    if (state !== undefined && state !== 0) keepProof(id, null);
  }, [id, state]);
  if (id === 0) return <ErrorState message={m.c2c_order_missing()} />;
  if (order.error && !order.data) return <ErrorState message={order.error.message} onRetry={order.reload} />;
  if (!order.data) return <div className={s.page}><SkeletonBlock height={140} /><SkeletonBlock height={200} /></div>;
  if (order.data.role !== "buyer" || order.data.is_sure !== 0) return <Navigate to={`/legal/show?id=${id}`} replace />;
  return <PayForm order={order.data} />;
}

function PayForm({ order }: { order: C2cOrder }) {
  const navigate = useNavigate();
  const markPaid = useMarkPaid();
  const cancel = useCancelOrder();
  const handleExpired = useHandleExpired();
  // The proof chosen on an earlier visit of this page (e.g. before opening the chat).
  const [proof, setProof] = useState<UploadInfo | null>(() => proofOf(order.id));
  const [proofError, setProofError] = useState(false);
  const [busy, setBusy] = useState(false);
  // The window's end on this device's clock: `cancel_time` seconds from when the answer came.
  const deadline = useMemo(() => Date.now() + order.cancel_time * 1000, [order.cancel_time]);
  const now = useNow(1000);
  const left = secondsLeft(deadline, now);
  const handled = useRef(false);

  useEffect(() => {
    if (left > 0 || handled.current) return;
    handled.current = true;
    void handleExpired(order.id).catch(() => undefined);
  }, [left, order.id, handleExpired]);

  // Who the money went to: the verified name of the seller (the holder of every receiving method).
  const payee = order.counterparty_real_name ?? order.pay_methods[0]?.holder_name ?? order.counterparty_name;

  const askPaid = () => {
    if (busy) return;
    if (!proof) {
      setProofError(true);
      toast.error(m.c2c_proof_required());
      return;
    }
    openConfirm({
      title: m.c2c_paid_confirm_title(),
      message: m.c2c_paid_confirm_body({ amount: cny(order.deal_money), name: payee }),
      confirmText: m.c2c_paid_confirm_go(),
      cancelText: m.c2c_paid_confirm_back(),
      onConfirm: () => void pay(proof),
    });
  };

  const pay = async (proof: UploadInfo) => {
    if (busy) return;
    setBusy(true);
    try {
      await markPaid(order.id, proof.id);
      keepProof(order.id, null);
      toast.success(m.c2c_paid_done());
      navigate(`/legal/show?id=${order.id}`, { replace: true });
    } catch {
      // the API client showed the server's message
    } finally {
      setBusy(false);
    }
  };

  const askCancel = () =>
    openConfirm({
      title: m.c2c_cancel_title(),
      message: m.c2c_cancel_body(),
      confirmText: m.c2c_cancel_order(),
      cancelText: m.c2c_keep_order(),
      onConfirm: async () => {
        try {
          await cancel(order.id);
          toast.success(m.c2c_cancelled_done());
          navigate(`/legal/show?id=${order.id}`, { replace: true });
        } catch {
          // shown by the API client
        }
      },
    });

  return (
    <div className={s.page} data-testid="c2c-pay" data-id={order.id}>
      <section className={s.payHero}>
        <span className="muted">{m.c2c_pay_amount()}</span>
        <strong className="num" data-testid="pay-total">{cny(order.deal_money)}</strong>
        <span className="muted num">
          {formatExact(order.number)} {order.currency_name} × {cny(order.price)}
        </span>
        <span className={`${s.countdown} ${left <= 60 ? s.countdownLate : ""}`} role="timer" aria-label={m.c2c_time_left()} data-testid="pay-countdown">
          {left > 0 ? formatCountdown(left) : m.c2c_window_over()}
        </span>
        <span className="form-note" data-testid="pay-window">
          {m.c2c_pay_window_stated({ minutes: String(Math.max(1, Math.round((order.pay_deadline - order.create_time) / 60_000))), time: formatDateTime(order.pay_deadline) })} {m.c2c_pay_within()}
        </span>
      </section>

      <dl className={`${s.kv} card`}>
        <div>
          <dt>{m.c2c_order_no()}</dt>
          <dd className="num">{order.ordernumber}</dd>
        </div>
        <div>
          <dt>{m.c2c_seller()}</dt>
          <dd>{order.counterparty_name}</dd>
        </div>
        {order.counterparty_real_name !== null && (
          <div>
            <dt>{m.c2c_verified_name()}</dt>
            <dd data-testid="pay-real-name">{order.counterparty_real_name}</dd>
          </div>
        )}
      </dl>

      <h2 className={s.sectionTitle}>{m.c2c_pay_to()}</h2>
      {order.pay_methods.length === 0 ? (
        <p className="form-note">{m.c2c_no_pay_methods_seller()}</p>
      ) : (
        order.pay_methods.map((pm, i) => <PayMethodCard key={`${pm.kind}-${i}`} method={pm} orderId={order.id} />)
      )}
      <p className={`${s.notice} ${s.noticeWarn}`}>{m.c2c_pay_warning()}</p>

      <div className="card">
        <PhotoPicker
          label={m.c2c_proof()}
          hint={m.c2c_proof_hint()}
          onChange={(info) => {
            setProof(info);
            keepProof(order.id, info);
            if (info) setProofError(false);
          }}
          initial={proof}
          invalid={proofError}
          disabled={left === 0}
          testId="pay-proof"
        />
      </div>

      <button type="button" className="btn btn-primary btn-block btn-large" onClick={askPaid} disabled={busy || left === 0} data-testid="pay-confirm">
        {busy && <Spinner size={16} />}
        {m.c2c_i_paid()}
      </button>
      <div className={s.actionRow}>
        <button type="button" className="btn btn-outline" onClick={askCancel} disabled={busy} data-testid="pay-cancel">
          {m.c2c_cancel_order()}
        </button>
        <ChatLink order={order} />
      </div>
      <Link to={`/legal/show?id=${order.id}`} className={`${s.center} link-muted`}>
        <Icon name="records" size={14} /> {m.c2c_order_details()}
      </Link>
    </div>
  );
}
