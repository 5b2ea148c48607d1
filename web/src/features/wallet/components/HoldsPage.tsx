/**
 * What the user's frozen funds are held for (issue #26; /holds?currency_id=&account=): per coin and
 * account, the frozen balance and each open record that holds part of it (they add up to it), with
 * a link to each record. Opened from the assets screen's "Frozen".
 */
import { Link, useSearchParams } from "react-router";
import { m } from "../../../i18n/index.ts";
import { EmptyState, ErrorState, SkeletonList } from "../../../components/States.tsx";
import { formatMoney } from "../../../lib/format.ts";
import { holdName, purposeLabel, useHolds } from "../../../lib/holds.ts";
import { accountLabel } from "../../../lib/products.ts";
import { refRoute } from "../statement.ts";
import acct from "../../../components/account.module.css";
import s from "./statement.module.css";

export default function HoldsPage() {
  const [params] = useSearchParams();
  const currency = Number(params.get("currency_id"));
  const account = params.get("account");
  const { data, error, loading, reload } = useHolds();
  const groups = (data?.groups ?? []).filter((g) => (!currency || g.currency_id === currency) && (!account || g.account === account));
  return (
    <div className={acct.acctPage} data-testid="holds-page">
      <p className="form-note">{m.holds_note()}</p>
      {error && !data ? (
        <ErrorState message={error.message} onRetry={reload} />
      ) : loading && !data ? (
        <SkeletonList rows={3} />
      ) : groups.length === 0 ? (
        <EmptyState text={m.holds_empty()} />
      ) : (
        <ul className={acct.recordList}>
          {groups.map((g) => (
            <li key={`${g.currency_id}-${g.account}`} className={acct.recordCard} data-testid="hold-group">
              <div className={acct.recordHead}>
                <span className={acct.recordTitle}>
                  {g.currency} · {accountLabel(g.account)}
                </span>
                <span className={`num ${s.amount}`}>{m.holds_frozen({ amount: formatMoney(g.frozen, g.currency) })}</span>
              </div>
              {g.holds.map((h, i) => {
                const to = refRoute(h.ref);
                const name = holdName(h);
                const what = (
                  <span className={s.holdWhat}>
                    <span>{purposeLabel(h.purpose)}</span>
                    {(name || h.ref.id !== null) && <span className={s.holdLabel}>{[name, h.ref.id !== null ? `#${h.ref.id}` : ""].filter(Boolean).join(" ")}</span>}
                  </span>
                );
                return (
                  <div key={i} className={s.holdItem} data-testid="hold-item" data-purpose={h.purpose}>
                    {to ? (
                      <Link to={to} className={s.holdWhat}>
                        {what}
                      </Link>
                    ) : (
                      what
                    )}
                    <span className="num">
                      {formatMoney(h.amount, g.currency)} {g.currency}
                    </span>
                  </div>
                );
              })}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
