/**
 * The bottom order dialog of the chart page (spec §2 Kline page, §4 spot dialog): the same order
 * form as /exchange for the pair on the chart, opened on the side the user tapped. It follows the
 * pair's book for its prices and closes once an order has been accepted. The app composes it into
 * the chart page (features never import each other).
 */
import { useMemo, useState } from "react";
import { m } from "../../../i18n/index.ts";
import { BottomSheet, SheetBody } from "../../../components/BottomSheet.tsx";
import { ErrorState, PageSpinner } from "../../../components/States.tsx";
import { bestPrices, useBook } from "../../../lib/market/index.ts";
import type { PairRow, Side } from "../api.ts";
import { useAccount, useCurrentPair } from "../hooks.ts";
import { OrderForm } from "./OrderForm.tsx";

export interface OrderSheetProps {
  side: Side;
  onClose: () => void;
}

export default function OrderSheet({ side, onClose }: OrderSheetProps) {
  const { pair, pairs, error, reload } = useCurrentPair();
  const [current, setCurrent] = useState<Side>(side);

  return (
    <BottomSheet
      title={`${current === "buy" ? m.spot_buy() : m.spot_sell()} ${pair ? `${pair.currency_name}/${pair.legal_name}` : ""}`}
      titleClass={current === "buy" ? "up" : "down"}
      titleId="order-sheet-title"
      testId="order-sheet"
      closeTestId="order-sheet-close"
      onClose={onClose}
    >
      {pair ? (
        <SheetForm key={pair.id} pair={pair} side={side} onSide={setCurrent} onDone={onClose} />
      ) : !pairs && error ? (
        <ErrorState message={error.message} onRetry={reload} />
      ) : (
        <PageSpinner />
      )}
    </BottomSheet>
  );
}

function SheetForm({ pair, side, onSide, onDone }: { pair: PairRow; side: Side; onSide: (s: Side) => void; onDone: () => void }) {
  const { book } = useBook(pair);
  const account = useAccount(pair);
  const { bestBid, bestAsk } = useMemo(() => bestPrices(book), [book]);
  return (
    <SheetBody>
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
    </SheetBody>
  );
}
