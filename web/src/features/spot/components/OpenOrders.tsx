/**
 * The user's open orders on the pair (spec §2 pending-order list): side, time, price, amount and
 * filled, with a cancel button behind a confirm dialog. A cancel failure is a warning toast
 * (spec §8); the frozen funds return as soon as the cancel reaches the ledger.
 */
import { useState } from "react";
import type { SpotOpenOrder } from "../../../../../schemas/spot.ts";
import { m } from "../../../i18n/index.ts";
import { ApiFailure } from "../../../lib/api.ts";
import { openConfirm } from "../../../lib/dialog.ts";
import { formatMoney, formatPrice, formatDateTime } from "../../../lib/format.ts";
import { toast } from "../../../lib/toast.ts";
import { EmptyState, ErrorState, SkeletonList, Spinner } from "../../../components/States.tsx";
import { useCancelOrder } from "../api.ts";
import s from "./spot.module.css";
import { Fact } from "../../../components/KvRow.tsx";

export function OpenOrders({
  orders,
  error,
  onRetry,
  onCancelled,
}: {
  orders: SpotOpenOrder[] | null;
  error: ApiFailure | null;
  onRetry: () => void;
  /** After a cancel: the order's id, or null when the cancel failed (reload either way). */
  onCancelled: (id: string | null) => void;
}) {
  const [busy, setBusy] = useState<Set<string>>(new Set());
  const cancelOrder = useCancelOrder();

  if (orders === null) {
    if (error) return <ErrorState message={error.message} onRetry={onRetry} />;
    return <SkeletonList rows={2} />;
  }
  if (orders.length === 0) return <EmptyState text={m.spot_no_open_orders()} />;

  const cancel = (o: SpotOpenOrder) => {
    const params = { qty: formatMoney(o.number, o.currency_name), coin: o.currency_name, price: formatPrice(o.price) };
    openConfirm({
      title: m.spot_cancel_title(),
      message: o.direction === "buy" ? m.spot_cancel_body_buy(params) : m.spot_cancel_body_sell(params),
      confirmText: m.spot_cancel_confirm(),
      cancelText: m.spot_cancel_keep(),
      onConfirm: async () => {
        setBusy((s) => new Set(s).add(o.id));
        try {
          await cancelOrder(o.id, o.direction);
          toast.success(m.spot_cancelled());
          onCancelled(o.id);
        } catch (err) {
          toast.warning(err instanceof ApiFailure ? err.message : m.request_failed());
          onCancelled(null);
        } finally {
          setBusy((s) => {
            const next = new Set(s);
            next.delete(o.id);
            return next;
          });
        }
      },
    });
  };

  return (
    <ul className="open-orders" data-testid="open-orders">
      {orders.map((o) => (
        <li key={o.id} className={s.openOrder} data-testid="open-order" data-order-id={o.id}>
          <div className={s.openOrderHead}>
            <span className={`${s.sideTag} ${s[o.direction]}`} data-testid="side-tag" data-side={o.direction}>{o.direction === "buy" ? m.spot_buy() : m.spot_sell()}</span>
            <span className={s.openOrderPair}>
              {o.currency_name}/{o.legal_name}
            </span>
            <span className={`${s.openOrderKind} muted`}>{o.mode === 1 ? m.spot_market() : m.spot_limit()}</span>
            <span className={`${s.openOrderTime} muted num`}>{formatDateTime(o.time_format)}</span>
          </div>
          <div className={s.openOrderBody}>
            <dl>
              <Fact label={m.spot_col_price({ quote: o.legal_name })}>{formatPrice(o.price)}</Fact>
              <Fact label={m.spot_col_amount({ coin: o.currency_name })}>{formatMoney(o.number, o.currency_name)}</Fact>
              <Fact label={m.spot_col_filled()}>{formatMoney(o.filled, o.currency_name)}</Fact>
            </dl>
            <button type="button" className={`btn btn-outline btn-small ${s.openOrderCancel}`} onClick={() => cancel(o)} disabled={busy.has(o.id)} data-testid="cancel-order">
              {busy.has(o.id) ? <Spinner size={14} /> : m.spot_cancel()}
            </button>
          </div>
        </li>
      ))}
    </ul>
  );
}
