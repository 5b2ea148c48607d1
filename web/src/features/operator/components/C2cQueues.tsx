/**
 * C2C in the operator console (issue #10 §1, §3): merchant applications (approve, or reject with
 * a reason: the deposit returns), adverts (mark abnormal: no new orders), and appeals with the
 * order, the payment proof, the whole chat and the order's history, decided by releasing the
 * coins to the buyer or returning them to the seller, always with a reason (audited, shown to both
 * parties). An operator never decides a record of their own.
 */
import { useState, type FormEvent } from "react";
import { m } from "../../../i18n/index.ts";
import { formatDateTime, formatExact, groupThousands, formatMinute } from "../../../lib/format.ts";
import { toast } from "../../../lib/toast.ts";
import { AuthImage } from "../../../components/AuthImage.tsx";
import { ErrorState, SkeletonBlock, Spinner } from "../../../components/States.tsx";
import { useC2cAdverts, useC2cAppeal, useC2cAppeals, useC2cMerchants, useDecideC2c, useSendC2cAppealMessage, type AdminAppeal, type C2cDecision } from "../api.ts";
import { ApproveRejectButtons, Kv, QueueList, StatusFilter, useDecisionDialog, userLabel } from "./common.tsx";
import acct from "../../../components/account.module.css";
import s from "./operator.module.css";

const cny = (v: string) => `¥${groupThousands(v)}`;

function useDecide() {
  const decide = useDecideC2c();
  const { open, dialog } = useDecisionDialog();
  const ask = (id: number, what: C2cDecision, title: string, confirmText: string, summary: string, danger: boolean, done: string) =>
    open({
      title,
      confirmText,
      reasonRequired: true,
      danger,
      summary: <p className={s.dialogSummary}>{summary}</p>,
      run: async (reason) => {
        await decide(id, what, reason);
        toast.success(done);
      },
    });
  return { ask, dialog };
}

function merchantStatus(st: number): string {
  return st === 0 ? m.op_c2c_applying() : st === 1 ? m.op_c2c_merchant() : st === 2 ? m.op_status_rejected() : m.op_c2c_left();
}

export function C2cMerchantsQueue() {
  const [status, setStatus] = useState<number | undefined>(0);
  const list = useC2cMerchants(status);
  const { ask, dialog } = useDecide();
  return (
    <section data-testid="admin-c2c-merchants">
      <StatusFilter
        value={status}
        onChange={setStatus}
        options={[
          { value: 0, label: m.op_c2c_applying() },
          { value: 1, label: m.op_c2c_merchant() },
          { value: 2, label: m.op_status_rejected() },
          { value: undefined, label: m.op_status_all() },
        ]}
      />
      <QueueList
        list={list}
        renderItem={(r) => (
          <li className={acct.recordCard} data-testid="admin-c2c-merchant" data-user={r.account}>
            <div className={acct.recordHead}>
              <span className={acct.recordTitle}>{r.name}</span>
              <span className={`badge badge-${r.status === 1 ? "ok" : r.status === 0 ? "pending" : "bad"}`}>{merchantStatus(r.status)}</span>
            </div>
            <dl className={acct.kv}>
              <Kv label={m.op_c2c_user()}>{userLabel(r.account, r.user_id)}</Kv>
              <Kv label={m.op_c2c_real_name()}>{r.real_name ?? "—"}</Kv>
              <Kv label={m.op_c2c_deposit()}>{formatExact(r.deposit)} {r.deposit_currency}</Kv>
              <Kv label={m.wallet_time()}>{formatDateTime(r.format_apply_time)}</Kv>
              {r.reason && <Kv label={m.op_reason()} mono>{r.reason}</Kv>}
            </dl>
            {r.status === 0 && r.own && <p className="form-note">{m.op_own_record()}</p>}
            {r.status === 0 && !r.own && (
              <ApproveRejectButtons
                onReject={() => ask(r.id, "merchants/reject", m.op_c2c_reject_title({ name: r.name }), m.op_c2c_reject_do(), m.op_c2c_reject_summary({ amount: `${formatExact(r.deposit)} ${r.deposit_currency}` }), true, m.op_rejected())}
                onApprove={() => ask(r.id, "merchants/approve", m.op_c2c_approve_title({ name: r.name }), m.op_c2c_approve_do(), m.op_c2c_approve_summary({ user: userLabel(r.account, r.user_id) }), false, m.op_c2c_approved())}
                rejectTestId="c2c-merchant-reject"
                approveTestId="c2c-merchant-approve"
              />
            )}
          </li>
        )}
      />
      {dialog}
    </section>
  );
}

function advertStatus(st: number): string {
  return st === 1 ? m.c2c_ad_on() : st === 2 ? m.c2c_ad_off() : st === 3 ? m.c2c_ad_withdrawn() : m.c2c_ad_abnormal();
}

