/**
 * Quotations (spec §2): logo, last price (never cut: the pair column gives way), 24 h volume in
 * the quote currency with its unit, change % (green up, red down);
 * a tap opens the chart. Refreshed every 10 s; prices are exactly what the API reports.
 */
import { useState } from "react";
import { useNavigate } from "react-router";
import { m } from "../../../i18n/index.ts";
import { formatChange, formatCompact, formatPrice, trendOf } from "../../../lib/format.ts";
import { selectCurrency, type QuotationRow } from "../../../lib/market.ts";
import { CoinAvatar } from "../../../components/CoinAvatar.tsx";
import { EmptyState, ErrorState, SkeletonList } from "../../../components/States.tsx";
import { useQuotations } from "../api.ts";
import s from "./QuotationsPage.module.css";

export default function QuotationsPage() {
  const navigate = useNavigate();
  const { data, error, loading, reload } = useQuotations();
  const [groupId, setGroupId] = useState<number | null>(null);

  const note = <p className={`${s.quoteNote} muted`}>{m.quotes_note()}</p>;
  // The note shows while the rows load too, where index.html's shell drew it (web/shell.ts).
  if (loading && !data)
    return (
      <div className="quotes">
        <SkeletonList rows={8} avatar />
        {note}
      </div>
    );
  if (error && !data) return <ErrorState message={error.message} onRetry={reload} />;
  const groups = Array.isArray(data) ? data : [];
  const group = groups.find((g) => g.id === groupId) ?? groups[0];
  const rows = group?.quotation ?? [];

  const open = (row: QuotationRow) => {
    selectCurrency(row);
    navigate("/kline");
  };

  return (
    <div className="quotes" data-testid="quotations">
      {groups.length > 1 && (
        <div className="segmented" role="tablist">
          {groups.map((g) => (
            <button
              type="button"
              role="tab"
              key={g.id}
              aria-selected={g.id === group?.id}
              className={g.id === group?.id ? "active" : ""}
              onClick={() => setGroupId(g.id)}
            >
              {g.name}
            </button>
          ))}
        </div>
      )}
      {rows.length === 0 ? (
        <EmptyState />
      ) : (
        <table className={s.quoteTable}>
          <thead>
            <tr>
              <th scope="col">{m.col_pair_volume()}</th>
              <th scope="col" className="right">
                {m.col_last_price()}
              </th>
              <th scope="col" className="right">
                {m.col_change()}
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => {
              const trend = trendOf(r.change);
              return (
                <tr key={r.id} onClick={() => open(r)} data-testid="quote-row">
                  <td>
                    <button type="button" className={s.quotePair} onClick={(e) => { e.stopPropagation(); open(r); }}>
                      <CoinAvatar symbol={r.currency_name} logo={r.logo ?? null} size={30} />
                      <span>
                        <span className={s.quoteSym}>
                          {r.currency_name}
                          <span className="muted">/{r.legal_name}</span>
                        </span>
                        <span className={`${s.quoteVol} num`} data-testid="quote-volume">
                          {m.vol_24h()} {formatCompact(r.quote_volume)} {r.legal_name}
                        </span>
                      </span>
                    </button>
                  </td>
                  <td className={`right num ${s.quotePrice}`} data-testid="quote-price">{formatPrice(r.now_price)}</td>
                  <td className="right">
                    <span className={`change-pill num ${trend}`}>{formatChange(r.change)}</span>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      {note}
    </div>
  );
}
