/**
 * Support tickets in the console (issue #16 §2): the queue (filter by state and category; tickets
 * waiting on support first, the longest-waiting at the top, with the time since the user's last
 * message and the first-response time), and each ticket's whole history with a reply (the user is
 * notified), an internal note (only operators see it) and the state buttons. Every action is
 * audited by the server; a ticket an operator opened themselves is shown, never handled.
 */
import { useState, type FormEvent } from "react";
import { m } from "../../../i18n/index.ts";
import { toast } from "../../../lib/toast.ts";
import { AuthImage } from "../../../components/AuthImage.tsx";
import { ErrorState, SkeletonBlock, Spinner } from "../../../components/States.tsx";
import { operatorSteps, supportCategories, supportStatuses, MAX_BODY } from "../../../../../schemas/support.ts";
import { useReplySupportTicket, useSetSupportStatus, useSupportQueue, useSupportTicket, type AdminTicket, type AdminTicketDetail, type SupportCategory, type SupportRelatedKind, type SupportStatus } from "../supportApi.ts";
import { Kv, QueueList, userLabel } from "./common.tsx";
import acct from "../../../components/account.module.css";
import s from "./operator.module.css";
import { formatMinute } from "../../../lib/format.ts";

const statusText = (st: SupportStatus): string =>
  ({ new: m.support_status_new, open: m.support_status_open, pending_customer: m.op_support_pending_customer, resolved: m.support_status_resolved, closed: m.support_status_closed })[st]();
const categoryText = (c: SupportCategory): string =>
  ({ complaint: m.support_cat_complaint, feedback: m.support_cat_feedback, question: m.support_cat_question, order: m.support_cat_order })[c]();
const kindText = (k: SupportRelatedKind): string =>
  ({ spot: m.support_kind_spot, seconds: m.support_kind_seconds, lever: m.support_kind_lever, c2c: m.support_kind_c2c, deposit: m.support_kind_deposit, withdrawal: m.support_kind_withdrawal })[k]();
const badge = (st: SupportStatus) => (st === "new" || st === "open" ? "pending" : st === "resolved" ? "ok" : st === "pending_customer" ? "bad" : "none");

/** "12 min", "3 h 5 min", "2 d 4 h". */
export function durationText(seconds: number): string {
  const min = Math.floor(seconds / 60);
  if (min < 60) return m.op_duration_min({ n: min });
  const h = Math.floor(min / 60);
  if (h < 24) return m.op_duration_hours({ h, m: min % 60 });
  return m.op_duration_days({ d: Math.floor(h / 24), h: h % 24 });
}

function Chips<T extends string>({ value, options, onChange, label, testPrefix }: { value: T | undefined; options: { value: T | undefined; label: string }[]; onChange: (v: T | undefined) => void; label: string; testPrefix: string }) {
  return (
    <div className={`${acct.chips} ${s.adminFilter}`} role="radiogroup" aria-label={label}>
      {options.map((o) => (
        <button key={o.value ?? "all"} type="button" role="radio" aria-checked={value === o.value} className={value === o.value ? "active" : ""} onClick={() => onChange(o.value)} data-testid={`${testPrefix}-${o.value ?? "all"}`}>
          {o.label}
        </button>
      ))}
    </div>
  );
}

export function SupportQueue() {
  const [status, setStatus] = useState<SupportStatus | undefined>(undefined);
  const [category, setCategory] = useState<SupportCategory | undefined>(undefined);
  const [open, setOpen] = useState<number | null>(null);
  const list = useSupportQueue(status, category);
  return (
    <section data-testid="admin-support">
      <Chips value={status} onChange={setStatus} label={m.op_filter()} testPrefix="support-status" options={[{ value: undefined, label: m.op_status_all() }, ...supportStatuses.map((st) => ({ value: st, label: statusText(st) }))]} />
      <Chips value={category} onChange={setCategory} label={m.support_category()} testPrefix="support-category" options={[{ value: undefined, label: m.op_support_all_categories() }, ...supportCategories.map((c) => ({ value: c, label: categoryText(c) }))]} />
      <QueueList list={list} renderItem={(t) => <TicketCard ticket={t} open={open === t.id} onToggle={() => setOpen(open === t.id ? null : t.id)} />} />
    </section>
  );
}

function TicketCard({ ticket: t, open, onToggle }: { ticket: AdminTicket; open: boolean; onToggle: () => void }) {
  return (
    <li className={acct.recordCard} data-testid="admin-support-ticket" data-id={t.id}>
      <div className={acct.recordHead}>
        <span className={acct.recordTitle}>#{t.id} · {t.subject}</span>
        <span className={`badge badge-${badge(t.status)}`}>{statusText(t.status)}</span>
      </div>
      <dl className={acct.kv}>
        <Kv label={m.op_support_user()}>{userLabel(t.account, t.user_id)}</Kv>
        <Kv label={m.support_category()}>{categoryText(t.category)}{t.related_kind ? ` · ${kindText(t.related_kind)} #${t.related_id}` : ""}</Kv>
        <Kv label={m.op_support_last_user()}>
          {t.last_user_at.slice(5, 16)}
          {t.waiting_seconds !== null && <strong className="down"> · {m.op_support_waiting({ time: durationText(t.waiting_seconds) })}</strong>}
        </Kv>
        <Kv label={m.op_support_first_response()}>{t.first_response_seconds === null ? m.op_support_no_response() : durationText(t.first_response_seconds)}</Kv>
      </dl>
      <button type="button" className="text-btn" onClick={onToggle} aria-expanded={open} data-testid="support-ticket-open">
        {open ? m.op_support_hide() : m.op_support_show()}
      </button>
      {open && <TicketDetail id={t.id} />}
    </li>
  );
}

