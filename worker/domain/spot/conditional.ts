/**
 * Conditional spot orders (stop-limit, OCO, trailing stop) and cancel-all. Placement follows the
 * limit order's path: the rules are checked here, then ONE D1 batch freezes the funds (movement
 * `spot-freeze:{id}`) with the conditional order's row (and an OCO's limit leg as an ordinary
 * spot order row with the same id), then the pair object watches it (durable/pair/desks/
 * conditional.ts). What fires becomes an ordinary limit order there; its row, fills, state and
 * the hold's moves come back through the object's outbox. Every query is scoped to the caller.
 */
import type { z } from "zod";
import { formatUnits, parseUnits } from "../../../schemas/money.ts";
import { CALLBACK_BPS, CONDITIONAL_LIMITS, type conditionalListQuerySchema, type conditionalOrderSchema, type ConditionalOrderOut } from "../../../schemas/spot-conditional.ts";
import { conditionalHolds, type ConditionalOrder } from "../../../durable/engine/conditional.ts";
import { notionalToQuoteUnits } from "../../../durable/engine/units.ts";
import { PRICE_BAND_BPS } from "../../../durable/engine/index-price.ts";
import { IdTaken, spotOrderId, takenIn, withNewId } from "../../lib/ids.ts";
import { ApiError } from "../../lib/errors.ts";
import { classifyBatchError, movementStatements } from "../../lib/ledger.ts";
import type { HoldSource, Hold, UserHold } from "../ledger/holds.ts";
import { type Trader } from "./orders.ts";
import { accountsOnObjects, accountStub } from "../../lib/accounts.ts";
import { carried, sessionProof } from "../../lib/auth.ts";
import type { AccountHold, ReserveRequest } from "../../../durable/account/types.ts";
import { CHILD_ID_BASE } from "../../../durable/engine/conditional.ts";
import { drainHoldingPairs, pairFor, pairStub, type PairRow } from "./pairs.ts";

type Input = z.output<typeof conditionalOrderSchema>;

const STATUS = ["submitted", "open", "triggered", "cancelled", "rejected"] as const;

/**
 * The open-order limits (schemas/spot-conditional.ts). A benchmark resting thousands of one
 * account's stops raises them with CONDITIONAL_OPEN_LIMIT "perPair,total", honoured only together
 * with DEV_OUTBOX "on" (wrangler.toml deploys DEV_OUTBOX "off" and no CONDITIONAL_OPEN_LIMIT).
 */
export function conditionalLimits(env: { DEV_OUTBOX?: string; CONDITIONAL_OPEN_LIMIT?: string }): { perPair: number; total: number } {
  const raised = env.DEV_OUTBOX === "on" ? /^(\d{1,6}),(\d{1,6})$/.exec(env.CONDITIONAL_OPEN_LIMIT ?? "") : null;
  return raised ? { perPair: Number(raised[1]), total: Number(raised[2]) } : { ...CONDITIONAL_LIMITS };
}

/** The INSERT's status: 0, or NULL (refused by NOT NULL, the whole batch undone) when the user already has `total` open. */
const isOverTotal = (err: unknown) => /NOT NULL constraint failed: spot_conditional_orders\.status/.test(String(err));

/** A price field in the pair's price units, or the error a user should see. */
function priceUnits(pair: PairRow, value: string): number {
  const p = parseUnits(value, pair.priceDecimals);
  if (p === null) throw new ApiError("too_many_decimals", 400, { decimals: pair.priceDecimals });
  if (p <= 0n) throw new ApiError("price_positive");
  if (p > BigInt(Number.MAX_SAFE_INTEGER)) throw new ApiError("amount_too_large");
  return Number(p);
}

/** Which fields each type takes: required ones must be there, the others must not. */
const FIELDS = {
  stop_limit: { price: true, stop_price: true, limit_price: false, callback_bps: false, activation_price: false },
  oco: { price: true, stop_price: true, limit_price: true, callback_bps: false, activation_price: false },
  trailing: { price: true, stop_price: false, limit_price: false, callback_bps: true, activation_price: null },
} as const;

