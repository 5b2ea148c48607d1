/**
 * The bottom order dialog of the chart page (spec §2 Kline page, §4 spot dialog): the same order
 * form as /exchange for the pair on the chart, opened on the side the user tapped. It follows the
 * pair's book for its prices and closes once an order has been accepted. The app composes it into
 * the chart page (features never import each other).
 */
import { useEffect, useMemo, useRef, useState } from "react";
import { m } from "../../../i18n/index.ts";
import { Icon } from "../../../components/Icon.tsx";
import { ErrorState, PageSpinner } from "../../../components/States.tsx";
import { bestPrices, useBook } from "../../../lib/market/index.ts";
import type { PairRow, Side } from "../api.ts";
import { useAccount, useCurrentPair } from "../hooks.ts";
import { OrderForm } from "./OrderForm.tsx";
import s from "./spot.module.css";

export interface OrderSheetProps {
  side: Side;
  onClose: () => void;
}

export default function OrderSheet({ side, onClose }: OrderSheetProps) {
  const { pair, pairs, error, reload } = useCurrentPair();
  const panel = useRef<HTMLDivElement>(null);
  const [current, setCurrent] = useState<Side>(side);

  useEffect(() => {
    panel.current?.focus();
    const onKey = (e: KeyboardEvent) => e.key === "Escape" && onClose();
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [onClose]);

  return (
    <div className={s.sheetBackdrop} onClick={onClose}>
      <div
        className={s.sheet}
        role="dialog"
        aria-modal="true"
        aria-labelledby="order-sheet-title"
        tabIndex={-1}
        ref={panel}
        onClick={(e) => e.stopPropagation()}
        data-testid="order-sheet"
      >
        <div className={s.sheetHead}>
          <h2 id="order-sheet-title" className={current === "buy" ? "up" : "down"}>
            {current === "buy" ? m.spot_buy() : m.spot_sell()} {pair ? `${pair.currency_name}/${pair.legal_name}` : ""}
          </h2>
          <button type="button" className="icon-btn" onClick={onClose} aria-label={m.close()} data-testid="order-sheet-close">
            <Icon name="close" />
          </button>
        </div>
        {pair ? (
          <SheetForm key={pair.id} pair={pair} side={side} onSide={setCurrent} onDone={onClose} />
        ) : !pairs && error ? (
          <ErrorState message={error.message} onRetry={reload} />
        ) : (
          <PageSpinner />
        )}
      </div>
    </div>
  );
}

function SheetForm({ pair, side, onSide, onDone }: { pair: PairRow; side: Side; onSide: (s: Side) => void; onDone: () => void }) {
  const { book } = useBook(pair);
  const account = useAccount(pair);
  const { bestBid, bestAsk } = useMemo(() => bestPrices(book), [book]);
  return (
    <div className={s.sheetBody}>
      <OrderForm
        pair={pair}
        balance={account.balance}
        bestBid={bestBid}
        bestAsk={bestAsk}
        initialSide={side}
        onSideChange={onSide}
        testIdPrefix="sheet"
        onSent={(order) => {
          if (order) onDone();
          else account.refreshSettled();
        }}
      />
    </div>
  );
}
