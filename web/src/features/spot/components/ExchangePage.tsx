/**
 * Spot exchange (spec §2 /exchange): the pair header with the pair drawer, last price and change;
 * the order form beside the order book; open orders with cancel, market trades, and the user's
 * balances of both currencies. Book, last price, deals and the user's own orders follow the
 * pair's socket; balances and open orders reload after each own order event.
 */
import { useMemo, useState } from "react";
import { Link } from "react-router";
import { m } from "../../../i18n/index.ts";
import { formatCompact, formatPrice, formatMoney, isZeroDecimal, trendOf } from "../../../lib/format.ts";
import { Icon } from "../../../components/Icon.tsx";
import { ErrorState } from "../../../components/States.tsx";
import { PairScreen, TradeHead, TradePrice } from "../../../components/TradeHead.tsx";
import { LoginCta } from "../../../components/LoginCta.tsx";
import { useSession } from "../../../lib/session.ts";
import { bestPrices, useBook, useDeals, useTicker } from "../../../lib/market/index.ts";
import type { PairRow, SpotBalance } from "../api.ts";
import { useAccount, useCurrentPair, useLiveStatus } from "../hooks.ts";
import { MarketTrades } from "./MarketTrades.tsx";
import { OpenOrders } from "./OpenOrders.tsx";
import { OrderBook } from "./OrderBook.tsx";
import { OrderForm, type PricePick } from "./OrderForm.tsx";
import { ConditionalPanel } from "./ConditionalPanel.tsx";
import s from "./spot.module.css";

export default function ExchangePage() {
  return <PairScreen choice={useCurrentPair()}>{(pair, openPairs) => <ExchangeScreen key={pair.id} pair={pair} onOpenPairs={openPairs} />}</PairScreen>;
}

function ExchangeScreen({ pair, onOpenPairs }: { pair: PairRow; onOpenPairs: () => void }) {
  const { book: depth, failed } = useBook(pair);
  const day = useTicker(pair);
  const deals = useDeals(pair);
  // Open to guests (issue #26): the market is public; balances and orders are the user's own.
  const guest = useSession().token === "";
  const account = useAccount(pair, !guest);
  const status = useLiveStatus(pair, account.refresh);
  const { bestBid, bestAsk } = useMemo(() => bestPrices(depth), [depth]);
  const [pick, setPick] = useState<PricePick | null>(null);
  const [tab, setTab] = useState<"orders" | "trades">("orders");

  const coin = pair.currency_name;
  const quote = pair.legal_name || "USDT";
  // The last traded price: the day market (live), else the quotation; "--" before the first trade.
  const lastPrice = day ? day.close : isZeroDecimal(pair.now_price) ? null : pair.now_price;
  // No trade yet: no change to speak of ("--"), rather than a made-up 0.00 %.
  const change = lastPrice === null ? null : day ? day.change : pair.change;
  const trend = trendOf(change);
  const orderCount = account.orders?.length ?? 0;

  return (
    <div className={s.exchange} data-testid="exchange">
      <TradeHead coin={coin} quote={quote} change={change} trend={trend} status={status} pulse onOpenPairs={onOpenPairs} chartTo="/kline?from=exchange" historyTo="/exchange/lists" historyLabel={m.spot_history()} />
      <TradePrice price={lastPrice} trend={trend} testId="header-last">
        <span className={`${s.exStats} muted num`}>
          {m.spot_high()} {formatPrice(day?.high)} · {m.spot_low()} {formatPrice(day?.low)} · {m.vol_short()}{" "}
          <span data-testid="header-volume">{day ? formatCompact(day.quote_volume) : formatCompact(pair.quote_volume)}</span> {quote}
        </span>
      </TradePrice>

      <div className={s.exMain}>
        <OrderForm
          pair={pair}
          balance={account.balance}
          bestBid={bestBid}
          bestAsk={bestAsk}
          pick={pick}
          onSent={() => account.refreshSettled()}
        />
        <OrderBook
          depth={depth}
          failed={failed}
          lastPrice={lastPrice}
          change={change}
          coin={coin}
          quote={quote}
          onPick={(price) => setPick((p) => ({ price, nonce: (p?.nonce ?? 0) + 1 }))}
        />
      </div>

      {!guest && <ConditionalPanel pair={pair} />}

      <section className={s.exLists}>
        <div className={s.exTabs}>
          {/* Only tabs inside the tablist; the history link sits beside it. */}
          <div className={s.exTablist} role="tablist">
            <button type="button" role="tab" aria-selected={tab === "orders"} className={tab === "orders" ? "active" : ""} onClick={() => setTab("orders")} data-testid="tab-orders">
              {m.spot_open_orders()}
              {orderCount > 0 && <span className={`${s.exTabCount} num`}>{orderCount}</span>}
            </button>
            <button type="button" role="tab" aria-selected={tab === "trades"} className={tab === "trades" ? "active" : ""} onClick={() => setTab("trades")} data-testid="tab-trades">
              {m.spot_market_trades()}
            </button>
          </div>
          <Link to="/exchange/lists" className={s.exTabsMore}>
            {m.spot_history()}
            <Icon name="chevron" size={14} />
          </Link>
        </div>
        {tab === "orders" && guest ? (
          <LoginCta text={m.login_to_see_orders()} testId="orders-login" />
        ) : tab === "orders" ? (
          <OpenOrders
            orders={account.orders}
            error={account.ordersError}
            onRetry={account.refresh}
            onCancelled={(id) => {
              if (id) account.markDone(id);
              account.refreshSettled();
            }}
          />
        ) : (
          <MarketTrades deals={deals} coin={coin} quote={quote} />
        )}
      </section>

      {guest ? (
        <section className={s.exBalances} aria-label={m.spot_assets()} data-testid="balances">
          <h2 className={s.exSectionTitle}>{m.spot_assets()}</h2>
          <LoginCta text={m.login_to_see_balances()} testId="balances-login" />
        </section>
      ) : (
        <Balances balance={account.balance} coin={coin} quote={quote} error={account.balanceError !== null} onRetry={account.refresh} />
      )}
    </div>
  );
}

