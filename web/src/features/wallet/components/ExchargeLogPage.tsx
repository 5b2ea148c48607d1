/** Flash-exchange records (spec §2 /excharge/log): what was paid, received, the rate, the fee and when. */
import { m } from "../../../i18n/index.ts";
import { showExact } from "../../../lib/amount.ts";
import { usePaged, useSentinel } from "../../../lib/usePaged.ts";
import { EmptyState, ErrorState, SkeletonList, Spinner } from "../../../components/States.tsx";
import { fetchConversionLog, type ConversionRecord } from "../api.ts";
import "../../../styles/account.css";

export default function ExchargeLogPage() {
  const list = usePaged<ConversionRecord>((page, signal) => fetchConversionLog(page, signal));
  const sentinel = useSentinel(list.loadMore, list.hasMore && !list.moreError);
  return (
    <div className="acct-page" data-testid="excharge-log">
      {list.loading ? (
        <SkeletonList rows={4} />
      ) : list.error ? (
        <ErrorState message={list.error.message} onRetry={list.reload} />
      ) : list.items.length === 0 ? (
        <EmptyState text={m.wallet_no_conversions()} />
      ) : (
        <>
          <ul className="record-list">
            {list.items.map((r) => (
              <li key={r.id} className="record-card" data-testid="conversion-record">
                <div className="record-head">
                  <span className="record-title">{r.from} → {r.to}</span>
                  <span className="muted num">{r.addtime}</span>
                </div>
                <dl className="kv">
                  <div className="kv-row"><dt>{m.wallet_paid()}</dt><dd className="num">{showExact(r.money)} {r.from}</dd></div>
                  <div className="kv-row"><dt>{m.wallet_received()}</dt><dd className="num">{showExact(r.money2)} {r.to}</dd></div>
                  <div className="kv-row"><dt>{m.wallet_rate()}</dt><dd className="num">{r.huilv}</dd></div>
                  <div className="kv-row"><dt>{m.wallet_fee()}</dt><dd className="num">{showExact(r.sxf)} USDT ({r.fee_percent}%)</dd></div>
                </dl>
              </li>
            ))}
          </ul>
          <div className="list-footer" ref={sentinel}>
            {list.loadingMore ? <Spinner size={18} /> : list.moreError ? (
              <button type="button" className="text-btn" onClick={list.loadMore}>{m.load_failed()} · {m.retry()}</button>
            ) : list.hasMore ? (
              <button type="button" className="text-btn" onClick={list.loadMore}>{m.load_more()}</button>
            ) : (
              <span className="muted">{m.no_more()}</span>
            )}
          </div>
        </>
      )}
    </div>
  );
}
