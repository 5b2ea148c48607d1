/** Display helpers of the seconds screens. */
import { signOf } from "./logic.ts";
import { formatMoneyMoved } from "../../lib/format.ts";

/** Random client order id: a retried submit is recognised by the server (a replay answers the first order). */
export function newClientOrderId(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * A signed result of `currency` with its sign ("+8.50", "-10.00", "0.00") by the one amount rule
 * (lib/format.ts formatMoneyMoved: exact, at least the currency's minimum decimals) and the class
 * that colours it: green only above zero (spec §4).
 */
export function signedResult(value: string | null, currency: string): { text: string; tone: "up" | "down" | "flat" } {
  if (value === null) return { text: "--", tone: "flat" };
  const sign = signOf(value);
  const text = formatMoneyMoved(value, currency);
  return { text: sign > 0 ? `+${text}` : text, tone: sign > 0 ? "up" : "down" };
}

/** mm:ss of a countdown in whole seconds. */
export function clock(seconds: number): string {
  const s = Math.max(0, seconds);
  return `${String(Math.floor(s / 60)).padStart(2, "0")}:${String(s % 60).padStart(2, "0")}`;
}
