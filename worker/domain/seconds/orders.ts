/**
 * Seconds contracts in D1 (DESIGN §7). Submitting one holds its money FIRST, in one ledger movement
 * keyed by the order (`micro:{id}:open`: the user's stake frozen and fee booked from the micro
 * account, the house's maximum payout frozen in the treasury, whose trigger refuses an overdraft),
 * together with the order row (status 0, held). THEN the pair object accepts it (entry tick,
 * exposure limits, expiry). If the object refuses, everything is returned in one movement keyed
 * `micro:{id}:refund` (status 4). If the Worker dies between the two steps, the reconciler
 * (reconcileHeldContracts) asks the object: known → status 1, unknown → tombstone, then refund.
 * Settlement reaches D1 from the pair object's outbox (durable/pair/outbox.ts).
 */
import { parseUnits } from "../../../schemas/money.ts";
import type { SecondsOrder, SecondsSubmit } from "../../../schemas/seconds.ts";
import { acceptanceMoney, openLegs, refundLegs, type SecondsDirection, type SecondsMoney } from "../../../durable/engine/seconds.ts";
import type { AcceptInput } from "../../../durable/pair/desks/seconds.ts";
import { ApiError } from "../../lib/errors.ts";
import { takenIn, withNewId } from "../../lib/ids.ts";
import { classifyBatchError, movementsStatements } from "../../lib/ledger.ts";
import { pairById, pairStub, type PairRow } from "../spot/pairs.ts";
import { LIVE_TRADER_USER_ID, SessionGone } from "../../lib/auth.ts";
import { recordHolds, treasuryRecordHolds, type Hold, type HoldSource } from "../ledger/holds.ts";
import { coverShard, SECONDS_HOLD } from "../../../durable/pair/desks/seconds-objects.ts";
import { HOUSE_ACCOUNT, TREASURY } from "../../lib/guarded.ts";
import { payable, type PayableRow } from "./config.ts";
import { TERMS_GUARD, forgetTerms, guardBinds, isStaleTerms, termsOf, type Terms } from "./terms.ts";
import { secondsEntries, secondsKeys } from "./ledger.ts";
import { accountsOnObjects } from "../../lib/accounts.ts";
import { submitOnObjects } from "./objects.ts";
import { acceptedOut, confirmedTicks, orderOut, priceMovedError, refusalError, stakeOf, type Held, type OrderRow, type SubmitSession } from "./contract.ts";

export { orderOut, stakeOf, type SubmitSession } from "./contract.ts";


/** Settled contracts stay in the running list this long, so the screen can show the result. */
export const RECENTLY_SETTLED_MS = 60_000;
/** A held contract the object has not confirmed after this long is asked about by the reconciler. */
export const HELD_GRACE_MS = 30_000;

const ORDER_SELECT = `SELECT o.*, p.price_decimals, b.name AS base, q.name AS quote, c.name AS currency_name, c.scale
  FROM micro_orders o JOIN pairs p ON p.id = o.pair_id JOIN currencies b ON b.id = p.currency_id JOIN currencies q ON q.id = p.legal_id
  JOIN currencies c ON c.id = o.currency_id`;


async function orderById(db: D1Database, userId: number, id: number): Promise<OrderRow | null> {
  return db.prepare(`${ORDER_SELECT} WHERE o.id = ? AND o.user_id = ?`).bind(id, userId).first<OrderRow>();
}

/**
 * One of the user's contracts (its verification screen, issue #20 §3): the terms, prices, tick ids
 * and result that the public ticks can be checked against. Another user's id reads as not found.
 */
export async function contractOf(db: D1Database, userId: number, id: number, now = Date.now()): Promise<SecondsOrder> {
  const r = await orderById(db, userId, id);
  if (!r) throw new ApiError("not_found", 404);
  return orderOut(r, now);
}


/** A freeze batch found a remembered term changed (terms.ts): nothing was written. */
class StaleTerms extends Error {}

