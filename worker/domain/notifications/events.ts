/**
 * The notification of each money event (issue #16 §1): its kind, its key (the event's own name, so
 * the INSERT in the event's batch can land once per user) and its params, formatted once when the
 * event happens. The texts are in ./texts.ts; the links are routes of the app
 * (web/src/app/routes.tsx) that list the event.
 *
 * Amounts are formatted with the currency's decimals (its scale); a signed amount carries "+" when
 * above zero. Words a text translates (an outcome, a reason, a direction) are "@word".
 */
import { formatUnits } from "../../../schemas/money.ts";
import type { NewNotification } from "./inbox.ts";

/** The app's screens that list each kind of event. */
export const NOTIFICATION_LINKS = {
  deposits: "/recharge/log",
  withdrawals: "/withdrawal/log",
  kyc: "/verifyed",
  /** a settled contract opens its settlement check (entry and exit ticks, the result recomputed) */
  seconds: "/trade/verify",
  /** a closed position opens its close check (the tick that triggered it) */
  lever: "/lever/verify",
  security: "/security",
  /** a filled spot order: the order history */
  spot: "/exchange/lists",
} as const;

/**
 * Minimal units at `scale` as an amount that moved reads in the app (web/src/lib/format.ts
 * formatMoneyMoved): exact, never cut, trailing zeros trimmed down to two decimals, thousands
 * grouped: 125.5 → "125.50", 20000 → "20,000.00", 1.00499 BTC → "1.00499".
 */
export function money(units: bigint, scale: number): string {
  const s = formatUnits(units, scale);
  const neg = s.startsWith("-");
  const [int = "0", frac = ""] = (neg ? s.slice(1) : s).split(".");
  let f = frac;
  while (f.length > 2 && f.endsWith("0")) f = f.slice(0, -1);
  const grouped = int.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return (neg ? "-" : "") + (f ? `${grouped}.${f}` : grouped);
}

/** A signed amount: "+7.80", "-10.20", "0.00". */
export const signedMoney = (units: bigint, scale: number): string => (units > 0n ? "+" : "") + money(units, scale);

interface Coin {
  currency: string;
  scale: number;
}

export function depositCredited(d: { id: number; userId: number; amount: bigint } & Coin, now?: number): NewNotification {
  return {
    userId: d.userId,
    kind: "deposit_credited",
    key: `deposit:${d.id}:credited`,
    params: { id: d.id, amount: money(d.amount, d.scale), currency: d.currency },
    link: NOTIFICATION_LINKS.deposits,
    now,
  };
}

export function depositRejected(d: { id: number; userId: number; amount: bigint; reason: string } & Coin, now?: number): NewNotification {
  return {
    userId: d.userId,
    kind: "deposit_rejected",
    key: `deposit:${d.id}:rejected`,
    params: { id: d.id, amount: money(d.amount, d.scale), currency: d.currency, reason: d.reason },
    link: NOTIFICATION_LINKS.deposits,
    now,
  };
}

/** Sent on chain: the amount that left (the fee is the published one), the network and the transaction id. */
export function withdrawalSent(w: { id: number; userId: number; amount: bigint; network: string; txid: string } & Coin, now?: number): NewNotification {
  return {
    userId: w.userId,
    kind: "withdrawal_sent",
    key: `withdrawal:${w.id}:sent`,
    // A coin with one network names its own chain.
    params: { id: w.id, amount: money(w.amount, w.scale), currency: w.currency, network: w.network || w.currency, txid: w.txid },
    link: NOTIFICATION_LINKS.withdrawals,
    now,
  };
}

/**
 * Rejected by an operator, or failed on chain: either way amount and fee are back in the account
 * (one text says so). Keyed by which of the two ended it: a withdrawal ends once.
 */
export function withdrawalReturned(w: { id: number; userId: number; amount: bigint; reason: string; how: "rejected" | "failed" } & Coin, now?: number): NewNotification {
  return {
    userId: w.userId,
    kind: "withdrawal_rejected",
    key: `withdrawal:${w.id}:${w.how}`,
    params: { id: w.id, amount: money(w.amount, w.scale), currency: w.currency, reason: w.reason },
    link: NOTIFICATION_LINKS.withdrawals,
    now,
  };
}

