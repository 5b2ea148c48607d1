/**
 * Leveraged contracts as money (DESIGN §9). The house (treasury) is the counterparty at the pair's
 * index price; margin is isolated per position in the user's `lever` account.
 *
 * Units: prices are the pair's price ticks (10^-priceDecimals of the quote), a lot is `sizeUnits`
 * minimal units of the base coin, and money is minimal units of the quote (USDT). The value of
 * `lots` at `price` is price × lots × sizeUnits × 10^(quoteScale − priceDecimals − baseScale),
 * held below as the exact fraction num/den; every rounding to minimal units goes the house's way
 * and is stated where it happens:
 *  - margin = value(open) / leverage, rounded UP (the user posts the whole margin);
 *  - fees = value × rate, rounded UP;
 *  - P/L = the signed value of the price move, rounded DOWN (a gain is cut, a loss is whole);
 *  - the house holds, at open, the most it can ever pay: the position's value at open (`hold`).
 *    A gain is capped at that hold (a long whose index doubles is closed at the cap; a short can
 *    never gain more than its value anyway), so the house can always pay what it owes.
 *  - a loss is capped at the position's collateral (margin minus overnight fees paid): the
 *    user never loses more than the margin, and a close fee is charged only from what is left.
 *
 * Nothing here reads a time, a user or a setting beyond the terms passed in: a close is a pure
 * function of (position, index price, fee rate).
 */

/** 1 long (gains when the index rises), 2 short (spec §7 `type`). */
export type LeverDirection = 1 | 2;

const BPS = 10_000n;

/** How a lot at a price turns into quote minimal units: value = price × lots × sizeUnits × num / den. */
export interface ContractUnits {
  /** Base minimal units in one lot (the pair's `lever_share_num`). */
  sizeUnits: bigint;
  num: bigint;
  den: bigint;
}

/** The position's money, fixed when its hold is taken (minimal units of the quote). */
export interface PositionMoney {
  margin: bigint;
  /** The open fee, booked at once (never returned unless the open is refused or revoked). */
  fee: bigint;
  /** The house's hold: the most it can pay this position. */
  hold: bigint;
}

/** What a close needs to know about a position. */
export interface Position {
  direction: LeverDirection;
  /** The index (in ticks) the position opened at. */
  openPrice: bigint;
  lots: bigint;
  margin: bigint;
  hold: bigint;
  /** Overnight fees taken from the margin so far. */
  overnight: bigint;
}

/** The result of closing a position at a price. */
export interface CloseOutcome {
  /** The user's P/L before the close fee: rounded down, capped at +hold and at −collateral. */
  pnl: bigint;
  /** The close fee actually charged (never more than what is left of the collateral after the loss). */
  fee: bigint;
  /** What goes back to the user's available lever balance (≥ 0). */
  payout: bigint;
}

export type LeverRole = "user" | "fees" | "house";

/** One leg of a movement: a role's change of available and frozen funds. */
export interface LeverLeg {
  role: LeverRole;
  dAvailable: bigint;
  dFrozen: bigint;
}

function pow10(n: number): bigint {
  return 10n ** BigInt(n);
}

/** floor(a / b) for b > 0 (BigInt division truncates toward zero). */
export function floorDiv(a: bigint, b: bigint): bigint {
  if (b <= 0n) throw new RangeError("divisor must be positive");
  const q = a / b;
  return a % b !== 0n && a < 0n ? q - 1n : q;
}

/** ceil(a / b) for b > 0. */
export function ceilDiv(a: bigint, b: bigint): bigint {
  return -floorDiv(-a, b);
}

function checkBps(name: string, bps: number, max = 100_000): void {
  if (!Number.isSafeInteger(bps) || bps < 0 || bps > max) throw new RangeError(`${name} ${bps} bps is out of range`);
}

/** The unit fraction of a pair: digits of its price grid, its coin and its quote currency. */
export function contractUnits(d: { priceDecimals: number; baseScale: number; quoteScale: number }, sizeUnits: bigint): ContractUnits {
  if (sizeUnits <= 0n) throw new RangeError("contract size must be positive");
  const e = d.quoteScale - d.priceDecimals - d.baseScale;
  return e >= 0 ? { sizeUnits, num: pow10(e), den: 1n } : { sizeUnits, num: 1n, den: pow10(-e) };
}

/** price × lots × size × num — the value in units of 1/den of a quote minimal unit. */
function raw(c: ContractUnits, price: bigint, lots: bigint): bigint {
  return price * lots * c.sizeUnits * c.num;
}

/** The value of `lots` at `price` in quote minimal units, rounded as asked. */
export function notional(c: ContractUnits, price: bigint, lots: bigint, round: "down" | "up"): bigint {
  return round === "up" ? ceilDiv(raw(c, price, lots), c.den) : floorDiv(raw(c, price, lots), c.den);
}

