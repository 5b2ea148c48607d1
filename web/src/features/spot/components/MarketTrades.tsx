/** The pair's newest deals (time, direction, price, amount), live from the socket. */
import type { Deal } from "../../../../../schemas/realtime.ts";
import { m } from "../../../i18n/index.ts";
import { formatPrice, formatUpTo, formatClock, timeHeading } from "../../../lib/format.ts";
import { EmptyState, SkeletonList } from "../../../components/States.tsx";
import s from "./spot.module.css";

export function MarketTrades({ deals, coin, quote }: { deals: Deal[] | null; coin: string; quote: string }) {
  if (deals === null) return <SkeletonList rows={3} />;
  if (deals.length === 0) return <EmptyState text={m.spot_no_deals()} />;
  return (
    <table className={s.dealsTable} data-testid="market-trades">
      <thead>
        <tr>
          <th scope="col">{timeHeading(m.spot_col_time())}</th>
          <th scope="col">{m.spot_col_direction()}</th>
          <th scope="col" className="right">
            {m.spot_col_price({ quote })}
          </th>
          <th scope="col" className="right">
            {m.spot_col_amount({ coin })}
          </th>
        </tr>
      </thead>
      <tbody>
        {deals.map((d, i) => (
          <tr key={`${d.time}-${i}-${d.price}-${d.amount}`} data-testid="deal-row">
            <td className="num muted">{formatClock(d.time)}</td>
            <td className={d.direction === "buy" ? "up" : "down"}>{d.direction === "buy" ? m.spot_buy() : m.spot_sell()}</td>
            <td className={`right num ${d.direction === "buy" ? "up" : "down"}`}>{formatPrice(d.price)}</td>
            <td className="right num">{formatUpTo(d.amount, 6)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
