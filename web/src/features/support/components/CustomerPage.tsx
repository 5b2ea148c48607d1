/**
 * Customer service (spec §2): frames the configured support page; an e-mail address gets a
 * button instead (a mailto: link cannot be framed).
 */
import { useState } from "react";
import { Link } from "react-router";
import { m } from "../../../i18n/index.ts";
import { EmptyState, ErrorState, PageSpinner, Spinner } from "../../../components/States.tsx";
import { Icon } from "../../../components/Icon.tsx";
import { classifyLink, useKefu } from "../api.ts";
import s from "./CustomerPage.module.css";

export default function CustomerPage() {
  const { data, error, loading, reload } = useKefu();
  const [frameLoaded, setFrameLoaded] = useState(false);

  if (loading) return <PageSpinner />;
  if (error) return <ErrorState message={error.message} onRetry={reload} />;
  const link = classifyLink(data?.mobile);

  if (link.kind === "none") return <EmptyState text={m.customer_none()} />;

  if (link.kind === "frame") {
    return (
      <div className={s.serviceFrameWrap}>
        {!frameLoaded && (
          <div className={s.serviceFrameLoading}>
            <Spinner size={24} />
          </div>
        )}
        <iframe
          className={s.serviceFrame}
          src={link.url}
          title={m.title_customer()}
          onLoad={() => setFrameLoaded(true)}
          sandbox="allow-scripts allow-same-origin allow-forms allow-popups"
          referrerPolicy="no-referrer"
        />
        <a className={s.serviceExternal} href={link.url} target="_blank" rel="noopener noreferrer">
          <Icon name="external" size={16} />
          {m.customer_open()}
        </a>
      </div>
    );
  }

  if (link.kind === "internal") {
    return (
      <div className={`${s.serviceCard} page-pad`} data-testid="customer">
        <div className={s.serviceIcon}>
          <Icon name="service" size={34} />
        </div>
        <h2>{m.customer_heading()}</h2>
        <p className="muted">{m.customer_internal_body()}</p>
        <Link className="btn btn-primary btn-block btn-large" to={link.path}>
          {link.path.startsWith("/help") ? m.title_help() : m.customer_contact()}
        </Link>
      </div>
    );
  }

  return (
    <div className={`${s.serviceCard} page-pad`} data-testid="customer">
      <div className={s.serviceIcon}>
        <Icon name={link.kind === "mail" ? "mail" : "service"} size={34} />
      </div>
      <h2>{m.customer_heading()}</h2>
      <p className="muted">{m.customer_mail_body()}</p>
      {link.kind === "mail" && <p className={s.serviceAddress}>{link.address}</p>}
      <a className="btn btn-primary btn-block btn-large" href={link.url}>
        {link.kind === "mail" ? m.customer_email() : m.customer_contact()}
      </a>
    </div>
  );
}