/** Margin (rounded up), open fee (rounded up) and the house's hold (the value, rounded up). */
export function openMoney(c: ContractUnits, price: bigint, lots: bigint, leverage: number, feeBps: number): PositionMoney {
  if (price <= 0n) throw new RangeError("price must be positive");
  if (lots <= 0n) throw new RangeError("lots must be positive");
  if (!Number.isSafeInteger(leverage) || leverage < 1) throw new RangeError("leverage must be a positive integer");
  checkBps("fee", feeBps);
  const v = raw(c, price, lots);
  return {
    margin: ceilDiv(v, c.den * BigInt(leverage)),
    fee: ceilDiv(v * BigInt(feeBps), c.den * BPS),
    hold: ceilDiv(v, c.den),
  };
}

/** The signed P/L of a price move, rounded down (uncapped). */
export function rawPnl(c: ContractUnits, direction: LeverDirection, openPrice: bigint, price: bigint, lots: bigint): bigint {
  const move = direction === 1 ? price - openPrice : openPrice - price;
  return floorDiv(move * lots * c.sizeUnits * c.num, c.den);
}

/** What is left of the margin after overnight fees. */
export const collateral = (p: Position): bigint => (p.margin > p.overnight ? p.margin - p.overnight : 0n);

/** P/L capped both ways: at most the house's hold, at least the loss of the whole collateral. */
export function pnlAt(c: ContractUnits, p: Position, price: bigint): bigint {
  const r = rawPnl(c, p.direction, p.openPrice, price, p.lots);
  const col = collateral(p);
  return r > p.hold ? p.hold : r < -col ? -col : r;
}

/** Equity at a price: collateral + P/L (never below zero). */
export function equityAt(c: ContractUnits, p: Position, price: bigint): bigint {
  return collateral(p) + pnlAt(c, p, price);
}

/** Risk rate = equity / used margin, in basis points (rounded down). */
export function riskRateBps(c: ContractUnits, p: Position, price: bigint): bigint {
  if (p.margin <= 0n) return 0n;
  return floorDiv(equityAt(c, p, price) * BPS, p.margin);
}

/** The equity at or below which a position is liquidated: margin × maintenance rate, rounded up. */
export function maintenance(p: Position, maintenanceBps: number): bigint {
  checkBps("maintenance", maintenanceBps, 10_000);
  return ceilDiv(p.margin * BigInt(maintenanceBps), BPS);
}

/**
 * Whether the index liquidates the position: collateral + P/L ≤ maintenance margin. The P/L here is
 * not capped at the hold (a gain that large closes the position at the cap instead), so the rule
 * has exactly one boundary, the liquidation price.
 */
export function liquidates(c: ContractUnits, p: Position, price: bigint, maintenanceBps: number): boolean {
  return collateral(p) + rawPnl(c, p.direction, p.openPrice, price, p.lots) <= maintenance(p, maintenanceBps);
}

/**
 * The forced-liquidation price in ticks: for a long the highest price that liquidates, for a short
 * the lowest (so a long liquidates at index ≤ it, a short at index ≥ it). Null when no positive
 * price liquidates (a long at 1× with no maintenance margin).
 */
export function liquidationPrice(c: ContractUnits, p: Position, maintenanceBps: number): bigint | null {
  // equity(p) ≤ T ⟺ floor(move × k / den) ≤ T − C ⟺ move × k < (T − C + 1) × den, k = lots × size × num.
  const k = p.lots * c.sizeUnits * c.num;
  const x = (maintenance(p, maintenanceBps) - collateral(p) + 1n) * c.den;
  const steps = ceilDiv(x, k);
  if (p.direction === 1) {
    const px = p.openPrice + steps - 1n;
    return px >= 1n ? px : null;
  }
  const px = p.openPrice - steps + 1n;
  return px >= 1n ? px : 1n;
}

/** The price at which a long's gain reaches the house's hold (it is closed there); null for a short. */
export function capPrice(c: ContractUnits, p: Position): bigint | null {
  if (p.direction === 2) return null;
  // smallest price with floor((price − open) × k / den) ≥ hold ⟺ (price − open) × k ≥ hold × den.
  const k = p.lots * c.sizeUnits * c.num;
  return p.openPrice + ceilDiv(p.hold * c.den, k);
}

/** The close fee at a price (value × rate, rounded up), before capping at what is left. */
export function closeFee(c: ContractUnits, p: Position, price: bigint, feeBps: number): bigint {
  checkBps("fee", feeBps);
  return ceilDiv(raw(c, price, p.lots) * BigInt(feeBps), c.den * BPS);
}

/** Closing at a price: capped P/L, the close fee from what is left, the payout. */
export function closeAt(c: ContractUnits, p: Position, price: bigint, feeBps: number): CloseOutcome {
  const pnl = pnlAt(c, p, price);
  const left = collateral(p) + pnl;
  const fullFee = closeFee(c, p, price, feeBps);
  const fee = fullFee < left ? fullFee : left;
  return { pnl, fee, payout: left - fee };
}

