/**
 * What both ways of holding a seconds contract share (D1's ledger in orders.ts, the account objects
 * in objects.ts): contract ids, the stake's bounds, the confirmed index, the refusals, and the
 * contract as the API answers it.
 */
import { formatUnits, formatUnitsTrim, parseUnits } from "../../../schemas/money.ts";
import type { SecondsOrder, SecondsSubmit } from "../../../schemas/seconds.ts";
import { PRICE_MOVE_TOLERANCE_BPS } from "../../../durable/engine/margin.ts";
import { bpsToPercent, type SecondsDirection, type SecondsMoney } from "../../../durable/engine/seconds.ts";
import { ApiError } from "../../lib/errors.ts";
import type { SessionGuard } from "../../lib/context.ts";
import { formatShanghai } from "../../lib/time.ts";
import type { PairRow } from "../spot/pairs.ts";
import type { PayableRow } from "./config.ts";

export type OrderRow = Record<string, number | string | null>;

/** A D1 contract row as the API answers it. Status 1 past its expiry reads as 2 (settling). */
export function orderOut(r: OrderRow, now: number): SecondsOrder {
  const scale = Number(r.scale);
  const pd = Number(r.price_decimals);
  const money = (v: number | string | null | undefined) => formatUnits(BigInt(v ?? 0), scale);
  const endAt = r.end_at === null ? Number(r.created_at) + Number(r.seconds) * 1000 : Number(r.end_at);
  const status = Number(r.status);
  const settled = status === 3;
  return {
    id: Number(r.id),
    type: Number(r.type) as SecondsDirection,
    symbol_name: `${r.base}/${r.quote}`,
    currency_name: String(r.currency_name),
    currency_id: Number(r.currency_id),
    match_id: Number(r.pair_id),
    // A contract revoked before it had an entry tick has none (it never ran).
    open_price: r.open_price === null || r.open_price === undefined ? null : formatUnits(BigInt(r.open_price), pd),
    end_price: settled ? formatUnits(BigInt(r.end_price ?? 0), pd) : null,
    number: money(r.stake),
    fee: money(r.fee),
    seconds: Number(r.seconds),
    profit_ratio: bpsToPercent(Number(r.profit_ratio_bps)),
    fact_profits: settled ? money(r.result) : null,
    status: (status <= 1 ? (now >= endAt ? 2 : 1) : status) as SecondsOrder["status"],
    created_at: Number(r.created_at),
    create_time_format: formatShanghai(Number(r.created_at)),
    end_at: endAt,
    remain_milli_seconds: status <= 1 ? Math.max(0, endAt - now) : 0,
    open_tick_id: r.open_tick_id === null || r.open_tick_id === undefined ? null : Number(r.open_tick_id),
    end_tick_id: settled ? Number(r.end_tick_id) : null,
  };
}

/** The stake of a submit in minimal units, checked against the currency's bounds. */
export function stakeOf(number: string, cur: PayableRow): bigint {
  const stake = parseUnits(number, cur.scale);
  if (stake === null) throw new ApiError("too_many_decimals", 400, { decimals: cur.scale });
  if (stake <= 0n || stake < cur.min || stake > cur.max) {
    throw new ApiError("stake_range", 400, { min: formatUnitsTrim(cur.min, cur.scale), max: formatUnitsTrim(cur.max, cur.scale), currency: cur.name });
  }
  return stake;
}

export const refusalError = { no_market_price: "no_market_price", pair_exposure: "exposure_pair", user_exposure: "exposure_user", tombstoned: "try_again", price_moved: "price_moved", pair_off: "pair_closed", stale_terms: "try_again" } as const;

/** How a submit proves its session (worker/lib/auth.ts `requireTrader`); absent when the caller already checked it in D1. */
export interface SubmitSession {
  /** A session hint not yet confirmed by D1 in this request: the freeze batch checks it (`LIVE_TRADER_USER_ID`). */
  guard?: SessionGuard;
  /** Confirms the session in D1 now, before work no freeze batch guards (a replay). */
  confirm?: () => Promise<void>;
}

/** The index the owner confirmed, in the pair's price ticks (null: none sent); bad precision is refused before anything is held. */
export function confirmedTicks(input: SecondsSubmit, pair: PairRow): number | null {
  if (input.index_price === undefined) return null;
  const t = parseUnits(input.index_price, pair.priceDecimals);
  if (t === null || t <= 0n) throw new ApiError("invalid_field", 400, { field: "index_price" });
  return Number(t);
}

export interface Held {
  id: number;
  /** The index (ticks) the owner confirmed, checked by the pair object at acceptance; null = none sent. */
  confirmed?: number | null;
  type: SecondsDirection;
  money: SecondsMoney;
  ratioBps: number;
  seconds: number;
}

/** A contract just accepted, as its D1 row will read once the pair's drain has run. */
export function acceptedOut(pair: PairRow, cur: PayableRow, h: Held, r: { openTickId: number; openPrice: number; endAt: number }, now: number): SecondsOrder {
  return orderOut(heldRow(pair, cur, h, r, now), Date.now());
}

/** A contract refused or revoked before it ran (status 4, no entry), as D1's row of a refunded one reads. */
export function revokedOut(pair: PairRow, cur: PayableRow, h: Held, createdAt: number): SecondsOrder {
  return orderOut({ ...heldRow(pair, cur, h, { openTickId: 0, openPrice: 0, endAt: 0 }, createdAt), status: 4, open_tick_id: null, open_price: null, end_at: null }, Date.now());
}

function heldRow(pair: PairRow, cur: PayableRow, h: Held, r: { openTickId: number; openPrice: number; endAt: number }, now: number): OrderRow {
  return {
    id: h.id,
    type: h.type,
    pair_id: pair.id,
    currency_id: cur.currencyId,
    stake: h.money.stake.toString(),
    fee: h.money.fee.toString(),
    seconds: h.seconds,
    profit_ratio_bps: h.ratioBps,
    status: 1,
    open_tick_id: r.openTickId,
    open_price: r.openPrice,
    end_tick_id: null,
    end_price: null,
    result: null,
    created_at: now,
    end_at: r.endAt,
    price_decimals: pair.priceDecimals,
    base: pair.base,
    quote: pair.quote,
    currency_name: cur.name,
    scale: cur.scale,
  };
}

/** The refusal of an entry that moved past the tolerance from the index its owner confirmed. */
export function priceMovedError(pair: PairRow, confirmed: number | null, price: number | undefined): ApiError {
  const fmt = (ticks: number) => formatUnits(BigInt(ticks), pair.priceDecimals);
  return new ApiError("price_moved", 409, { confirmed: fmt(confirmed ?? 0), price: fmt(price ?? 0), tolerance: formatUnitsTrim(BigInt(PRICE_MOVE_TOLERANCE_BPS), 2) });
}
