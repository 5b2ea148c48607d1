/**
 * The pure rules of the seconds-contract screens (spec §4 seconds states, §5 validation; DESIGN §7),
 * exactly as the server applies them, so what the form shows before confirming is what the ledger
 * books: amounts as bigint minimal units of the payable currency, never JS numbers.
 *
 * - the fee is stake × fee% rounded UP to minimal units, charged on top of the stake;
 * - a win pays stake × ratio% cut to minimal units; a loss is the stake;
 * - up wins only when the exit price is above the entry price; down wins when it is equal or below;
 * - the index price is median(last trade, best bid, best ask) of a two-sided book (with no trade
 *   yet: the mid, rounded down); a book that is not two-sided has no index.
 */
import type { SecondsOrder } from "../../../../schemas/seconds.ts";
import { compareDecimal, decimalsOf, fromUnits, toUnits } from "../../lib/amount.ts";

/** A decimal string as units at `scale`, or null when it is not a decimal or carries more decimals. */
const units = (value: string, scale: number) => toUnits(value, scale);

/** "85" or "1.5" as (numerator, denominator) of a percent, exactly. */
function percent(p: string): { num: bigint; den: bigint } | null {
  const scale = decimalsOf(p);
  const u = units(p, scale);
  if (u === null || u < 0n) return null;
  return { num: u, den: 100n * 10n ** BigInt(scale) };
}

/** stake × p% in minimal units; `up` rounds up (the fee), otherwise cut (the payout). */
export function percentOfUnits(stake: bigint, p: string, up: boolean): bigint | null {
  const pc = percent(p);
  if (!pc) return null;
  const n = stake * pc.num;
  return up ? (n + pc.den - 1n) / pc.den : n / pc.den;
}

export interface ContractPreview {
  /** the fee, charged on top of the stake at acceptance */
  fee: string;
  /** what a right call adds: stake × ratio% (cut) */
  win: string;
  /** what a right call leaves the user better off by, net of the fee: win − fee (signed) */
  winNet: string;
  /** the worst case: −stake − fee */
  worst: string;
  /** what leaves the micro balance at acceptance: stake + fee */
  cost: string;
}

/** What a contract of `stake` can do, before it is confirmed; null while the stake is not a valid amount. */
export function previewContract(stake: string, ratio: string, feePercent: string, scale: number): ContractPreview | null {
  const s = units(stake, scale);
  if (s === null || s <= 0n) return null;
  const fee = percentOfUnits(s, feePercent, true);
  const win = percentOfUnits(s, ratio, false);
  if (fee === null || win === null) return null;
  return { fee: fromUnits(fee, scale), win: fromUnits(win, scale), winNet: fromUnits(win - fee, scale), worst: fromUnits(-(s + fee), scale), cost: fromUnits(s + fee, scale) };
}

/**
 * A contract's result net of its fee (the fee was paid at acceptance): + win − fee when right,
 * − stake − fee when wrong; what the micro balance ends up changed by. Null without a result.
 */
export function netResult(result: string | null, fee: string): string | null {
  if (result === null) return null;
  const scale = Math.max(decimalsOf(result), decimalsOf(fee));
  const r = units(result, scale);
  const f = units(fee, scale);
  if (r === null || f === null) return null;
  return fromUnits(r - f, scale);
}

export type StakeProblem =
  | { key: "empty" }
  | { key: "format" }
  | { key: "decimals"; decimals: number }
  | { key: "min"; min: string }
  | { key: "max"; max: string }
  | { key: "balance"; cost: string };

export interface StakeRules {
  min: string;
  max: string;
  /** decimals of the payable currency */
  scale: number;
  feePercent: string;
  /** the micro account's available balance; null when unknown (not checked) */
  balance: string | null;
}

