/** Recent sign-ins (issue #29): the last 90 days of sign-ins and failed password attempts, newest first. */
import { m, useLocale } from "../../../i18n/index.ts";
import { formatDateTime } from "../../../lib/format.ts";
import { EmptyState, ErrorState, SkeletonList } from "../../../components/States.tsx";
import { useLogins } from "../api.ts";
import acct from "../../../components/account.module.css";
import s from "./access.module.css";

export default function LoginsPage() {
  useLocale();
  const list = useLogins();
  return (
    <div className={acct.acctPage} data-testid="logins-page">
      <p className={`${acct.notice} ${acct.noticeInfo}`}>{m.logins_intro()}</p>
      {list.error && !list.data ? (
        <ErrorState message={list.error.message} onRetry={list.reload} />
      ) : !list.data ? (
        <SkeletonList rows={4} />
      ) : list.data.list.length === 0 ? (
        <EmptyState text={m.logins_none()} />
      ) : (
        <ul className={acct.recordList}>
          {list.data.list.map((e, i) => (
            <li key={`${e.at}-${i}`} className={acct.recordCard} data-testid="login-row" data-ok={e.ok ? "yes" : "no"}>
              <div className={acct.recordHead}>
                <span className={acct.recordTitle}>{e.device}</span>
                <span className={`badge ${e.ok ? "badge-ok" : "badge-bad"}`}>{e.ok ? m.logins_ok() : m.logins_failed()}</span>
              </div>
              <dl className={s.facts}>
                <dt>{m.devices_address()}</dt>
                <dd>{[e.ip, e.place].filter(Boolean).join(" · ")}</dd>
                <dt>{m.logins_time()}</dt>
                <dd>{formatDateTime(e.at)}</dd>
              </dl>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