/**
 * Submits a contract: hold in D1, then the pair object; refund if the object refuses. The terms
 * may come from the isolate's memory (terms.ts): the batch re-checks them, and a refusal priced on
 * them is priced again from D1 before it is answered, so the answer is the one D1's terms give.
 */
export async function submitContract(env: Env, userId: number, input: SecondsSubmit, now = Date.now(), session: SubmitSession = {}): Promise<SecondsOrder> {
  const db = env.DB;
  if (input.client_oid) {
    // A replay answers (and may finish an acceptance) without a freeze batch to carry the session check.
    await session.confirm?.();
    const prior = await db.prepare(`${ORDER_SELECT} WHERE o.user_id = ? AND o.client_oid = ?`).bind(userId, input.client_oid).first<OrderRow>();
    if (prior) return replay(env, userId, prior, input);
  }
  // Balances in the account objects (worker/lib/accounts.ts): holds there, no D1 write on the way.
  if (accountsOnObjects(env)) return submitOnObjects(env, userId, input, now, session);
  let h: Awaited<ReturnType<typeof holdContract>>;
  for (let round = 0; ; round++) {
    const seen = { remembered: false };
    try {
      h = await holdContract(env, userId, input, now, session, round > 0, seen);
      break;
    } catch (err) {
      if (err instanceof StaleTerms) {
        forgetTerms();
        if (round < 3) continue;
        throw new ApiError("try_again", 503);
      }
      // A refusal priced on remembered terms: price it again on D1's.
      if (err instanceof ApiError && seen.remembered && round === 0) continue;
      throw err;
    }
  }
  // The same client order id won the race: the replay's answer is final too.
  if ("prior" in h) return replay(env, userId, h.prior, input);
  // Held: whatever the object answers now is final (a refusal is refunded, never priced again).
  return accept(env, userId, h.terms.pair, h.terms.cur, h.held, now);
}


/** Prices a submit on its terms and holds its money with its row in one D1 batch (status 0). */
async function holdContract(
  env: Env,
  userId: number,
  input: SecondsSubmit,
  now: number,
  session: SubmitSession,
  fresh: boolean,
  seen: { remembered: boolean },
): Promise<{ held: Held; terms: Terms } | { prior: OrderRow }> {
  const db = env.DB;
  const terms = await termsOf(db, input, fresh, now, seen);
  const { pair, option, cur } = terms;
  const confirmed = confirmedTicks(input, pair);
  const stake = stakeOf(input.number, cur);
  const money = acceptanceMoney(stake, option.ratioBps, cur.feeBps);
  const memo = `${pair.base}/${pair.quote} ${input.type === 1 ? "up" : "down"} ${option.seconds}s`;
  const guard = session.guard && !session.guard.confirmed ? session.guard : null;

  // A contract that drew an id taken in the same millisecond wrote nothing: it draws again (worker/lib/ids.ts).
  return withNewId(
    CONTRACT_TAKEN,
    async (id) => {
      // The row's user id comes from the live session when it rests on a hint, its pair id from the
      // terms as D1 holds them now: either gone, and the NOT NULL column fails the whole batch.
      const user = guard ? LIVE_TRADER_USER_ID : "?";
      const userBinds = guard ? [guard.sessionId, guard.userId, now] : [userId];
      try {
        await db.batch([
          // The movement's three legs travel as one JSON statement (movementsStatements: the same rows and checks).
          ...movementsStatements(db, [{ key: secondsKeys.open(id), kind: "micro_open", entries: secondsEntries(openLegs(money), userId, cur.currencyId, memo), now }]),
          db
            .prepare(
              `INSERT INTO micro_orders (id, user_id, pair_id, currency_id, type, stake, fee, hold, seconds, profit_ratio_bps, status, client_oid, created_at)
               VALUES (?, ${user}, ${TERMS_GUARD}, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?)`,
            )
            .bind(id, ...userBinds, ...guardBinds(terms), cur.currencyId, input.type, stake.toString(), money.fee.toString(), money.hold.toString(), option.seconds, option.ratioBps, input.client_oid ?? null, now),
        ]);
      } catch (err) {
        const msg = String(err);
        if (/NOT NULL constraint failed: micro_orders\.user_id/.test(msg)) throw new SessionGone();
        if (isStaleTerms(err)) throw new StaleTerms();
        if (msg.includes("treasury_overdraft")) throw new ApiError("house_cannot_cover", 409);
        if (classifyBatchError(err) === "insufficient") throw new ApiError("insufficient_balance", 409);
        if (input.client_oid && /UNIQUE constraint failed: micro_orders\.user_id/.test(msg)) {
          await session.confirm?.();
          const prior = await db.prepare(`${ORDER_SELECT} WHERE o.user_id = ? AND o.client_oid = ?`).bind(userId, input.client_oid).first<OrderRow>();
          if (prior) return { prior };
        }
        throw err;
      }
      if (guard) guard.confirmed = true;
      return { held: { id, type: input.type, money, ratioBps: option.ratioBps, seconds: option.seconds, confirmed }, terms };
    },
    now,
  );
}

