/**
 * Spot history (spec §2 /exchange/lists), two tabs: the user's orders with their final state
 * (OrderHistory) and the user's trades, newest first, loading the next page
 * as the end of the list scrolls into view until every trade is in. Each row: time, pair,
 * direction (way 2 buy in green, otherwise sell in red), quantity, price (at most 5 decimals),
 * traded amount and fee.
 */
import { useSearchParams } from "react-router";
import { m } from "../../../i18n/index.ts";
import { formatDateTime, formatMoney, formatMoneyMoved, formatPrice } from "../../../lib/format.ts";
import { Icon } from "../../../components/Icon.tsx";
import { LoadMoreFoot } from "../../../components/LoadMoreFoot.tsx";
import { EmptyState, ErrorState, SkeletonList } from "../../../components/States.tsx";
import { clampDecimals } from "../orderMath.ts";
import { useSpotRecords } from "../api.ts";
import { OrderHistory } from "./OrderHistory.tsx";
import s from "./spot.module.css";
import { Fact } from "../../../components/KvRow.tsx";

export default function ExchangeListsPage() {
  const [params, setParams] = useSearchParams();
  const tab = params.get("tab") === "orders" ? "orders" : "trades";
  const tabs = [
    ["trades", m.spot_tab_trades()],
    ["orders", m.spot_tab_orders()],
  ] as const;
  return (
    <>
      <div className="segmented" role="tablist" aria-label={m.spot_history()}>
        {tabs.map(([key, label]) => (
          <button key={key} type="button" role="tab" aria-selected={tab === key} className={tab === key ? "active" : ""} onClick={() => setParams(key === "orders" ? { tab: key } : {}, { replace: true })} data-testid={`history-tab-${key}`}>
            {label}
          </button>
        ))}
      </div>
      {tab === "orders" ? <OrderHistory /> : <TradeHistory />}
    </>
  );
}

function TradeHistory() {
  const { items, loading, loadingMore, error, moreError, hasMore, loadMore, reload } = useSpotRecords();

  if (loading) return <SkeletonList rows={6} />;
  if (error) return <ErrorState message={error.message} onRetry={reload} />;

  return (
    <div className="records" data-testid="spot-records">
      <div className={s.recordsBar}>
        <button type="button" className={`text-btn ${s.recordsRefresh}`} onClick={reload} data-testid="records-refresh">
          <Icon name="refresh" size={16} />
          {m.spot_refresh()}
        </button>
      </div>
      {items.length === 0 ? (
        <EmptyState text={m.spot_no_records()} />
      ) : (
        <ul className="record-list">
          {items.map((r, i) => {
            const buy = r.way === 2;
            return (
              <li key={`${formatDateTime(r.time_format)}-${i}`} className={s.record} data-testid="record-row">
                <div className={s.recordHead}>
                  <span className={`${s.sideTag} ${buy ? s.buy : s.sell}`} data-testid="side-tag" data-side={buy ? "buy" : "sell"}>{buy ? m.spot_buy() : m.spot_sell()}</span>
                  <span className={s.recordPair}>
                    {r.currency_name}/{r.legal_name}
                  </span>
                  <span className={`${s.recordTime} muted num`}>{formatDateTime(r.time_format)}</span>
                </div>
                <dl className={s.recordGrid}>
                  <Fact label={m.spot_col_amount({ coin: r.currency_name })} testId="record-qty">{formatMoney(r.number, r.currency_name)}</Fact>
                  <Fact label={m.spot_col_price({ quote: r.legal_name })} testId="record-price">{formatPrice(clampDecimals(r.price, 5))}</Fact>
                  <Fact label={m.spot_col_traded({ quote: r.legal_name })} testId="record-amount">{formatMoney(r.amount, r.legal_name)}</Fact>
                  <Fact label={m.spot_col_fee()} testId="record-fee">{`${formatMoneyMoved(r.fee, r.fee_currency)} ${r.fee_currency}`}</Fact>
                </dl>
              </li>
            );
          })}
        </ul>
      )}
      <LoadMoreFoot count={items.length} hasMore={hasMore} loadingMore={loadingMore} moreError={moreError} loadMore={loadMore} />
    </div>
  );
}
