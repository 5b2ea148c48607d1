/**
 * My mining (/mining/my): what one has received in total per currency, each purchase (the spec's
 * mining order: in progress until its term ends, then completed) and every hour paid to one, with
 * the pool's evidence. Readable while the product is switched off, so nothing bought is hidden.
 */
import { Link } from "react-router";
import { m } from "../../../i18n/index.ts";
import { formatDateTime, formatExact, formatMinute } from "../../../lib/format.ts";
import { EmptyState, ErrorState, SkeletonList } from "../../../components/States.tsx";
import { useMy } from "../api.ts";
import { KvRow } from "../../../components/KvRow.tsx";
import acct from "../../../components/account.module.css";
import s from "./mining.module.css";
import { EvidenceRow } from "./EvidenceRow.tsx";

export default function MyPage() {
  const q = useMy();
  const d = q.data;
  return (
    <div className={acct.acctPage} data-testid="mining-my">
      {q.error && !d ? (
        <ErrorState message={q.error.message} onRetry={q.reload} />
      ) : !d ? (
        <SkeletonList rows={3} />
      ) : d.holdings.length === 0 ? (
        <>
          <EmptyState text={m.mining_my_empty()} />
          <Link to="/mining" className="btn btn-outline btn-block">
            {m.title_mining()}
          </Link>
        </>
      ) : (
        <>
          <section className="card" data-testid="mining-my-totals">
            <h3 className={s.cardTitle}>{m.mining_my_received()}</h3>
            {d.totals.length === 0 ? (
              <p className="form-note">{m.mining_my_nothing_yet()}</p>
            ) : (
              <dl className={acct.kv}>
                {d.totals.map((t) => (
                  <KvRow key={t.currency} label={t.currency}>{formatExact(t.amount)}</KvRow>
                ))}
              </dl>
            )}
          </section>
          <h2 className="section-title">{m.mining_my_holdings()}</h2>
          <ul className={acct.recordList}>
            {d.holdings.map((h) => (
              <li key={h.id} className={acct.recordCard} data-testid="mining-holding">
                <div className={`${acct.recordHead} ${s.head}`}>
                  <span className={acct.recordTitle}>{h.plan_name}</span>
                  <span className={`badge ${h.status === "in_progress" ? "badge-ok" : "badge-none"}`}>
                    {h.status === "in_progress" ? m.mining_in_progress() : m.mining_completed()}
                  </span>
                </div>
                <dl className={acct.kv}>
                  <KvRow label={m.mining_my_shares()} testId="mining-holding-shares">{h.shares}</KvRow>
                  <KvRow label={m.mining_calc_cost()}>{formatExact(h.cost)} {h.price_currency}</KvRow>
                  <KvRow label={m.mining_bought_at()}>{formatDateTime(h.created_at)}</KvRow>
                  <KvRow label={m.mining_term_end()}>{formatDateTime(h.end_at)}</KvRow>
                  <KvRow label={m.mining_payout_currency()}>{h.payout_currency}</KvRow>
                </dl>
              </li>
            ))}
          </ul>
          <h2 className="section-title">{m.mining_my_payouts()}</h2>
          {d.payouts.length === 0 ? (
            <EmptyState text={m.mining_my_no_payouts()} />
          ) : (
            <ul className={acct.recordList}>
              {d.payouts.map((x) => (
                <li key={`${x.plan_id}:${x.hour}`} className={acct.recordCard} data-testid="mining-credit">
                  <div className={`${acct.recordHead} ${s.head}`}>
                    <span className={acct.recordTitle}>{formatMinute(x.hour)}</span>
                    <span className="num">+{formatExact(x.amount)} {x.currency}</span>
                  </div>
                  <dl className={acct.kv}>
                    <KvRow label={m.mining_plan()}>{x.plan_name}</KvRow>
                    <KvRow label={m.mining_my_shares()}>{x.shares}</KvRow>
                    <KvRow label={m.mining_my_gross_fee()}>
                      {formatExact(x.gross)} − {formatExact(x.fee)} {x.currency}
                    </KvRow>
                    <EvidenceRow evidence={x.evidence} />
                  </dl>
                </li>
              ))}
            </ul>
          )}
        </>
      )}
    </div>
  );
}