/** The order the rules accept, in engine units (ticks, lots). */
function checkOrder(pair: PairRow, input: Input, last: number | null, id: number, userId: number): ConditionalOrder {
  const rules = FIELDS[input.type];
  for (const [field, need] of Object.entries(rules) as [keyof typeof rules, boolean | null][]) {
    const given = input[field] !== undefined;
    if (need === true && !given) throw new ApiError("cond_field_required", 400, { field });
    if (need === false && given) throw new ApiError("cond_field_unexpected", 400, { field });
  }
  const qty = parseUnits(input.num, pair.qtyDecimals);
  if (qty === null) throw new ApiError("too_many_decimals", 400, { decimals: pair.qtyDecimals });
  if (qty <= 0n) throw new ApiError(input.side === "buy" ? "buy_qty_positive" : "sell_qty_positive");
  if (qty > BigInt(Number.MAX_SAFE_INTEGER)) throw new ApiError("amount_too_large");
  const o: ConditionalOrder = {
    id,
    owner: userId,
    side: input.side,
    type: input.type,
    qty: Number(qty),
    price: priceUnits(pair, input.price!),
    stop: input.stop_price === undefined ? null : priceUnits(pair, input.stop_price),
    limitPrice: input.limit_price === undefined ? null : priceUnits(pair, input.limit_price),
    callbackBps: input.callback_bps ?? null,
    activation: input.activation_price === undefined ? null : priceUnits(pair, input.activation_price),
  };
  if (o.callbackBps !== null && (o.callbackBps < CALLBACK_BPS.min || o.callbackBps > CALLBACK_BPS.max)) throw new ApiError("cond_callback_range", 400, CALLBACK_BPS);
  const buy = o.side === "buy";
  const fmt = (v: number) => formatUnits(BigInt(v), pair.priceDecimals);
  // A stop already met would fire at once: refused, as the rule in words would not hold.
  if (o.stop !== null && last !== null && (buy ? last >= o.stop : last <= o.stop)) throw new ApiError("cond_would_trigger", 409, { last: fmt(last) });
  if (o.type === "oco") {
    // The leg waits on one side of the market and the stop on the other.
    const legFirst = last ?? o.stop!;
    if (buy ? !(o.price < o.stop! && o.price <= legFirst) : !(o.price > o.stop! && o.price >= legFirst)) throw new ApiError("cond_oco_prices");
  }
  if (o.type === "trailing" && o.activation === null && last === null) throw new ApiError("cond_no_price", 409);
  // Each order it may place must be worth the pair's minimum.
  for (const p of o.type === "oco" ? [o.price, o.limitPrice!] : [o.price]) {
    const notional = BigInt(p) * qty;
    if (notional > BigInt(Number.MAX_SAFE_INTEGER)) throw new ApiError("amount_too_large");
    if (notionalToQuoteUnits(notional, pair.quotePerTickLot) < pair.minNotional) throw new ApiError("min_notional", 400, { min: formatUnits(pair.minNotional, pair.quoteScale, 2) });
  }
  return o;
}

interface Row {
  id: number;
  pair_id: number;
  side: "buy" | "sell";
  type: "stop_limit" | "oco" | "trailing";
  qty: number;
  price: number;
  stop_price: number | null;
  limit_price: number | null;
  callback_bps: number | null;
  activation_price: number | null;
  reserved_units: number;
  status: number;
  reason: string | null;
  trigger_price: number | null;
  child_order_id: number | null;
  client_oid: string | null;
  created_at: number;
  currency_id: number;
  legal_id: number;
  base: string;
  quote: string;
  price_decimals: number;
  qty_decimals: number;
}

