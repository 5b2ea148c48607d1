/**
 * Leveraged positions in D1 (DESIGN §9). Submitting one holds its money FIRST, in one ledger
 * movement keyed by the position (`lever:{id}:open`: margin frozen and the open fee booked from the
 * user's lever account, the house's hold — the most it can pay — frozen in the treasury, whose
 * trigger refuses an overdraft), together with the position's row (status 0, held). THEN the pair
 * object accepts it (index, exposure, count → pending or trading). If the object refuses,
 * everything is returned in one movement keyed `lever:{id}:refund` (status 5). If the Worker dies
 * in between, the reconciler (reconcileHeldPositions) asks the object: known → its state; unknown
 * → the object tombstones it first, then the refund. Opens of limits, closes, revokes, overnight
 * fees and stops reach D1 from the pair object's outbox (durable/pair/outbox.ts).
 *
 * A market open's money (margin, fee, the house's hold) is priced at the index the object quoted
 * just before the hold; the position opens at the index when the object accepts it, a moment
 * later (a limit open's money is priced at its limit price and it opens at the index that reached
 * it). Every later figure — P/L, risk rate, liquidation price — uses the margin actually held and
 * the open price actually recorded, so the maths stays exact whichever way the index moved.
 */
import { formatUnits, formatUnitsTrim, parseUnits } from "../../../schemas/money.ts";
import { leverStatusNames, type LeverBatchClose, type LeverPosition, type LeverPositionDetail, type LeverSubmit } from "../../../schemas/lever.ts";
import {
  capPrice,
  closeAt,
  contractUnits,
  limitValid,
  liquidationPrice,
  PRICE_MOVE_TOLERANCE_BPS,
  priceMoved,
  openLegs,
  openMoney,
  pnlAt,
  refundLegs,
  riskRateBps,
  stopValid,
  type LeverDirection,
  type PositionMoney,
} from "../../../durable/engine/margin.ts";
import type { LeverAcceptInput, LeverCommandResult } from "../../../durable/pair/desks/lever.ts";
import { takenIn, withNewId } from "../../lib/ids.ts";
import { ApiError } from "../../lib/errors.ts";
import { HOUSE_ACCOUNT, TREASURY } from "../../lib/guarded.ts";
import { classifyBatchError, movementsStatements, SYSTEM } from "../../lib/ledger.ts";
import { userBalance } from "../wallet/object-reads.ts";
import { drainHoldingPairs, orderPair, pairById, pairFor, pairStub, rememberedPairById, type PairRow } from "../spot/pairs.ts";
import { recordHolds, treasuryRecordHolds, type Hold, type HoldSource } from "../ledger/holds.ts";
import { formatShanghai } from "../../lib/time.ts";
import {
  allLeverSettings,
  forgetLeverSettings,
  LEVER_TERMS_GUARD,
  leverGuardBinds,
  openLeverSettings,
  rememberedLeverSettings,
  settingsOut,
  type LeverSettings,
} from "./config.ts";
import { carried, LIVE_TRADER_USER_ID, SessionGone, sessionProof } from "../../lib/auth.ts";
import type { SessionGuard } from "../../lib/context.ts";
import { leverEntries, leverKeys } from "./ledger.ts";
import { accountsOnObjects, accountStub } from "../../lib/accounts.ts";
import { LEVER_FEE_HOLD, LEVER_HOLD, leverHold, leverShard, leverTermsKey, type ObjectsPositionRow } from "../../../durable/pair/desks/lever-objects.ts";
import { holdOnObjects, refundOnObjects, refuseOnObjects } from "./objects.ts";
import { isolateMap } from "../../lib/caches.ts";

/** An open's batch that met an id taken in the same millisecond (the open movement's key carries it). */
const POSITION_TAKEN = takenIn("lever_positions");
/** A held position the object has not confirmed after this long is asked about by the reconciler. */
export const HELD_GRACE_MS = 30_000;

const SELECT = `SELECT l.*, p.price_decimals, p.currency_id AS coin_id, p.legal_id, b.name AS base, b.scale AS base_scale, q.name AS quote, q.scale AS quote_scale
  FROM lever_positions l JOIN pairs p ON p.id = l.pair_id JOIN currencies b ON b.id = p.currency_id JOIN currencies q ON q.id = p.legal_id`;

type Row = Record<string, number | string | null>;

const n = (v: number | string | null | undefined): number | null => (v === null || v === undefined ? null : Number(v));
const b = (v: number | string | null | undefined): bigint => BigInt(v ?? 0);

