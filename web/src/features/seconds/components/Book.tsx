/**
 * The six-level book beside the contract form (spec §2 /trade): asks above (best ask nearest the
 * middle), the index price between, bids below, each with a depth bar. Display only: a contract
 * has no price to pick. Empty levels show "--"; nothing is invented to fill the book.
 */
import { m } from "../../../i18n/index.ts";
import { formatExact, formatPrice } from "../../../lib/format.ts";
import type { Book as BookData, DepthRow } from "../../../lib/market/index.ts";
import { decimalsOf, truncate } from "../../../lib/amount.ts";
import { BookFrame, bookSides } from "../../../components/BookFrame.tsx";
import b from "../../../components/book.module.css";

export function Book({ book, failed, index, coin, quote }: { book: BookData | null; failed: boolean; index: string | null; coin: string; quote: string }) {
  const { askRows, bidRows } = bookSides(book);
  const loading = book === null && !failed;
  const line = (row: DepthRow | null, side: "ask" | "bid", i: number) => (
    <li key={`${side}-${i}`} className={`${b.bookRow} ${b[side]}${row ? "" : ` ${b.empty}`}`} data-testid={row ? `book-${side}` : undefined}>
      {row && <span className={b.bookBar} style={{ transform: `scaleX(${row.share})` }} aria-hidden="true" />}
      <span className={`${b.bookPrice} num`}>{row ? formatPrice(row.price) : loading ? "" : "--"}</span>
      <span className={`${b.bookAmount} num`}>{row ? formatExact(truncate(row.amount, Math.min(decimalsOf(row.amount), 6))) : loading ? "" : "--"}</span>
    </li>
  );
  return (
    <BookFrame coin={coin} quote={quote} loading={loading}>
      <ul className={b.bookSide}>{askRows.map((r, i) => line(r, "ask", i))}</ul>
      <div className={`${b.bookIndex} num`} data-testid="book-index" title={m.sec_index_label()}>
        {formatPrice(index)}
      </div>
      <ul className={b.bookSide}>{bidRows.map((r, i) => line(r, "bid", i))}</ul>
      {failed && book === null && <p className={`${b.bookFailed} ${b.small}`}>{m.load_failed()}</p>}
      {!loading && index === null && <p className={`${b.bookFailed} ${b.small}`} data-testid="no-index">{m.sec_no_index()}</p>}
    </BookFrame>
  );
}