/** A contract's batch that met an id taken in the same millisecond (the open movement's key carries it). */
const CONTRACT_TAKEN = takenIn("micro_orders");

/**
 * The second step: the pair object accepts (→ status 1, in D1 with its next drain batch) or refuses
 * (→ refund, status 4, the error). The answer is built from what the batch wrote and the object
 * answered, as the row reads once the drain has run (read back only for a replay that finds D1
 * holding something else: the reconciler or a settlement got there first).
 */
async function accept(env: Env, userId: number, pair: PairRow, cur: PayableRow, h: Held, now: number): Promise<SecondsOrder> {
  const confirmed = h.confirmed ?? null;
  const db = env.DB;
  const input: AcceptInput = {
    pairId: pair.id,
    orderId: h.id,
    userId,
    currencyId: cur.currencyId,
    currencyName: cur.name,
    currencyScale: cur.scale,
    type: h.type,
    stake: h.money.stake.toString(),
    fee: h.money.fee.toString(),
    hold: h.money.hold.toString(),
    ratioBps: h.ratioBps,
    seconds: h.seconds,
    pairExposure: cur.pairExposure.toString(),
    userExposure: cur.userExposure.toString(),
    ...(confirmed === null ? {} : { confirmedPrice: confirmed }),
  };
  const r = await pairStub(env, pair.id).acceptSeconds(input);
  if (r.ok) {
    // Accepted now: D1's row learns status 1 and its entry in the object's next drain batch (its
    // outbox entry was written with the acceptance), so the answer needs no D1 round trip. A
    // contract accepted before (a replay) is noted here, as the reconciler would.
    const noted =
      r.fresh ||
      (
        await db
          .prepare("UPDATE micro_orders SET status = 1, open_tick_id = ?, open_price = ?, end_at = ? WHERE id = ? AND status = 0")
          .bind(r.openTickId, r.openPrice, r.endAt, h.id)
          .run()
      ).meta.changes === 1;
    if (noted) return acceptedOut(pair, cur, h, r, now);
  } else {
    await refund(db, h.id, userId, cur.currencyId, h.money, now);
    if (r.code === "price_moved") throw priceMovedError(pair, confirmed, r.price);
    if (r.code !== "tombstoned") throw new ApiError(refusalError[r.code], 409);
  }
  const row = await orderById(db, userId, h.id);
  return orderOut(row!, Date.now());
}


