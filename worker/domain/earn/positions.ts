/**
 * Savings positions (issue #19 §1): subscribe, list, redeem. A position's principal stays the
 * user's: it is frozen in their own spot account (one movement) while the product's budget row
 * takes the position's interest reserve, in the same batch; the database refuses a reserve the
 * budget cannot cover (CHECK earn_budget), a subscription beyond the user's maximum or to a closed
 * product (trigger), and an overdraft (balances CHECK), so parallel requests cannot overrun any of
 * them. Every lookup is scoped to the session's user: another user's position reads as not found.
 *
 * With balances in the account objects (`ACCOUNTS=objects`) the principal is a hold `savings:{id}`
 * in the user's object, made before the position's row (which claims it), and a position's end is
 * legs keyed `earn:{id}:redeem|mature` owed in the closing batch (worker/lib/product-objects.ts).
 */
import { bpsToApr, type EarnPosition, type EarnSubscribe } from "../../../schemas/earn.ts";
import { formatUnitsTrim } from "../../../schemas/money.ts";
import { money } from "../notifications/events.ts";
import { ApiError } from "../../lib/errors.ts";
import { HOUSE_ACCOUNT, TREASURY } from "../../lib/guarded.ts";
import { movementStatements, type LedgerEntry } from "../../lib/ledger.ts";
import { accountsOnObjects } from "../../lib/accounts.ts";
import { claimRecord, holdThenRecord, houseKey, release, spend, credit, takenOrClaimed, treasuryAt, userAt } from "../../lib/product-objects.ts";
import { deliverRecordLegs, recordLegsStatements } from "../../lib/record-legs.ts";
import type { Leg } from "../../../durable/money/index.ts";
import { withNewId } from "../../lib/ids.ts";
import { announceNotifications, notificationStatement } from "../notifications/inbox.ts";
import { amountOrThrow } from "../wallet/currency.ts";
import { budgetHold, productRow } from "./catalogue.ts";
import {
  dailyInterest,
  EARN_POSITION_TAKEN,
  earnGuard,
  earnRefusal,
  largestCovered,
  POSITION_COLUMNS,
  positionView,
  PRINCIPAL_HOLD,
  principalHold,
  remainingOf,
  reserveFor,
  runEarnBatch,
  utcDay,
  type PositionRow,
} from "./shared.ts";

const FROM = "FROM earn_positions p JOIN currencies c ON c.id = p.currency_id";
const LINK = "/earn/positions";

/** One position of one user (any status), or null: another user's id reads as not found. */
export async function positionOf(db: D1Database, userId: number, id: number): Promise<PositionRow | null> {
  return db.prepare(`SELECT ${POSITION_COLUMNS} ${FROM} WHERE p.id = ? AND p.user_id = ?`).bind(id, userId).first<PositionRow>();
}

/** GET /api/earn/positions: one's positions, open first, newest first (at most 200). */
export async function listPositions(db: D1Database, userId: number): Promise<EarnPosition[]> {
  const { results } = await db
    .prepare(`SELECT ${POSITION_COLUMNS} ${FROM} WHERE p.user_id = ? ORDER BY p.status = 1 DESC, p.id DESC LIMIT 200`)
    .bind(userId)
    .all<PositionRow>();
  return results.map(positionView);
}