export function C2cAdvertsQueue() {
  const [status, setStatus] = useState<number | undefined>(1);
  const list = useC2cAdverts(status);
  const { ask, dialog } = useDecide();
  return (
    <section data-testid="admin-c2c-adverts">
      <StatusFilter
        value={status}
        onChange={setStatus}
        options={[
          { value: 1, label: m.c2c_ad_on() },
          { value: 2, label: m.c2c_ad_off() },
          { value: 4, label: m.c2c_ad_abnormal() },
          { value: undefined, label: m.op_status_all() },
        ]}
      />
      <QueueList
        list={list}
        renderItem={(ad) => (
          <li className={acct.recordCard} data-testid="admin-c2c-advert" data-id={ad.id}>
            <div className={acct.recordHead}>
              <span className={acct.recordTitle}>
                #{ad.id} · {ad.seller_name} · {ad.type === "sell" ? m.c2c_sell_coin({ coin: ad.currency_name }) : m.c2c_buy_coin({ coin: ad.currency_name })}
              </span>
              <span className={`badge badge-${ad.status === 1 ? "ok" : ad.status === 4 ? "bad" : "none"}`}>{advertStatus(ad.status)}</span>
            </div>
            <dl className={acct.kv}>
              <Kv label={m.op_c2c_user()}>{userLabel(ad.account, ad.user_id)}</Kv>
              <Kv label={m.c2c_price()}>{cny(ad.price)}</Kv>
              <Kv label={m.c2c_remaining()}>{formatExact(ad.surplus_number)} / {formatExact(ad.total_number)} {ad.currency_name}</Kv>
              <Kv label={m.c2c_limits()}>{cny(ad.min_money)} – {cny(ad.max_money)}</Kv>
              <Kv label={m.c2c_running_orders()}>{ad.running_orders}</Kv>
            </dl>
            {(ad.status === 1 || ad.status === 2) && (
              <div className={acct.btnRow}>
                <button type="button" className="btn btn-outline btn-small" data-testid="c2c-advert-abnormal" onClick={() => ask(ad.id, "adverts/abnormal", m.op_c2c_abnormal_title({ id: ad.id }), m.op_c2c_abnormal(), m.op_c2c_abnormal_summary(), true, m.op_c2c_abnormal_done())}>
                  {m.op_c2c_abnormal()}
                </button>
              </div>
            )}
          </li>
        )}
      />
      {dialog}
    </section>
  );
}

function appealStatus(st: number): string {
  return st === 0 ? m.c2c_appeal_open() : st === 1 ? m.c2c_appeal_released() : st === 2 ? m.c2c_appeal_returned() : m.c2c_appeal_closed();
}

export function C2cAppealsQueue() {
  const [status, setStatus] = useState<number | undefined>(0);
  const [open, setOpen] = useState<number | null>(null);
  const list = useC2cAppeals(status);
  return (
    <section data-testid="admin-c2c-appeals">
      <StatusFilter
        value={status}
        onChange={setStatus}
        options={[
          { value: 0, label: m.c2c_appeal_open() },
          { value: 1, label: m.c2c_appeal_released() },
          { value: 2, label: m.c2c_appeal_returned() },
          { value: undefined, label: m.op_status_all() },
        ]}
      />
      <QueueList list={list} renderItem={(a) => <AppealCard appeal={a} open={open === a.id} onToggle={() => setOpen(open === a.id ? null : a.id)} />} />
    </section>
  );
}

function AppealCard({ appeal: a, open, onToggle }: { appeal: AdminAppeal; open: boolean; onToggle: () => void }) {
  const o = a.order;
  return (
    <li className={acct.recordCard} data-testid="admin-c2c-appeal" data-order={o.id}>
      <div className={acct.recordHead}>
        <span className={acct.recordTitle}>{cny(o.deal_money)}</span>
        <span className={`badge badge-${a.status === 0 ? "pending" : "ok"}`}>{appealStatus(a.status)}</span>
      </div>
      <dl className={acct.kv}>
        {/* the 16-character order number on its own row, wrapping on a phone rather than widening the card */}
        <Kv label={m.c2c_order_no()} mono testId="c2c-appeal-order-no">{o.ordernumber}</Kv>
        <Kv label={m.op_c2c_buyer()}>{userLabel(o.buyer_account, o.buyer_id)}</Kv>
        <Kv label={m.op_c2c_seller()}>{userLabel(o.seller_account, o.seller_id)}</Kv>
        <Kv label={m.c2c_amount()}>{formatExact(o.number)} {o.currency_name}</Kv>
        <Kv label={m.op_c2c_by()}>{a.by === "buyer" ? m.op_c2c_buyer() : m.op_c2c_seller()}</Kv>
      </dl>
      <p className="form-note"><span className="muted">{m.c2c_appeal_reason()}:</span> {a.reason}</p>
      {a.decision_reason && <p className="form-note"><span className="muted">{m.c2c_decision()}:</span> {a.decision_reason}</p>}
      <button type="button" className="text-btn" onClick={onToggle} aria-expanded={open} data-testid="c2c-appeal-open">
        {open ? m.op_c2c_hide_detail() : m.op_c2c_show_detail()}
      </button>
      {open && <AppealDetail id={a.id} />}
    </li>
  );
}