const ROW_SQL = `SELECT c.*, p.currency_id, p.legal_id, p.price_decimals, p.qty_decimals, b.name AS base, q.name AS quote
  FROM spot_conditional_orders c JOIN pairs p ON p.id = c.pair_id JOIN currencies b ON b.id = p.currency_id JOIN currencies q ON q.id = p.legal_id`;

function out(r: Row): ConditionalOrderOut {
  const price = (v: number | null) => (v === null ? null : formatUnits(BigInt(v), r.price_decimals));
  return {
    id: String(r.id),
    currency_id: r.currency_id,
    legal_id: r.legal_id,
    symbol: `${r.base}/${r.quote}`,
    side: r.side,
    type: r.type,
    num: formatUnits(BigInt(r.qty), r.qty_decimals),
    price: price(r.price)!,
    stop_price: price(r.stop_price),
    limit_price: price(r.limit_price),
    callback_bps: r.callback_bps,
    activation_price: price(r.activation_price),
    status: STATUS[r.status] ?? "submitted",
    reason: r.reason,
    trigger_price: price(r.trigger_price),
    order_id: r.child_order_id === null ? null : String(r.child_order_id),
    leg_order_id: r.type === "oco" ? String(r.id) : null,
    created_at: r.created_at,
  };
}

async function rowById(db: D1Database, userId: number, id: number) {
  return db.prepare(`${ROW_SQL} WHERE c.id = ? AND c.user_id = ?`).bind(id, userId).first<Row>();
}

const isClientOidTaken = (err: unknown) => /UNIQUE constraint failed: spot_conditional_orders\.user_id/.test(String(err));
/** A batch that met an id taken in the same millisecond: the freeze movement's key, the order's or its OCO leg's row. */
const CONDITIONAL_TAKEN = takenIn("spot_conditional_orders", "spot_orders");

/** Places a conditional order: funds frozen with its row in one D1 batch, then watched by the pair object. */
export async function placeConditional(t: Trader, input: Input): Promise<ConditionalOrderOut> {
  const db = t.env.DB;
  const pair = await pairFor(db, input.currency_id, input.legal_id);
  if (accountsOnObjects(t.env)) return placeOnObjects(t, pair, input);
  // Placement writes no session-checked row: the session is confirmed in D1 first.
  await t.confirm?.();
  if (input.client_oid) {
    const prior = await db.prepare(`${ROW_SQL} WHERE c.user_id = ? AND c.client_oid = ?`).bind(t.userId, input.client_oid).first<Row>();
    if (prior) return replay(t, pair, prior, input);
  }
  const limits = conditionalLimits(t.env);
  // One object call gives the last price and how many of the caller's orders the pair watches.
  const { last, open } = await pairStub(t.env, pair.id).conditionalTop(pair.id, t.userId);
  if (open >= limits.perPair) throw new ApiError("cond_limit_pair", 409, { max: limits.perPair });
  const now = Date.now();
  let o: ConditionalOrder;
  try {
    // A batch that met an id taken in the same millisecond wrote nothing: it draws again (worker/lib/ids.ts).
    o = await withNewId(
      CONDITIONAL_TAKEN,
      async (id) => {
        const c = checkOrder(pair, input, last, id, t.userId);
        const holds = conditionalHolds(pair, c);
        const currency = c.side === "buy" ? pair.legalId : pair.currencyId;
        const stmts = [
          ...movementStatements(db, `spot-freeze:${c.id}`, "spot_freeze", [
            { userId: t.userId, currencyId: currency, account: "change", dAvailable: -holds.total, dFrozen: holds.total, memo: `${pair.base}/${pair.quote}` },
          ]),
          db
            .prepare(
              `INSERT INTO spot_conditional_orders (id, user_id, pair_id, side, type, qty, price, stop_price, limit_price, callback_bps, activation_price,
                 reserved_units, reserved_currency, status, client_oid, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,
                 CASE WHEN (SELECT count(*) FROM spot_conditional_orders WHERE user_id = ? AND status IN (0, 1)) < ? THEN 0 END, ?, ?, ?)`,
            )
            .bind(c.id, t.userId, pair.id, c.side, c.type, c.qty, c.price, c.stop, c.limitPrice, c.callbackBps, c.activation, holds.own.toString(), currency, t.userId, limits.total, input.client_oid ?? null, now, now),
        ];
        if (c.type === "oco") {
          stmts.push(
            db
              .prepare(
                `INSERT INTO spot_orders (id, user_id, pair_id, side, kind, price, qty, reserved_units, reserved_currency, status, created_at, updated_at)
                 VALUES (?, ?, ?, ?, 'limit', ?, ?, ?, ?, 0, ?, ?)`,
              )
              .bind(c.id, t.userId, pair.id, c.side, c.price, c.qty, holds.leg.toString(), currency, now, now),
          );
        }
        await db.batch(stmts);
        return c;
      },
      now,
    );
  } catch (err) {
    if (classifyBatchError(err) === "insufficient") throw new ApiError("insufficient_balance", 409);
    if (isOverTotal(err)) throw new ApiError("cond_limit_total", 409, { max: limits.total });
    if (input.client_oid && isClientOidTaken(err)) {
      const prior = await db.prepare(`${ROW_SQL} WHERE c.user_id = ? AND c.client_oid = ?`).bind(t.userId, input.client_oid).first<Row>();
      if (prior) return replay(t, pair, prior, input);
    }
    throw err;
  }
  await watch(t, pair, o, limits.perPair);
  const row = (await rowById(db, t.userId, o.id))!;
  return { ...out(row), status: "open" };
}

