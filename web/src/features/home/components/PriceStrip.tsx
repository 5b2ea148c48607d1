/** BTC, DOGE and ETH at a glance (spec §9). Only prices the API returned; "--" before any trade. */
import { formatChange, formatPrice, trendOf } from "../../../lib/format.ts";
import type { QuotationRow } from "../../../lib/market.ts";
import s from "./home.module.css";

const STRIP = ["BTC", "DOGE", "ETH"];

export function PriceStrip({ rows, onOpen }: { rows: QuotationRow[]; onOpen: (row: QuotationRow) => void }) {
  const picked = STRIP.map((sym) => rows.find((r) => r.currency_name.toUpperCase() === sym)).filter(
    (r): r is QuotationRow => r !== undefined,
  );
  if (picked.length === 0) return null;
  return (
    <section className={s.strip}>
      {picked.map((r) => {
        const trend = trendOf(r.change);
        return (
          <button type="button" key={r.id} className={s.stripCell} onClick={() => onOpen(r)}>
            <span className={s.stripPair}>
              {r.currency_name}
              <span className="muted">/{r.legal_name}</span>
            </span>
            <span className={`${s.stripPrice} num ${trend}`}>{formatPrice(r.now_price)}</span>
            <span className={`${s.stripChange} num ${trend}`}>{formatChange(r.change)}</span>
          </button>
        );
      })}
    </section>
  );
}