function TicketDetail({ id }: { id: number }) {
  const detail = useSupportTicket(id);
  if (detail.error && !detail.data) return <ErrorState message={detail.error.message} onRetry={detail.reload} />;
  if (!detail.data) return <SkeletonBlock height={160} />;
  const d = detail.data;
  return (
    <div className={s.supportDetail} data-testid="support-ticket-detail">
      <h3 className={s.adminSubtitle}>{m.op_support_history()}</h3>
      <ol className={s.supportHistory} data-testid="support-history">
        {d.events.map((e) => (
          <li key={e.id} className={e.kind === "note" ? s.supportNote : e.kind === "status" ? s.supportStatus : ""} data-kind={e.kind}>
            <span>
              {formatMinute(e.created_at)} · {e.author === "user" ? userLabel(d.account, d.user_id) : e.author === "system" ? "—" : m.op_support_by({ account: e.operator_account ?? `#${e.operator_id ?? ""}` })}
              {e.kind === "note" && ` · ${m.op_support_note()}`}
            </span>
            {e.kind === "status" ? (
              <span>{m.support_status_change({ from: e.from_status ? statusText(e.from_status) : "", to: e.to_status ? statusText(e.to_status) : "" })}</span>
            ) : (
              <p>{e.body}</p>
            )}
            {e.images.length > 0 && (
              <div className={s.supportImages}>
                {e.images.map((src) => <AuthImage key={src} src={src} alt={m.support_photos()} />)}
              </div>
            )}
          </li>
        ))}
      </ol>
      {d.own ? <p className="form-note">{m.op_own_record()}</p> : d.status === "closed" ? null : <Handle ticket={d} />}
    </div>
  );
}

function Handle({ ticket: d }: { ticket: AdminTicketDetail }) {
  const reply = useReplySupportTicket();
  const move = useSetSupportStatus();
  const [body, setBody] = useState("");
  const [internal, setInternal] = useState(false);
  const [error, setError] = useState("");
  const [busy, setBusy] = useState<string | null>(null);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!body.trim()) {
      setError(m.support_message_required());
      return;
    }
    setBusy("reply");
    try {
      await reply(d.id, body.trim(), internal);
      setBody("");
      toast.success(internal ? m.op_support_noted() : m.op_support_sent());
    } catch {
      // the API client showed the server's message
    } finally {
      setBusy(null);
    }
  };
  const step = async (to: SupportStatus) => {
    setBusy(to);
    try {
      await move(d.id, to);
      toast.success(m.op_support_status_done());
    } catch {
      // the API client showed the server's message
    } finally {
      setBusy(null);
    }
  };
  return (
    <>
      <form className={s.appealMessage} onSubmit={submit} data-testid="support-admin-reply">
        <label className="field">
          <span className="field-label">{internal ? m.op_support_note() : m.op_support_reply_label()}</span>
          <textarea className={`input ${acct.textarea}`} rows={3} maxLength={MAX_BODY} value={body} onChange={(e) => { setBody(e.target.value); setError(""); }} aria-invalid={!!error} data-testid="support-admin-reply-body" />
        </label>
        <label className={s.supportCheck}>
          <input type="checkbox" checked={internal} onChange={(e) => setInternal(e.target.checked)} data-testid="support-admin-internal" />
          {m.op_support_internal()}
        </label>
        {error && <p className="field-error">{error}</p>}
        <div className={acct.btnRow}>
          <button type="submit" className={`btn btn-small ${internal ? "btn-outline" : "btn-primary"}`} disabled={busy !== null} data-testid="support-admin-send">
            {busy === "reply" && <Spinner size={14} />}
            {internal ? m.op_support_save_note() : m.op_support_send_reply()}
          </button>
        </div>
      </form>
      <h3 className={s.adminSubtitle}>{m.op_support_set_status()}</h3>
      <div className={s.supportSteps}>
        {operatorSteps[d.status].map((to) => (
          <button key={to} type="button" className="btn btn-outline btn-small" disabled={busy !== null} onClick={() => void step(to)} data-testid={`support-admin-status-${to}`}>
            {busy === to && <Spinner size={14} />}
            {statusText(to)}
          </button>
        ))}
      </div>
      <p className="form-note">{m.op_audit_note()}</p>
    </>
  );
}