/** Hands a held order to the pair object; a refusal (its hold already released there) becomes the user's error. */
async function watch(t: Trader, pair: PairRow, o: ConditionalOrder, maxOpen: number, clientOid?: string | null) {
  const r = await pairStub(t.env, pair.id).placeConditional({
    clientOid,
    pairId: pair.id,
    id: o.id,
    userId: t.userId,
    side: o.side,
    type: o.type,
    qty: o.qty,
    price: o.price,
    stop: o.stop,
    limitPrice: o.limitPrice,
    callbackBps: o.callbackBps,
    activation: o.activation,
    maxOpen,
  });
  if (r.ok) return r;
  if (r.code === "ID_TAKEN") {
    // Objects mode only: another user's conditional order has this id at the pair; its hold goes back (keyed once) and the caller draws again.
    await accountStub(t.env, t.userId).accountApply(t.userId, [{ key: `${COND_HOLD}:${o.id}:taken`, ops: [{ t: "release", hold: `${COND_HOLD}:${o.id}`, amount: "rest" }] }]);
    throw new IdTaken();
  }
  const fmt = (ticks: number | undefined) => (ticks === undefined ? "?" : formatUnits(BigInt(ticks), pair.priceDecimals));
  if (r.code === "PRICE_BAND") throw new ApiError("price_out_of_band", 409, { percent: PRICE_BAND_BPS / 100, low: fmt(r.leg?.band?.low), high: fmt(r.leg?.band?.high) });
  if (r.code === "NO_PRICE") throw new ApiError("cond_no_price", 409);
  if (r.code === "LIMIT") throw new ApiError("cond_limit_pair", 409, { max: maxOpen });
  if (r.code === "WOULD_TRIGGER") {
    const last = (await pairStub(t.env, pair.id).top(pair.id)).last;
    throw new ApiError("cond_would_trigger", 409, { last: last === null ? "?" : fmt(last) });
  }
  throw new ApiError("state_conflict", 409);
}

