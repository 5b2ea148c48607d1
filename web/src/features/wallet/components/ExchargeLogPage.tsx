/** Flash-exchange records (spec §2 /excharge/log): what was paid, received, the rate, the fee and when. */
import { m } from "../../../i18n/index.ts";
import { useSentinel } from "../../../lib/useSentinel.ts";
import { EmptyState, ErrorState, SkeletonList, Spinner } from "../../../components/States.tsx";
import { useConversionLog } from "../api.ts";
import acct from "../../../components/account.module.css";
import { formatMoney, formatMoneyMoved } from "../../../lib/format.ts";

export default function ExchargeLogPage() {
  const list = useConversionLog();
  const sentinel = useSentinel(list.loadMore, list.hasMore && !list.moreError);
  return (
    <div className={acct.acctPage} data-testid="excharge-log">
      {list.loading ? (
        <SkeletonList rows={4} />
      ) : list.error ? (
        <ErrorState message={list.error.message} onRetry={list.reload} />
      ) : list.items.length === 0 ? (
        <EmptyState text={m.wallet_no_conversions()} />
      ) : (
        <>
          <ul className={acct.recordList}>
            {list.items.map((r) => (
              <li key={r.id} className={acct.recordCard} data-testid="conversion-record">
                <div className={acct.recordHead}>
                  <span className={acct.recordTitle}>{r.from} → {r.to}</span>
                  <span className="muted num">{r.addtime}</span>
                </div>
                <dl className={acct.kv}>
                  <div className={acct.kvRow}><dt>{m.wallet_paid()}</dt><dd className="num">{formatMoney(r.money, r.from)} {r.from}</dd></div>
                  <div className={acct.kvRow}><dt>{m.wallet_received()}</dt><dd className="num">{formatMoney(r.money2, r.to)} {r.to}</dd></div>
                  <div className={acct.kvRow}><dt>{m.wallet_rate()}</dt><dd className="num">{r.huilv}</dd></div>
                  <div className={acct.kvRow}><dt>{m.wallet_fee()}</dt><dd className="num">{formatMoneyMoved(r.sxf, "USDT")} USDT ({r.fee_percent}%)</dd></div>
                </dl>
              </li>
            ))}
          </ul>
          <div className={acct.listFooter} ref={sentinel}>
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