/** Both currencies of the pair, available and held by open orders, by the one precision rule (lib/format.ts formatMoney). */
function Balances({ balance, coin, quote, error, onRetry }: { balance: SpotBalance | null; coin: string; quote: string; error: boolean; onRetry: () => void }) {
  return (
    <section className={s.exBalances} aria-label={m.spot_assets()} data-testid="balances">
      <h2 className={s.exSectionTitle}>{m.spot_assets()}</h2>
      {!balance && error ? (
        <ErrorState onRetry={onRetry} />
      ) : (
        <table className={s.exBalanceTable}>
          <thead>
            <tr>
              <th scope="col">{m.spot_asset_col()}</th>
              <th scope="col" className="right">
                {m.spot_available()}
              </th>
              <th scope="col" className="right">
                {m.spot_in_orders()}
              </th>
            </tr>
          </thead>
          <tbody>
            <BalanceRow unit={coin} available={balance?.user_currency} held={balance?.order_currency} testId="balance-coin" />
            <BalanceRow unit={quote} available={balance?.user_legal} held={balance?.order_legal} testId="balance-legal" />
          </tbody>
        </table>
      )}
      {balance && <OtherHolds frozen={balance.lock_currency} inOrders={balance.order_currency} coin={coin} />}
      {balance && <OtherHolds frozen={balance.lock_legal} inOrders={balance.order_legal} coin={quote} />}
    </section>
  );
}

/**
 * Frozen money of the pair's coins that no spot order holds (a withdrawal, a vote, a launch...):
 * "In orders" counts orders only, so the rest is named here, with the list of what holds it.
 */
function OtherHolds({ frozen, inOrders, coin }: { frozen: string; inOrders: string; coin: string }) {
  const units = (v: string) => BigInt(v.replace(".", ""));
  // Both come from the server at the coin's own scale: their digits line up.
  const rest = units(frozen) - units(inOrders);
  if (rest <= 0n || !frozen.includes(".")) return null;
  const scale = frozen.split(".")[1]!.length;
  const text = rest.toString().padStart(scale + 1, "0");
  const amount = `${text.slice(0, -scale)}.${text.slice(-scale)}`;
  return (
    <p className="form-note" data-testid={`other-holds-${coin}`}>
      <Link to="/holds">{m.spot_other_holds({ amount: `${formatMoney(amount, coin)} ${coin}` })} ›</Link>
    </p>
  );
}

/** One currency's row of the pair's balances: available, and held by open orders ("--" until they load). */
function BalanceRow({ unit, available, held, testId }: { unit: string; available: string | undefined; held: string | undefined; testId: string }) {
  return (
    <tr>
      <th scope="row">{unit}</th>
      <td className="right num" data-testid={`${testId}-available`}>
        {available !== undefined ? formatMoney(available, unit) : "--"}
      </td>
      <td className="right num" data-testid={`${testId}-frozen`}>
        {held !== undefined ? formatMoney(held, unit) : "--"}
      </td>
    </tr>
  );
}
