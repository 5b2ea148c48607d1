/**
 * /legal/chat?id=: the conversation of one order between its two parties (and an operator on
 * appeal): text and pictures, oldest first, kept with the order. Opening it marks every message
 * read (the badge elsewhere goes away). New messages arrive through the private channel's
 * `c2c_message` event (and a slow poll as a safety net).
 */
import { useEffect, useRef, useState, type FormEvent } from "react";
import { Link } from "react-router";
import { m } from "../../../i18n/index.ts";
import { ApiFailure } from "../../../lib/api.ts";
import { formatDateTime } from "../../../lib/format.ts";
import { prepareImage, uploadImage } from "../../../lib/upload.ts";
import { toast } from "../../../lib/toast.ts";
import { AuthImage } from "../../../components/AuthImage.tsx";
import { Icon } from "../../../components/Icon.tsx";
import { EmptyState, ErrorState, SkeletonList, Spinner } from "../../../components/States.tsx";
import { useMessages, useOrder, useSendMessage, type C2cMessage } from "../api.ts";
import { useIdParam } from "../hooks.ts";
import { markRead } from "../readMarks.ts";
import { C2cGate, cny, sideText, StateBadge } from "./common.tsx";
import s from "./c2c.module.css";

export default function ChatPage() {
  return (
    <C2cGate>
      <Chat />
    </C2cGate>
  );
}

function Chat() {
  const id = useIdParam();
  const order = useOrder(id);
  const messages = useMessages(id);
  const list = messages.data?.lists;
  const endRef = useRef<HTMLDivElement>(null);
  const newest = list && list.length > 0 ? list[list.length - 1]!.id : 0;

  useEffect(() => {
    if (newest > 0) markRead(id, newest);
    endRef.current?.scrollIntoView({ block: "end" });
  }, [id, newest]);

  if (id === 0) return <ErrorState message={m.c2c_order_missing()} />;
  const o = order.data;
  return (
    <div className={s.chatPage} data-testid="c2c-chat">
      {o && (
        <Link to={`/legal/show?id=${o.id}`} className={s.chatHead}>
          <span>
            <strong>{o.counterparty_name}</strong>
            <small className="muted"> · {sideText(o)} · <span className="num">{cny(o.deal_money)}</span></small>
          </span>
          <StateBadge isSure={o.is_sure} appealed={o.appeal !== null && o.appeal.status === 0} />
        </Link>
      )}
      <div className={s.chatLog} role="log" aria-live="polite" aria-label={m.c2c_chat()} data-testid="chat-log">
        {messages.error && !messages.data ? (
          <ErrorState message={messages.error.message} onRetry={messages.reload} />
        ) : !list ? (
          <SkeletonList rows={3} />
        ) : list.length === 0 ? (
          <EmptyState text={m.c2c_chat_empty()} />
        ) : (
          list.map((msg) => <Bubble key={msg.id} msg={msg} />)
        )}
        <div ref={endRef} />
      </div>
      <Composer orderId={id} />
    </div>
  );
}

function Bubble({ msg }: { msg: C2cMessage }) {
  const cls = msg.sender === "me" ? s.mine : msg.sender === "operator" ? s.operator : s.theirs;
  return (
    <div className={`${s.bubble} ${cls}`} data-testid="chat-message" data-sender={msg.sender}>
      {msg.sender === "operator" && <small className={s.bubbleWho}>{m.c2c_operator()}</small>}
      {msg.kind === "image" ? <AuthImage src={msg.image} alt={m.c2c_chat_image()} className={s.bubbleImage} /> : <p>{msg.text}</p>}
      <time className={s.bubbleTime}>{formatDateTime(msg.create_time).slice(11)}</time>
    </div>
  );
}

function Composer({ orderId }: { orderId: number }) {
  const send = useSendMessage();
  const [text, setText] = useState("");
  const [busy, setBusy] = useState(false);
  const [uploading, setUploading] = useState(false);
  const fileRef = useRef<HTMLInputElement>(null);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const body = text.trim();
    if (!body || busy) return;
    setBusy(true);
    try {
      await send(orderId, { text: body });
      setText("");
    } catch {
      // shown by the API client
    } finally {
      setBusy(false);
    }
  };

  const sendImage = async (file: File) => {
    setUploading(true);
    try {
      const prepared = await prepareImage(file);
      const info = await uploadImage(prepared.blob, prepared.name);
      await send(orderId, { image: info.id });
    } catch (err) {
      if (err instanceof ApiFailure && err.code && (err.code === "file_type" || err.code === "file_too_large")) toast.error(err.message);
    } finally {
      setUploading(false);
      if (fileRef.current) fileRef.current.value = "";
    }
  };

  return (
    <form className={s.composer} onSubmit={submit}>
      <label className={`icon-btn ${s.attach}`} aria-label={m.c2c_send_image()}>
        <input
          ref={fileRef}
          type="file"
          accept="image/jpeg,image/png"
          className="visually-hidden"
          disabled={uploading}
          onChange={(e) => {
            const f = e.target.files?.[0];
            if (f) void sendImage(f);
          }}
          data-testid="chat-image-input"
        />
        {uploading ? <Spinner size={18} /> : <Icon name="image" size={22} />}
      </label>
      <input className="input" value={text} maxLength={500} onChange={(e) => setText(e.target.value)} placeholder={m.c2c_chat_placeholder()} aria-label={m.c2c_chat_placeholder()} data-testid="chat-input" />
      <button type="submit" className={`icon-btn ${s.sendBtn}`} disabled={busy || !text.trim()} aria-label={m.c2c_send()} data-testid="chat-send">
        {busy ? <Spinner size={18} /> : <Icon name="send" size={20} />}
      </button>
    </form>
  );
}
