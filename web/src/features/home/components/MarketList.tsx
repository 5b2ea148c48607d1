/** The home market list: pair, last price (never cut), 24 h volume in K with its unit, change %; five rows until "view more". */
import { useState } from "react";
import { m } from "../../../i18n/index.ts";
import { formatChange, formatCompact, formatPrice, trendOf } from "../../../lib/format.ts";
import type { QuotationRow } from "../../../lib/market.ts";
import { CoinAvatar } from "../../../components/CoinAvatar.tsx";
import { EmptyState } from "../../../components/States.tsx";
import { Icon } from "../../../components/Icon.tsx";
import s from "./home.module.css";

const COLLAPSED_ROWS = 5;

export function MarketList({ rows, onOpen }: { rows: QuotationRow[]; onOpen: (row: QuotationRow) => void }) {
  const [expanded, setExpanded] = useState(false);
  const visible = expanded ? rows : rows.slice(0, COLLAPSED_ROWS);

  return (
    <section className={`card ${s.market}`}>
      <h2 className="section-title">{m.home_markets()}</h2>
      {rows.length === 0 ? (
        <EmptyState />
      ) : (
        <>
          <div className={s.marketHead}>
            <span>{m.col_pair_volume()}</span>
            <span className="right">{m.col_last_price()}</span>
            <span className="right">{m.col_change()}</span>
          </div>
          <ul className="market-rows">
            {visible.map((r) => {
              const trend = trendOf(r.change);
              return (
                <li key={r.id}>
                  <button type="button" className={s.marketRow} onClick={() => onOpen(r)} data-testid="market-row">
                    <span className={s.marketPair}>
                      <CoinAvatar symbol={r.currency_name} logo={r.logo ?? null} size={26} />
                      <span>
                        <span className={s.marketSym}>
                          {r.currency_name}
                          <span className="muted">/{r.legal_name}</span>
                        </span>
                        <span className={`${s.marketVol} num`} data-testid="market-volume">
                          {m.vol_short()} {formatCompact(r.quote_volume)} {r.legal_name}
                        </span>
                      </span>
                    </span>
                    <span className={`${s.marketPrice} num right`} data-testid="market-price">{formatPrice(r.now_price)}</span>
                    <span className="right">
                      <span className={`change-pill num ${trend}`}>{formatChange(r.change)}</span>
                    </span>
                  </button>
                </li>
              );
            })}
          </ul>
          {rows.length > COLLAPSED_ROWS && (
            <button type="button" className={s.viewMore} onClick={() => setExpanded((v) => !v)} aria-expanded={expanded}>
              {expanded ? m.view_less() : m.view_more()}
              <Icon name="chevronDown" size={16} style={{ transform: expanded ? "rotate(180deg)" : undefined }} />
            </button>
          )}
        </>
      )}
    </section>
  );
}
