/**
 * Contract history (spec §2 /trade/lists): every contract, newest first, loading the next page as
 * the end of the list scrolls into view. Each row: direction, date, symbol, open price, amount,
 * close price, seconds, the fee, profit or loss net of the fee (green above zero, red otherwise)
 * and the status label. Tapping a row opens its check (/trade/verify: the ticks and the result
 * recomputed in the browser, issue #20 §3).
 */
import { Link } from "react-router";
import { m } from "../../../i18n/index.ts";
import { formatPrice, formatDateTime, formatMoneyMoved } from "../../../lib/format.ts";
import { useProducts } from "../../../lib/products.ts";
import { Icon } from "../../../components/Icon.tsx";
import { LoadMoreFoot } from "../../../components/LoadMoreFoot.tsx";
import { EmptyState, ErrorState, PageSpinner, SkeletonList } from "../../../components/States.tsx";
import { useHistory, type SecondsOrder } from "../api.ts";
import { signedResult } from "../display.ts";
import { netResult } from "../logic.ts";
import { NotOpen } from "./NotOpen.tsx";
import s from "./seconds.module.css";
import { Fact } from "../../../components/KvRow.tsx";

export function statusLabel(status: SecondsOrder["status"]): string {
  switch (status) {
    case 1:
      return m.sec_status_1();
    case 2:
      return m.sec_status_2();
    case 3:
      return m.sec_status_3();
    default:
      return m.sec_status_4();
  }
}

export default function TradeListsPage() {
  const products = useProducts();
  if (!products) return <PageSpinner />;
  if (!products.seconds) return <NotOpen />;
  return <History />;
}

function History() {
  const { items, loading, loadingMore, error, moreError, hasMore, loadMore, reload } = useHistory();
  if (loading) return <SkeletonList rows={6} />;
  if (error) return <ErrorState message={error.message} onRetry={reload} />;
  return (
    <div className="records" data-testid="seconds-history">
      <div className={s.historyBar}>
        <button type="button" className="text-btn" onClick={reload} data-testid="history-refresh">
          <Icon name="refresh" size={16} />
          {m.spot_refresh()}
        </button>
      </div>
      {items.length === 0 ? (
        <EmptyState text={m.sec_no_history()} />
      ) : (
        <ul className="record-list">
          {items.map((o) => {
            const up = o.type === 1;
            // Net of the fee paid at acceptance, as the form and the modal show it.
            const result = o.status === 3 ? signedResult(netResult(o.fact_profits, o.fee), o.currency_name) : signedResult(null, o.currency_name);
            return (
              <li key={o.id} className={s.record} data-testid="history-row" data-id={o.id}>
                <Link to={`/trade/verify?id=${o.id}`} className={s.recordLink} data-testid="history-open">
                  <div className={s.recordHead}>
                    <span className={`${s.dirTag} ${up ? s.up : s.down}`}>{up ? m.sec_up() : m.sec_down()}</span>
                    <span className={s.rowSymbol}>{o.symbol_name}</span>
                    <span className="muted num">{formatDateTime(o.create_time_format)}</span>
                    <span className={`badge ${o.status === 3 ? "badge-ok" : o.status === 4 ? "badge-none" : "badge-pending"} ${s.recordStatus}`} data-testid="history-status">
                      {statusLabel(o.status)}
                    </span>
                  </div>
                  <dl className={s.recordGrid}>
                    <Fact label={m.sec_open_price()}>{formatPrice(o.open_price)}</Fact>
                    <Fact label={m.sec_close_price()}>{formatPrice(o.end_price)}</Fact>
                    <Fact label={m.sec_amount()}>{formatMoneyMoved(o.number, o.currency_name)} {o.currency_name}</Fact>
                    <Fact label={m.sec_seconds()}>{m.sec_seconds_short({ seconds: o.seconds })}</Fact>
                    <Fact label={m.spot_col_fee()} testId="history-fee">{formatMoneyMoved(o.fee, o.currency_name)}</Fact>
                    <Fact label={m.sec_result()} tone={result.tone} testId="history-result">{result.text}</Fact>
                  </dl>
                  {o.status === 3 && (
                    <span className={s.recordCta}>
                      {m.sec_verify_link()}
                      <Icon name="chevron" size={14} />
                    </span>
                  )}
                </Link>
              </li>
            );
          })}
        </ul>
      )}
      <LoadMoreFoot count={items.length} hasMore={hasMore} loadingMore={loadingMore} moreError={moreError} loadMore={loadMore} />
    </div>
  );
}