function AppealDetail({ id }: { id: number }) {
  const detail = useC2cAppeal(id);
  const { ask, dialog } = useDecide();
  if (detail.error && !detail.data) return <ErrorState message={detail.error.message} onRetry={detail.reload} />;
  if (!detail.data) return <SkeletonBlock height={160} />;
  const d = detail.data;
  const o = d.order;
  const amount = `${formatExact(o.number)} ${o.currency_name}`;
  return (
    <div className={s.appealDetail} data-testid="c2c-appeal-detail">
      <h3 className={s.adminSubtitle}>{m.c2c_proof()}</h3>
      {o.pay_orders_img ? <AuthImage src={o.pay_orders_img} alt={m.c2c_proof()} className={s.appealProof} testId="c2c-appeal-proof" /> : <p className="muted">—</p>}
      {d.evidence.length > 0 && (
        <>
          <h3 className={s.adminSubtitle}>{m.op_c2c_evidence()}</h3>
          <div className={s.picGrid}>
            {d.evidence.map((src) => <AuthImage key={src} src={src} alt={m.op_c2c_evidence()} />)}
          </div>
        </>
      )}
      <h3 className={s.adminSubtitle}>{m.c2c_chat()}</h3>
      {d.messages.length === 0 ? (
        <p className="muted">{m.c2c_chat_empty()}</p>
      ) : (
        <ol className={s.appealChat} data-testid="c2c-appeal-chat">
          {d.messages.map((msg) => (
            <li key={msg.id}>
              <span className="muted">{formatMinute(msg.create_time)} · {msg.sender === "buyer" ? m.op_c2c_buyer() : msg.sender === "seller" ? m.op_c2c_seller() : m.c2c_operator()}</span>
              {msg.kind === "image" ? <AuthImage src={msg.image} alt={m.c2c_chat_image()} className={s.appealChatImage} /> : <p>{msg.text}</p>}
            </li>
          ))}
        </ol>
      )}
      {d.status === 0 && !d.own && <OperatorMessageBox appealId={d.id} />}
      <h3 className={s.adminSubtitle}>{m.op_c2c_history()}</h3>
      <ol className={s.appealEvents}>
        {d.events.map((e, i) => (
          <li key={i}><span className="num">{formatDateTime(e.format_time)}</span> {e.action} {e.actor_id !== null ? `(#${e.actor_id})` : ""}</li>
        ))}
      </ol>
      {d.status === 0 && d.own && <p className="form-note">{m.op_own_record()}</p>}
      {d.status === 0 && !d.own && (
        <div className={acct.btnRow}>
          <button type="button" className="btn btn-outline btn-small" data-testid="c2c-appeal-return" onClick={() => ask(d.id, "appeals/return", m.op_c2c_return_title({ order: o.ordernumber }), m.op_c2c_return(), m.op_c2c_return_summary({ amount, user: userLabel(o.seller_account, o.seller_id) }), true, m.op_c2c_decided())}>
            {m.op_c2c_return()}
          </button>
          <button type="button" className="btn btn-primary btn-small" data-testid="c2c-appeal-release" onClick={() => ask(d.id, "appeals/release", m.op_c2c_release_title({ order: o.ordernumber }), m.op_c2c_release(), m.op_c2c_release_summary({ amount, user: userLabel(o.buyer_account, o.buyer_id) }), false, m.op_c2c_decided())}>
            {m.op_c2c_release()}
          </button>
        </div>
      )}
      {dialog}
    </div>
  );
}

/** The operator's message to both parties in an appealed order's chat (audited by the server). */
function OperatorMessageBox({ appealId }: { appealId: number }) {
  const send = useSendC2cAppealMessage();
  const [text, setText] = useState("");
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!text.trim()) {
      setError(m.op_c2c_message_required());
      return;
    }
    setBusy(true);
    try {
      await send(appealId, text.trim());
      setText("");
      toast.success(m.op_c2c_message_sent());
    } catch {
      // the API client showed the server's message
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className={s.appealMessage} onSubmit={submit} data-testid="c2c-appeal-message">
      <label className="field">
        <span className="field-label">{m.op_c2c_message_label()}</span>
        <textarea className={`input ${acct.textarea}`} rows={2} maxLength={500} value={text} placeholder={m.op_c2c_message_placeholder()} onChange={(e) => { setText(e.target.value); setError(""); }} aria-invalid={!!error} data-testid="c2c-appeal-message-text" />
      </label>
      {error && <p className="field-error">{error}</p>}
      <div className={acct.btnRow}>
        <button type="submit" className="btn btn-outline btn-small" disabled={busy} data-testid="c2c-appeal-message-send">
          {busy && <Spinner size={14} />}
          {m.op_c2c_message_send()}
        </button>
      </div>
    </form>
  );
}
