/**
 * The C2C screens' arithmetic, exactly as the server does it (schemas/c2c.ts): a coin quantity
 * times a price in cents, rounded half up to the cent (dealMoneyCents); limits compared as bigint;
 * the payment countdown. Nothing here touches a JS number for money.
 */
import { C2C_QTY_DECIMALS, dealMoneyCents, formatCents, parseCents, type C2cAdvert, type C2cOrder } from "../../../../schemas/c2c.ts";
import { formatUnits, parseUnits } from "../../../../schemas/money.ts";

/** Decimals an order quantity may have: the coin's scale, at most C2C_QTY_DECIMALS. */
export function qtyDecimals(coinScale: number | undefined): number {
  return Math.min(C2C_QTY_DECIMALS, coinScale ?? C2C_QTY_DECIMALS);
}

function units(value: string, scale: number): bigint | null {
  if (!/^\d+(\.\d+)?$/.test(value.trim())) return null;
  return parseUnits(value.trim(), scale);
}

/** number × price as CNY with 2 decimals ("7.20"), or null when either is not a valid amount. */
export function totalOf(number: string, price: string, scale: number): string | null {
  const u = units(number, scale);
  const p = parseCents(price);
  if (u === null || p === null) return null;
  return formatCents(dealMoneyCents(u, scale, p));
}

/**
 * The quantity a CNY total buys at a price, cut down to `scale` decimals (never more than the
 * total pays for); null when the total or price is not valid or the price is zero.
 */
export function numberForTotal(total: string, price: string, scale: number): string | null {
  const t = parseCents(total);
  const p = parseCents(price);
  if (t === null || p === null || p === 0n) return null;
  const q = (t * 10n ** BigInt(scale)) / p;
  return trimZeros(formatUnits(q, scale));
}

function trimZeros(s: string): string {
  return s.includes(".") ? s.replace(/\.?0+$/, "") : s;
}

function minUnits(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}

/**
 * What the all-in button fills in (spec §5): buying from a merchant (a `sell` advert), the largest
 * quantity the advert allows; selling to a merchant (a `buy` advert), the user's sellable balance,
 * but never above what the advert takes.
 */
export function allInNumber(advert: Pick<C2cAdvert, "type" | "max_number" | "user_sell_all_balance">, scale: number): string {
  const max = units(advert.max_number, scale) ?? 0n;
  if (advert.type === "sell") return trimZeros(formatUnits(max, scale));
  const balance = unitsCut(advert.user_sell_all_balance, scale);
  return trimZeros(formatUnits(minUnits(max, balance), scale));
}

/** A balance at any scale cut down to `scale` decimals. */
function unitsCut(value: string, scale: number): bigint {
  const m = /^(\d+)(?:\.(\d+))?$/.exec(value.trim());
  if (!m) return 0n;
  const frac = (m[2] ?? "").slice(0, scale).padEnd(scale, "0");
  return BigInt(m[1]!) * 10n ** BigInt(scale) + BigInt(frac || "0");
}

export type OrderProblem =
  | { kind: "empty" }
  | { kind: "invalid" }
  | { kind: "decimals"; decimals: number }
  | { kind: "below_min"; min: string }
  | { kind: "above_max"; max: string }
  | { kind: "above_remaining"; remaining: string }
  | { kind: "above_balance"; balance: string };

/**
 * Checks an order quantity against an advert before it is sent (spec §5): a positive amount with
 * at most `scale` decimals whose total is within the advert's CNY limits, not above the advert's
 * remaining amount and, selling to a merchant, not above the user's balance. Null when fine.
 */
export function checkOrder(
  number: string,
  advert: Pick<C2cAdvert, "type" | "price" | "min_money" | "max_money" | "surplus_number" | "user_sell_all_balance">,
  scale: number,
): OrderProblem | null {
  const raw = number.trim();
  if (raw === "") return { kind: "empty" };
  if (!/^\d+(\.\d+)?$/.test(raw)) return { kind: "invalid" };
  const u = parseUnits(raw, scale);
  if (u === null) return { kind: "decimals", decimals: scale };
  if (u === 0n) return { kind: "invalid" };
  const price = parseCents(advert.price) ?? 0n;
  const total = dealMoneyCents(u, scale, price);
  const min = parseCents(advert.min_money);
  const max = parseCents(advert.max_money);
  if (min !== null && total < min) return { kind: "below_min", min: advert.min_money };
  if (max !== null && total > max) return { kind: "above_max", max: advert.max_money };
  if (u > unitsCut(advert.surplus_number, scale)) return { kind: "above_remaining", remaining: advert.surplus_number };
  if (advert.type === "buy" && u > unitsCut(advert.user_sell_all_balance, scale)) return { kind: "above_balance", balance: advert.user_sell_all_balance };
  return null;
}

/** Whole seconds from `now` until `deadline` (both ms), never below zero. */
export function secondsLeft(deadlineMs: number, nowMs: number): number {
  return Math.max(0, Math.ceil((deadlineMs - nowMs) / 1000));
}

/** A countdown as "mm:ss" (minutes may pass 59: "75:00"). */
export function formatCountdown(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  return `${String(Math.floor(s / 60)).padStart(2, "0")}:${String(s % 60).padStart(2, "0")}`;
}

/**
 * Where tapping an order leads (spec §4 "order list click"): the buyer of an unpaid order goes to
 * the pay page; everything else to the detail page.
 */
export function orderLink(order: Pick<C2cOrder, "id" | "role" | "is_sure">): string {
  return order.role === "buyer" && order.is_sure === 0 ? `/legal/pay?id=${order.id}` : `/legal/show?id=${order.id}`;
}

/** Whether the viewer may appeal now: paid, not yet appealed, and the seller's time to confirm is over. */
export function canAppeal(order: Pick<C2cOrder, "is_sure" | "appeal_from" | "appeal">, nowMs: number): boolean {
  return order.is_sure === 3 && order.appeal === null && order.appeal_from !== null && nowMs >= order.appeal_from;
}
