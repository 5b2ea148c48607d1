/**
 * The order book (spec §2): six ask levels above (red, best ask nearest the middle), the last
 * price between, six bid levels below (green). Each row has a depth bar scaled by the cumulative
 * amount from the best price; tapping a level hands its price to the order form. Empty levels
 * show "--": nothing is ever invented to fill the book.
 */
import { m } from "../../../i18n/index.ts";
import { formatPrice, formatUpTo, trendOf } from "../../../lib/format.ts";
import type { Book, DepthRow as Row } from "../../../lib/market/index.ts";
import { BookFrame, bookSides } from "../../../components/BookFrame.tsx";
import b from "../../../components/book.module.css";

export function OrderBook({
  depth,
  lastPrice,
  change,
  coin,
  quote,
  onPick,
  failed,
}: {
  depth: Book | null;
  lastPrice: string | null;
  change: string | null;
  coin: string;
  quote: string;
  onPick: (price: string) => void;
  failed?: boolean;
}) {
  // Asks are drawn highest first so the best ask sits right above the last price.
  const { askRows, bidRows } = bookSides(depth);
  const trend = trendOf(change);
  const loading = depth === null && !failed;

  const line = (row: Row | null, side: "ask" | "bid", i: number) =>
    row ? (
      <li key={`${side}-${i}`}>
        <button type="button" className={`${b.bookRow} ${b[side]}`} onClick={() => onPick(row.price)} data-testid={`book-${side}`} data-price={row.price}>
          {/* A transform, not a width: resizing the bar never lays the row out again. */}
          <span className={b.bookBar} style={{ transform: `scaleX(${row.share})` }} aria-hidden="true" />
          <span className={`${b.bookPrice} num`}>{formatPrice(row.price)}</span>
          <span className={`${b.bookAmount} num`}>{formatUpTo(row.amount, 6)}</span>
        </button>
      </li>
    ) : (
      <li key={`${side}-empty-${i}`}>
        <span className={`${b.bookRow} ${b[side]} ${b.empty}`}>
          <span className={`${b.bookPrice} num`}>{loading ? "" : "--"}</span>
          <span className={`${b.bookAmount} num`}>{loading ? "" : "--"}</span>
        </span>
      </li>
    );

  return (
    <BookFrame coin={coin} quote={quote} loading={loading}>
      <ul className={`${b.bookSide} asks`}>{askRows.map((r, i) => line(r, "ask", i))}</ul>
      <div className={`${b.bookLast} num ${trend}`} data-testid="book-last">
        {formatPrice(lastPrice)}
      </div>
      <ul className={`${b.bookSide} bids`}>{bidRows.map((r, i) => line(r, "bid", i))}</ul>
      {failed && depth === null && <p className={b.bookFailed}>{m.load_failed()}</p>}
    </BookFrame>
  );
}