/** Returns everything a refused contract held, once (`micro:{id}:refund`), and marks it revoked. */
async function refund(db: D1Database, id: number, userId: number, currencyId: number, money: SecondsMoney, now: number): Promise<boolean> {
  try {
    await db.batch([
      ...movementsStatements(db, [{ key: secondsKeys.refund(id), kind: "micro_refund", entries: secondsEntries(refundLegs(money), userId, currencyId, `refund #${id}`), now }]),
      db.prepare("UPDATE micro_orders SET status = 4, settled_at = ? WHERE id = ? AND status = 0").bind(now, id),
    ]);
    return true;
  } catch (err) {
    if (classifyBatchError(err) === "duplicate") return false;
    throw err;
  }
}

/** The same client order id again: the same contract answers its current state; different terms are refused. */
async function replay(env: Env, userId: number, prior: OrderRow, input: SecondsSubmit): Promise<SecondsOrder> {
  const same =
    Number(prior.pair_id) === input.match_id &&
    Number(prior.currency_id) === input.currency_id &&
    Number(prior.type) === input.type &&
    Number(prior.seconds) === input.seconds &&
    parseUnits(input.number, Number(prior.scale)) === BigInt(prior.stake ?? 0);
  if (!same) throw new ApiError("duplicate_client_id", 409);
  if (Number(prior.status) === 0) {
    // The first request died between the hold and the object: finish it now (the object's
    // record and tombstones make this idempotent).
    const pair = await pairById(env.DB, Number(prior.pair_id));
    const cur = await payable(env.DB, Number(prior.currency_id));
    const money = { stake: BigInt(prior.stake ?? 0), fee: BigInt(prior.fee ?? 0), hold: BigInt(prior.hold ?? 0) };
    return accept(env, userId, pair!, cur, { id: Number(prior.id), type: Number(prior.type) as SecondsDirection, money, ratioBps: Number(prior.profit_ratio_bps), seconds: Number(prior.seconds) }, Date.now());
  }
  return orderOut(prior, Date.now());
}

/**
 * The user's running contracts and those settled in the last minute, newest first. A held one
 * (status 0: its money held, the object's acceptance not yet in D1: a moment after the submit, until
 * the object's drain batch lands) is listed as running, without its entry until then.
 */
export async function runningContracts(db: D1Database, userId: number, now = Date.now()): Promise<SecondsOrder[]> {
  const { results } = await db
    .prepare(`${ORDER_SELECT} WHERE o.user_id = ? AND (o.status IN (0, 1, 2) OR (o.status = 3 AND o.settled_at >= ?)) ORDER BY o.id DESC LIMIT 100`)
    .bind(userId, now - RECENTLY_SETTLED_MS)
    .all<OrderRow>();
  return results.map((r) => orderOut(r, now));
}

/** The user's contracts, newest first, paged; a status filter of 2 means "past expiry, not yet settled". */
export async function contractHistory(db: D1Database, userId: number, q: { page: number; limit: number; status?: number }, now = Date.now()) {
  // A held contract (status 0) is one the object is accepting or has accepted a moment ago (its
  // acceptance reaches D1 with the object's next drain batch): listed as running until its end.
  const endAt = "COALESCE(o.end_at, o.created_at + o.seconds * 1000)";
  const conds: Record<number, [string, number[]]> = {
    1: [`o.status IN (0, 1) AND ${endAt} > ?`, [now]],
    2: [`(o.status = 2 OR (o.status IN (0, 1) AND ${endAt} <= ?))`, [now]],
    3: ["o.status = 3", []],
    4: ["o.status = 4", []],
  };
  const [cond, args] = q.status === undefined ? ["o.status >= 0", []] : conds[q.status]!;
  const where = `WHERE o.user_id = ? AND ${cond}`;
  const [total, rows] = await db.batch([
    db.prepare(`SELECT count(*) AS n FROM micro_orders o ${where}`).bind(userId, ...args),
    db.prepare(`${ORDER_SELECT} ${where} ORDER BY o.id DESC LIMIT ? OFFSET ?`).bind(userId, ...args, q.limit, (q.page - 1) * q.limit),
  ]);
  return {
    total: Number((total?.results?.[0] as { n: number } | undefined)?.n ?? 0),
    lists: ((rows?.results ?? []) as OrderRow[]).map((r) => orderOut(r, now)),
  };
}

