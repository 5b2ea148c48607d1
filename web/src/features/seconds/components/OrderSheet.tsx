/**
 * The bottom contract dialog of the chart page in trade mode (/kline?from=trade, spec §2 Kline
 * page: buy and sell become up and down): the same contract form as /trade for the pair on the
 * chart, opened on the direction the user tapped; it closes once a contract has been accepted.
 * The app composes it into the chart page (features never import each other).
 */
import { useEffect, useRef, useState } from "react";
import { m } from "../../../i18n/index.ts";
import { useProducts } from "../../../lib/products.ts";
import { Icon } from "../../../components/Icon.tsx";
import { ErrorState, PageSpinner } from "../../../components/States.tsx";
import { useCurrentPair, useIndexPrice } from "../hooks.ts";
import { ContractForm, type Direction } from "./ContractForm.tsx";
import { NotOpen } from "./NotOpen.tsx";
import type { PairRow } from "../api.ts";
import s from "./seconds.module.css";

export default function OrderSheet({ side, onClose }: { side: "buy" | "sell"; onClose: () => void }) {
  const products = useProducts();
  const { pair, pairs, error, reload } = useCurrentPair();
  const panel = useRef<HTMLDivElement>(null);
  const [direction, setDirection] = useState<Direction>(side === "buy" ? 1 : 2);

  useEffect(() => {
    panel.current?.focus();
    const onKey = (e: KeyboardEvent) => e.key === "Escape" && onClose();
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [onClose]);

  return (
    <div className={s.sheetBackdrop} onClick={onClose}>
      <div className={s.sheet} role="dialog" aria-modal="true" aria-labelledby="contract-sheet-title" tabIndex={-1} ref={panel} onClick={(e) => e.stopPropagation()} data-testid="contract-sheet">
        <div className={s.sheetHead}>
          <h2 id="contract-sheet-title" className={direction === 1 ? "up" : "down"}>
            {direction === 1 ? m.sec_up() : m.sec_down()} {pair ? `${pair.currency_name}/${pair.legal_name}` : ""}
          </h2>
          <button type="button" className="icon-btn" onClick={onClose} aria-label={m.close()}>
            <Icon name="close" />
          </button>
        </div>
        {products && !products.seconds ? (
          <NotOpen />
        ) : pair ? (
          <SheetForm key={pair.id} pair={pair} direction={side === "buy" ? 1 : 2} onDirection={setDirection} onDone={onClose} />
        ) : !pairs && error ? (
          <ErrorState message={error.message} onRetry={reload} />
        ) : (
          <PageSpinner />
        )}
      </div>
    </div>
  );
}

function SheetForm({ pair, direction, onDirection, onDone }: { pair: PairRow; direction: Direction; onDirection: (d: Direction) => void; onDone: () => void }) {
  const { index } = useIndexPrice(pair);
  return (
    <div className={s.sheetBody}>
      <ContractForm pair={pair} index={index} initialDirection={direction} onDirection={onDirection} onPlaced={onDone} testIdPrefix="sheet" />
    </div>
  );
}
