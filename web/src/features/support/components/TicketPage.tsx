/**
 * /support/ticket?id=: one of one's tickets: the conversation with customer service and the state
 * changes in order, a reply box (with photos; a reply reopens a resolved ticket or one waiting on
 * the user) and closing the ticket.
 */
import { formatDateTime, formatMinute } from "../../../lib/format.ts";
import { useState, type FormEvent } from "react";
import { Link, useSearchParams } from "react-router";
import { m } from "../../../i18n/index.ts";
import { openConfirm } from "../../../lib/dialog.ts";
import { toast } from "../../../lib/toast.ts";
import type { UploadInfo } from "../../../lib/upload.ts";
import { AuthImage } from "../../../components/AuthImage.tsx";
import { ErrorState, SkeletonBlock, Spinner } from "../../../components/States.tsx";
import { MAX_BODY } from "../../../../../schemas/support.ts";
import { useCloseTicket, useSendTicketMessage, useTicket, useTicketsLive, type SupportTicketDetail, type TicketEvent } from "../api.ts";
import { categoryText, kindText, statusBadge, statusText } from "../labels.ts";
import { PhotoSlots, photosUploading } from "./PhotoSlots.tsx";
import s from "./support.module.css";

export default function TicketPage() {
  const [params] = useSearchParams();
  const raw = params.get("id") ?? "";
  const id = /^\d{1,15}$/.test(raw) ? Number(raw) : 0;
  const ticket = useTicket(id);
  useTicketsLive();
  if (id === 0) return <ErrorState message={m.not_found_body()} />;
  if (ticket.error && !ticket.data) return <ErrorState message={ticket.error.message} onRetry={ticket.reload} />;
  if (!ticket.data) {
    return (
      <div className={s.page}>
        <SkeletonBlock height={90} />
        <SkeletonBlock height={160} />
      </div>
    );
  }
  return <Ticket ticket={ticket.data} />;
}

function Ticket({ ticket: t }: { ticket: SupportTicketDetail }) {
  const closeTicket = useCloseTicket();
  const [closing, setClosing] = useState(false);
  const askClose = () =>
    openConfirm({
      title: m.support_close(),
      message: m.support_close_confirm(),
      confirmText: m.support_close(),
      cancelText: m.cancel(),
      onConfirm: () => {
        setClosing(true);
        closeTicket(t.id)
          .then(() => toast.success(m.support_closed_done()))
          .catch(() => undefined) // the API client showed the server's message
          .finally(() => setClosing(false));
      },
    });
  return (
    <div className={s.page} data-testid="support-ticket" data-status={t.status}>
      <section className={s.head}>
        <div className={s.ticketRowHead}>
          <span className="muted">{m.support_ticket_no({ id: t.id })}</span>
          <span className={`badge ${statusBadge(t.status)}`} data-testid="support-ticket-status">{statusText(t.status)}</span>
        </div>
        <h2>{t.subject}</h2>
        <div className={s.headMeta}>
          <span>{categoryText(t.category)}</span>
          {t.related_kind && t.related_id !== null && <span>{m.support_related_label({ kind: kindText(t.related_kind), id: t.related_id })}</span>}
          <span className="num">{formatDateTime(t.created_at)}</span>
        </div>
      </section>
      <ol className={s.conversation} data-testid="support-conversation">
        {t.events.map((e) => <Entry key={e.id} event={e} />)}
      </ol>
      {t.status === "closed" ? (
        <p className="form-note" data-testid="support-closed-note">
          {m.support_closed_note()} <Link to="/support/new">{m.support_open_ticket()}</Link>
        </p>
      ) : (
        <>
          <ReplyBox ticket={t} />
          <button type="button" className="btn btn-ghost btn-block" onClick={askClose} disabled={closing} data-testid="support-close">
            {closing && <Spinner size={16} />}
            {m.support_close()}
          </button>
        </>
      )}
    </div>
  );
}

function Entry({ event: e }: { event: TicketEvent }) {
  if (e.kind === "status") {
    const text =
      e.author === "system" && e.to_status === "closed"
        ? m.support_auto_closed()
        : m.support_status_change({ from: e.from_status ? statusText(e.from_status) : "", to: e.to_status ? statusText(e.to_status) : "" });
    return (
      <li className={s.statusLine} data-testid="support-status-line">
        <span className="num">{formatMinute(e.created_at)}</span> · {text}
      </li>
    );
  }
  const mine = e.author === "user";
  return (
    <li className={`${s.bubble} ${mine ? s.mine : ""}`} data-testid={mine ? "support-msg-user" : "support-msg-agent"}>
      <span className={s.bubbleMeta}>
        {mine ? m.support_you() : m.support_agent()} · <span className="num">{formatMinute(e.created_at)}</span>
      </span>
      <p>{e.body}</p>
      {e.images.length > 0 && (
        <div className={s.bubbleImages}>
          {e.images.map((src) => <AuthImage key={src} src={src} alt={m.support_photos()} />)}
        </div>
      )}
    </li>
  );
}

function ReplyBox({ ticket: t }: { ticket: SupportTicketDetail }) {
  const send = useSendTicketMessage();
  const [body, setBody] = useState("");
  const [slots, setSlots] = useState<(UploadInfo | null)[]>([null]);
  // a new set of photo slots after each reply (the pickers keep their own previews)
  const [round, setRound] = useState(0);
  const [photos, setPhotos] = useState(false);
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    if (busy) return;
    if (!body.trim()) {
      setError(m.support_message_required());
      return;
    }
    if (photosUploading(e.currentTarget)) {
      toast.info(m.support_uploading());
      return;
    }
    setBusy(true);
    try {
      await send(t.id, body.trim(), slots.flatMap((x) => (x ? [x.id] : [])));
      setBody("");
      setSlots([null]);
      setRound((r) => r + 1);
      setPhotos(false);
      toast.success(m.support_sent());
    } catch {
      // the API client showed the server's message
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className={s.replyBox} onSubmit={submit} noValidate data-testid="support-reply">
      {(t.status === "resolved" || t.status === "pending_customer") && <p className="form-note">{m.support_reply_reopens()}</p>}
      <textarea
        className={`input ${s.textarea}`}
        rows={3}
        maxLength={MAX_BODY}
        value={body}
        placeholder={m.support_reply_placeholder()}
        aria-label={m.support_reply_placeholder()}
        onChange={(e) => {
          setBody(e.target.value);
          setError("");
        }}
        aria-invalid={!!error}
        data-testid="support-reply-body"
      />
      {error && <span className="field-error">{error}</span>}
      {photos ? (
        <PhotoSlots key={round} slots={slots} setSlots={setSlots} />
      ) : (
        <button type="button" className="text-btn" onClick={() => setPhotos(true)} data-testid="support-reply-photos">
          {m.support_add_photo()}
        </button>
      )}
      <button type="submit" className="btn btn-primary btn-block" disabled={busy} data-testid="support-reply-send">
        {busy && <Spinner size={16} />}
        {m.support_send()}
      </button>
    </form>
  );
}
