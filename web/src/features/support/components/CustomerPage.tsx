/**
 * Customer service (spec §2; issue #16 §2): open a ticket and follow one's tickets (signed in), and
 * the configured contact (GET /api/cfg/kefu): a web page is framed on demand, an e-mail address or
 * a phone number gets a button, an in-app route (the help centre) a link.
 */
import { formatMinute } from "../../../lib/format.ts";
import { useState } from "react";
import { Link } from "react-router";
import { m } from "../../../i18n/index.ts";
import { useSession } from "../../../lib/session.ts";
import { ErrorState, SkeletonBlock, SkeletonList, Spinner } from "../../../components/States.tsx";
import { Icon } from "../../../components/Icon.tsx";
import { classifyLink, useKefu, useMyTickets, useTicketsLive, type ServiceLink, type TicketSummary } from "../api.ts";
import { categoryText, statusBadge, statusText } from "../labels.ts";
import s from "./support.module.css";

export default function CustomerPage() {
  const loggedIn = useSession().token !== "";
  const kefu = useKefu();
  const [framed, setFramed] = useState<string | null>(null);
  if (framed) return <ServiceFrame url={framed} onBack={() => setFramed(null)} />;
  return (
    <div className={s.page} data-testid="customer">
      <section className={s.intro}>
        <span className={s.introIcon}>
          <Icon name="service" size={24} />
        </span>
        <div>
          <h2>{m.customer_heading()}</h2>
          <p>{m.support_intro()}</p>
        </div>
      </section>
      <Link className="btn btn-primary btn-block btn-large" to="/support/new" data-testid="support-open">
        {m.support_open_ticket()}
      </Link>
      {loggedIn ? (
        <MyTickets />
      ) : (
        <p className="muted" data-testid="support-login-prompt">
          {m.support_login_prompt()} <Link to="/login?redirect=%2Fcustomer">{m.support_login()}</Link>
        </p>
      )}
      <h3 className={s.sectionTitle}>{m.support_other_ways()}</h3>
      {kefu.loading ? (
        <SkeletonBlock height={44} />
      ) : kefu.error ? (
        <ErrorState message={kefu.error.message} onRetry={kefu.reload} />
      ) : (
        <OtherWays link={classifyLink(kefu.data?.mobile)} onFrame={setFramed} />
      )}
    </div>
  );
}

function MyTickets() {
  const list = useMyTickets();
  useTicketsLive();
  return (
    <section data-testid="support-tickets">
      <h3 className={s.sectionTitle}>{m.support_my_tickets()}</h3>
      {list.loading ? (
        <SkeletonList rows={2} />
      ) : list.error ? (
        <ErrorState message={list.error.message} onRetry={list.reload} />
      ) : list.items.length === 0 ? (
        <p className="muted" data-testid="support-tickets-empty">{m.support_no_tickets()}</p>
      ) : (
        <div className={s.ticketList}>
          {list.items.map((t) => <TicketRow key={t.id} ticket={t} />)}
          {list.hasMore && (
            <button type="button" className="text-btn" onClick={list.loadMore} disabled={list.loadingMore}>
              {list.loadingMore ? <Spinner size={16} /> : m.load_more()}
            </button>
          )}
        </div>
      )}
    </section>
  );
}

function TicketRow({ ticket: t }: { ticket: TicketSummary }) {
  const replied = t.last_reply_by === "support" && t.status !== "closed";
  return (
    <Link className={s.ticketRow} to={`/support/ticket?id=${t.id}`} data-testid="support-ticket-row" data-id={t.id}>
      <div className={s.ticketRowHead}>
        <span className={s.ticketSubject}>{t.subject}</span>
        <span className={`badge ${statusBadge(t.status)}`}>{statusText(t.status)}</span>
      </div>
      <div className={s.ticketMeta}>
        <span>
          #{t.id} · {categoryText(t.category)}
          {replied && <span className={s.ticketNew}> · {m.support_new_reply()}</span>}
        </span>
        <span className="num">{formatMinute(t.updated_at)}</span>
      </div>
    </Link>
  );
}

function OtherWays({ link, onFrame }: { link: ServiceLink; onFrame: (url: string) => void }) {
  switch (link.kind) {
    case "none":
      return <p className="muted">{m.customer_none()}</p>;
    case "frame":
      return (
        <button type="button" className="btn btn-outline btn-block" onClick={() => onFrame(link.url)} data-testid="support-chat">
          <Icon name="chat" size={18} />
          {m.support_chat()}
        </button>
      );
    case "internal":
      return (
        <Link className="btn btn-outline btn-block" to={link.path} data-testid="support-internal">
          <Icon name={link.path.startsWith("/help") ? "help" : "service"} size={18} />
          {link.path.startsWith("/help") ? m.title_help() : m.customer_contact()}
        </Link>
      );
    default:
      return (
        <div className={s.ways}>
          {link.kind === "mail" && <p className="muted">{m.customer_mail_body()} <strong>{link.address}</strong></p>}
          <a className="btn btn-outline btn-block" href={link.url}>
            <Icon name={link.kind === "mail" ? "mail" : "service"} size={18} />
            {link.kind === "mail" ? m.customer_email() : m.customer_contact()}
          </a>
        </div>
      );
  }
}

/** The configured support page, framed, with a way back and a way out. */
function ServiceFrame({ url, onBack }: { url: string; onBack: () => void }) {
  const [loaded, setLoaded] = useState(false);
  return (
    <div className={s.frameWrap}>
      <div className={s.frameBar}>
        <button type="button" className="text-btn" onClick={onBack}>
          <Icon name="back" size={16} />
          {m.support_my_tickets()}
        </button>
        <a href={url} target="_blank" rel="noopener noreferrer">
          <Icon name="external" size={16} />
          {m.customer_open()}
        </a>
      </div>
      {!loaded && <SkeletonBlock height={120} />}
      <iframe
        className={s.frame}
        src={url}
        title={m.title_customer()}
        onLoad={() => setLoaded(true)}
        sandbox="allow-scripts allow-same-origin allow-forms allow-popups"
        referrerPolicy="no-referrer"
      />
    </div>
  );
}