/**
 * Contracts whose money was held but that the pair object never confirmed (the Worker died in
 * between): known to the object → status 1 with its entry; unknown → the object tombstones it
 * first (so it can never be accepted later), then the hold is refunded here, once.
 */
export async function reconcileHeldContracts(env: Env, now = Date.now(), graceMs = HELD_GRACE_MS) {
  const { results } = await env.DB.prepare(
    "SELECT id, user_id, pair_id, currency_id, stake, fee, hold FROM micro_orders WHERE status = 0 AND created_at < ? ORDER BY id LIMIT 200",
  )
    .bind(now - graceMs)
    .all<{ id: number; user_id: number; pair_id: number; currency_id: number; stake: number; fee: number; hold: number }>();
  let refunded = 0;
  let confirmed = 0;
  for (const o of results) {
    const v = await pairStub(env, o.pair_id).secondsVerdict(o.pair_id, o.id);
    if (v.verdict === "known") {
      await env.DB.prepare("UPDATE micro_orders SET status = 1, open_tick_id = ?, open_price = ?, end_at = ? WHERE id = ? AND status = 0")
        .bind(v.openTickId, v.openPrice, v.endAt, o.id)
        .run();
      confirmed++;
      continue;
    }
    const money = { stake: BigInt(o.stake), fee: BigInt(o.fee), hold: BigInt(o.hold) };
    if (await refund(env.DB, o.id, o.user_id, o.currency_id, money, now)) refunded++;
  }
  return { checked: results.length, confirmed, refunded };
}

/** Every unsettled contract's `held` (an expression of its row) in the user's micro account, its cover in the house (treasury). */
async function contractHolds(db: D1Database, held: "stake" | "stake + fee * fee_held"): Promise<Hold[]> {
  const { results } = await db
    .prepare(
      `SELECT user_id, currency_id, CAST(SUM(${held}) AS TEXT) AS stake, CAST(SUM(hold) AS TEXT) AS hold FROM micro_orders
        WHERE status IN (0, 1, 2) GROUP BY user_id, currency_id`,
    )
    .all<{ user_id: number; currency_id: number; stake: string; hold: string }>();
  const holds: Hold[] = [];
  for (const r of results) {
    holds.push({ userId: r.user_id, currencyId: r.currency_id, account: "micro", units: BigInt(r.stake) });
    holds.push({ userId: TREASURY, currencyId: r.currency_id, account: HOUSE_ACCOUNT, units: BigInt(r.hold) });
  }
  return holds;
}

/**
 * Reconciliation hold source: every contract not yet settled or refunded keeps its stake frozen
 * in the user's micro account and its maximum payout frozen in the house (treasury).
 */
export const secondsHolds: HoldSource = {
  name: "micro_orders",
  load: (db) => contractHolds(db, "stake"),
  // In the account objects the pair takes the fee from the stake's hold at the acceptance; a contract
  // accepted before it did (`fee_held`, migrations/0056) keeps it there until it settles.
  loadObjects: (db) => contractHolds(db, "stake + fee * fee_held"),
  forUser: (db, userId) =>
    recordHolds(db, "SELECT id, currency_id, CAST(stake AS TEXT) AS units FROM micro_orders WHERE user_id = ?1 AND status IN (0, 1, 2) ORDER BY id", userId, { account: "micro", purpose: "seconds", ref: "seconds" }),
  // The cut-over: each running contract's cover becomes its own hold `seconds:{id}` in the treasury
  // shard its settle spends from (objects mode's `coverShard`), not part of the shards' `migrated` holds.
  systemOpeningHolds: (db) =>
    treasuryRecordHolds(db, "SELECT id, currency_id, CAST(hold AS TEXT) AS units FROM micro_orders WHERE status IN (0, 1, 2) ORDER BY id", SECONDS_HOLD, coverShard),
};
