/**
 * The depth chart (issue #30), loaded only when its tab is opened: the cumulative amount resting at
 * each price, bids (green) stepping down from the best bid to the left, asks (red) up from the best
 * ask to the right, drawn as our own SVG from the same live book as the order book. Numbers are
 * used for drawing only; the labels are the book's own decimal strings.
 */
import { m } from "../../../i18n/index.ts";
import { decimalsOf, fromUnits, toUnits } from "../../../lib/amount.ts";
import { formatPrice, formatUpTo } from "../../../lib/format.ts";
import type { Book, Level } from "../../../lib/market/index.ts";
import s from "./kline.module.css";

const W = 358;
const H = 150;
const PAD = 4;

/** A side's whole amount, exactly (the label beside the chart). */
function total(levels: readonly Level[]): { units: bigint; text: string } {
  const d = Math.max(0, ...levels.map(([, q]) => decimalsOf(q)));
  const units = levels.reduce((sum, [, q]) => sum + (toUnits(q, d) ?? 0n), 0n);
  return { units, text: fromUnits(units, d) };
}

function cumulative(levels: readonly Level[]): { price: number; cum: number }[] {
  let cum = 0;
  return levels.map(([p, q]) => ({ price: Number(p), cum: (cum += Number(q)) }));
}

export default function DepthChart({ book, coin }: { book: Book; coin: string }) {
  const bids = cumulative(book.bids);
  const asks = cumulative(book.asks);
  const levels = Math.max(book.bids.length, book.asks.length);
  if (bids.length === 0 && asks.length === 0) return <p className={`muted ${s.bookEmpty}`}>{m.kline_book_empty()}</p>;
  const prices = [...bids, ...asks].map((l) => l.price);
  // A margin on both ends, so the outermost level's amount shows as a step and not a bare edge.
  const margin = (Math.max(...prices) - Math.min(...prices)) * 0.08 || Math.max(...prices) * 0.001 || 1;
  const lo = Math.min(...prices) - margin;
  const hi = Math.max(...prices) + margin;
  const bidTotal = total(book.bids);
  const askTotal = total(book.asks);
  const larger = bidTotal.units >= askTotal.units ? bidTotal : askTotal;
  const maxCum = Math.max(bids[bids.length - 1]?.cum ?? 0, asks[asks.length - 1]?.cum ?? 0) || 1;
  const x = (p: number) => (hi === lo ? W / 2 : PAD + ((p - lo) / (hi - lo)) * (W - 2 * PAD));
  const y = (c: number) => H - PAD - (c / maxCum) * (H - 2 * PAD);
  // A step line: flat at each cumulative amount until the next price, closed down to the axis.
  const area = (side: { price: number; cum: number }[]) => {
    if (side.length === 0) return "";
    let d = `M${x(side[0]!.price)},${H - PAD}`;
    let prev = 0;
    for (const l of side) {
      d += ` L${x(l.price)},${y(prev)} L${x(l.price)},${y(l.cum)}`;
      prev = l.cum;
    }
    const edge = side === bids ? x(lo) : x(hi);
    return `${d} L${edge},${y(prev)} L${edge},${H - PAD} Z`;
  };
  return (
    <figure className={s.depth} data-testid="kline-depth">
      <svg viewBox={`0 0 ${W} ${H}`} width="100%" role="img" aria-label={m.kline_depth()}>
        <path d={area(bids)} fill="rgba(46,189,133,0.25)" stroke="#2ebd85" strokeWidth="1.5" />
        <path d={area(asks)} fill="rgba(246,70,93,0.25)" stroke="#f6465d" strokeWidth="1.5" />
      </svg>
      <div className={`${s.depthAxis} num muted`}>
        <span>{formatPrice(book.bids[book.bids.length - 1]?.[0] ?? book.asks[0]?.[0])}</span>
        <span>
          {formatUpTo(larger.text, 6)} {coin}
        </span>
        <span>{formatPrice(book.asks[book.asks.length - 1]?.[0] ?? book.bids[0]?.[0])}</span>
      </div>
      <figcaption className={`muted ${s.depthNote}`}>{m.kline_depth_note({ levels })}</figcaption>
    </figure>
  );
}