/** Checks a stake as the server will (spec §5: at least the minimum, at most the maximum, the currency's decimals, stake + fee covered). */
export function checkStake(stake: string, rules: StakeRules): StakeProblem | null {
  const v = stake.trim();
  if (v === "") return { key: "empty" };
  if (!/^\d+(\.\d+)?$/.test(v)) return { key: "format" };
  const s = units(v, rules.scale);
  if (s === null) return { key: "decimals", decimals: rules.scale };
  if (s <= 0n) return { key: "format" };
  if (compareDecimal(v, rules.min) === -1) return { key: "min", min: rules.min };
  if (compareDecimal(v, rules.max) === 1) return { key: "max", max: rules.max };
  if (rules.balance !== null) {
    const fee = percentOfUnits(s, rules.feePercent, true) ?? 0n;
    const cost = s + fee;
    const bal = units(rules.balance, Math.max(rules.scale, decimalsOf(rules.balance)));
    const costAt = cost * 10n ** BigInt(Math.max(0, decimalsOf(rules.balance) - rules.scale));
    if (bal !== null && costAt > bal) return { key: "balance", cost: fromUnits(cost, rules.scale) };
  }
  return null;
}

/** Whether a direction wins at `exit` against `entry` (1 up: exit > entry; 2 down: exit ≤ entry). Null when a price is missing. */
export function wouldWin(type: 1 | 2, entry: string | null, exit: string | null): boolean | null {
  if (exit === null || entry === null) return null;
  const c = compareDecimal(exit, entry);
  if (c === null) return null;
  return type === 1 ? c === 1 : c !== 1;
}

export interface LiveResult {
  won: boolean;
  /** signed: + stake × ratio% (cut) or − stake */
  amount: string;
}

/**
 * Profit or loss of a running contract if it settled at `price` (spec §4): an up order gains
 * number × ratio% when the price is above the open price, else loses the number; down the reverse.
 */
export function liveResult(order: Pick<SecondsOrder, "type" | "open_price" | "number" | "profit_ratio">, price: string | null, scale: number): LiveResult | null {
  const won = wouldWin(order.type, order.open_price, price);
  if (won === null) return null;
  const s = units(order.number, Math.max(scale, decimalsOf(order.number)));
  const sc = Math.max(scale, decimalsOf(order.number));
  if (s === null) return null;
  if (!won) return { won, amount: fromUnits(-s, sc) };
  const w = percentOfUnits(s, order.profit_ratio, false);
  return w === null ? null : { won, amount: fromUnits(w, sc) };
}

/** The sign of a signed decimal string: 1 above zero, else 0 or −1 (green only above zero, spec §4). */
export function signOf(value: string | null): -1 | 0 | 1 {
  if (value === null) return 0;
  const c = compareDecimal(value.replace(/^-/, ""), "0");
  if (c === 0 || c === null) return 0;
  return value.startsWith("-") ? -1 : 1;
}

/**
 * The index price from the live book, as the server computes it: median(last trade, best bid,
 * best ask); with no trade yet, the mid of bid and ask (rounded down). Null without a two-sided book.
 */
export function indexPrice(last: string | null, bid: string | null, ask: string | null): string | null {
  if (bid === null || ask === null) return null;
  const scale = Math.max(decimalsOf(bid), decimalsOf(ask), last ? decimalsOf(last) : 0);
  const b = units(bid, scale);
  const a = units(ask, scale);
  if (b === null || a === null) return null;
  const l = last !== null ? units(last, scale) : null;
  const lv = l === null || l <= 0n ? (b + a) / 2n : l;
  const [, median] = [lv, b, a].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
  const shown = Math.max(decimalsOf(bid), decimalsOf(ask));
  return fromUnits(median ?? lv, scale, shown);
}

export type Phase = "running" | "settling" | "settled" | "revoked";

/**
 * Where a contract stands at `serverNow` (ms, the server's clock as estimated by the client):
 * status 1 counts down and becomes "settling" once its time is up (spec §4: the local countdown
 * ending means settling), status 2 is settling, 3 settled, 4 revoked.
 */
export function phaseOf(order: Pick<SecondsOrder, "status" | "end_at" | "seconds">, serverNow: number): { phase: Phase; remainMs: number } {
  // Never more than the contract's own duration: the clock estimate may be a few ms ahead of the server's.
  const remainMs = Math.min(order.seconds * 1000, Math.max(0, order.end_at - serverNow));
  switch (order.status) {
    case 1:
      return { phase: remainMs > 0 ? "running" : "settling", remainMs };
    case 2:
      return { phase: "settling", remainMs: 0 };
    case 3:
      return { phase: "settled", remainMs: 0 };
    default:
      return { phase: "revoked", remainMs: 0 };
  }
}