/** A D1 row as the API shows it; `index` (ticks) gives a trading position its live P/L, risk rate and liquidation price. */
export function positionOut(r: Row, index: number | null): LeverPosition {
  const pd = Number(r.price_decimals);
  const qs = Number(r.quote_scale);
  const price = (v: number | string | null | undefined) => (v === null || v === undefined ? null : formatUnits(BigInt(v), pd));
  const money = (v: number | string | bigint | null | undefined) => formatUnits(typeof v === "bigint" ? v : b(v), qs);
  const dbStatus = Number(r.status);
  // Held (0): the object is accepting it, or accepted it a moment ago (its acceptance reaches D1 with
  // the object's next drain batch): a limit open reads as pending, a market open as trading (its open
  // price shows once D1 has it). Closing (3) only exists in the object.
  const status = (dbStatus === 0 ? (r.target_price === null ? 2 : 1) : dbStatus) as LeverPosition["status"];
  const c = contractUnits({ priceDecimals: pd, baseScale: Number(r.base_scale), quoteScale: qs }, b(r.share_units));
  const p = {
    direction: Number(r.type) as LeverDirection,
    openPrice: b(r.open_price),
    lots: b(r.lots),
    margin: b(r.margin),
    hold: b(r.hold),
    overnight: b(r.overnight),
  };
  const live = status === 2 && r.open_price !== null;
  const ix = live && index !== null ? BigInt(index) : null;
  let profit: string | null = null;
  if (status === 4) profit = money(r.profit);
  else if (ix !== null) profit = money(pnlAt(c, p, ix));
  const liq = live ? liquidationPrice(c, p, Number(r.maintenance_bps)) : null;
  const now = ix !== null ? closeAt(c, p, ix, Number(r.fee_bps)) : null;
  const cap = live ? capPrice(c, p) : null;
  return {
    id: Number(r.id),
    type: p.direction,
    symbol_name: `${r.base}/${r.quote}`,
    match_id: Number(r.pair_id),
    currency_id: Number(r.coin_id),
    legal_id: Number(r.legal_id),
    status,
    status_name: leverStatusNames[status],
    share: Number(r.lots),
    lever_share_num: formatUnitsTrim(b(r.share_units), Number(r.base_scale)),
    multiple: Number(r.multiple),
    target_price: price(r.target_price),
    open_price: price(r.open_price),
    close_price: price(r.close_price),
    index_price: live && index !== null ? formatUnits(BigInt(index), pd) : null,
    margin: money(r.margin),
    trade_fee: money(r.fee),
    overnight_fee: money(r.overnight),
    close_fee: r.close_fee === null ? null : money(r.close_fee),
    stop_profit: price(r.stop_profit),
    stop_loss: price(r.stop_loss),
    profit,
    net_profit:
      status === 4
        ? money(b(r.profit) - b(r.close_fee) - b(r.overnight) - b(r.fee))
        : now !== null
          ? money(now.payout - b(r.margin) - b(r.fee))
          : null,
    close_fee_now: now === null ? null : money(now.fee),
    payout_now: now === null ? null : money(now.payout),
    risk_rate: ix !== null ? formatUnits(riskRateBps(c, p, ix), 2) : null,
    force_price: liq === null ? null : formatUnits(liq, pd),
    gain_cap: money(r.hold),
    cap_price: cap === null ? null : formatUnits(cap, pd),
    close_reason: (r.close_reason as LeverPosition["close_reason"]) ?? null,
    create_time: Number(r.created_at),
    create_time_format: formatShanghai(Number(r.created_at)),
    open_time: n(r.open_at),
    close_time: n(r.closed_at),
  };
}

/** A price typed by a user, in the pair's ticks: null when absent, "" or 0 (allowed only where `optional`). */
function ticksOf(v: string | null | undefined, pair: PairRow, field: string): number | null {
  if (v === undefined || v === null || v.trim() === "") return null;
  const t = parseUnits(v, pair.priceDecimals);
  if (t === null) throw new ApiError("price_tick", 400, { tick: formatUnits(1n, pair.priceDecimals) });
  if (t === 0n) return null;
  if (t < 0n || t > BigInt(Number.MAX_SAFE_INTEGER)) throw new ApiError("invalid_field", 400, { field });
  return Number(t);
}

/**
 * How long an open may be priced on the index the pair object last told this isolate (a quote, or
 * the open price of an open it accepted) instead of asking it again: one object call less per open.
 * The object re-checks such a price when it accepts (`quotedPrice`): moved beyond the tolerance,
 * it refuses, the hold is refunded and the open is priced again on a quote asked for then.
 */
export const QUOTE_REUSE_MS = 1000;
const lastIndex = isolateMap<number, { tickId: number; price: number; at: number }>();

/** Notes the index the pair object just told this isolate (null: none, forget it). Exported for tests. */
export function noteIndex(pairId: number, q: { tickId: number; price: number } | null): void {
  if (q) lastIndex.set(pairId, { tickId: q.tickId, price: q.price, at: Date.now() });
  else lastIndex.delete(pairId);
}

/** The index of a pair now (recorded as a tick if due) as the object quotes it, or null; noted for reuse. */
async function quoteOf(env: Env, pairId: number): Promise<{ tickId: number; price: number } | null> {
  const q = await pairStub(env, pairId).leverQuote(pairId);
  noteIndex(pairId, q);
  return q;
}

/** The index to price an open on, in ticks, or no_market_price: the one noted a moment ago (`reused`), else asked for now. */
async function indexOf(env: Env, pair: PairRow, fresh: boolean): Promise<{ tickId: number; price: number; reused: boolean }> {
  const known = lastIndex.get(pair.id);
  if (!fresh && known && Date.now() - known.at <= QUOTE_REUSE_MS) return { tickId: known.tickId, price: known.price, reused: true };
  const q = await quoteOf(env, pair.id);
  if (!q) throw new ApiError("no_market_price", 409);
  return { ...q, reused: false };
}

/** Checks lots (bounds and the lot multiple) and leverage against the pair's settings (spec §5), with messages naming the bounds. */
function checkTerms(s: LeverSettings, share: number, multiple: number): void {
  if (!Number.isSafeInteger(share) || share < s.minLots || share > s.maxLots) throw new ApiError("lever_lots", 400, { min: s.minLots, max: s.maxLots });
  if (share % s.lotStep !== 0) throw new ApiError("lever_lot_step", 400, { step: s.lotStep });
  if (!Number.isSafeInteger(multiple) || !s.multiples.includes(multiple)) throw new ApiError("lever_multiple", 400, { multiples: s.multiples.join(", ") });
}

