/**
 * The frame of the trade screens (spot and seconds): the header (pair picker, the day's change,
 * the live dot, links to the chart and the history) and the big price with its note. Each screen
 * puts its own form, book and lists under it.
 */
import type { ReactNode } from "react";
import { Link } from "react-router";
import { m } from "../i18n/index.ts";
import { formatChange, formatPrice } from "../lib/format.ts";
import { Icon } from "./Icon.tsx";
import s from "./TradeHead.module.css";

export function TradeHead({
  coin,
  quote,
  change,
  trend,
  status,
  pulse = false,
  onOpenPairs,
  chartTo,
  historyTo,
  historyLabel,
}: {
  coin: string;
  quote: string;
  change: string | null;
  trend: string;
  status: string;
  /** The dot pulses while the connection is not open. */
  pulse?: boolean;
  onOpenPairs: () => void;
  chartTo: string;
  historyTo: string;
  historyLabel: string;
}) {
  const live = status === "open" ? m.spot_live() : m.spot_reconnecting();
  return (
    <div className={s.head}>
      <button type="button" className={s.pair} onClick={onOpenPairs} aria-haspopup="dialog" data-testid="pair-button">
        <span className={s.pairName}>
          {coin}/{quote}
        </span>
        <Icon name="chevronDown" size={18} />
      </button>
      <span className={`change-pill num ${s.change} ${trend}`} data-testid="header-change">
        {formatChange(change)}
      </span>
      <span className={`${s.liveDot} ${pulse ? s.pulse : ""} ${s[status] ?? ""}`} title={live} data-testid="live-status" data-status={status}>
        <span className="visually-hidden">{live}</span>
      </span>
      <span className={s.links}>
        <Link to={chartTo} className="icon-btn" aria-label={m.spot_chart()} data-testid="kline-link">
          <Icon name="markets" size={20} />
        </Link>
        <Link to={historyTo} className="icon-btn" aria-label={historyLabel} data-testid="history-link">
          <Icon name="records" size={20} />
        </Link>
      </span>
    </div>
  );
}

/** The big price (coloured by the trend) and, beside it, what it is. */
export function TradePrice({ price, trend, testId, children }: { price: string | null; trend: string; testId: string; children: ReactNode }) {
  return (
    <div className={s.priceRow}>
      <span className={`${s.price} num ${trend}`} data-testid={testId}>
        {formatPrice(price)}
      </span>
      {children}
    </div>
  );
}
