/**
 * The chart page's order book (issue #30): bids and asks side by side from the pair's live book
 * (lib/market: the socket's levels), grouped by a price step the user picks (groupSteps), each row
 * with a bar for its amount against the side's largest.
 */
import { useState } from "react";
import { m } from "../../../i18n/index.ts";
import { formatPrice, formatUpTo } from "../../../lib/format.ts";
import type { Book, Level } from "../../../lib/market/index.ts";
import { SkeletonList } from "../../../components/States.tsx";
import { bookDecimals, groupLevels, groupSteps } from "../bookGroups.ts";
import s from "./kline.module.css";

function barWidths(levels: Level[]): number[] {
  const amounts = levels.map(([, q]) => Number(q));
  const max = Math.max(0, ...amounts);
  return amounts.map((a) => (max > 0 ? Math.round((a / max) * 100) : 0));
}

export function OrderBook({ book, coin, quote }: { book: Book | null; coin: string; quote: string }) {
  const [step, setStep] = useState<string | null>(null);
  if (!book) return <SkeletonList rows={4} />;
  const decimals = bookDecimals(book.bids.length > 0 ? book.bids : book.asks);
  const steps = groupSteps(decimals.price);
  const chosen = step && steps.includes(step) ? step : steps[0]!;
  const bids = groupLevels(book.bids, chosen, "bids", decimals);
  const asks = groupLevels(book.asks, chosen, "asks", decimals);
  const rows = Math.max(bids.length, asks.length);
  const bidBars = barWidths(bids);
  const askBars = barWidths(asks);

  return (
    <div className={s.book} data-testid="kline-book">
      <div className={s.bookTools}>
        <span className="muted">{m.kline_group()}</span>
        <div className={s.bookSteps} role="radiogroup" aria-label={m.kline_group()}>
          {steps.map((v) => (
            <button type="button" key={v} role="radio" aria-checked={v === chosen} className={v === chosen ? "active" : ""} onClick={() => setStep(v)} data-testid="book-step">
              {v}
            </button>
          ))}
        </div>
      </div>
      {rows === 0 ? (
        <p className={`muted ${s.bookEmpty}`}>{m.kline_book_empty()}</p>
      ) : (
        <table className={s.bookTable}>
          <thead>
            <tr>
              <th scope="col">{m.kline_book_amount({ coin })}</th>
              <th scope="col" className="right" title={m.kline_book_price({ quote })}>{m.kline_bids()}</th>
              <th scope="col" title={m.kline_book_price({ quote })}>{m.kline_asks()}</th>
              <th scope="col" className="right">{m.kline_book_amount({ coin })}</th>
            </tr>
          </thead>
          <tbody>
            {Array.from({ length: rows }, (_, i) => {
              const bid = bids[i];
              const ask = asks[i];
              return (
                <tr key={i} data-testid="book-row">
                  <td className={`num ${s.bookBid}`} style={{ backgroundSize: `${bidBars[i] ?? 0}% 100%` }}>{bid ? formatUpTo(bid[1], 6) : ""}</td>
                  <td className="num up right" data-testid="book-bid-price">{bid ? formatPrice(bid[0]) : ""}</td>
                  <td className="num down" data-testid="book-ask-price">{ask ? formatPrice(ask[0]) : ""}</td>
                  <td className={`num right ${s.bookAsk}`} style={{ backgroundSize: `${askBars[i] ?? 0}% 100%` }}>{ask ? formatUpTo(ask[1], 6) : ""}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </div>
  );
}
