/**
 * The notification-centre items of C2C orders (issue #16 §1): who is told of which order event,
 * with what, written INTO the order's own guarded batch (orders.ts, appeals.ts) so a lost race,
 * a retry or a second run of the expiry job inserts nothing: each item is keyed by the order and
 * the event (`c2c:{id}:{event}`), unique per recipient. The caller announces them after commit.
 *
 *   new order on an advert     → the advert's merchant        c2c_new_order
 *   buyer marked paid          → the seller                   c2c_paid
 *   coins released             → the buyer                    c2c_released (seller's confirm or an operator's release)
 *   cancelled by the buyer     → both parties                 c2c_cancelled
 *   payment window ended       → both parties                 c2c_expired
 *   appeal opened / decided    → both parties                 c2c_appeal_opened / c2c_appeal_decided (@released | @returned)
 */
import { C2C_FIAT, formatCents } from "../../../schemas/c2c.ts";
import type { NotificationKind } from "../../../schemas/notification.ts";
import { notificationsStatement, type NewNotification } from "../notifications/inbox.ts";
import { money as amountText } from "../notifications/events.ts";
import type { OrderAction } from "./machine.ts";
import { orderNumber } from "./shared.ts";

export type C2cNotice = "new" | "paid" | "released" | "cancelled" | "expired" | "appeal_opened" | "appeal_decided";

/** What a notice needs to know of its order. */
export interface NoticeOrder {
  id: number;
  merchant_id: number;
  buyer_id: number;
  seller_id: number;
  /** coin quantity in minimal units, and the coin's scale and name */
  amount: bigint;
  scale: number;
  currency_name: string;
  /** CNY cents */
  deal_money: bigint;
}

/** The order's screen in the app (web/src/app/routes.tsx). */
export const orderRoute = (id: number) => `/legal/show?id=${id}`;

const KIND: Record<C2cNotice, NotificationKind> = {
  new: "c2c_new_order",
  paid: "c2c_paid",
  released: "c2c_released",
  cancelled: "c2c_cancelled",
  expired: "c2c_expired",
  appeal_opened: "c2c_appeal_opened",
  appeal_decided: "c2c_appeal_decided",
};

function recipients(o: NoticeOrder, notice: C2cNotice): number[] {
  switch (notice) {
    case "new":
      return [o.merchant_id];
    case "paid":
      return [o.seller_id];
    case "released":
      return [o.buyer_id];
    default:
      return [o.buyer_id, o.seller_id];
  }
}

/** The items of one or more events of an order, with their recipients. */
export function orderNotices(o: NoticeOrder, notices: { notice: C2cNotice; outcome?: "@released" | "@returned" }[], now: number): NewNotification[] {
  const amount = amountText(o.amount, o.scale);
  const money = { id: orderNumber(o.id), amount, currency: o.currency_name, total: formatCents(o.deal_money), fiat: C2C_FIAT };
  const out: NewNotification[] = [];
  for (const { notice, outcome } of notices) {
    const params: Record<string, string> =
      notice === "new" || notice === "paid"
        ? money
        : notice === "appeal_opened"
          ? { id: money.id }
          : notice === "appeal_decided"
            ? { id: money.id, outcome: outcome ?? "@released" }
            : { id: money.id, amount, currency: o.currency_name };
    for (const userId of new Set(recipients(o, notice))) {
      out.push({ userId, kind: KIND[notice], key: `c2c:${o.id}:${notice}`, params, link: orderRoute(o.id), now });
    }
  }
  return out;
}

/** The notices an order action gives. */
export function actionNotices(action: OrderAction): { notice: C2cNotice; outcome?: "@released" | "@returned" }[] {
  switch (action) {
    case "pay":
      return [{ notice: "paid" }];
    case "confirm":
      return [{ notice: "released" }];
    case "cancel":
      return [{ notice: "cancelled" }];
    case "expire":
      return [{ notice: "expired" }];
    case "release":
      return [{ notice: "released" }, { notice: "appeal_decided", outcome: "@released" }];
    case "return":
      return [{ notice: "appeal_decided", outcome: "@returned" }];
  }
}

/** The statement for the event's own batch (put it after the batch's guards) and who to announce it to. */
export function noticeStatements(db: D1Database, list: NewNotification[], now: number): { stmts: D1PreparedStatement[]; userIds: number[] } {
  return { stmts: notificationsStatement(db, list, now), userIds: [...new Set(list.map((n) => n.userId))] };
}