/** Checks a position's stops against a reference price (the index, or the limit price while pending). */
function checkStops(pair: PairRow, direction: LeverDirection, stopProfit: number | null, stopLoss: number | null, reference: number): void {
  const ref = BigInt(reference);
  const shown = formatUnits(ref, pair.priceDecimals);
  if (!stopValid(direction, "profit", stopProfit === null ? null : BigInt(stopProfit), ref)) throw new ApiError("lever_stop_profit", 400, { price: shown });
  if (!stopValid(direction, "loss", stopLoss === null ? null : BigInt(stopLoss), ref)) throw new ApiError("lever_stop_loss", 400, { price: shown });
}

async function rowById(db: D1Database, userId: number, id: number): Promise<Row | null> {
  return db.prepare(`${SELECT} WHERE l.id = ? AND l.user_id = ?`).bind(id, userId).first<Row>();
}

/**
 * `ACCOUNTS=objects`: a position's D1 row arrives with its pair's drain (the open wrote none), so the
 * pairs of the user's open positions (their margin holds' owners) drain before a read of D1's rows.
 */
async function drainOwnLever(env: Env, userId: number): Promise<void> {
  if (accountsOnObjects(env)) await drainHoldingPairs(env, userId, [LEVER_HOLD]);
}

/** One of the caller's positions as shown now (with the index for a trading one). */
async function shown(env: Env, userId: number, id: number): Promise<LeverPosition> {
  const r = await rowById(env.DB, userId, id);
  if (!r) throw new ApiError("order_not_found", 404);
  let index: number | null = null;
  if (Number(r.status) === 2) index = (await quoteOf(env, Number(r.pair_id)))?.price ?? null;
  return positionOut(r, index);
}

/**
 * The price a closed position's rule compared the index with, in ticks, from the position as D1
 * holds it at its close (margin less the overnight fees taken, open price, stops): the liquidation
 * price, the take-profit, the stop-loss or the gain cap's price. Null for a close by its owner, a
 * revoke, or a position not closed.
 */
export function closeTrigger(r: Row): bigint | null {
  if (Number(r.status) !== 4 || r.open_price === null) return null;
  const c = contractUnits({ priceDecimals: Number(r.price_decimals), baseScale: Number(r.base_scale), quoteScale: Number(r.quote_scale) }, b(r.share_units));
  const p = { direction: Number(r.type) as LeverDirection, openPrice: b(r.open_price), lots: b(r.lots), margin: b(r.margin), hold: b(r.hold), overnight: b(r.overnight) };
  switch (r.close_reason) {
    case "liquidation":
      return liquidationPrice(c, p, Number(r.maintenance_bps));
    case "cap":
      return capPrice(c, p);
    case "profit":
      return r.stop_profit === null ? null : b(r.stop_profit);
    case "loss":
      return r.stop_loss === null ? null : b(r.stop_loss);
    default:
      return null;
  }
}

/**
 * One of the caller's positions with what makes it checkable (issue #20 §3): the index ticks it
 * opened and closed at and the price its closing rule crossed. Another user's id reads as not found.
 */
export async function positionDetail(env: Env, userId: number, id: number): Promise<LeverPositionDetail> {
  await drainOwnLever(env, userId);
  const r = await rowById(env.DB, userId, id);
  if (!r) throw new ApiError("not_found", 404);
  let index: number | null = null;
  if (Number(r.status) === 2) index = (await quoteOf(env, Number(r.pair_id)))?.price ?? null;
  const trigger = closeTrigger(r);
  return {
    ...positionOut(r, index),
    open_tick_id: n(r.open_tick_id),
    close_tick_id: Number(r.status) === 4 ? n(r.close_tick_id) : null,
    trigger_price: trigger === null ? null : formatUnits(trigger, Number(r.price_decimals)),
  };
}

const refusalError = { no_market_price: "no_market_price", exposure: "lever_exposure", too_many: "lever_too_many", tombstoned: "try_again" } as const;

/** How an open proves its session (worker/lib/auth.ts `requireTrader`); absent when the caller already checked it in D1. */
export interface OpenSession {
  /** A session hint not yet confirmed by D1 in this request: the freeze batch checks it (`LIVE_TRADER_USER_ID`). */
  guard?: SessionGuard;
}

/** A freeze batch found a remembered setting changed (config.ts `LEVER_TERMS_GUARD`): nothing was written. */
class StaleSettings extends Error {}

interface HeldPosition {
  id: number;
  pair: PairRow;
  s: LeverSettings;
  money: PositionMoney;
  price: number;
  target: number | null;
  stopProfit: number | null;
  stopLoss: number | null;
  /** The index the hold was priced on when it came from this isolate's memory (the object re-checks it), else null. */
  quotedPrice: number | null;
  /** The index the owner confirmed (a market open from the app), re-checked by the object with a remembered index. */
  confirmed: number | null;
  /** `ACCOUNTS=objects`: the settings it was priced on (the pair object compares them) and the D1 row its acceptance carries to the drain. */
  objects?: { terms: string; row: ObjectsPositionRow };
}

/** The object refused an open priced on a remembered index that has moved since: refunded, to be priced again. */
const REQUOTE = Symbol("requote");
/** `ACCOUNTS=objects`: the object refused an open priced on settings it no longer has (an operator's edit): released, to be priced again on D1's. */
const STALE_TERMS = Symbol("stale terms");

/**
 * Opens a position: validate, hold in D1, then the pair object; refund if the object refuses. The
 * pair's settings may come from the isolate's memory: the batch re-checks them, and a refusal
 * priced on them is priced again on D1's before it is answered, so the answer is the one D1's
 * settings give.
 */
