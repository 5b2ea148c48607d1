/**
 * The running contracts (spec §2 /trade): direction, time, symbol, open price, amount, the current
 * index price, seconds, the result net of the fee if it settled now (spec §4 rule) and the
 * countdown. Once the countdown ends the row says "settling" until the final record arrives; then
 * it stays with its result — won or lost and the net amount — until dismissed (logic.ts
 * SETTLED_KEEP_MS), so the result is seen on the trade screen. Tapping a row opens its modal.
 */
import { m } from "../../../i18n/index.ts";
import { decimalsOf } from "../../../lib/amount.ts";
import { formatPrice, formatDateTime, formatMoneyMoved } from "../../../lib/format.ts";
import type { ApiFailure } from "../../../lib/api.ts";
import { EmptyState, ErrorState, SkeletonList } from "../../../components/States.tsx";
import { Link } from "react-router";
import { Icon } from "../../../components/Icon.tsx";
import type { PairRow, SecondsOrder } from "../api.ts";
import { useIndexPrice } from "../hooks.ts";
import { liveResult, netResult, phaseOf, secondsLeft, signOf } from "../logic.ts";
import { clock, signedResult } from "../display.ts";
import s from "./seconds.module.css";

export function RunningOrders({
  orders,
  pairs,
  serverNow,
  error,
  loading,
  onRetry,
  onOpen,
  onDismiss,
}: {
  orders: SecondsOrder[];
  pairs: PairRow[];
  serverNow: number;
  error: ApiFailure | null;
  loading: boolean;
  onRetry: () => void;
  onOpen: (id: number) => void;
  onDismiss: (id: number) => void;
}) {
  const runningCount = orders.filter((o) => o.status === 1 || o.status === 2).length;
  return (
    <section className={s.running} aria-labelledby="running-title">
      <div className={s.runningHead}>
        <h2 id="running-title" className={s.sectionTitle}>
          {m.sec_running()}
          {runningCount > 0 && <span className={`${s.count} num`}>{runningCount}</span>}
        </h2>
        <Link to="/trade/lists" className={s.more}>
          {m.sec_history()}
          <Icon name="chevron" size={14} />
        </Link>
      </div>
      {loading ? (
        <SkeletonList rows={2} />
      ) : error && orders.length === 0 ? (
        <ErrorState message={error.message} onRetry={onRetry} />
      ) : orders.length === 0 ? (
        <EmptyState text={m.sec_no_running()} />
      ) : (
        <ul className={s.runningList} data-testid="running-orders">
          {orders.map((o) => (
            <RunningRow key={o.id} order={o} pair={pairs.find((p) => p.id === o.match_id) ?? null} serverNow={serverNow} onOpen={() => onOpen(o.id)} onDismiss={() => onDismiss(o.id)} />
          ))}
        </ul>
      )}
    </section>
  );
}

function RunningRow({ order, pair, serverNow, onOpen, onDismiss }: { order: SecondsOrder; pair: PairRow | null; serverNow: number; onOpen: () => void; onDismiss: () => void }) {
  const { index } = useIndexPrice(pair);
  const { phase, remainMs } = phaseOf(order, serverNow);
  const up = order.type === 1;
  const live = phase === "running" || phase === "settling" ? liveResult(order, index, decimalsOf(order.number)) : null;
  // Net of the fee paid at acceptance, both ways: what the balance ends up changed by.
  const net = phase === "settled" ? netResult(order.fact_profits, order.fee) : live ? netResult(live.amount, order.fee) : null;
  const result = signedResult(net, order.currency_name);
  const finished = phase === "settled" || phase === "revoked";
  const won = phase === "settled" && signOf(order.fact_profits) > 0;
  return (
    <li className={finished ? s.finishedItem : undefined}>
      <button type="button" className={s.runningRow} onClick={onOpen} data-testid="running-order" data-id={order.id} data-phase={phase}>
        <span className={s.rowHead}>
          <span className={`${s.dirTag} ${up ? s.up : s.down}`}>{up ? m.sec_up() : m.sec_down()}</span>
          <span className={s.rowSymbol}>{order.symbol_name}</span>
          <span className="muted num">{formatDateTime(order.create_time_format)}</span>
          <span className={`${s.rowClock} num`} data-testid="running-countdown">
            {phase === "running" ? clock(secondsLeft(remainMs)) : phase === "settling" ? m.sec_settling_short() : phase === "settled" ? m.sec_settled_short() : m.sec_revoked()}
          </span>
        </span>
        <span className={s.rowGrid}>
          <span>
            <small>{m.sec_open_price()}</small>
            <span className="num">{formatPrice(order.open_price)}</span>
          </span>
          <span>
            <small>{phase === "settled" ? m.sec_close_price() : m.sec_current_price()}</small>
            <span className="num">{formatPrice(phase === "settled" ? order.end_price : index)}</span>
          </span>
          <span>
            <small>{m.sec_amount()}</small>
            <span className="num">
              {formatMoneyMoved(order.number, order.currency_name)} {order.currency_name}
            </span>
          </span>
          <span>
            <small>{m.sec_seconds()}</small>
            <span className="num">{m.sec_seconds_short({ seconds: order.seconds })}</span>
          </span>
          <span className={s.rowResult}>
            <small>{phase === "settled" ? m.sec_result() : m.sec_live_result()}</small>
            <span className={`num ${result.tone}`} data-testid="running-result">
              {result.text}
            </span>
          </span>
        </span>
      </button>
      {finished && (
        <div className={s.finishedBar} role="status" data-testid="running-outcome">
          {phase === "settled" ? (
            <span>
              <strong className={won ? "up" : "down"}>{won ? m.sec_won() : m.sec_lost()}</strong>{" "}
              <span className={`num ${result.tone}`}>{m.sec_net_amount({ amount: `${result.text} ${order.currency_name}` })}</span>
            </span>
          ) : (
            <span className="muted">{m.sec_revoked()}</span>
          )}
          <button type="button" className="text-btn" onClick={onDismiss} data-testid="running-dismiss">
            {m.sec_dismiss()}
          </button>
        </div>
      )}
    </li>
  );
}
