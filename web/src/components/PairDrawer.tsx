/**
 * The drawer of all quoted pairs (spec §2 /exchange and /trade): symbol, last price and change %;
 * a tap switches pair. The spot and seconds screens each pass their own list and pick handler.
 */
import type { Quotation } from "../../../schemas/content.ts";
import { m } from "../i18n/index.ts";
import { formatChange, formatPrice, trendOf } from "../lib/format.ts";
import { CoinAvatar } from "./CoinAvatar.tsx";
import { Icon } from "./Icon.tsx";
import { EmptyState } from "./States.tsx";
import { useDrawerPanel } from "./useDrawerPanel.ts";
import d from "./drawer.module.css";
import s from "./PairDrawer.module.css";

export function PairDrawer({
  open,
  pairs,
  currentId,
  onPick,
  onClose,
  look = "exchange",
}: {
  open: boolean;
  pairs: Quotation[];
  currentId: number | null;
  onPick: (row: Quotation) => void;
  onClose: () => void;
  /** "trade": the seconds screen's drawer keeps the look it was first drawn with (see PairDrawer.module.css). */
  look?: "exchange" | "trade";
}) {
  const panel = useDrawerPanel(open, onClose);

  return (
    <div className={`${d.drawerRoot} ${open ? d.open : ""}`} aria-hidden={!open}>
      <div className={d.drawerBackdrop} onClick={onClose} />
      <aside className={`${d.drawer} ${look === "trade" ? s.trade : ""}`} ref={panel} tabIndex={-1} role="dialog" aria-modal="true" aria-label={m.spot_pairs_title()} inert={!open} data-testid="pair-drawer">
        <div className={d.drawerHead}>
          <h2 className={s.title}>{m.spot_pairs_title()}</h2>
          <button type="button" className="icon-btn" onClick={onClose} aria-label={m.close()}>
            <Icon name="close" />
          </button>
        </div>
        <div className={`${s.cols} muted`}>
          <span>{m.spot_pairs_col_pair()}</span>
          <span>{m.spot_pairs_col_price()}</span>
          <span>{m.spot_pairs_col_change()}</span>
        </div>
        {pairs.length === 0 ? (
          <EmptyState />
        ) : (
          <ul>
            {pairs.map((p) => (
              <li key={p.id}>
                <button type="button" className={`${s.row} ${p.id === currentId ? s.current : ""}`} onClick={() => onPick(p)} aria-current={p.id === currentId} data-testid="pair-row">
                  <span className={s.sym}>
                    <CoinAvatar symbol={p.currency_name} logo={p.logo ?? null} size={22} />
                    <span>
                      {p.currency_name}
                      <span className="muted">/{p.legal_name}</span>
                    </span>
                  </span>
                  <span className="num">{formatPrice(p.now_price)}</span>
                  <span className={`num ${trendOf(p.change)}`}>{formatChange(p.change)}</span>
                </button>
              </li>
            ))}
          </ul>
        )}
      </aside>
    </div>
  );
}