export async function submitPosition(env: Env, userId: number, input: LeverSubmit, now = Date.now(), session: OpenSession = {}): Promise<LeverPosition> {
  let requoted = 0;
  let stale = 0;
  for (;;) {
    const pass = requoted;
    let h: HeldPosition;
    for (let round = 0; ; round++) {
      const seen = { remembered: false };
      try {
        h = await holdPosition(env, userId, input, now, session, round > 0, seen, pass > 0);
        break;
      } catch (err) {
        if (err instanceof StaleSettings) {
          forgetLeverSettings();
          if (round < 3) continue;
          throw new ApiError("try_again", 503);
        }
        // A refusal priced on remembered settings or a remembered index: price it again on D1's and the object's.
        if (err instanceof ApiError && (seen.remembered || (err as ApiError & { reusedIndex?: boolean }).reusedIndex) && round === 0) continue;
        throw err;
      }
    }
    // Held: whatever the object answers now is final (a refusal is refunded, never priced again),
    // except that an open priced on a remembered index that moved since is priced again, once, on a fresh quote.
    const r = await acceptPosition(env, userId, input, h, now);
    if (r === STALE_TERMS) {
      forgetLeverSettings();
      if (++stale >= 3) throw new ApiError("try_again", 503);
      continue;
    }
    if (r !== REQUOTE) return r;
    if (requoted++ > 0) throw new ApiError("try_again", 503);
  }
}

/** Validates and prices an open at the index the object quotes now, and holds its money with its row in one D1 batch (status 0). */
async function holdPosition(
  env: Env,
  userId: number,
  input: LeverSubmit,
  now: number,
  session: OpenSession,
  fresh: boolean,
  seen: { remembered: boolean },
  freshIndex: boolean,
): Promise<HeldPosition> {
  const db = env.DB;
  // Objects mode: the pair's state is the pair object's (no D1 read of the row on the way: spot/pairs.ts).
  const pair = await orderPair(env, input.currency_id, input.legal_id).catch(() => {
    throw new ApiError("lever_pair_off");
  });
  const { settings: s, raw } = await rememberedLeverSettings(db, pair, fresh, seen, now);
  checkTerms(s, input.share, input.multiple);
  const direction = input.type;
  const target = ticksOf(input.target_price, pair, "target_price");
  const stopProfit = ticksOf(input.stop_profit, pair, "stop_profit");
  const stopLoss = ticksOf(input.stop_loss, pair, "stop_loss");
  // A market open from the app carries the index its owner confirmed: priced at another one, it is
  // refused. A client that sends none (a script) opens at the index, as it always did.
  const confirmed = target === null ? ticksOf(input.index_price, pair, "index_price") : null;
  const index = await indexOf(env, pair, fresh || freshIndex);
  // A refusal on a remembered index is decided again on a quote asked for now (the caller retries).
  const refuse = (err: ApiError) => Object.assign(err, { reusedIndex: index.reused });
  if (confirmed !== null && priceMoved(BigInt(confirmed), BigInt(index.price))) {
    throw refuse(new ApiError("price_moved", 409, {
      confirmed: formatUnits(BigInt(confirmed), pair.priceDecimals),
      price: formatUnits(BigInt(index.price), pair.priceDecimals),
      tolerance: formatUnitsTrim(BigInt(PRICE_MOVE_TOLERANCE_BPS), 2),
    }));
  }
  if (target !== null && !limitValid(direction, BigInt(target), BigInt(index.price))) {
    throw refuse(new ApiError("lever_limit_price", 400, { price: formatUnits(BigInt(index.price), pair.priceDecimals) }));
  }
  const price = target ?? index.price;
  try {
    checkStops(pair, direction, stopProfit, stopLoss, price);
  } catch (err) {
    throw err instanceof ApiError && target === null ? refuse(err) : err;
  }
  const c = contractUnits(pair, s.sizeUnits);
  const money = openMoney(c, BigInt(price), BigInt(input.share), input.multiple, s.feeBps);
  if (money.margin > BigInt(Number.MAX_SAFE_INTEGER) || money.hold > BigInt(Number.MAX_SAFE_INTEGER)) throw new ApiError("amount_too_large");
  if (money.hold > s.pairExposure) throw new ApiError("lever_exposure", 409);
  const memo = `${pair.base}/${pair.quote} ${direction === 1 ? "long" : "short"} ${input.share}×${input.multiple}`;
  const guard = session.guard && !session.guard.confirmed ? session.guard : null;
  // Balances in the account objects (worker/lib/accounts.ts): the money is held there first (objects.ts), the batch writes only the row.
  const onObjects = accountsOnObjects(env);

  // An open that drew an id taken in the same millisecond wrote nothing (D1: the row's primary key or
  // the movement key; the objects: the house's cover, which every user's opens hold by id): it draws again.
  return withNewId(
    POSITION_TAKEN,
    async (id) => {
      const held = { id, pair, s, money, price, target, stopProfit, stopLoss, quotedPrice: index.reused ? index.price : null, confirmed };
      // The row's columns after its id, user and pair (as the D1 path's insert binds them and the drain inserts them).
      const columns = [
        pair.legalId,
        direction,
        input.share,
        input.multiple,
        s.sizeUnits.toString(),
        price,
        target,
        money.margin.toString(),
        money.fee.toString(),
        money.hold.toString(),
        s.feeBps,
        s.overnightBps,
        s.maintenanceBps,
        stopProfit,
        stopLoss,
        now,
      ] as const;
      if (onObjects) {
        // No D1 write: the session is checked by the user's object with the hold, the settings by the
        // pair object at acceptance, and the row rides in the acceptance's outbox entry to the pair's drain.
        await holdOnObjects(env, userId, pair.id, pair.legalId, id, money, session.guard);
        return { ...held, objects: { terms: leverTermsKey(raw), row: [id, userId, pair.id, ...columns] } };
      }
      // The row's user id comes from the live session when it rests on a hint, its pair id from the
      // settings as D1 holds them now: either gone, and the NOT NULL column fails the whole batch.
      const user = guard ? LIVE_TRADER_USER_ID : "?";
      const userBinds = guard ? [guard.sessionId, guard.userId, now] : [userId];
      try {
        await db.batch([
          // The movement's three legs travel as one JSON statement (movementsStatements: the same rows and checks).
          ...movementsStatements(db, [{ key: leverKeys.open(id), kind: "lever_open", entries: leverEntries(openLegs(money), userId, pair.legalId, memo), now }]),
          db
            .prepare(
              `INSERT INTO lever_positions (id, user_id, pair_id, currency_id, type, lots, multiple, share_units, quote_price, target_price, margin, fee, hold,
                 fee_bps, overnight_bps, maintenance_bps, stop_profit, stop_loss, status, created_at)
               VALUES (?, ${user}, ${LEVER_TERMS_GUARD}, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?)`,
            )
            .bind(id, ...userBinds, ...leverGuardBinds(raw), ...columns),
        ]);
      } catch (err) {
        const msg = String(err);
        if (/NOT NULL constraint failed: lever_positions\.user_id/.test(msg)) throw new SessionGone();
        if (/NOT NULL constraint failed: lever_positions\.pair_id/.test(msg)) throw new StaleSettings();
        if (msg.includes("treasury_overdraft")) throw new ApiError("house_cannot_cover", 409);
        if (classifyBatchError(err) === "insufficient") throw new ApiError("insufficient_balance", 409);
        throw err;
      }
      if (guard) guard.confirmed = true;
      return held;
    },
    now,
  );
}