/** POST /api/earn/subscribe */
export async function subscribe(env: Env, userId: number, input: EarnSubscribe, now = Date.now()): Promise<EarnPosition> {
  const db = env.DB;
  const product = await productRow(db, input.product_id);
  if (!product) throw new ApiError("not_found", 404);
  if (product.status !== 1) throw new ApiError("earn_closed", 409);
  const f = (u: bigint) => formatUnitsTrim(u, product.scale);
  const amount = amountOrThrow(input.amount, product.scale);
  if (amount < BigInt(product.min_amount)) throw new ApiError("below_min", 400, { min: `${f(BigInt(product.min_amount))} ${product.currency}` });
  const mine = await db
    .prepare("SELECT CAST(COALESCE(SUM(amount), 0) AS TEXT) AS s FROM earn_positions WHERE user_id = ? AND product_id = ? AND status = 1")
    .bind(userId, product.id)
    .first<{ s: string }>();
  const maxError = () => new ApiError("earn_user_max", 409, { max: f(BigInt(product.max_amount)), currency: product.currency });
  if (BigInt(mine?.s ?? "0") + amount > BigInt(product.max_amount)) throw maxError();
  const reserve = reserveFor(amount, product.apr_bps, product.term_days);
  const budgetError = async () => {
    const fresh = (await productRow(db, product.id)) ?? product;
    return new ApiError("earn_budget", 409, { max: f(largestCovered(remainingOf(fresh), fresh.apr_bps, fresh.term_days)), currency: product.currency });
  };
  if (reserve > remainingOf(product)) throw await budgetError();

  const daily = dailyInterest(amount, product.apr_bps);
  const objects = accountsOnObjects(env);
  const build = (id: number) => {
    const key = `earn:${id}:open`;
    return [
      ...(objects
        ? [claimRecord(db, principalHold(id), now)]
        : movementStatements(
            db,
            key,
            "earn_subscribe",
            [{ userId, currencyId: product.currency_id, account: "change", dAvailable: -amount, dFrozen: amount, memo: `savings position ${id}` }],
            now,
          )),
      db
        .prepare(
          `INSERT INTO earn_positions (id, user_id, product_id, currency_id, term_days, apr_bps, amount, daily, reserved, first_day, created_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .bind(id, userId, product.id, product.currency_id, product.term_days, product.apr_bps, amount.toString(), daily.toString(), reserve.toString(), utcDay(now), now),
      db.prepare("UPDATE earn_products SET reserved = reserved + ? WHERE id = ?").bind(reserve.toString(), product.id),
      notificationStatement(db, {
        userId,
        kind: "earn_subscribed",
        key,
        params: { id, amount: money(amount, product.scale), currency: product.currency, apr: bpsToApr(product.apr_bps) },
        link: LINK,
        now,
      }),
    ];
  };
  // Objects mode: the principal is held in the user's object first, then the position's row (the id drawn again when taken).
  const write = async (id: number) => {
    const hold = { forKind: PRINCIPAL_HOLD, forId: String(id), account: "change", currencyId: product.currency_id, amount };
    await (objects ? holdThenRecord(env, [{ to: userAt(userId), hold }], () => new ApiError("insufficient_balance", 409), () => db.batch(build(id))) : db.batch(build(id)));
    return id;
  };
  let id: number;
  try {
    id = await withNewId(takenOrClaimed(EARN_POSITION_TAKEN), write, now);
  } catch (err) {
    const msg = String((err as Error)?.message ?? err);
    if (msg.includes("earn_budget")) throw await budgetError();
    if (msg.includes("earn_user_max")) throw maxError();
    earnRefusal(err);
  }
  await announceNotifications(env, [userId]);
  return positionView((await positionOf(db, userId, id))!);
}

/** The key of a position's end: a redemption and a maturity are two keys, but the closing batch lets only one of them happen. */
export const closeKey = (p: PositionRow, how: "redeem" | "mature") => `earn:${p.id}:${how}`;

/**
 * A position's end in objects mode: the principal's hold released in the user's object with the
 * interest credited, and that interest spent from the product's budget hold in its treasury shard.
 */
export function closeLegs(p: PositionRow, how: "redeem" | "mature"): Leg[] {
  const key = closeKey(p, how);
  const interest = closeInterest(p, how);
  const user: Leg = { key, to: userAt(p.user_id), ops: [release(principalHold(p.id), p.currency_id, BigInt(p.amount))] };
  if (interest === 0n) return [user];
  user.ops.push(credit("change", p.currency_id, interest));
  return [{ key: houseKey(key), to: treasuryAt(p.product_id), ops: [spend(budgetHold(p.product_id), p.currency_id, interest)] }, user];
}

/** Flexible positions are paid daily (nothing unpaid); a fixed one is paid at maturity and forfeits on early exit. */
const closeInterest = (p: PositionRow, how: "redeem" | "mature"): bigint => (how === "mature" ? BigInt(p.earned) - BigInt(p.paid) : 0n);

/**
 * The statements that end a position and pay it out: principal back to available, plus (matured)
 * the accrued interest from the reserve. Keyed `earn:{id}:close`, so a redemption and a maturity,
 * or two of either, can never both apply; guarded on the state read. `objects`: the money is legs
 * owed to the account objects (`closeLegs`) instead of D1 movements.
 */
export function closeStatements(db: D1Database, p: PositionRow, how: "redeem" | "mature", now: number, objects = false): D1PreparedStatement[] {
  const amount = BigInt(p.amount);
  const earned = BigInt(p.earned);
  const unpaid = earned - BigInt(p.paid);
  const interest = closeInterest(p, how);
  const entries: LedgerEntry[] = [{ userId: p.user_id, currencyId: p.currency_id, account: "change", dAvailable: amount + interest, dFrozen: -amount, memo: `savings position ${p.id}` }];
  if (interest > 0n) entries.push({ userId: TREASURY, currencyId: p.currency_id, account: HOUSE_ACCOUNT, dAvailable: 0n, dFrozen: -interest, memo: `savings position ${p.id} interest` });
  const forfeited = how === "redeem" ? unpaid : 0n;
  const key = `earn:${p.id}:close`;
  return [
    ...(objects ? recordLegsStatements(db, principalHold(p.id), closeLegs(p, how), now) : movementStatements(db, key, how === "mature" ? "earn_mature" : "earn_redeem", entries, now)),
    db
      .prepare("UPDATE earn_positions SET status = ?, paid = paid + ?, reserved = 0, closed_at = ? WHERE id = ? AND status = 1 AND days = ? AND reserved = ? AND earned = ?")
      .bind(how === "mature" ? 3 : 2, interest.toString(), now, p.id, p.days, p.reserved, p.earned),
    earnGuard(db, `${how} position`),
    // The reserve not paid out (all of it on early exit: the forfeited interest too) goes back to the budget.
    db.prepare("UPDATE earn_products SET reserved = reserved - ?, paid = paid + ? WHERE id = ?").bind(p.reserved, interest.toString(), p.product_id),
    notificationStatement(db, {
      userId: p.user_id,
      kind: how === "mature" ? "earn_matured" : forfeited > 0n ? "earn_redeemed_early" : "earn_redeemed",
      key,
      params: { id: p.id, amount: money(amount, p.scale), currency: p.currency, interest: money(interest, p.scale), forfeited: money(forfeited, p.scale) },
      link: LINK,
      now,
    }),
  ];
}

/** POST /api/earn/redeem: flexible at once; fixed before maturity forfeits the interest accrued (stated before subscribing). */
export async function redeem(env: Env, userId: number, positionId: number, now = Date.now()): Promise<EarnPosition> {
  const db = env.DB;
  const p = await positionOf(db, userId, positionId);
  if (!p) throw new ApiError("not_found", 404);
  if (p.status !== 1) throw new ApiError("earn_position_closed", 409);
  // A fixed position whose last interest day has accrued is due: it is paid in full, never forfeited.
  const how = p.term_days > 0 && p.days >= p.term_days ? "mature" : "redeem";
  const objects = accountsOnObjects(env);
  try {
    await runEarnBatch(db, closeStatements(db, p, how, now, objects));
  } catch (err) {
    if (err instanceof ApiError && err.key === "state_conflict") {
      const fresh = await positionOf(db, userId, positionId);
      if (fresh && fresh.status !== 1) throw new ApiError("earn_position_closed", 409);
    }
    throw err;
  }
  if (objects) await deliverRecordLegs(env, closeLegs(p, how));
  await announceNotifications(env, [userId]);
  return positionView((await positionOf(db, userId, positionId))!);
}
