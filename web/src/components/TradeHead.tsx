/**
 * The frame of the trade screens (spot and seconds): the pair states and the pair drawer, the header (pair picker, the day's change,
 * the live dot, links to the chart and the history) and the big price with its note. Each screen
 * puts its own form, book and lists under it.
 */
import { useCallback, useState, type ReactNode } from "react";
import { Link } from "react-router";
import type { Quotation } from "../../../schemas/content.ts";
import { m } from "../i18n/index.ts";
import { formatChange, formatPrice } from "../lib/format.ts";
import { Icon } from "./Icon.tsx";
import { PairDrawer } from "./PairDrawer.tsx";
import { EmptyState, ErrorState, PageSpinner } from "./States.tsx";
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

/** What a trade screen's pair hook gives: the pairs, the one shown, and how to pick another. */
interface PairChoice<P extends Quotation> {
  pairs: P[] | null | undefined;
  pair: P | null | undefined;
  error: { message: string } | null | undefined;
  reload: () => void;
  choose: (row: P) => void;
}

/**
 * A trade screen's pair: loading, failed and empty states until the pairs are known, then the
 * screen for the current pair (`children`, given the pair and how to open the picker) and the pair
 * drawer.
 */
export function PairScreen<P extends Quotation>({ choice, look, children }: { choice: PairChoice<P>; look?: "trade"; children: (pair: P, openPairs: () => void, pairs: P[]) => ReactNode }) {
  const { pairs, pair, error, reload, choose } = choice;
  const [drawerOpen, setDrawerOpen] = useState(false);
  const closeDrawer = useCallback(() => setDrawerOpen(false), []);
  if (!pairs) return error ? <ErrorState message={error.message} onRetry={reload} /> : <PageSpinner />;
  if (pairs.length === 0) return <EmptyState />;
  if (!pair) return <PageSpinner />;
  return (
    <>
      {children(pair, () => setDrawerOpen(true), pairs)}
      <PairDrawer
        look={look}
        open={drawerOpen}
        pairs={pairs}
        currentId={pair.id}
        onClose={closeDrawer}
        onPick={(row) => {
          choose(row as P);
          setDrawerOpen(false);
        }}
      />
    </>
  );
}