/** The same client order id again: the same order answers its state; a different one is refused. */
async function replay(t: Trader, pair: PairRow, prior: Row, input: Input): Promise<ConditionalOrderOut> {
  const o = checkOrder(pair, input, null, prior.id, t.userId);
  const same =
    prior.pair_id === pair.id &&
    prior.side === o.side &&
    prior.type === o.type &&
    prior.qty === o.qty &&
    prior.price === o.price &&
    prior.stop_price === o.stop &&
    prior.limit_price === o.limitPrice &&
    prior.callback_bps === o.callbackBps &&
    prior.activation_price === o.activation;
  if (!same) throw new ApiError("duplicate_client_id", 409);
  // Its first request died between the freeze and the object: send it again (the object answers a known id with its state).
  let status = prior.status;
  if (prior.status === 0) {
    const r = await watch(t, pair, o, conditionalLimits(t.env).perPair, input.client_oid).catch((err: unknown) => (err instanceof ApiError ? undefined : Promise.reject(err)));
    status = r ? STATUS.indexOf(r.status) : 4;
  }
  // With balances in the account objects the row may still be on its way from the pair's drain: the pair's answer stands in.
  const row = (await rowById(t.env.DB, t.userId, prior.id)) ?? { ...prior, status };
  return { ...out(row), replayed: true };
}

/** One's conditional orders: open (submitted or watched) or done (triggered, cancelled, refused), newest first, at most 100. */
export async function listConditional(env: Env, userId: number, q: z.output<typeof conditionalListQuerySchema>) {
  const db = env.DB;
  if (accountsOnObjects(env)) await drainHeldPairs(env, userId);
  const statuses = q.status === "open" ? "0, 1" : "2, 3, 4";
  const where = [`c.user_id = ?`, `c.status IN (${statuses})`];
  const args: number[] = [userId];
  if (q.currency_id !== undefined) {
    where.push("p.currency_id = ?");
    args.push(q.currency_id);
  }
  if (q.legal_id !== undefined) {
    where.push("p.legal_id = ?");
    args.push(q.legal_id);
  }
  const { results } = await db.prepare(`${ROW_SQL} WHERE ${where.join(" AND ")} ORDER BY c.id DESC LIMIT 100`).bind(...args).all<Row>();
  return { lists: results.map(out) };
}

/** Cancels one of one's own open conditional orders (an OCO's limit leg with it); the hold comes back through the object's outbox. */
export async function cancelConditional(t: Trader, id: number): Promise<void> {
  if (accountsOnObjects(t.env)) return cancelOnObjects(t, id);
  const row = await t.env.DB.prepare("SELECT pair_id, side, type, status, reserved_units FROM spot_conditional_orders WHERE id = ? AND user_id = ?")
    .bind(id, t.userId)
    .first<{ pair_id: number; side: "buy" | "sell"; type: Row["type"]; status: number; reserved_units: number }>();
  if (!row || row.status > 1) throw new ApiError("cond_not_found", 404);
  const r = await pairStub(t.env, row.pair_id).cancelConditional(row.pair_id, id, t.userId, { own: String(row.reserved_units), side: row.side, type: row.type });
  if (!r.ok) throw new ApiError("cond_not_found", 404);
}

/** Cancels every open order and conditional order of the caller on one pair, in one step of the pair object. */
export async function cancelAll(t: Trader, currencyId: number, legalId: number) {
  const db = t.env.DB;
  const pair = await pairFor(db, currencyId, legalId);
  if (accountsOnObjects(t.env)) return cancelAllOnObjects(t, pair);
  const { results } = await db.prepare("SELECT id FROM spot_orders WHERE user_id = ? AND pair_id = ? AND status IN (0, 1)").bind(t.userId, pair.id).all<{ id: number }>();
  return pairStub(t.env, pair.id).cancelAll(pair.id, t.userId, results.map((r) => r.id));
}

