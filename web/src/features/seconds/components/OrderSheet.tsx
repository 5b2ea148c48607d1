/**
 * The bottom contract dialog of the chart page in trade mode (/kline?from=trade, spec §2 Kline
 * page: buy and sell become up and down): the same contract form as /trade for the pair on the
 * chart, opened on the direction the user tapped; it closes once a contract has been accepted.
 * The app composes it into the chart page (features never import each other).
 */
import { useState } from "react";
import { m } from "../../../i18n/index.ts";
import { useProducts } from "../../../lib/products.ts";
import { BottomSheet, SheetBody } from "../../../components/BottomSheet.tsx";
import { ErrorState, PageSpinner } from "../../../components/States.tsx";
import { useCurrentPair, useIndexPrice } from "../hooks.ts";
import { ContractForm, type Direction } from "./ContractForm.tsx";
import { NotOpen } from "./NotOpen.tsx";
import type { PairRow } from "../api.ts";

export default function OrderSheet({ side, onClose }: { side: "buy" | "sell"; onClose: () => void }) {
  const products = useProducts();
  const { pair, pairs, error, reload } = useCurrentPair();
  const [direction, setDirection] = useState<Direction>(side === "buy" ? 1 : 2);

  return (
    <BottomSheet
      title={`${direction === 1 ? m.sec_up() : m.sec_down()} ${pair ? `${pair.currency_name}/${pair.legal_name}` : ""}`}
      titleClass={direction === 1 ? "up" : "down"}
      titleId="contract-sheet-title"
      testId="contract-sheet"
      onClose={onClose}
    >
      {products && !products.seconds ? (
        <NotOpen />
      ) : pair ? (
        <SheetForm key={pair.id} pair={pair} direction={side === "buy" ? 1 : 2} onDirection={setDirection} onDone={onClose} />
      ) : !pairs && error ? (
        <ErrorState message={error.message} onRetry={reload} />
      ) : (
        <PageSpinner />
      )}
    </BottomSheet>
  );
}

function SheetForm({ pair, direction, onDirection, onDone }: { pair: PairRow; direction: Direction; onDirection: (d: Direction) => void; onDone: () => void }) {
  const { index } = useIndexPrice(pair);
  return (
    <SheetBody>
      <ContractForm pair={pair} index={index} initialDirection={direction} onDirection={onDirection} onPlaced={onDone} testIdPrefix="sheet" />
    </SheetBody>
  );
}