export function kycDecided(k: { id: number; userId: number; level: number; approved: boolean; reason: string }, now?: number): NewNotification {
  return {
    userId: k.userId,
    kind: k.approved ? "kyc_approved" : "kyc_rejected",
    key: `kyc:${k.id}:${k.approved ? "approved" : "rejected"}`,
    params: k.approved ? { id: k.id, level: k.level } : { id: k.id, level: k.level, reason: k.reason },
    link: NOTIFICATION_LINKS.kyc,
    now,
  };
}

/**
 * A settled seconds contract (keyed like its settlement movement, `micro:{id}:settle`): the net is
 * what the contract did to the user's balance, the result less the fee (a win of 8 on a stake of 10
 * with a fee of 0.2 is +7.8; a loss is −10.2).
 */
export function secondsSettled(
  c: {
    orderId: number;
    userId: number;
    pair: string;
    /** 1 up, 2 down */
    direction: number;
    result: bigint;
    fee: bigint;
    currency: string;
    scale: number;
    /** prices already formatted with the pair's decimals */
    entry: string;
    exit: string;
    entryTick: number;
    exitTick: number;
  },
  now?: number,
): NewNotification {
  return {
    userId: c.userId,
    kind: "seconds_settled",
    key: `micro:${c.orderId}:settle`,
    params: {
      id: c.orderId,
      pair: c.pair,
      direction: c.direction === 1 ? "@up" : "@down",
      outcome: c.result > 0n ? "@won" : "@lost",
      net: signedMoney(c.result - c.fee, c.scale),
      currency: c.currency,
      entry: c.entry,
      exit: c.exit,
      entry_tick: c.entryTick,
      exit_tick: c.exitTick,
    },
    link: `${NOTIFICATION_LINKS.seconds}?id=${c.orderId}`,
    now,
  };
}

/**
 * A spot order that filled in a drain batch, in whole or in part: the batch's fills of the order
 * summed, keyed by the order and the batch's last trade of it (`spot:{pair}:fill:{order}:{trade}`).
 */
export function spotFilled(f: {
  orderId: number;
  userId: number;
  pairId: number;
  pair: string;
  side: "buy" | "sell";
  /** the order has nothing left to fill */
  whole: boolean;
  /** already formatted with the pair's decimals */
  qty: string;
  price: string;
  lastTrade: number;
  now?: number;
}): NewNotification {
  return {
    userId: f.userId,
    kind: f.whole ? "spot_filled" : "spot_partial",
    key: `spot:${f.pairId}:fill:${f.orderId}:${f.lastTrade}`,
    params: { id: f.orderId, pair: f.pair, side: `@${f.side}`, qty: f.qty, price: f.price },
    link: NOTIFICATION_LINKS.spot,
    now: f.now,
  };
}

/** A conditional spot order fired and placed its limit order (keyed by the conditional order: once). */
export function spotTriggered(t: {
  conditionalId: number;
  userId: number;
  pairId: number;
  pair: string;
  side: "buy" | "sell";
  /** already formatted with the pair's decimals */
  trigger: string;
  price: string;
  qty: string;
  now?: number;
}): NewNotification {
  return {
    userId: t.userId,
    kind: "spot_triggered",
    key: `spot:${t.pairId}:trigger:${t.conditionalId}`,
    params: { id: t.conditionalId, pair: t.pair, side: `@${t.side}`, trigger: t.trigger, price: t.price, qty: t.qty },
    link: NOTIFICATION_LINKS.spot,
    now: t.now,
  };
}

/**
 * A closed leveraged position (keyed like its close movement, `lever:{id}:close`), with its net P/L
 * as the position list shows it: what the lever balance gained or lost over the position's life,
 * every fee (open, overnight, close) counted.
 */
export function leverClosed(
  p: { positionId: number; userId: number; pair: string; reason: "user" | "profit" | "loss" | "liquidation" | "cap"; pnl: bigint; currency: string; scale: number; price: string },
  now?: number,
): NewNotification {
  return {
    userId: p.userId,
    kind: "lever_closed",
    key: `lever:${p.positionId}:close`,
    params: { id: p.positionId, pair: p.pair, reason: `@${p.reason}`, pnl: signedMoney(p.pnl, p.scale), currency: p.currency, price: p.price },
    link: `${NOTIFICATION_LINKS.lever}?id=${p.positionId}`,
    now,
  };
}