/** Open conditional orders as a hold source: each holds its own `reserved_units` (an OCO's leg is a spot order and counted there). */
export const spotConditionalHolds: HoldSource = {
  name: "spot_conditional_orders",
  async load(db) {
    const { results } = await db
      .prepare("SELECT user_id, reserved_currency, CAST(SUM(reserved_units) AS TEXT) AS units FROM spot_conditional_orders WHERE status IN (0, 1) GROUP BY user_id, reserved_currency")
      .all<{ user_id: number; reserved_currency: number; units: string }>();
    return results.map((r): Hold => ({ userId: r.user_id, currencyId: r.reserved_currency, account: "change", units: BigInt(r.units) }));
  },
  async forUser(db, userId) {
    return (await openConditionalsOf(db, userId)).map((c) => c.hold);
  },
  /** At the cut-over: the conditional order's own part opens as its hold `spot_cond:{id}`, owned by its pair (an OCO's leg joins it: spotOrderHolds). */
  async openingHolds(db, userId) {
    return (await openConditionalsOf(db, userId)).map(({ hold, pairId }) => ({ ...hold, holdKind: COND_HOLD, owner: `pair:${pairId}` }));
  },
};

/** One user's open conditional orders holding funds, each with what it holds and its pair. */
async function openConditionalsOf(db: D1Database, userId: number): Promise<{ hold: UserHold; pairId: number }[]> {
  const { results } = await db
    .prepare(
      `SELECT c.id, c.pair_id, c.reserved_currency, CAST(c.reserved_units AS TEXT) AS units, b.name AS base, q.name AS quote
         FROM spot_conditional_orders c JOIN pairs p ON p.id = c.pair_id JOIN currencies b ON b.id = p.currency_id JOIN currencies q ON q.id = p.legal_id
        WHERE c.user_id = ? AND c.status IN (0, 1) AND c.reserved_units > 0 ORDER BY c.id`,
    )
    .bind(userId)
    .all<{ id: number; pair_id: number; reserved_currency: number; units: string; base: string; quote: string }>();
  return results.map((r) => ({
    pairId: r.pair_id,
    hold: { account: "change", currencyId: r.reserved_currency, units: BigInt(r.units), purpose: "spot_order", ref: { type: "spot_order", id: r.id }, label: `${r.base}/${r.quote}` },
  }));
}

// ---- Balances in the account objects (ACCOUNTS=objects, worker/lib/accounts.ts) -----------------
// A conditional order's funds (an OCO's leg and its own part together) are ONE hold in the trader's
// object, `spot_cond:{id}`, owned by the pair; the pair watches the order, its OCO leg and its child
// spend that hold (durable/pair/desks/spot.ts `holdOf`), and a cancel, an OCO's filled leg or a refusal
// releases the conditional's own part by a leg keyed `spot_cond:{id}:{why}`. The D1 row comes with the
// pair's drain (`newConditionals`), so a list first asks the pairs holding the user's orders to drain.

const COND_HOLD = "spot_cond";

/** What a replay needs of the first order of a client id (kept with its hold in the trader's object). */
type HeldTerms = Omit<Row, "status" | "reason" | "trigger_price" | "child_order_id" | "client_oid" | "currency_id" | "legal_id" | "base" | "quote" | "price_decimals" | "qty_decimals">;

function heldTerms(pair: PairRow, o: ConditionalOrder, own: bigint, now: number): HeldTerms {
  return {
    id: o.id,
    pair_id: pair.id,
    side: o.side,
    type: o.type,
    qty: o.qty,
    price: o.price,
    stop_price: o.stop,
    limit_price: o.limitPrice,
    callback_bps: o.callbackBps,
    activation_price: o.activation,
    reserved_units: Number(own),
    created_at: now,
  };
}

/** The answer's row before D1 has it (the pair's drain writes it a moment later). */
function heldRow(pair: PairRow, terms: HeldTerms, status: number, clientOid: string | null): Row {
  return {
    ...terms,
    status,
    reason: null,
    trigger_price: null,
    child_order_id: null,
    client_oid: clientOid,
    currency_id: pair.currencyId,
    legal_id: pair.legalId,
    base: pair.base,
    quote: pair.quote,
    price_decimals: pair.priceDecimals,
    qty_decimals: pair.qtyDecimals,
  };
}