/**
 * The second step: the pair object accepts (→ pending or trading) or refuses (→ refund, status 5,
 * the error). The answer is built from what the batch wrote and the object answered, with the
 * index the object opened it at (read back from D1 only when D1 holds something else already:
 * the reconciler, or a close that got there first).
 */
async function acceptPosition(env: Env, userId: number, input: LeverSubmit, h: HeldPosition, now: number): Promise<LeverPosition | typeof REQUOTE | typeof STALE_TERMS> {
  const db = env.DB;
  const { pair, s, money, id } = h;
  const accept: LeverAcceptInput = {
    pairId: pair.id,
    positionId: id,
    userId,
    currencyId: pair.legalId,
    type: input.type,
    lots: input.share,
    sizeUnits: s.sizeUnits.toString(),
    margin: money.margin.toString(),
    fee: money.fee.toString(),
    hold: money.hold.toString(),
    feeBps: s.feeBps,
    overnightBps: s.overnightBps,
    maintenanceBps: s.maintenanceBps,
    targetPrice: h.target,
    stopProfit: h.stopProfit,
    stopLoss: h.stopLoss,
    pairExposure: s.pairExposure.toString(),
    maxPositions: s.maxPositions,
    quotedPrice: h.quotedPrice,
    confirmedPrice: h.confirmed,
    ...(h.objects ? { terms: h.objects.terms, row: h.objects.row } : {}),
  };
  const r = await pairStub(env, pair.id).acceptLever(accept);
  if (!r.ok) {
    // Objects mode: no row was written: both holds back, and the revoked row D1's path leaves, but for
    // the refusals D1's path makes before its batch (stale settings, a closed pair), which leave none.
    if (h.objects) await refuseOnObjects(env, userId, id, money.hold > 0n, r.code === "stale_terms" || r.code === "pair_off" ? null : h.objects.row, now);
    else if (accountsOnObjects(env)) await refundOnObjects(env, id, userId, money.hold > 0n, now);
    else await refund(db, id, userId, pair.legalId, money, now);
    if (r.code === "stale_terms") return STALE_TERMS;
    if (r.code === "pair_off") throw new ApiError("lever_pair_off");
    if (r.code === "requote") {
      noteIndex(pair.id, null);
      return REQUOTE;
    }
    if (r.code === "too_many") throw new ApiError("lever_too_many", 409, { max: s.maxPositions });
    throw new ApiError(refusalError[r.code], 409);
  }
  // Accepted now: D1's row learns its state in the object's next drain batch (its outbox entry was
  // written with the acceptance), so the answer needs no D1 round trip. One accepted before (a
  // retry) is noted here, as the reconciler would.
  const noted =
    r.fresh ||
    // Objects mode: D1's row arrives with the drain, which carries the object's state to it.
    h.objects !== undefined ||
    (
      await db
        .prepare("UPDATE lever_positions SET status = ?, open_price = ?, open_tick_id = ?, open_at = ? WHERE id = ? AND status = 0")
        .bind(r.status, r.openPrice, r.openTickId, r.openAt, id)
        .run()
    ).meta.changes === 1;
  // A trading position opened at the index of this moment: the next open may be priced on it.
  if (r.status === 2 && r.openPrice !== null && r.openTickId !== null) noteIndex(pair.id, { tickId: r.openTickId, price: r.openPrice });
  // Pending or trading as the object answered; closed or closing already (a close reached D1 first) is read back.
  if (!noted || (r.status !== 1 && r.status !== 2)) return shown(env, userId, id);
  const row: Row = {
    id,
    user_id: userId,
    pair_id: pair.id,
    currency_id: pair.legalId,
    type: input.type,
    lots: input.share,
    multiple: input.multiple,
    share_units: s.sizeUnits.toString(),
    quote_price: h.price,
    target_price: h.target,
    margin: money.margin.toString(),
    fee: money.fee.toString(),
    hold: money.hold.toString(),
    fee_bps: s.feeBps,
    overnight_bps: s.overnightBps,
    maintenance_bps: s.maintenanceBps,
    overnight: 0,
    stop_profit: h.stopProfit,
    stop_loss: h.stopLoss,
    open_price: r.openPrice,
    open_tick_id: r.openTickId,
    close_price: null,
    close_tick_id: null,
    close_fee: null,
    profit: null,
    close_reason: null,
    status: r.status,
    created_at: now,
    open_at: r.openAt,
    closed_at: null,
    ...pairColumns(pair),
  };
  // A trading position opened at the index of this moment: that is its live index in the answer.
  return positionOut(row, r.status === 2 ? r.openPrice : null);
}

