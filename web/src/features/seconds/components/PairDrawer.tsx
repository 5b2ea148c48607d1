/** The drawer of all quoted pairs (spec §2 /trade): symbol, last price and change %; a tap switches pair. */
import { useEffect, useRef } from "react";
import { m } from "../../../i18n/index.ts";
import { formatChange, formatPrice, trendOf } from "../../../lib/format.ts";
import { CoinAvatar } from "../../../components/CoinAvatar.tsx";
import { Icon } from "../../../components/Icon.tsx";
import { EmptyState } from "../../../components/States.tsx";
import type { PairRow } from "../api.ts";
import d from "../../../components/drawer.module.css";
import s from "./seconds.module.css";

export function PairDrawer({ open, pairs, currentId, onPick, onClose }: { open: boolean; pairs: PairRow[]; currentId: number; onPick: (row: PairRow) => void; onClose: () => void }) {
  const panel = useRef<HTMLElement>(null);
  useEffect(() => {
    if (!open) return;
    panel.current?.focus();
    const onKey = (e: KeyboardEvent) => e.key === "Escape" && onClose();
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [open, onClose]);

  return (
    <div className={`${d.drawerRoot} ${open ? d.open : ""}`} aria-hidden={!open}>
      <div className={d.drawerBackdrop} onClick={onClose} />
      <aside className={d.drawer} ref={panel} tabIndex={-1} role="dialog" aria-modal="true" aria-label={m.spot_pairs_title()} inert={!open} data-testid="pair-drawer">
        <div className={d.drawerHead}>
          <h2 className={s.drawerTitle}>{m.spot_pairs_title()}</h2>
          <button type="button" className="icon-btn" onClick={onClose} aria-label={m.close()}>
            <Icon name="close" />
          </button>
        </div>
        <div className={`${s.drawerCols} muted`}>
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
                <button type="button" className={`${s.drawerRow} ${p.id === currentId ? s.current : ""}`} onClick={() => onPick(p)} aria-current={p.id === currentId} data-testid="pair-row">
                  <span className={s.drawerSym}>
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
