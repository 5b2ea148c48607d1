/**
 * Seconds-contract trade (spec §2 /trade): the selected pair with its index price and change, the
 * drawer of all pairs, the chart link (/kline?from=trade&mode=seconds), the contract form beside
 * the six-level book, and the running contracts with countdown and live result; tapping one opens
 * its modal. The book and prices come from the shared market store (the pair's one socket); the
 * result of every contract is computed by the server from its public entry and exit ticks.
 */
import { useState } from "react";
import { m } from "../../../i18n/index.ts";
import { formatPrice, trendOf } from "../../../lib/format.ts";
import { useProducts } from "../../../lib/products.ts";
import { useBook } from "../../../lib/market/index.ts";
import { useSocketStatus } from "../../../lib/realtime.ts";
import { useUserEvent } from "../../../lib/userChannel.ts";
import { PageSpinner } from "../../../components/States.tsx";
import { PairScreen, TradeHead, TradePrice } from "../../../components/TradeHead.tsx";
import { ProductSwitch } from "../../../components/ProductSwitch.tsx";
import { LoginCta } from "../../../components/LoginCta.tsx";
import { useLoggedIn } from "../../../lib/session.ts";
import type { PairRow, SecondsOrder } from "../api.ts";
import { useCurrentPair, useIndexPrice, useRunningOrders } from "../hooks.ts";
import { Book } from "./Book.tsx";
import { ContractForm } from "./ContractForm.tsx";
import { NotOpen } from "./NotOpen.tsx";
import { OrderModal } from "./OrderModal.tsx";
import { RunningOrders } from "./RunningOrders.tsx";
import s from "./seconds.module.css";

export default function TradePage() {
  const products = useProducts();
  if (!products) return <PageSpinner />;
  if (!products.seconds) return <NotOpen />;
  return <Trade />;
}

function Trade() {
  return (
    <PairScreen choice={useCurrentPair()} look="trade">
      {(pair, openPairs, pairs) => <TradeScreen key={pair.id} pair={pair} pairs={pairs} onOpenPairs={openPairs} />}
    </PairScreen>
  );
}

function TradeScreen({ pair, pairs, onOpenPairs }: { pair: PairRow; pairs: PairRow[]; onOpenPairs: () => void }) {
  const { book, failed } = useBook(pair);
  const { index, last, change } = useIndexPrice(pair);
  const running = useRunningOrders();
  // Open to guests (issue #26): the market and the contract terms are public; contracts are the user's own.
  const loggedIn = useLoggedIn();
  const status = useSocketStatus(pair.id, running.reload);
  // The owner's private channel: a settled contract replaces the running one at once; after a
  // reconnect (events sent meanwhile are lost) the list is fetched again.
  useUserEvent("closed_microorder", (e) => running.onClosedEvent(e.data), running.reload);
  // The tapped contract; the modal follows its latest record, and keeps the last one it had if the list lets it go.
  const [tapped, setTapped] = useState<SecondsOrder | null>(null);
  const trend = trendOf(change);
  const coin = pair.currency_name;
  const quote = pair.legal_name || "USDT";
  const opened: SecondsOrder | null = tapped === null ? null : (running.find(tapped.id) ?? tapped);

  return (
    <div className={s.trade} data-testid="trade">
      <div className={s.products}>
        <ProductSwitch />
      </div>
      <TradeHead coin={coin} quote={quote} change={change} trend={trend} status={status} onOpenPairs={onOpenPairs} chartTo="/kline?from=trade&mode=seconds" historyTo="/trade/lists" historyLabel={m.sec_history()} />
      <TradePrice price={index} trend={trend} testId="index-price">
        <span className={`${s.priceNote} muted`}>
          {m.sec_index_label()} · {m.sec_last_label()} <span className="num">{formatPrice(last)}</span>
        </span>
      </TradePrice>

      <div className={s.main}>
        <ContractForm pair={pair} index={index} onPlaced={running.add} />
        <Book book={book} failed={failed} index={index} coin={coin} quote={quote} />
      </div>

      {!loggedIn ? (
        <LoginCta text={m.login_to_see_contracts()} testId="running-login" />
      ) : (
        <RunningOrders orders={running.view} pairs={pairs} serverNow={running.serverNow} error={running.error} loading={running.loading} onRetry={running.reload} onOpen={(id) => setTapped(running.view.find((o) => o.id === id) ?? null)} onDismiss={running.dismiss} />
      )}

      {opened && <OrderModal order={opened} pairs={pairs} serverNow={running.serverNow} onClose={() => setTapped(null)} />}
    </div>
  );
}