/** The pair's columns of a position row as `SELECT` joins them (positionOut reads them). */
const pairColumns = (pair: PairRow): Row => ({
  price_decimals: pair.priceDecimals,
  coin_id: pair.currencyId,
  legal_id: pair.legalId,
  base: pair.base,
  base_scale: pair.baseScale,
  quote: pair.quote,
  quote_scale: pair.quoteScale,
});

/** Returns everything a refused open held, once (`lever:{id}:refund`), and marks it revoked. */
async function refund(db: D1Database, id: number, userId: number, currencyId: number, money: PositionMoney, now: number): Promise<boolean> {
  try {
    await db.batch([
      ...movementsStatements(db, [{ key: leverKeys.refund(id), kind: "lever_refund", entries: leverEntries(refundLegs(money), userId, currencyId, `refund #${id}`), now }]),
      db.prepare("UPDATE lever_positions SET status = 5, close_reason = 'revoked', closed_at = ? WHERE id = ? AND status = 0").bind(now, id),
    ]);
    return true;
  } catch (err) {
    if (classifyBatchError(err) === "duplicate") return false;
    throw err;
  }
}

/**
 * Positions by id as the owner's `lever_position` event shows them (no index: live P/L fields are
 * null), with their owner. Read from D1 after the change was applied there.
 */
export async function positionsForEvents(db: D1Database, ids: number[]): Promise<{ userId: number; position: LeverPosition }[]> {
  if (ids.length === 0) return [];
  const { results } = await db.prepare(`${SELECT} WHERE l.id IN (${ids.map(() => "?").join(", ")})`).bind(...ids).all<Row>();
  return results.map((r) => ({ userId: Number(r.user_id), position: positionOut(r, null) }));
}

/**
 * A command's answer. Objects mode: the position as the pair object holds it after the command (it
 * drained it to D1 first, so D1's row says the same), with no D1 read; a position the object has no
 * leverage for (taken before session 16), and D1's path: D1's row, read back.
 */
async function answered(env: Env, userId: number, id: number, pair: PairRow, r: LeverCommandResult): Promise<LeverPosition> {
  const p = r.ok ? r.position : undefined;
  if (!p || p.multiple === null || p.multiple === undefined || Number(p.user_id) !== userId) return shown(env, userId, id);
  const row: Row = {
    ...p,
    pair_id: pair.id,
    share_units: p.size_units ?? null,
    ...pairColumns(pair),
  };
  const index = Number(p.status) === 2 ? ((await quoteOf(env, pair.id))?.price ?? null) : null;
  return positionOut(row, index);
}

/** Maps the object's answer to a command into the API's error (or nothing on success). */
function commandError(r: LeverCommandResult, pair: PairRow): ApiError | null {
  if (r.ok) return null;
  const price = r.price === undefined ? "" : formatUnits(BigInt(r.price), pair.priceDecimals);
  switch (r.code) {
    case "not_found":
      return new ApiError("order_not_found", 404);
    case "closing":
      return new ApiError("lever_closing", 409);
    case "not_trading":
      return new ApiError("lever_not_trading", 409);
    case "cancel_failed":
      return new ApiError("lever_cancel_failed", 409);
    case "no_market_price":
      return new ApiError("no_market_price", 409);
    case "stop_profit":
      return new ApiError("lever_stop_profit", 400, { price });
    case "stop_loss":
      return new ApiError("lever_stop_loss", 400, { price });
  }
}

/** The caller's position and its pair, or order_not_found (another user's id reads as not found). */
async function ownPosition(env: Env, userId: number, id: number): Promise<{ row: Row; pair: PairRow }> {
  const row = await rowById(env.DB, userId, id);
  if (!row) throw new ApiError("order_not_found", 404);
  const pair = await pairById(env.DB, Number(row.pair_id));
  if (!pair) throw new ApiError("order_not_found", 404);
  return { row, pair };
}

/**
 * The pair of the caller's position for a command, and whether D1 shows it ended (status 4 or 5).
 * Objects mode: from the position's margin hold in the caller's account object (its owner is the
 * pair), a call that also checks the request's session and the maintenance switch, with no D1
 * statement; a hold not open there (a position closed, or one opened before the cut-over) is looked
 * up in D1 as before. D1's path: D1's row.
 */
async function commandTarget(env: Env, userId: number, id: number, guard: SessionGuard | undefined): Promise<{ pair: PairRow; ended: boolean }> {
  if (accountsOnObjects(env)) {
    const [h] = await carried(guard, accountStub(env, userId).accountHolds(userId, [leverHold(id)], sessionProof(guard)));
    const owner = h?.open ? /^pair:([0-9]+)$/.exec(h.owner ?? "") : null;
    const pair = owner ? await rememberedPairById(env.DB, Number(owner[1]), Date.now(), true) : null;
    if (pair) return { pair, ended: false };
  }
  const { row, pair } = await ownPosition(env, userId, id);
  return { pair, ended: Number(row.status) >= 4 };
}

