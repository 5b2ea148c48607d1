/**
 * The daily interest of savings positions (issue #19 §1), run by the cron (worker/jobs/earn.ts).
 *
 * Interest days are whole days of holding counted from the subscription itself: day n (1, 2, …) is
 * accrued once n × 24 hours have passed since the position was opened, so one day of holding pays
 * one day, never twice; a day is named by the UTC date it started on (first_day + n − 1). Each
 * (position, day) is ONE batch: its row in `earn_accruals` (primary
 * key: a second run, a retry or two runs at once abort on it), the position's counters guarded on
 * the state read, and for a flexible position the payment from the reserve (movement
 * `earn:{id}:day:{day}`, notification keyed the same) with the day re-reserved from the budget while
 * it lasts. A fixed position's interest stays in the reserve until maturity, when principal and
 * interest are paid in one movement (`earn:{id}:close`, shared with redemption). A missed run is
 * caught up day by day; an invocation does at most `limit` batches and the every-minute cron goes on.
 *
 * With balances in the account objects (`ACCOUNTS=objects`) the same batches owe legs instead of
 * writing movements: a flexible day's interest is spent from the product's budget hold in its
 * treasury shard and credited in the user's object, keyed `earn:{id}:interest:{day}` (the shard's
 * leg with `:house`), and a maturity is `closeLegs`; they are written into `record_legs` with the
 * batch and sent after it (worker/lib/record-legs.ts).
 */
import { FLEX_RESERVE_DAYS } from "../../../schemas/earn.ts";
import { money } from "../notifications/events.ts";
import { ApiError } from "../../lib/errors.ts";
import { HOUSE_ACCOUNT, TREASURY } from "../../lib/guarded.ts";
import { movementStatements } from "../../lib/ledger.ts";
import { accountsOnObjects } from "../../lib/accounts.ts";
import { credit, houseKey, spend, treasuryAt, userAt } from "../../lib/product-objects.ts";
import { deliverRecordLegs, recordLegsStatements } from "../../lib/record-legs.ts";
import type { Leg } from "../../../durable/money/index.ts";
import { announceNotifications, notificationStatement } from "../notifications/inbox.ts";
import { budgetHold, releaseRemainders } from "./catalogue.ts";
import { closeLegs, closeStatements } from "./positions.ts";
import { addDays, DAY_MS, earnGuard, POSITION_COLUMNS, principalHold, runEarnBatch, type PositionRow } from "./shared.ts";

const FROM = "FROM earn_positions p JOIN currencies c ON c.id = p.currency_id";

/** A flexible position's interest of one day in objects mode: from the budget's hold to the user's spot account. */
export function interestLegs(p: PositionRow, day: string, pay: bigint): Leg[] {
  const key = `earn:${p.id}:interest:${day}`;
  return [
    { key: houseKey(key), to: treasuryAt(p.product_id), ops: [spend(budgetHold(p.product_id), p.currency_id, pay)] },
    { key, to: userAt(p.user_id), ops: [credit("change", p.currency_id, pay)] },
  ];
}