/**
 * Objects mode: how many conditional orders the user has open over all pairs, asked only when D1's
 * rows or the user's open `spot_cond` holds reach the limit. D1's rows arrive with the pairs' drains
 * (an order placed a moment ago is not there yet) and the holds bound the count from above (a fired
 * order's child keeps its hold until it ends), so neither is the count: the pairs owning the holds
 * answer how many of the user's orders they watch; D1's rows still count the orders whose holds the
 * cut-over opened without an owner.
 */
async function openOverAllPairs(t: Trader, pairId: number, openHere: number, held: AccountHold[], inD1: number): Promise<number> {
  const pairs = new Set<number>();
  for (const h of held) {
    const m = /^pair:([0-9]+)$/.exec(h.owner ?? "");
    if (m && Number(m[1]) !== pairId) pairs.add(Number(m[1]));
  }
  const watched = await Promise.all([...pairs].map(async (id) => (await pairStub(t.env, id).conditionalTop(id, t.userId)).open));
  return Math.max(watched.reduce((s, n) => s + n, openHere), inD1);
}

async function placeOnObjects(t: Trader, pair: PairRow, input: Input): Promise<ConditionalOutOut> {
  const db = t.env.DB;
  if (input.client_oid) {
    // A client id from before the cut-over (or long drained) is answered from D1, as spot orders are;
    // a replay may place without a reserve to carry the session check, so the session is confirmed first.
    await t.confirm?.();
    const prior = await db.prepare(`${ROW_SQL} WHERE c.user_id = ? AND c.client_oid = ?`).bind(t.userId, input.client_oid).first<Row>();
    if (prior) return replay(t, pair, prior, input);
  }
  const limits = conditionalLimits(t.env);
  const account = accountStub(t.env, t.userId);
  // The pair's last price and open count; the user's open total from D1's rows (behind by the pairs'
  // drains) and the user's open conditional holds, the pairs asked only near the limit (openOverAllPairs).
  const [{ last, open }, total, held] = await Promise.all([
    pairStub(t.env, pair.id).conditionalTop(pair.id, t.userId),
    db.prepare("SELECT count(*) AS n FROM spot_conditional_orders WHERE user_id = ? AND status IN (0, 1)").bind(t.userId).first<{ n: number }>(),
    account.accountOwnedHolds(t.userId, [COND_HOLD]),
  ]);
  if (open >= limits.perPair) throw new ApiError("cond_limit_pair", 409, { max: limits.perPair });
  const inD1 = total?.n ?? 0;
  if (Math.max(inD1, held.length) >= limits.total && (await openOverAllPairs(t, pair.id, open, held, inD1)) >= limits.total)
    throw new ApiError("cond_limit_total", 409, { max: limits.total });
  // Ids of the pair's slot, as spot orders' (spotOrderId): an OCO's leg and a child are spot orders under
  // this id (a child at CHILD_ID_BASE + id, the same slot), and no other pair draws it. `taken`: the last
  // draw the pair refused as another user's (its hold given back): the client id passes from its hold.
  let taken: number | null = null;
  const placed = await withNewId(
    null,
    async (id): Promise<{ answer: ConditionalOutOut } | { row: Row }> => {
      const o = checkOrder(pair, input, last, id, t.userId);
      const holds = conditionalHolds(pair, o);
      const now = Date.now();
      const terms = heldTerms(pair, o, holds.own, now);
      const req: ReserveRequest = {
        forKind: COND_HOLD,
        forId: String(id),
        account: "change",
        currencyId: o.side === "buy" ? pair.legalId : pair.currencyId,
        amount: holds.total,
        owner: `pair:${pair.id}`,
      };
      if (input.client_oid) Object.assign(req, { clientId: input.client_oid, terms: JSON.stringify(terms) }, taken === null ? {} : { replaces: `${COND_HOLD}:${taken}` });
      const held = await carried(t.guard, account.accountReserve(t.userId, req, sessionProof(t.guard)));
      if (held.result === "insufficient") throw new ApiError("insufficient_balance", 409);
      if (held.result === "replay") {
        // The client id's first order; one never placed (its request cut before the pair) under an id another
        // user's order has since is refused by the pair (its hold given back by `watch`) and drawn again.
        const first = JSON.parse(held.terms) as HeldTerms;
        const answer = await replayHeld(t, pair, first, input).catch((err: unknown) => {
          if (err instanceof IdTaken) taken = first.id;
          throw err;
        });
        return { answer };
      }
      if (held.result === "exists") throw new IdTaken();
      // Held: now the pair. If this call fails, the hold waits for the orphan sweep (docs/architecture/account-objects.md).
      await watch(t, pair, o, limits.perPair, input.client_oid ?? null).catch((err: unknown) => {
        if (err instanceof IdTaken) taken = id;
        throw err;
      });
      return { row: heldRow(pair, terms, 1, input.client_oid ?? null) };
    },
    Date.now(),
    (now) => spotOrderId(pair.id, now),
  );
  if ("answer" in placed) return placed.answer;
  return { ...out(placed.row), status: "open" };
}

