/**
 * Order history (issue #8 §6.3): every spot order of the user with where it ended up, so a
 * cancelled or partly filled order does not vanish; filtered by pair and by state, newest first,
 * loading the next page as the end of the list comes into view.
 */
import { useEffect, useState } from "react";
import type { OrderState } from "../../../../../schemas/spot.ts";
import { m } from "../../../i18n/index.ts";
import { formatMoney, formatPrice, formatDateTime } from "../../../lib/format.ts";
import { LoadMoreFoot } from "../../../components/LoadMoreFoot.tsx";
import { EmptyState, ErrorState, SkeletonList } from "../../../components/States.tsx";
import { fetchPairs, useOrderHistory, type PairRow } from "../api.ts";
import { clampDecimals } from "../orderMath.ts";
import s from "./spot.module.css";
import { Fact } from "../../../components/KvRow.tsx";

const STATES: OrderState[] = ["open", "filled", "partial", "cancelled", "rejected"];
const stateLabel: Record<OrderState, () => string> = {
  open: m.spot_state_open,
  filled: m.spot_state_filled,
  partial: m.spot_state_partial,
  cancelled: m.spot_state_cancelled,
  rejected: m.spot_state_rejected,
};

export function OrderHistory() {
  const [pairs, setPairs] = useState<PairRow[]>([]);
  const [currencyId, setCurrencyId] = useState<number | null>(null);
  const [state, setState] = useState<OrderState | null>(null);
  useEffect(() => {
    const controller = new AbortController();
    fetchPairs(controller.signal).then(setPairs, () => {});
    return () => controller.abort();
  }, []);
  const { items, loading, loadingMore, error, moreError, hasMore, loadMore, reload } = useOrderHistory(currencyId, state);

  return (
    <div className="records" data-testid="order-history">
      <div className={s.recordsFilters}>
        <label>
          <span className="muted">{m.spot_filter_pair()}</span>
          <select className="input" value={currencyId ?? ""} onChange={(e) => setCurrencyId(e.target.value ? Number(e.target.value) : null)} data-testid="orders-pair">
            <option value="">{m.spot_filter_all()}</option>
            {pairs.map((p) => (
              <option key={p.id} value={p.currency_id}>
                {p.currency_name}/{p.legal_name}
              </option>
            ))}
          </select>
        </label>
        <label>
          <span className="muted">{m.spot_filter_state()}</span>
          <select className="input" value={state ?? ""} onChange={(e) => setState((e.target.value || null) as OrderState | null)} data-testid="orders-state">
            <option value="">{m.spot_filter_all()}</option>
            {STATES.map((s) => (
              <option key={s} value={s}>
                {stateLabel[s]()}
              </option>
            ))}
          </select>
        </label>
      </div>
      {loading ? (
        <SkeletonList rows={6} />
      ) : error ? (
        <ErrorState message={error.message} onRetry={reload} />
      ) : items.length === 0 ? (
        <EmptyState text={m.spot_no_orders()} />
      ) : (
        <ul className="record-list">
          {items.map((o) => (
            <li key={o.id} className={s.record} data-testid="order-row" data-state={o.state}>
              <div className={s.recordHead}>
                <span className={`${s.sideTag} ${o.direction === "buy" ? s.buy : s.sell}`}>{o.direction === "buy" ? m.spot_buy() : m.spot_sell()}</span>
                <span className={s.recordPair}>
                  {o.currency_name}/{o.legal_name}
                </span>
                <span className={`${s.orderState} ${s[o.state] ?? ""}`} data-testid="order-state">
                  {stateLabel[o.state]()}
                </span>
                <span className={`${s.recordTime} muted num`}>{formatDateTime(o.time_format)}</span>
              </div>
              <dl className={s.recordGrid}>
                <Fact label={m.spot_col_price({ quote: o.legal_name })}>{o.price === null ? m.spot_market() : formatPrice(clampDecimals(o.price, 5))}</Fact>
                <Fact label={m.spot_col_avg_price({ quote: o.legal_name })}>{o.avg_price === null ? "--" : formatPrice(clampDecimals(o.avg_price, 5))}</Fact>
                <Fact label={m.spot_col_amount({ coin: o.currency_name })}>{formatMoney(o.number, o.currency_name)}</Fact>
                <Fact label={m.spot_col_filled()} testId="order-filled">{formatMoney(o.filled, o.currency_name)}</Fact>
              </dl>
            </li>
          ))}
        </ul>
      )}
      <LoadMoreFoot count={items.length} hasMore={hasMore} loadingMore={loadingMore} moreError={moreError} loadMore={loadMore} />
    </div>
  );
}