/** The statements of one interest day of one open position (`objects`: with its legs owed instead of movements). */
function accrualStatements(db: D1Database, p: PositionRow, day: string, now: number, objects: boolean): { stmts: D1PreparedStatement[]; paid: boolean; legs: Leg[] } {
  const daily = BigInt(p.daily);
  const stmts: D1PreparedStatement[] = [];
  if (p.term_days > 0) {
    // Fixed: accrued now, paid at maturity from the reserve, which already holds daily × term.
    stmts.push(
      db.prepare("INSERT INTO earn_accruals (position_id, day, amount, created_at) VALUES (?, ?, ?, ?)").bind(p.id, day, daily.toString(), now),
      db.prepare("UPDATE earn_positions SET days = days + 1, earned = earned + ? WHERE id = ? AND status = 1 AND days = ?").bind(daily.toString(), p.id, p.days),
      earnGuard(db, "accrue fixed"),
    );
    return { stmts, paid: false, legs: [] };
  }
  // Flexible: paid today from the position's reserve (all of it that is left, when the budget could not renew it).
  const reserved = BigInt(p.reserved);
  const pay = daily < reserved ? daily : reserved;
  const key = `earn:${p.id}:day:${day}`;
  const legs = pay > 0n && objects ? interestLegs(p, day, pay) : [];
  if (legs.length > 0) stmts.push(...recordLegsStatements(db, principalHold(p.id), legs, now));
  else if (pay > 0n) {
    stmts.push(
      ...movementStatements(
        db,
        key,
        "earn_interest",
        [
          { userId: TREASURY, currencyId: p.currency_id, account: HOUSE_ACCOUNT, dAvailable: 0n, dFrozen: -pay, memo: `savings position ${p.id} interest ${day}` },
          { userId: p.user_id, currencyId: p.currency_id, account: "change", dAvailable: pay, dFrozen: 0n, memo: `savings position ${p.id} interest ${day}` },
        ],
        now,
      ),
    );
  }
  stmts.push(
    db.prepare("INSERT INTO earn_accruals (position_id, day, amount, created_at) VALUES (?, ?, ?, ?)").bind(p.id, day, pay.toString(), now),
    db
      .prepare("UPDATE earn_positions SET days = days + 1, earned = earned + ?1, paid = paid + ?1, reserved = reserved - ?1 WHERE id = ?2 AND status = 1 AND days = ?3 AND reserved = ?4")
      .bind(pay.toString(), p.id, p.days, p.reserved),
    earnGuard(db, "accrue flexible"),
    db.prepare("UPDATE earn_products SET paid = paid + ?1, reserved = reserved - ?1 WHERE id = ?2").bind(pay.toString(), p.product_id),
  );
  // Renew the reserve to FLEX_RESERVE_DAYS ahead while the open product's budget can (all of it or
  // nothing: the database checks the budget in the same statement); when it cannot, the reserve runs down.
  const renew = daily * BigInt(FLEX_RESERVE_DAYS) - (reserved - pay);
  if (renew > 0n) {
    stmts.push(
      db.prepare("UPDATE earn_products SET reserved = reserved + ?1 WHERE id = ?2 AND status = 1 AND reserved + paid + released + ?1 <= budget").bind(renew.toString(), p.product_id),
      db.prepare("UPDATE earn_positions SET reserved = reserved + ?1 WHERE id = ?2 AND changes() = 1").bind(renew.toString(), p.id),
    );
  }
  if (pay > 0n) {
    stmts.push(
      notificationStatement(db, {
        userId: p.user_id,
        kind: "earn_interest",
        key,
        params: { id: p.id, day, amount: money(pay, p.scale), currency: p.currency },
        link: "/earn/positions",
        now,
      }),
    );
  }
  return { stmts, paid: pay > 0n, legs };
}

export interface AccrualRun {
  accrued: number;
  matured: number;
  released: number;
  /** true when the limit stopped the run before the work was done (the next run goes on) */
  more: boolean;
}

/** Accrues every ended interest day of open positions, pays matured fixed positions, and releases closed products' unpromised budgets. */
export async function runAccruals(env: Env, now = Date.now(), limit = 200): Promise<AccrualRun> {
  const db = env.DB;
  const objects = accountsOnObjects(env);
  const owed: Leg[] = [];
  const notified = new Set<number>();
  let batches = 0;
  let accrued = 0;
  let matured = 0;

  // 1. Interest days, oldest first; a position behind by several days comes back once per day.
  while (batches < limit) {
    const { results } = await db
      .prepare(
        `SELECT ${POSITION_COLUMNS} ${FROM}
          WHERE p.status = 1 AND (p.term_days = 0 OR p.days < p.term_days) AND p.created_at + (p.days + 1) * ${DAY_MS} <= ?
          ORDER BY p.id LIMIT ?`,
      )
      .bind(now, Math.min(50, limit - batches))
      .all<PositionRow>();
    if (results.length === 0) break;
    for (const p of results) {
      batches += 1;
      const { stmts, paid, legs } = accrualStatements(db, p, addDays(p.first_day, p.days), now, objects);
      if (await applied(db, stmts)) {
        accrued += 1;
        owed.push(...legs);
        if (paid) notified.add(p.user_id);
      }
    }
  }

  // 2. Fixed positions whose every interest day has accrued: principal + interest, once.
  while (batches < limit) {
    const { results } = await db
      .prepare(`SELECT ${POSITION_COLUMNS} ${FROM} WHERE p.status = 1 AND p.term_days > 0 AND p.days >= p.term_days ORDER BY p.id LIMIT ?`)
      .bind(Math.min(50, limit - batches))
      .all<PositionRow>();
    if (results.length === 0) break;
    for (const p of results) {
      batches += 1;
      if (await applied(db, closeStatements(db, p, "mature", now, objects))) {
        matured += 1;
        if (objects) owed.push(...closeLegs(p, "mature"));
        notified.add(p.user_id);
      }
    }
  }

  // The legs these batches owe, sent now (a failed sending is sent again by the record-legs job).
  for (let i = 0; i < owed.length; i += 100) await deliverRecordLegs(env, owed.slice(i, i + 100));
  const released = batches < limit ? await releaseRemainders(env, now) : 0;
  await announceNotifications(env, [...notified]);
  return { accrued, matured, released, more: batches >= limit };
}

/** Runs one batch; false when a racing run or request got there first (nothing applied). */
async function applied(db: D1Database, stmts: D1PreparedStatement[]): Promise<boolean> {
  try {
    await runEarnBatch(db, stmts);
    return true;
  } catch (err) {
    if (err instanceof ApiError && err.key === "state_conflict") return false;
    throw err;
  }
}
