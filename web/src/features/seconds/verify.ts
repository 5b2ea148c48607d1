/**
 * A settled seconds contract checked in the browser (issue #20 §3), from nothing but the public
 * entry and exit ticks and the contract's published terms (direction, ratio, stake), by the same
 * rule as the server (DESIGN §7, durable/engine/seconds.ts): up wins only when exit > entry, down
 * when exit ≤ entry (a tie goes to down); a win pays stake × ratio% cut to minimal units, a loss
 * costs the stake. Amounts stay decimal strings and bigint units, never JS numbers.
 */
import type { SecondsOrder, TickWindow } from "../../../../schemas/seconds.ts";
import { compareDecimal, decimalsOf, fromUnits, toUnits } from "../../lib/amount.ts";
import { percentOfUnits, wouldWin } from "./logic.ts";

/** The result of a contract settled from `entry` to `exit`: won or not and + stake × ratio% (cut) or − stake, at the stake's decimals. */
export function recomputeResult(type: 1 | 2, entry: string, exit: string, ratio: string, stake: string): { won: boolean; result: string } | null {
  const won = wouldWin(type, entry, exit);
  const scale = decimalsOf(stake);
  const s = toUnits(stake, scale);
  if (won === null || s === null) return null;
  if (!won) return { won, result: fromUnits(-s, scale) };
  const win = percentOfUnits(s, ratio, false);
  return win === null ? null : { won, result: fromUnits(win, scale) };
}

export interface SecondsCheck {
  /** the entry tick is the contract's entry: its id and price */
  entry: boolean;
  /** the exit tick is the contract's exit (id and price) and the last tick at or before the expiry */
  exit: boolean;
  /** the result recomputed from the two ticks; null when the ticks are missing */
  recomputed: { won: boolean; result: string } | null;
  /** the recomputed result equals the settled one */
  result: boolean;
  /** everything above holds */
  matches: boolean;
}

/** Checks a settled contract against its entry and exit ticks (with their neighbours). */
export function checkContract(
  order: Pick<SecondsOrder, "type" | "open_price" | "end_price" | "open_tick_id" | "end_tick_id" | "end_at" | "profit_ratio" | "number" | "fact_profits">,
  entry: TickWindow,
  exit: TickWindow,
): SecondsCheck {
  const same = (a: string | null, b: string) => a !== null && compareDecimal(a, b) === 0;
  const entryOk = entry.tick.id === order.open_tick_id && same(order.open_price, entry.tick.price);
  // The exit is the LAST tick at or before the expiry: it is not after it, and the next one is.
  const next = exit.after[0];
  const exitOk = exit.tick.id === order.end_tick_id && same(order.end_price, exit.tick.price) && exit.tick.at <= order.end_at && (next === undefined || next.at > order.end_at);
  const recomputed = recomputeResult(order.type, entry.tick.price, exit.tick.price, order.profit_ratio, order.number);
  const result = recomputed !== null && order.fact_profits !== null && compareDecimal(recomputed.result, order.fact_profits) === 0;
  return { entry: entryOk, exit: exitOk, recomputed, result, matches: entryOk && exitOk && result };
}
