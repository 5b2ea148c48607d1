/**
 * What the spot order book and the seconds book share (book.module.css): the section with its
 * price/amount head, and the six levels a side shows, padded so the rows never jump.
 */
import type { ReactNode } from "react";
import { m } from "../i18n/index.ts";
import { depthRows, type Book, type DepthRow } from "../lib/market/index.ts";
import b from "./book.module.css";

export const BOOK_LEVELS = 6;

/** Asks highest first (the best ask right above the middle), bids best first; empty levels are null. */
export function bookSides(book: Book | null): { askRows: (DepthRow | null)[]; bidRows: (DepthRow | null)[] } {
  const asks = depthRows(book?.asks ?? [], BOOK_LEVELS);
  const bids = depthRows(book?.bids ?? [], BOOK_LEVELS);
  return {
    askRows: [...Array.from({ length: BOOK_LEVELS - asks.length }, () => null), ...[...asks].reverse()],
    bidRows: [...bids, ...Array.from({ length: BOOK_LEVELS - bids.length }, () => null)],
  };
}

export function BookFrame({ coin, quote, loading, children }: { coin: string; quote: string; loading: boolean; children: ReactNode }) {
  return (
    <section className={b.book} aria-label={m.spot_book_label()} data-testid="order-book" aria-busy={loading}>
      <div className={b.bookHead}>
        <span>{m.spot_book_price({ quote })}</span>
        <span>{m.spot_book_amount({ coin })}</span>
      </div>
      {children}
    </section>
  );
}
