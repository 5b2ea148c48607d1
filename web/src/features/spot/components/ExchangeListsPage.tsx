/**
 * Spot history (spec §2 /exchange/lists): the user's trades, newest first, loading the next page
 * as the end of the list scrolls into view until every trade is in. Each row: time, pair,
 * direction (way 2 buy in green, otherwise sell in red), quantity, price (at most 5 decimals),
 * traded amount and fee.
 */
import { useEffect, useRef } from "react";
import { m } from "../../../i18n/index.ts";
import { formatPrice } from "../../../lib/format.ts";
import { Icon } from "../../../components/Icon.tsx";
import { EmptyState, ErrorState, SkeletonList, Spinner } from "../../../components/States.tsx";
import { useSpotRecords } from "../api.ts";
import { upTo } from "../display.ts";
import { clampDecimals } from "../orderMath.ts";
import s from "./spot.module.css";

export default function ExchangeListsPage() {
  const { items, loading, loadingMore, error, moreError, hasMore, loadMore, reload } = useSpotRecords();
  const sentinel = useRef<HTMLDivElement>(null);

  // Load the next page when the end of the list comes near the viewport.
  useEffect(() => {
    const el = sentinel.current;
    if (!el || !hasMore || moreError) return;
    const io = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) void loadMore();
    }, { rootMargin: "200px 0px" });
    io.observe(el);
    return () => io.disconnect();
  }, [hasMore, loadMore, moreError, items.length]);

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
              <li key={`${r.time_format}-${i}`} className={s.record} data-testid="record-row">
                <div className={s.recordHead}>
                  <span className={`${s.sideTag} ${buy ? s.buy : s.sell}`} data-testid="side-tag" data-side={buy ? "buy" : "sell"}>{buy ? m.spot_buy() : m.spot_sell()}</span>
                  <span className={s.recordPair}>
                    {r.currency_name}/{r.legal_name}
                  </span>
                  <span className={`${s.recordTime} muted num`}>{r.time_format}</span>
                </div>
                <dl className={s.recordGrid}>
                  <div>
                    <dt>{m.spot_col_amount({ coin: r.currency_name })}</dt>
                    <dd className="num" data-testid="record-qty">
                      {upTo(r.number, 6)}
                    </dd>
                  </div>
                  <div>
                    <dt>{m.spot_col_price({ quote: r.legal_name })}</dt>
                    <dd className="num" data-testid="record-price">
                      {formatPrice(clampDecimals(r.price, 5))}
                    </dd>
                  </div>
                  <div>
                    <dt>{m.spot_col_traded({ quote: r.legal_name })}</dt>
                    <dd className="num" data-testid="record-amount">
                      {upTo(r.amount, 8)}
                    </dd>
                  </div>
                  <div>
                    <dt>{m.spot_col_fee()}</dt>
                    <dd className="num">{r.fee}</dd>
                  </div>
                </dl>
              </li>
            );
          })}
        </ul>
      )}
      <div ref={sentinel} className={`${s.recordsFoot} muted`}>
        {loadingMore ? (
          <Spinner size={18} />
        ) : moreError ? (
          <button type="button" className="text-btn" onClick={() => void loadMore()}>
            {m.retry()}
          </button>
        ) : hasMore ? (
          <button type="button" className="text-btn" onClick={() => void loadMore()}>
            {m.load_more()}
          </button>
        ) : items.length > 0 ? (
          m.no_more()
        ) : null}
      </div>
    </div>
  );
}
