/**
 * Quotations (spec §2): logo, last price (never cut: the pair column gives way), 24 h volume in
 * the quote currency with its unit, change % (green up, red down);
 * a tap opens the chart. Refreshed every 10 s; prices are exactly what the API reports.
 * Issue #30: a signed-in user stars pairs (the favourites tab comes first when it has any; a guest
 * sees no stars and no such tab), searches by coin symbol or name, and sorts by price, change or
 * 24 h volume (a tap sorts high to low, a second low to high, a third returns to the listed order).
 */
import { useState } from "react";
import { useNavigate } from "react-router";
import { m } from "../../../i18n/index.ts";
import { compareDecimal } from "../../../lib/amount.ts";
import { formatChange, formatCompact, formatPrice, trendOf } from "../../../lib/format.ts";
import { selectCurrency, type QuotationRow } from "../../../lib/market.ts";
import { useLoggedIn } from "../../../lib/session.ts";
import { CoinAvatar } from "../../../components/CoinAvatar.tsx";
import { Icon } from "../../../components/Icon.tsx";
import { EmptyState, ErrorState, SkeletonList } from "../../../components/States.tsx";
import { useFavourites, useQuotations, useSetFavourite } from "../api.ts";
import { coinMatches } from "../coins.ts";
import s from "./QuotationsPage.module.css";

type SortKey = "price" | "change" | "volume";
type Sort = { key: SortKey; dir: 1 | -1 } | null;
const FAV_TAB = -1;

const sortValue = (r: QuotationRow, key: SortKey) => (key === "price" ? r.now_price : key === "change" ? r.change : r.quote_volume);

function sorted(rows: QuotationRow[], sort: Sort): QuotationRow[] {
  if (!sort) return rows;
  return [...rows].sort((a, b) => (compareDecimal(sortValue(b, sort.key), sortValue(a, sort.key)) ?? 0) * (sort.dir === 1 ? 1 : -1));
}

export default function QuotationsPage() {
  const navigate = useNavigate();
  const { data, error, loading, reload } = useQuotations();
  const loggedIn = useLoggedIn();
  const favourites = useFavourites(loggedIn);
  const setFavourite = useSetFavourite();
  const [tabId, setTabId] = useState<number | null>(null);
  const [query, setQuery] = useState("");
  const [sort, setSort] = useState<Sort>(null);

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
  const favIds = favourites ?? [];
  const hasFavs = favIds.length > 0;
  // The favourites tab first, and chosen, when it has any; otherwise the first group.
  const tab = tabId === FAV_TAB && hasFavs ? FAV_TAB : (groups.find((g) => g.id === tabId)?.id ?? (hasFavs ? FAV_TAB : groups[0]?.id));
  const all = groups.flatMap((g) => g.quotation);
  const base = tab === FAV_TAB ? favIds.flatMap((id) => all.filter((r) => r.id === id)) : (groups.find((g) => g.id === tab)?.quotation ?? []);
  const rows = sorted(base.filter((r) => coinMatches(r.currency_name, query)), sort);
  const tabs = [...(hasFavs ? [{ id: FAV_TAB, name: m.quotes_tab_favourites() }] : []), ...groups.map((g) => ({ id: g.id, name: groups.length > 1 ? g.name : m.quotes_tab_all() }))];

  const open = (row: QuotationRow) => {
    selectCurrency(row);
    navigate("/kline");
  };
  const toggleSort = (key: SortKey) => setSort((cur) => (cur?.key !== key ? { key, dir: 1 } : cur.dir === 1 ? { key, dir: -1 } : null));
  const sortChip = (key: SortKey, label: string) => {
    const on = sort?.key === key;
    return (
      <button type="button" className={`${s.sortChip} ${on ? s.sortOn : ""}`} aria-pressed={on} onClick={() => toggleSort(key)} data-testid={`sort-${key}`}>
        {label}
        <span aria-hidden="true" className={s.sortArrow}>
          {on ? (sort.dir === 1 ? "↓" : "↑") : "↕"}
        </span>
      </button>
    );
  };

  return (
    <div className="quotes" data-testid="quotations">
      {tabs.length > 1 && (
        <div className="segmented" role="tablist">
          {tabs.map((g) => (
            <button type="button" role="tab" key={g.id} aria-selected={g.id === tab} className={g.id === tab ? "active" : ""} onClick={() => setTabId(g.id)} data-testid={g.id === FAV_TAB ? "tab-favourites" : "tab-group"}>
              {g.name}
            </button>
          ))}
        </div>
      )}
      <div className={s.tools}>
        <label className={s.search}>
          <Icon name="search" size={18} />
          <input type="search" value={query} onChange={(e) => setQuery(e.target.value)} placeholder={m.quotes_search()} aria-label={m.quotes_search()} maxLength={20} data-testid="quote-search" />
        </label>
        <div className={s.sorts} role="group" aria-label={m.quotes_sort_label()}>
          {sortChip("price", m.quotes_sort_price())}
          {sortChip("change", m.quotes_sort_change())}
          {sortChip("volume", m.quotes_sort_volume())}
        </div>
      </div>
      {rows.length === 0 ? (
        <EmptyState text={query.trim() ? m.quotes_no_match({ query: query.trim() }) : undefined} />
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
              const starred = favIds.includes(r.id);
              return (
                <tr key={r.id} onClick={() => open(r)} data-testid="quote-row" data-coin={r.currency_name}>
                  <td>
                    <span className={s.quoteCell}>
                      {loggedIn && (
                        <button
                          type="button"
                          className={`${s.star} ${starred ? s.starOn : ""}`}
                          aria-pressed={starred}
                          aria-label={starred ? m.quotes_unstar({ coin: r.currency_name }) : m.quotes_star({ coin: r.currency_name })}
                          onClick={(e) => {
                            e.stopPropagation();
                            void setFavourite(r.id, !starred).catch(() => undefined);
                          }}
                          data-testid="quote-star"
                        >
                          <Icon name="star" size={18} fill={starred ? "currentColor" : "none"} />
                        </button>
                      )}
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
                    </span>
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
      {tab === FAV_TAB && !hasFavs && <p className="muted">{m.quotes_no_favourites()}</p>}
      {note}
    </div>
  );
}