/** A client id this user's object already holds a conditional order for (before D1 has its row): the same order answers, another is refused. */
async function replayHeld(t: Trader, pair: PairRow, first: HeldTerms, input: Input): Promise<ConditionalOutOut> {
  const row = (await rowById(t.env.DB, t.userId, first.id)) ?? heldRow(pair, first, 0, input.client_oid ?? null);
  return replay(t, pair, row, input);
}

type ConditionalOutOut = ConditionalOrderOut & { replayed?: true };

/** Before a list: the pairs holding the user's open conditional orders drain, so the list has every order placed before it. */
const drainHeldPairs = (env: Env, userId: number) => drainHoldingPairs(env, userId, [COND_HOLD]);

async function cancelOnObjects(t: Trader, id: number): Promise<void> {
  const account = accountStub(t.env, t.userId);
  const [h] = await carried(t.guard, account.accountHolds(t.userId, [`${COND_HOLD}:${id}`], sessionProof(t.guard)));
  const m = h?.open ? /^pair:([0-9]+)$/.exec(h.owner ?? "") : null;
  if (!m) throw new ApiError("cond_not_found", 404);
  const pairId = Number(m[1]);
  const stub = pairStub(t.env, pairId);
  const r = await stub.cancelConditional(pairId, id, t.userId, null);
  if (r.ok) return;
  // The pair never took it in (its placing request died on the way): recorded there as refused now, so it
  // can never be watched later, and its hold goes back at once under the orphan sweep's own key (once).
  if (r.code === "NOT_FOUND" && (await stub.conditionalVerdict(pairId, id, t.userId)) === "tombstoned") {
    await account.accountApply(t.userId, [{ key: `${COND_HOLD}:${id}:orphan`, ops: [{ t: "release", hold: `${COND_HOLD}:${id}`, amount: "rest" }] }]);
    return;
  }
  throw new ApiError("cond_not_found", 404);
}

/**
 * cancel_all on the account objects: the open orders are the trader's open holds on this pair, known
 * at once (D1's rows arrive with the pair's drain): `spot_order:{id}` and, for each conditional order,
 * its OCO leg and its child (ids `id` and 2^52 + id); the pair cancels those of this user still open.
 */
async function cancelAllOnObjects(t: Trader, pair: PairRow) {
  const holds = await accountStub(t.env, t.userId).accountOwnedHolds(t.userId, ["spot_order", COND_HOLD]);
  const owner = `pair:${pair.id}`;
  const ids: number[] = [];
  for (const h of holds) {
    if (h.owner !== owner || !/^[0-9]+$/.test(h.forId)) continue;
    const id = Number(h.forId);
    if (h.forKind === "spot_order") ids.push(id);
    else if (h.forKind === COND_HOLD) ids.push(id, CHILD_ID_BASE + id);
  }
  return pairStub(t.env, pair.id).cancelAll(pair.id, t.userId, ids);
}
