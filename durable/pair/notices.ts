/**
 * The private side of a pair's commands: each order owner's `order` events (booked, filled in part
 * or whole, cancelled), built in the command's own transaction and stored with its outbox entry.
 * They leave only after the drain has applied that entry to D1, through each owner's channel
 * (worker/lib/notify.ts → durable/user.ts): after-drain rather than at commit, so that the open
 * orders and balances a client refetches on the event already show it. The pair's socket carries
 * public topics only.
 */
import type { OrderEvent, UserEvent } from "../../schemas/realtime.ts";
import { notifyUser } from "../../worker/lib/notify.ts";
import { positionsForEvents } from "../../worker/domain/lever/positions.ts";
import type { AppliedResult } from "./desks/spot.ts";
import type { UserNotice } from "./outbox.ts";

/** Decimal formatting of the pair's price and quantity units. */
export interface NoticeUnits {
  pairId: number;
  price(units: number): string;
  qty(units: number): string;
}

/** Every owner's order events of one transaction's results, in the order they happened. */
export function orderNotices(results: AppliedResult[], units: NoticeUnits): UserNotice[] {
  const out: UserNotice[] = [];
  // What each order filled earlier in the same results (a cancelled or booked order reports it).
  const filledBy = new Map<number, number>();
  const order = (userId: number, e: Omit<OrderEvent, "type" | "pair_id">) => out.push({ userId, event: { type: "order", pair_id: units.pairId, ...e } });
  for (const e of results.flatMap((r) => r.events)) {
    if (e.type === "fill") {
      filledBy.set(Number(e.takerId), (filledBy.get(Number(e.takerId)) ?? 0) + e.qty);
      filledBy.set(Number(e.makerId), (filledBy.get(Number(e.makerId)) ?? 0) + e.qty);
      const fill = (owner: number, id: number, remaining: number) =>
        order(owner, { order_id: id, status: remaining === 0 ? "filled" : "partial", filled: units.qty(e.qty), price: units.price(e.price) });
      fill(Number(e.makerOwner), Number(e.makerId), e.makerRemaining);
      fill(Number(e.takerOwner), Number(e.takerId), e.takerRemaining);
    } else if (e.type === "booked" || (e.type === "done" && e.reason !== "filled")) {
      order(Number(e.owner), {
        order_id: Number(e.id),
        status: e.type === "booked" ? "open" : "cancelled",
        filled: units.qty(filledBy.get(Number(e.id)) ?? 0),
        price: e.type === "booked" ? units.price(e.price) : null,
      });
    }
  }
  return out;
}

/**
 * Notices grouped per user, each user's kept in order (one push per user per drained batch). A
 * user's `notification` events say the same thing ("read your inbox again"): one per push is enough.
 */
export function byUser(notices: UserNotice[]): Map<number, UserNotice["event"][]> {
  const map = new Map<number, UserNotice["event"][]>();
  for (const n of notices) {
    const list = map.get(n.userId);
    if (!list) map.set(n.userId, [n.event]);
    else if (n.event.type !== "notification" || !list.some((e) => e.type === "notification")) list.push(n.event);
  }
  return map;
}

/** Sends each changed lever position to its owner's channel as D1 now shows it (never throws). */
export async function announceLever(env: Env, ids: number[]): Promise<void> {
  try {
    const byOwner = new Map<number, UserEvent[]>();
    for (const { userId, position } of await positionsForEvents(env.DB, [...new Set(ids)])) {
      byOwner.set(userId, [...(byOwner.get(userId) ?? []), { type: "lever_position", data: position }]);
    }
    await Promise.all([...byOwner].map(([userId, events]) => notifyUser(env, userId, events)));
  } catch (err) {
    console.error(JSON.stringify({ level: "warn", msg: "lever_position events not sent", error: String(err) }));
  }
}
