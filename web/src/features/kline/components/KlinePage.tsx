/**
 * The chart page (spec §2 Kline page), titled "{currency}/USDT" for the pair last tapped on home
 * or quotations: last price, change %, 24 h high, low and volume; the candlestick chart with
 * intervals realtime, 1/5/15/30/60 min, day, week, month and MA lines; the newest 20 deals; and
 * buy and sell buttons that open the order dialog the app plugs in (logged-out users go to
 * /login first). Everything shown comes from real trades and follows the pair's socket.
 */
import { Suspense, lazy, useCallback, useEffect, useState, type ComponentType } from "react";
import { Link, useNavigate } from "react-router";
import type { Deal } from "../../../../../schemas/realtime.ts";
import { m } from "../../../i18n/index.ts";
import { formatChange, formatCompact, formatPrice, formatUpTo, isZeroDecimal, trendOf, formatClock, timeHeading } from "../../../lib/format.ts";
import { selectCurrency } from "../../../lib/market.ts";
import { useBook, useDeals, useTicker } from "../../../lib/market/index.ts";
import { useSession } from "../../../lib/session.ts";
import { EmptyState, ErrorState, PageSpinner, SkeletonList } from "../../../components/States.tsx";
import { ApiFailure } from "../../../lib/api.ts";
import { fetchChartPairs, type ChartPair } from "../api.ts";
import { INTERVALS, type Interval } from "../chartData.ts";
import { PriceChart } from "./PriceChart.tsx";
import { OrderBook } from "./OrderBook.tsx";
import { Icon } from "../../../components/Icon.tsx";

/** The depth chart is drawn only when its tab is opened: it adds nothing to the page's first load. */
const DepthChart = lazy(() => import("./DepthChart.tsx"));
import s from "./kline.module.css";

/** The order dialog a trading feature provides for this page (spot: buy/sell). */
export type OrderSheetComponent = ComponentType<{ side: "buy" | "sell"; onClose: () => void }>;

function intervalLabel(i: Interval): string {
  switch (i) {
    case "realtime":
      return m.kline_period_realtime();
    case "1min":
      return m.kline_period_1min();
    case "5min":
      return m.kline_period_5min();
    case "15min":
      return m.kline_period_15min();
    case "30min":
      return m.kline_period_30min();
    case "60min":
      return m.kline_period_60min();
    case "1day":
      return m.kline_period_1day();
    case "1week":
      return m.kline_period_1week();
    case "1mon":
      return m.kline_period_1mon();
  }
}

/**
 * `trade`: opened from the seconds-contract screen (/kline?from=trade): the buttons read up and
 * down and open the contract dialog on that direction ("buy" = up, "sell" = down).
 */
export default function KlinePage({ OrderSheet, trade = false }: { OrderSheet?: OrderSheetComponent; trade?: boolean }) {
  const session = useSession();
  const currencyId = Number(session.currentCurrencyID) || 1;
  const [pairs, setPairs] = useState<ChartPair[] | null>(null);
  const [error, setError] = useState<ApiFailure | null>(null);
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    const controller = new AbortController();
    setError(null);
    fetchChartPairs(controller.signal)
      .then(setPairs)
      .catch((err: unknown) => {
        if (!controller.signal.aborted) setError(err instanceof ApiFailure ? err : new ApiFailure("error", String(err)));
      });
    return () => controller.abort();
  }, [attempt]);

  const pair = pairs?.find((p) => p.currency_id === currencyId) ?? null;
  // A remembered currency that is no longer an open pair: show the first pair instead.
  useEffect(() => {
    if (pairs && pairs.length > 0 && !pair && pairs[0]) selectCurrency(pairs[0]);
  }, [pairs, pair]);

  if (!pairs) return error ? <ErrorState message={error.message} onRetry={() => setAttempt((a) => a + 1)} /> : <PageSpinner />;
  if (pairs.length === 0) return <EmptyState />;
  if (!pair) return <PageSpinner />;
  return <KlineScreen key={pair.id} pair={pair} OrderSheet={OrderSheet} trade={trade} />;
}

