/**
 * A leveraged position's close checked in the browser (issue #20 §3): the index tick it closed at
 * is the one its close names, at its close price, and that index crossed the price its rule
 * compares with (durable/engine/margin.ts sweepVerdict): a long is liquidated or stopped out at an
 * index at or below its liquidation price or stop-loss and takes profit or hits the gain cap at
 * or above its take-profit or cap price; a short the other way round. A close by its owner has no
 * rule to cross: it is checked by its tick alone. Prices are compared as decimal strings.
 */
import type { LeverCloseReason, LeverPositionDetail } from "../../../../schemas/lever.ts";
import type { TickWindow } from "../../../../schemas/seconds.ts";
import { compareDecimal } from "../../lib/amount.ts";

/** Whether `index` crossed `trigger` for this reason and direction (1 long, 2 short); null when the reason has no trigger. */
export function crossed(reason: LeverCloseReason, type: 1 | 2, index: string, trigger: string | null): boolean | null {
  if (trigger === null || reason === "user" || reason === "revoked") return null;
  const c = compareDecimal(index, trigger);
  if (c === null) return null;
  const atOrBelow = c <= 0;
  const atOrAbove = c >= 0;
  switch (reason) {
    case "liquidation":
    case "loss":
      return type === 1 ? atOrBelow : atOrAbove;
    case "profit":
      return type === 1 ? atOrAbove : atOrBelow;
    case "cap":
      return atOrAbove;
  }
}

export interface CloseCheck {
  /** the tick is the one the close names, at the close price */
  tick: boolean;
  /** the tick's index crossed the rule's price; null for a close by its owner */
  crossed: boolean | null;
  matches: boolean;
}

/** Checks a closed position against its closing tick. */
export function checkClose(p: Pick<LeverPositionDetail, "type" | "close_reason" | "close_price" | "close_tick_id" | "trigger_price">, close: TickWindow): CloseCheck {
  const tick = close.tick.id === p.close_tick_id && p.close_price !== null && compareDecimal(p.close_price, close.tick.price) === 0;
  const x = p.close_reason === null ? null : crossed(p.close_reason, p.type, close.tick.price, p.trigger_price);
  // A rule that should have a trigger but has none shown cannot be checked: it does not match.
  const needsRule = p.close_reason !== null && p.close_reason !== "user";
  return { tick, crossed: x, matches: tick && (needsRule ? x === true : true) };
}