/** The owner closes a trading position at the index now. */
export async function closePosition(env: Env, userId: number, id: number, guard?: SessionGuard): Promise<LeverPosition> {
  const { pair, ended } = await commandTarget(env, userId, id, guard);
  if (ended) throw new ApiError("order_not_found", 404);
  const r = await pairStub(env, pair.id).leverClose(pair.id, id, userId);
  const err = commandError(r, pair);
  if (err) throw err;
  return answered(env, userId, id, pair, r);
}

/** Closes every trading position of the caller (optionally of one coin), each at the index now. */
export async function batchClose(env: Env, userId: number, q: LeverBatchClose, explain: (err: ApiError) => string) {
  await drainOwnLever(env, userId);
  const { results } = await env.DB.prepare(
    `SELECT l.id FROM lever_positions l JOIN pairs p ON p.id = l.pair_id
      WHERE l.user_id = ?1 AND (l.status = 2 OR (l.status = 0 AND l.target_price IS NULL)) AND p.legal_id = ?2 AND (?3 IS NULL OR p.currency_id = ?3) ORDER BY l.id LIMIT 200`,
  )
    .bind(userId, q.legal_id, q.currency_id ?? null)
    .all<{ id: number }>();
  const closed: LeverPosition[] = [];
  const failed: { id: number; message: string }[] = [];
  for (const { id } of results) {
    try {
      closed.push(await closePosition(env, userId, id));
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      failed.push({ id, message: explain(err) });
    }
  }
  return { closed, failed };
}

/** The owner cancels a pending limit open: revoked, everything it held returned. */
export async function cancelPosition(env: Env, userId: number, id: number, guard?: SessionGuard): Promise<LeverPosition> {
  const { pair, ended } = await commandTarget(env, userId, id, guard);
  if (ended) throw new ApiError("lever_cancel_failed", 409);
  const r = await pairStub(env, pair.id).leverCancel(pair.id, id, userId);
  const err = commandError(r, pair);
  if (err) throw err;
  return answered(env, userId, id, pair, r);
}

/** The owner sets both stops (absent / "" / 0 clears one), checked against the index or the limit price. */
export async function setStops(
  env: Env,
  userId: number,
  id: number,
  stopProfitText: string | null | undefined,
  stopLossText: string | null | undefined,
  guard?: SessionGuard,
): Promise<LeverPosition> {
  const { pair, ended } = await commandTarget(env, userId, id, guard);
  const stopProfit = ticksOf(stopProfitText, pair, "stop_profit");
  const stopLoss = ticksOf(stopLossText, pair, "stop_loss");
  if (ended) throw new ApiError("order_not_found", 404);
  const r = await pairStub(env, pair.id).leverSetStops(pair.id, id, userId, stopProfit, stopLoss);
  const err = commandError(r, pair);
  if (err) throw err;
  return answered(env, userId, id, pair, r);
}

/** POST /api/lever/my_trade: the caller's positions, newest first, with live P/L for trading ones. */
export async function myTrades(env: Env, userId: number, q: { status?: number; legal_id: number; currency_id?: number; page: number; limit: number }) {
  await drainOwnLever(env, userId);
  const conds = ["l.user_id = ?", "p.legal_id = ?"];
  const args: (number | string)[] = [userId, q.legal_id];
  if (q.currency_id !== undefined) {
    conds.push("p.currency_id = ?");
    args.push(q.currency_id);
  }
  if (q.status !== undefined) {
    // A held row (0) is listed as it reads (positionOut): a limit open as pending, a market open as trading.
    if (q.status === 1) conds.push("(l.status = 1 OR (l.status = 0 AND l.target_price IS NOT NULL))");
    else if (q.status === 2) conds.push("(l.status = 2 OR (l.status = 0 AND l.target_price IS NULL))");
    else {
      conds.push("l.status = ?");
      args.push(q.status);
    }
  }
  const where = `WHERE ${conds.join(" AND ")}`;
  const [total, rows] = await env.DB.batch([
    env.DB.prepare(`SELECT count(*) AS n FROM lever_positions l JOIN pairs p ON p.id = l.pair_id ${where}`).bind(...args),
    env.DB.prepare(`${SELECT} ${where} ORDER BY l.id DESC LIMIT ? OFFSET ?`).bind(...args, q.limit, (q.page - 1) * q.limit),
  ]);
  const list = (rows?.results ?? []) as Row[];
  const indexes = new Map<number, number | null>();
  for (const r of list) {
    const pid = Number(r.pair_id);
    if (Number(r.status) === 2 && !indexes.has(pid)) indexes.set(pid, (await quoteOf(env, pid))?.price ?? null);
  }
  return {
    message: {
      total: Number((total?.results?.[0] as { n: number } | undefined)?.n ?? 0),
      page: q.page,
      limit: q.limit,
      data: list.map((r) => positionOut(r, indexes.get(Number(r.pair_id)) ?? null)),
    },
  };
}

/** GET /api/lever/deal: a pair's settings, its index and the caller's lever balance. */
export async function deal(env: Env, userId: number | null, currencyId: number, legalId: number) {
  const pair = await pairFor(env.DB, currencyId, legalId).catch(() => {
    throw new ApiError("lever_pair_off");
  });
  const s = await openLeverSettings(env.DB, pair);
  const q = await quoteOf(env, pair.id);
  const bal = userId === null ? null : await userBalance(env, userId, pair.legalId, "lever");
  return {
    ...settingsOut(pair, s),
    index_price: q ? formatUnits(BigInt(q.price), pair.priceDecimals) : null,
    price_tolerance: formatUnitsTrim(BigInt(PRICE_MOVE_TOLERANCE_BPS), 2),
    lever_balance: bal ? formatUnits(bal.available, pair.quoteScale) : null,
    lock_lever_balance: bal ? formatUnits(bal.frozen, pair.quoteScale) : null,
  };
}

