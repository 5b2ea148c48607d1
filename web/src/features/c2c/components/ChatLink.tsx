/** The way into an order's chat, with a badge while it has messages the user has not seen. */
import { Link } from "react-router";
import { m } from "../../../i18n/index.ts";
import { Icon } from "../../../components/Icon.tsx";
import type { C2cOrder } from "../api.ts";
import { hasUnread, useReadMarks } from "../readMarks.ts";
import s from "./c2c.module.css";

export function ChatLink({ order }: { order: Pick<C2cOrder, "id" | "last_message_id"> }) {
  const marks = useReadMarks();
  const unread = hasUnread(marks, order.id, order.last_message_id);
  return (
    <Link to={`/legal/chat?id=${order.id}`} className={`btn btn-outline ${s.chatLink}`} data-testid="order-chat">
      <Icon name="chat" size={18} />
      {m.c2c_chat()}
      {unread && <span className={s.dot} role="img" aria-label={m.c2c_new_messages()} data-testid="chat-unread" />}
    </Link>
  );
}
