/**
 * Settlement math: turns engine events into balance deltas in the currencies' minimal units
 * (bigint), ready to become ledger entries. Kept out of the matching hot path on purpose: the core
 * works in ticks and lots (numbers), and only here are amounts scaled by `baseUnitsPerLot` /
 * `quoteUnitsPerTickLot` and fees rounded.
 *
 * Every fill is exactly conserved: per currency, the deltas of buyer, seller and fee account
 * (available + frozen) sum to zero. Fees come out of the asset received (buyer pays in base,
 * seller in quote) and are rounded down: fee = floor(amount · bps / 10000).
 */
import type {
  AccountId,
  DoneEvent,
  FillEvent,
  LimitCommand,
  MarketCommand,
  PairConfig,
  ReservationAsset,
  Side,
} from "./types.ts";
import { baseUnits, quoteUnits } from "./units.ts";

/** Change of one balance (available and frozen) in minimal units. */
export interface BalanceChange {
  available: bigint;
  frozen: bigint;
}

/** Changes of one account in both currencies of the pair. */
export interface AccountDelta {
  account: AccountId;
  base: BalanceChange;
  quote: BalanceChange;
}

/** Deltas of one fill for the three parties. Buyer and seller are never the same account (STP). */
export interface FillSettlement {
  buyer: AccountDelta;
  seller: AccountDelta;
  fee: AccountDelta;
}

/** What an order needs frozen before it reaches the engine. */
export interface Reservation {
  asset: ReservationAsset;
  /** In engine units: notional (tick·lot) for quote, quantity units for base. */
  amount: number;
  /** The same in the asset's minimal units. */
  units: bigint;
}

type Units = Pick<PairConfig, "baseUnitsPerLot" | "quoteUnitsPerTickLot">;
type Fees = Pick<PairConfig, "makerFeeBps" | "takerFeeBps">;

/** floor(amount · bps / 10000) for a non-negative amount. */
export function feeOf(amount: bigint, bps: number): bigint {
  return (amount * BigInt(bps)) / 10000n;
}

/** Fees of one trade: the buyer's in base units, the seller's in quote units. */
export function fillFees(
  pair: Units & Fees,
  takerSide: Side,
  price: number,
  qty: number,
): { buyerFee: bigint; sellerFee: bigint } {
  const buyerBps = takerSide === "buy" ? pair.takerFeeBps : pair.makerFeeBps;
  const sellerBps = takerSide === "sell" ? pair.takerFeeBps : pair.makerFeeBps;
  return {
    buyerFee: feeOf(baseUnits(pair, qty), buyerBps),
    sellerFee: feeOf(BigInt(price) * BigInt(qty) * BigInt(pair.quoteUnitsPerTickLot), sellerBps),
  };
}

function zero(account: AccountId): AccountDelta {
  return { account, base: { available: 0n, frozen: 0n }, quote: { available: 0n, frozen: 0n } };
}

/**
 * Balance deltas of one fill (minimal units).
 * - buyer: quote frozen −reservedPrice·qty, quote available +(reservedPrice − price)·qty (price
 *   improvement back; negative for an unbudgeted market buy paying from available),
 *   base available +qty − buyerFee;
 * - seller: base frozen −qty, quote available +price·qty − sellerFee;
 * - fee account: base +buyerFee, quote +sellerFee.
 */
export function settleFill(pair: Units & Pick<PairConfig, "feeAccount">, fill: FillEvent): FillSettlement {
  const qU = BigInt(pair.quoteUnitsPerTickLot);
  const qty = BigInt(fill.qty);
  const base = qty * BigInt(pair.baseUnitsPerLot);
  const paid = BigInt(fill.price) * qty * qU;
  const reserved = BigInt(fill.buyerReservedPrice) * qty * qU;
  const buyerIsTaker = fill.takerSide === "buy";
  const buyer = zero(buyerIsTaker ? fill.takerOwner : fill.makerOwner);
  const seller = zero(buyerIsTaker ? fill.makerOwner : fill.takerOwner);
  const fee = zero(pair.feeAccount);
  buyer.quote.frozen = -reserved;
  buyer.quote.available = reserved - paid;
  buyer.base.available = base - fill.buyerFee;
  seller.base.frozen = -base;
  seller.quote.available = paid - fill.sellerFee;
  fee.base.available = fill.buyerFee;
  fee.quote.available = fill.sellerFee;
  return { buyer, seller, fee };
}

/** Deltas of a finished order's left-over reservation: frozen → available. */
export function releaseDelta(pair: Units, done: DoneEvent): AccountDelta {
  const d = zero(done.owner);
  const units =
    done.reservationAsset === "base"
      ? baseUnits(pair, done.releasedReservation)
      : quoteUnits(pair, done.releasedReservation);
  const b = done.reservationAsset === "base" ? d.base : d.quote;
  b.frozen = -units;
  b.available = units;
  return d;
}

/**
 * What the caller must freeze before sending an order to the engine: price·qty quote for a
 * limit buy, the budget for a market buy (nothing without a budget), qty base for any sell.
 * Assumes a valid order (the engine re-validates).
 */
export function reservationFor(pair: Units, cmd: LimitCommand | MarketCommand): Reservation {
  if (cmd.side === "sell") return { asset: "base", amount: cmd.qty, units: baseUnits(pair, cmd.qty) };
  const amount = cmd.type === "limit" ? cmd.price * cmd.qty : (cmd.budget ?? 0);
  return { asset: "quote", amount, units: quoteUnits(pair, amount) };
}