function KlineScreen({ pair, OrderSheet, trade }: { pair: ChartPair; OrderSheet?: OrderSheetComponent; trade: boolean }) {
  const navigate = useNavigate();
  const session = useSession();
  const [interval, setActiveInterval] = useState<Interval>("15min");
  const day = useTicker(pair);
  const deals = useDeals(pair);
  const { book } = useBook(pair);
  const [panel, setPanel] = useState<"book" | "depth">("book");
  const [sheet, setSheet] = useState<"buy" | "sell" | null>(null);
  const coin = pair.currency_name;
  const quote = pair.legal_name || "USDT";

  const last = day ? day.close : isZeroDecimal(pair.now_price) ? null : pair.now_price;
  // No trade yet: no change to speak of ("--"), rather than a made-up 0.00 %.
  const change = last === null ? null : day ? day.change : pair.change;
  const trend = trendOf(change);

  const openSheet = useCallback(
    (side: "buy" | "sell") => {
      if (!session.token) {
        navigate(`/login?redirect=${encodeURIComponent(trade ? "/kline?from=trade&mode=seconds" : "/kline")}`);
        return;
      }
      setSheet(side);
    },
    [navigate, session.token, trade],
  );
  const closeSheet = useCallback(() => setSheet(null), []);

  return (
    <div className={s.kline} data-testid="kline">
      <section className={s.klineStats}>
        <div className={s.klineLast}>
          <span className={`${s.klinePrice} num ${trend}`} data-testid="kline-last">
            {formatPrice(last)}
          </span>
          <span className={`${s.klineChange} num ${trend}`} data-testid="kline-change">
            {formatChange(change)}
          </span>
        </div>
        <dl className={s.klineFacts}>
          <div>
            <dt>{m.kline_high()}</dt>
            <dd className="num">{formatPrice(day?.high)}</dd>
          </div>
          <div>
            <dt>{m.kline_low()}</dt>
            <dd className="num">{formatPrice(day?.low)}</dd>
          </div>
          <div>
            <dt>{m.kline_volume({ coin: quote })}</dt>
            <dd className="num" data-testid="kline-volume">{formatCompact(day ? day.quote_volume : pair.quote_volume)}</dd>
          </div>
        </dl>
      </section>

      <div className={s.klineIntervals} role="tablist" aria-label={m.kline_interval_label()}>
        {INTERVALS.map((i) => (
          <button key={i} type="button" role="tab" aria-selected={interval === i} className={interval === i ? "active" : ""} onClick={() => setActiveInterval(i)} data-testid={`interval-${i}`}>
            {intervalLabel(i)}
          </button>
        ))}
      </div>

      <PriceChart pair={pair} symbol={`${coin}/${quote}`} interval={interval} />
      <p className={`${s.klineTz} muted`}>{m.kline_timezone_note()}</p>

      <div className={s.marketTabs} role="tablist">
        <button type="button" role="tab" aria-selected={panel === "book"} className={panel === "book" ? "active" : ""} onClick={() => setPanel("book")} data-testid="panel-book">
          {m.kline_book()}
        </button>
        <button type="button" role="tab" aria-selected={panel === "depth"} className={panel === "depth" ? "active" : ""} onClick={() => setPanel("depth")} data-testid="panel-depth">
          {m.kline_depth()}
        </button>
        {!trade && (
          <Link to={session.token ? "/alerts" : `/login?redirect=${encodeURIComponent("/alerts")}`} className={s.alertLink} data-testid="kline-alert">
            <Icon name="bell" size={16} />
            {m.kline_alert()}
          </Link>
        )}
      </div>
      {panel === "book" ? (
        <OrderBook book={book} coin={coin} quote={quote} />
      ) : (
        <Suspense fallback={<SkeletonList rows={3} />}>{book ? <DepthChart book={book} coin={coin} /> : <SkeletonList rows={3} />}</Suspense>
      )}

      <section className={s.klineDeals}>
        <h2 className={s.klineSectionTitle}>{m.kline_recent_deals()}</h2>
        <DealsTable deals={deals} coin={coin} quote={quote} />
      </section>

      <div className={s.klineActions}>
        <button type="button" className={`btn ${s.klineBuy}`} onClick={() => openSheet("buy")} data-testid="kline-buy">
          {trade ? m.kline_up() : m.kline_buy()}
        </button>
        <button type="button" className={`btn ${s.klineSell}`} onClick={() => openSheet("sell")} data-testid="kline-sell">
          {trade ? m.kline_down() : m.kline_sell()}
        </button>
      </div>
      {sheet && OrderSheet && (
        <Suspense fallback={null}>
          <OrderSheet side={sheet} onClose={closeSheet} />
        </Suspense>
      )}
    </div>
  );
}

function DealsTable({ deals, coin, quote }: { deals: Deal[] | null; coin: string; quote: string }) {
  if (deals === null) return <SkeletonList rows={4} />;
  if (deals.length === 0) return <EmptyState text={m.kline_no_deals()} />;
  return (
    <table className={s.klineDealsTable} data-testid="kline-deals">
      <thead>
        <tr>
          <th scope="col">{timeHeading(m.kline_col_time())}</th>
          <th scope="col">{m.kline_col_direction()}</th>
          <th scope="col" className="right">
            {m.kline_col_price({ quote })}
          </th>
          <th scope="col" className="right">
            {m.kline_col_amount({ coin })}
          </th>
        </tr>
      </thead>
      <tbody>
        {deals.map((d, i) => (
          <tr key={`${d.time}-${i}-${d.price}`} data-testid="kline-deal">
            <td className="num muted">{formatClock(d.time)}</td>
            <td className={d.direction === "buy" ? "up" : "down"}>{d.direction === "buy" ? m.kline_dir_buy() : m.kline_dir_sell()}</td>
            <td className={`right num ${d.direction === "buy" ? "up" : "down"}`}>{formatPrice(d.price)}</td>
            <td className="right num">{formatUpTo(d.amount, 6)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