/** One day's overnight fee: value at open × daily rate (rounded up), never more than the collateral left. */
export function overnightFee(c: ContractUnits, p: Position, dailyBps: number): bigint {
  checkBps("overnight", dailyBps, 10_000);
  const fee = ceilDiv(raw(c, p.openPrice, p.lots) * BigInt(dailyBps), c.den * BPS);
  const col = collateral(p);
  return fee < col ? fee : col;
}

// ---------------------------------------------------------------- rules (spec §5)

/**
 * Take-profit and stop-loss against a reference price (the index for an open position, the limit
 * price for a pending one): a long's take-profit above it and stop-loss below; a short's the other
 * way round. Null = not set, always valid.
 */
export function stopValid(direction: LeverDirection, kind: "profit" | "loss", stop: bigint | null, reference: bigint): boolean {
  if (stop === null) return true;
  if (stop <= 0n) return false;
  const above = (direction === 1) === (kind === "profit");
  return above ? stop > reference : stop < reference;
}

/**
 * How far the index may move between the price a user confirmed for a market open and the index
 * the server prices it at (margin, fee, the house's hold) before the open is refused: 0.1 %, in
 * basis points. Both directions count: the figures the user saw must be the figures charged, to
 * within this.
 */
export const PRICE_MOVE_TOLERANCE_BPS = 10;

/** Whether `index` differs from the `confirmed` price (both in ticks) by more than `toleranceBps` of the confirmed price. */
export function priceMoved(confirmed: bigint, index: bigint, toleranceBps = PRICE_MOVE_TOLERANCE_BPS): boolean {
  if (confirmed <= 0n) return true;
  checkBps("tolerance", toleranceBps, 10_000);
  const diff = index > confirmed ? index - confirmed : confirmed - index;
  return diff * BPS > confirmed * BigInt(toleranceBps);
}

/** A limit open waits for a better price: a long below the index, a short above it. */
export function limitValid(direction: LeverDirection, target: bigint, index: bigint): boolean {
  return target > 0n && (direction === 1 ? target < index : target > index);
}

/** Whether the index has reached a pending limit open. */
export function limitReached(direction: LeverDirection, target: bigint, index: bigint): boolean {
  return direction === 1 ? index <= target : index >= target;
}

/** Which stop the index has reached, if any (take-profit wins a tie: both cannot hold at one price). */
export function stopHit(direction: LeverDirection, stopProfit: bigint | null, stopLoss: bigint | null, index: bigint): "profit" | "loss" | null {
  if (stopProfit !== null && (direction === 1 ? index >= stopProfit : index <= stopProfit)) return "profit";
  if (stopLoss !== null && (direction === 1 ? index <= stopLoss : index >= stopLoss)) return "loss";
  return null;
}

/** Why a position closes: the user, its take-profit or stop-loss, liquidation, or the gain cap. */
export type CloseReason = "user" | "profit" | "loss" | "liquidation" | "cap";

/**
 * What the sweep does with a trading position at the index: liquidation first (the money is the
 * same as any close at that index; only the label differs), then the gain cap, then TP/SL.
 */
export function sweepVerdict(c: ContractUnits, p: Position & { stopProfit: bigint | null; stopLoss: bigint | null }, index: bigint, maintenanceBps: number): CloseReason | null {
  if (liquidates(c, p, index, maintenanceBps)) return "liquidation";
  if (rawPnl(c, p.direction, p.openPrice, index, p.lots) >= p.hold) return "cap";
  return stopHit(p.direction, p.stopProfit, p.stopLoss, index);
}

// ---------------------------------------------------------------- ledger legs

/** Open: margin frozen and fee paid from the user's available; the house freezes its hold. */
export function openLegs(m: PositionMoney): LeverLeg[] {
  return [
    { role: "user", dAvailable: -(m.margin + m.fee), dFrozen: m.margin },
    { role: "fees", dAvailable: m.fee, dFrozen: 0n },
    { role: "house", dAvailable: -m.hold, dFrozen: m.hold },
  ];
}

/** A refused or revoked open: everything the open held goes back. */
export function refundLegs(m: PositionMoney): LeverLeg[] {
  return openLegs(m).map((l) => ({ role: l.role, dAvailable: -l.dAvailable, dFrozen: -l.dFrozen }));
}

/** An overnight fee, taken from the frozen margin. */
export function overnightLegs(fee: bigint): LeverLeg[] {
  return [
    { role: "user", dAvailable: 0n, dFrozen: -fee },
    { role: "fees", dAvailable: fee, dFrozen: 0n },
  ];
}

/** Close: the collateral and the house's hold are released, the P/L and fee paid, in one movement. */
export function closeLegs(p: Position, o: CloseOutcome): LeverLeg[] {
  const col = collateral(p);
  // What the house pays the user beyond the collateral (negative = the house gains).
  const housePays = o.payout + o.fee - col;
  return [
    { role: "user", dAvailable: o.payout, dFrozen: -col },
    { role: "fees", dAvailable: o.fee, dFrozen: 0n },
    { role: "house", dAvailable: p.hold - housePays, dFrozen: -p.hold },
  ];
}