/**
 * Positions whose money was held but that the pair object never confirmed (the Worker died in
 * between): known to the object → its state; unknown → the object tombstones it first (so it can
 * never be accepted later), then the hold is refunded here, once.
 */
export async function reconcileHeldPositions(env: Env, now = Date.now(), graceMs = HELD_GRACE_MS) {
  const { results } = await env.DB.prepare("SELECT id, user_id, pair_id, currency_id, margin, fee, hold FROM lever_positions WHERE status = 0 AND created_at < ? ORDER BY id LIMIT 200")
    .bind(now - graceMs)
    .all<{ id: number; user_id: number; pair_id: number; currency_id: number; margin: number; fee: number; hold: number }>();
  let refunded = 0;
  let confirmed = 0;
  for (const o of results) {
    const v = await pairStub(env, o.pair_id).leverVerdict(o.pair_id, o.id);
    if (v.verdict === "known") {
      // A later state (closed, revoked) reaches D1 through the outbox; here only the open is noted.
      if (v.status === 1 || v.status === 2) {
        await env.DB.prepare("UPDATE lever_positions SET status = ?, open_price = ?, open_tick_id = ?, open_at = ? WHERE id = ? AND status = 0")
          .bind(v.status, v.openPrice, v.openTickId, v.openAt, o.id)
          .run();
      }
      confirmed++;
      continue;
    }
    const money = { margin: BigInt(o.margin), fee: BigInt(o.fee), hold: BigInt(o.hold) };
    const done = accountsOnObjects(env) ? await refundOnObjects(env, o.id, o.user_id, money.hold > 0n, now) : await refund(env.DB, o.id, o.user_id, o.currency_id, money, now);
    if (done) refunded++;
  }
  return { checked: results.length, confirmed, refunded };
}

/** Overnight fees of today (UTC day) for every pair with settings: once per position and day (cron). */
export async function chargeOvernight(env: Env, now = Date.now()): Promise<number> {
  const day = Math.floor(now / 86_400_000);
  let charged = 0;
  for (const { pair } of await allLeverSettings(env.DB)) charged += await pairStub(env, pair.id).leverOvernight(pair.id, day);
  return charged;
}

/** Every open position's `held` (an expression of its row) in the user's lever account, the house's hold in the treasury. */
async function positionHolds(db: D1Database, held: "margin - overnight" | "margin + fee * (fee_held = 1) - overnight"): Promise<Hold[]> {
  const { results } = await db
    .prepare(
      `SELECT user_id, currency_id, CAST(SUM(${held}) AS TEXT) AS margin, CAST(SUM(hold) AS TEXT) AS hold FROM lever_positions
        WHERE status IN (0, 1, 2, 3) GROUP BY user_id, currency_id`,
    )
    .all<{ user_id: number; currency_id: number; margin: string; hold: string }>();
  const holds: Hold[] = [];
  for (const r of results) {
    holds.push({ userId: r.user_id, currencyId: r.currency_id, account: "lever", units: BigInt(r.margin) });
    holds.push({ userId: TREASURY, currencyId: r.currency_id, account: HOUSE_ACCOUNT, units: BigInt(r.hold) });
  }
  return holds;
}

/**
 * Reconciliation hold source: every position not yet closed or revoked keeps its collateral
 * (margin − overnight fees taken) frozen in the user's lever account and the house's hold frozen
 * in the treasury.
 */
export const leverHolds: HoldSource = {
  name: "lever_positions",
  load: (db) => positionHolds(db, "margin - overnight"),
  // In the account objects the pair takes the open fee from the margin's hold when the position opens;
  // a pending limit open, and a position opened before it did (`fee_held` 1, migrations/0056), keep it
  // there. `fee_held` 2 (a pending limit carried over the cut-over): its fee shard holds the fee, not the user.
  loadObjects: (db) => positionHolds(db, "margin + fee * (fee_held = 1) - overnight"),
  forUser: (db, userId) =>
    recordHolds(db, "SELECT id, currency_id, CAST(margin - overnight AS TEXT) AS units FROM lever_positions WHERE user_id = ?1 AND status IN (0, 1, 2, 3) ORDER BY id", userId, {
      account: "lever",
      purpose: "lever_margin",
      ref: "lever",
    }),
  // The cut-over: each live position's cover becomes its own hold `lever_margin:{id}` in the treasury
  // shard its close pays from (objects mode's `leverShard`), not part of the shards' `migrated` holds.
  // And each pending limit whose open fee D1 took at the request and would give back at a revoke
  // (`fee_held` 2, marked by `carryOverOpenFees` just before): that fee, out of the fee account's
  // available balance, as the hold `lever_fee:{id}` in the fee shard its revoke spends from.
  systemOpeningHolds: async (db) => [
    ...(await treasuryRecordHolds(db, "SELECT id, currency_id, CAST(hold AS TEXT) AS units FROM lever_positions WHERE status IN (0, 1, 2, 3) ORDER BY id", LEVER_HOLD, leverShard)),
    ...(await treasuryRecordHolds(db, "SELECT id, currency_id, CAST(fee AS TEXT) AS units FROM lever_positions WHERE fee_held = 2 AND status IN (0, 1, 2, 3) ORDER BY id", LEVER_FEE_HOLD, leverShard, {
      userId: SYSTEM.fees,
      fromAvailable: true,
    })),
  ],
};