/** Whole seconds left as the countdown shows them (a started second counts: 0.2 s left shows 1). */
export const secondsLeft = (remainMs: number) => Math.ceil(Math.max(0, remainMs) / 1000);

/** The share of the contract's time still to run, 0..1 (the circular countdown). */
export function remainingShare(order: Pick<SecondsOrder, "seconds">, remainMs: number): number {
  const total = order.seconds * 1000;
  return total > 0 ? Math.min(1, Math.max(0, remainMs / total)) : 0;
}

/**
 * The server's clock minus ours, from an answer received at `receivedAt` (local ms): a running
 * order says how long it still has, so end_at − remain is the server's "now" when it answered.
 */
export function clockOffset(orders: readonly Pick<SecondsOrder, "end_at" | "remain_milli_seconds" | "status">[], receivedAt: number): number | null {
  const o = orders.find((x) => x.status === 1 && x.remain_milli_seconds > 0);
  return o ? o.end_at - o.remain_milli_seconds - receivedAt : null;
}

// ── running orders: the list, the settlement events and what stays on screen ────────────────────

/**
 * A finished contract stays in the running list with its result this long (or until its owner
 * dismisses it), so the result is seen on the trade screen without opening the contract.
 */
export const SETTLED_KEEP_MS = 10 * 60_000;

export interface RunningState {
  /** ids seen running or settling (only those are shown once they settle) */
  seen: ReadonlySet<number>;
  /** settled or revoked contracts and when this screen learnt of it (local ms) */
  closed: ReadonlyMap<number, { order: SecondsOrder; at: number }>;
  /** finished contracts their owner dismissed from the list */
  dismissed: ReadonlySet<number>;
}

export const emptyRunning = (): RunningState => ({ seen: new Set(), closed: new Map(), dismissed: new Set() });

/** The owner dismissed a finished contract: it leaves the running list (a running one cannot be dismissed). */
export function onDismiss(state: RunningState, id: number): RunningState {
  if (!state.closed.has(id) || state.dismissed.has(id)) return state;
  return { ...state, dismissed: new Set([...state.dismissed, id]) };
}

/** A fresh answer of the running list: remembers what runs, and notes contracts that finished since. */
export function onRunningList(state: RunningState, rows: readonly SecondsOrder[], now: number): RunningState {
  const seen = new Set(state.seen);
  const closed = new Map(state.closed);
  for (const r of rows) {
    if (r.status === 1 || r.status === 2) seen.add(r.id);
    else if (seen.has(r.id) && !closed.has(r.id)) closed.set(r.id, { order: r, at: now });
  }
  return { ...state, seen, closed };
}

/** A `closed_microorder` event (or the answer of a submit that was refused later): the final record replaces the running one. */
export function onClosed(state: RunningState, order: SecondsOrder, now: number): RunningState {
  if (state.closed.get(order.id)?.order.status === order.status) return state;
  const seen = new Set(state.seen);
  seen.add(order.id);
  const closed = new Map(state.closed);
  closed.set(order.id, { order, at: state.closed.get(order.id)?.at ?? now });
  return { ...state, seen, closed };
}

/**
 * What the running list shows: every running or settling contract of the list, each replaced by
 * its final record once that is known, which stays for SETTLED_KEEP_MS or until dismissed; newest first.
 */
export function runningView(state: RunningState, rows: readonly SecondsOrder[], now: number): SecondsOrder[] {
  const byId = new Map<number, SecondsOrder>();
  for (const r of rows) if (r.status === 1 || r.status === 2) byId.set(r.id, r);
  for (const [id, c] of state.closed) {
    if (now - c.at < SETTLED_KEEP_MS && !state.dismissed.has(id)) byId.set(id, c.order);
    else byId.delete(id);
  }
  return [...byId.values()].sort((a, b) => b.created_at - a.created_at || b.id - a.id);
}

/** Whether the list must be fetched again soon: a contract is settling (or its time is up) and its final record has not arrived. */
export function awaitingResult(view: readonly SecondsOrder[], serverNow: number): boolean {
  return view.some((o) => phaseOf(o, serverNow).phase === "settling");
}
