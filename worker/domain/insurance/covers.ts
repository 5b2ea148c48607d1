/**
 * Covers (issue #19 §4; the rule in ./rule.ts and schemas/insurance.ts): buy, list one's own,
 * claim, and the cron's work (pay queued claims T+1, end covers that reached +100 % or their end
 * date). Every money event is ONE keyed movement through worker/lib/ledger.ts in the same D1 batch
 * as the cover's guarded state change, the plan's totals and the owner's notification:
 *   insurance:{id}:buy     kind insurance_premium  user change −premium; treasury +premium, cover frozen
 *   insurance:{id}:settle  kind insurance_payout   treasury frozen −cover → user micro +cover
 *                     or   kind insurance_release  treasury frozen −cover → treasury available
 * (pay and end share the settle key: at most one of them ever applies).
 *
 * With balances in the account objects (`ACCOUNTS=objects`; worker/lib/product-objects.ts) the
 * same batches owe legs instead of movements, under the same keys: the cover is held first in its
 * treasury shard (hold `cover:{id}`: whoever pays a win holds it first), then the premium in the
 * user's spot account (hold `cover:{id}`), then the row, whose batch owes the premium's legs (spent
 * from the user's hold, credited to the shard); a payout spends the shard's hold into the user's
 * seconds account, an end releases it.
 */
import type { InsuranceCover, InsuranceMy } from "../../../schemas/insurance.ts";
import { formatUnitsTrim } from "../../../schemas/money.ts";
import { ApiError, notFound } from "../../lib/errors.ts";
import { HOUSE_ACCOUNT, TREASURY } from "../../lib/guarded.ts";
import { balanceOf, classifyBatchError, movementStatements, type LedgerEntry } from "../../lib/ledger.ts";
import { accountsOnObjects, accountStub } from "../../lib/accounts.ts";
import { claimRecord, credit, holdThenRecord, houseKey, release, spend, takenOrClaimed, treasuryAt, userAt } from "../../lib/product-objects.ts";
import { deliverRecordLegs, recordLegsStatements } from "../../lib/record-legs.ts";
import type { Leg } from "../../../durable/money/index.ts";
import { balanceIn } from "../wallet/object-reads.ts";
import { takenIn, withNewId } from "../../lib/ids.ts";
import { amountOrThrow } from "../wallet/currency.ts";
import { announceNotifications, notificationStatement, type NewNotification } from "../notifications/inbox.ts";
import { money } from "../notifications/events.ts";
import { insurableCurrency, planAmounts, planRow } from "./plans.ts";
import { addDays, claimAtValue, coverOf, dayAfter, dueEnd, endAtValue, lossReached, nextUtcDay, premiumOf, statusOf, utcDay, type Path } from "./rule.ts";

const LINK = "/insurance/my";
/** A buy batch that met a cover id taken in the same millisecond (the movement key carries it): drawn again (worker/lib/ids.ts). */
const COVER_TAKEN = takenIn("insurance_covers");

export interface CoverRow {
  id: number;
  plan_id: number;
  plan_name: string;
  user_id: number;
  currency_id: number;
  currency: string;
  scale: number;
  insured: number;
  premium: number;
  cover: number;
  start_at: number;
  end_at: number;
  status: 0 | 1 | 2 | 3;
  end_reason: string;
  claimed_at: number | null;
  claim_day: string | null;
  paid_at: number | null;
  ended_at: number | null;
  created_at: number;
}

const COVER_SELECT = `SELECT v.*, p.name AS plan_name, c.name AS currency, c.scale FROM insurance_covers v
  JOIN insurance_plans p ON p.id = v.plan_id JOIN currencies c ON c.id = v.currency_id`;

type CoverEnv = Pick<Env, "DB" | "USER"> & { ACCOUNTS?: string };

/** A cover's holds in objects mode: the cover in its treasury shard, the premium in the user's spot account until the row's legs spend it. */
export const COVER_HOLD = "cover";
const coverHold = (id: number) => `${COVER_HOLD}:${id}`;
const settleKey = (id: number) => `insurance:${id}:settle`;

/** Runs a cover batch; the database's refusals become the catalogue's insurance errors. */
async function runCover(db: D1Database, stmts: D1PreparedStatement[]): Promise<void> {
  try {
    await db.batch(stmts);
  } catch (err) {
    coverRefusal(err);
  }
}

/** A cover batch's refusal as the catalogue's insurance error (an ApiError passes as it is); anything else is rethrown. */
function coverRefusal(err: unknown): never {
  if (err instanceof ApiError) throw err;
  const msg = String((err as Error)?.message ?? err);
  if (msg.includes("insurance_sold_out")) throw new ApiError("insurance_sold_out", 409);
  if (msg.includes("treasury_overdraft")) throw new ApiError("insurance_reserve", 409);
  if (/UNIQUE constraint failed: insurance_covers/.test(msg)) throw new ApiError("insurance_bought", 409);
  if (msg.includes("insurance_day_limit")) throw new DayLimit();
  if (msg.includes("insurance_conflict") || msg.includes("state_conflict")) throw new ApiError("insurance_processing", 409);
  const kind = classifyBatchError(err);
  if (kind === "duplicate") throw new ApiError("insurance_processing", 409);
  if (kind === "insufficient") throw new ApiError("insufficient_balance", 409);
  throw err;
}

/** A pay batch found the day's two payouts made by a parallel claim (the trigger of insurance_payout_days). */
class DayLimit extends Error {}

const guard = (db: D1Database, what: string) => db.prepare("INSERT INTO insurance_guards (changed, what) VALUES (changes(), ?)").bind(what);

// ── the measurement ─────────────────────────────────────────────────────────────────────────────

/** The user's last claim (0: none): losses before it were answered already. */
async function lastClaimAt(db: D1Database, userId: number): Promise<number> {
  const r = await db.prepare("SELECT last_claim_at FROM insurance_claimants WHERE user_id = ?").bind(userId).first<{ last_claim_at: number }>();
  return r?.last_claim_at ?? 0;
}

/** Net result and highest running net of the user's settled contracts in a currency opened from `from`, and their open contracts. */
async function pathOf(db: D1Database, userId: number, currencyId: number, from: number): Promise<Path> {
  const [settled, open] = await db.batch<{ net: string; peak: string } | { n: number }>([
    db
      .prepare(
        `SELECT CAST(COALESCE(SUM(r), 0) AS TEXT) AS net, CAST(COALESCE(MAX(run), 0) AS TEXT) AS peak FROM (
           SELECT result - fee AS r, SUM(result - fee) OVER (ORDER BY settled_at, id ROWS UNBOUNDED PRECEDING) AS run
           FROM micro_orders WHERE user_id = ? AND currency_id = ? AND status = 3 AND created_at >= ?)`,
      )
      .bind(userId, currencyId, from),
    db.prepare("SELECT COUNT(*) AS n FROM micro_orders WHERE user_id = ? AND status IN (0, 1, 2)").bind(userId),
  ]);
  const s = settled!.results[0] as { net: string; peak: string };
  return { net: BigInt(s.net), peak: BigInt(s.peak), openContracts: (open!.results[0] as { n: number }).n };
}

const measuredFrom = (c: CoverRow, lastClaim: number) => Math.max(c.start_at, lastClaim);

function coverOut(c: CoverRow, path: Path | null, lastClaim: number, now: number): InsuranceCover {
  const f = (u: bigint | number) => formatUnitsTrim(BigInt(u), c.scale);
  const insured = BigInt(c.insured);
  const facts = { status: c.status, insured, startAt: c.start_at, endAt: c.end_at };
  const net = c.status === 0 && path ? path.net : 0n;
  return {
    id: c.id,
    plan_id: c.plan_id,
    plan_name: c.plan_name,
    currency_id: c.currency_id,
    currency: c.currency,
    amount: f(insured),
    premium: f(c.premium),
    cover: f(c.cover),
    status: statusOf(facts, c.status === 0 ? path : null, now),
    end_reason: c.end_reason !== "" ? c.end_reason : (dueEnd(facts, path, now) ?? ""),
    start_at: c.start_at,
    end_at: c.end_at,
    value: f(insured + net),
    net: f(net),
    claim_at_value: f(claimAtValue(insured)),
    end_at_value: f(endAtValue(insured)),
    measured_from: measuredFrom(c, lastClaim),
    open_contracts: path?.openContracts ?? 0,
    claimed_at: c.claimed_at,
    pay_day: c.status === 1 && c.claim_day ? dayAfter(c.claim_day) : "",
    paid_at: c.paid_at,
    ended_at: c.ended_at,
    created_at: c.created_at,
  };
}

// ── buy ─────────────────────────────────────────────────────────────────────────────────────────

/**
 * Buys a cover: the premium from the spot account to the treasury and the full cover frozen in the
 * treasury, in one movement, with the cover row, the plan's reserve (quota trigger) and totals,
 * and the notification. Refused, changing nothing, when the plan is closed, the amount is not
 * offered, a cover of the plan is live, the seconds account holds less than the amount, the
 * premium is not in the spot account, or the treasury cannot reserve the cover.
 */
export async function buyCover(env: CoverEnv, userId: number, b: { plan_id: number; amount: string }, now = Date.now()): Promise<InsuranceCover> {
  const db = env.DB;
  const plan = await planRow(db, b.plan_id);
  if (!plan) throw notFound();
  if (plan.status !== 1) throw new ApiError("insurance_plan_closed", 409);
  await insurableCurrency(db, plan.currency_id);
  const insured = amountOrThrow(b.amount, plan.scale);
  const offered = planAmounts(plan);
  if (!offered.includes(insured)) throw new ApiError("insurance_amount", 400, { amounts: offered.map((a) => formatUnitsTrim(a, plan.scale)).join(", ") });
  const live = await db.prepare("SELECT 1 FROM insurance_covers WHERE user_id = ? AND plan_id = ? AND status IN (0, 1)").bind(userId, plan.id).first();
  if (live) throw new ApiError("insurance_bought", 409);
  const objects = accountsOnObjects(env);
  const micro = objects ? balanceIn(await accountStub(env, userId).accountBalances(userId), "micro", plan.currency_id) : await balanceOf(db, userId, plan.currency_id, "micro");
  if (micro.available + micro.frozen < insured) throw new ApiError("insurance_asset", 400, { amount: formatUnitsTrim(insured, plan.scale), currency: plan.currency });

  const premium = premiumOf(insured, plan.premium_bps);
  const cover = coverOf(insured, plan.cover_bps);
  const startAt = nextUtcDay(now);
  const endAt = addDays(startAt, plan.days);
  const build = (id: number) => {
    const entries: LedgerEntry[] = [
      { userId, currencyId: plan.currency_id, account: "change", dAvailable: -premium, dFrozen: 0n, memo: `insurance #${id} premium` },
      { userId: TREASURY, currencyId: plan.currency_id, account: HOUSE_ACCOUNT, dAvailable: premium - cover, dFrozen: cover, memo: `insurance #${id} premium, cover reserved` },
    ];
    const note: NewNotification = {
      userId,
      kind: "insurance_bought",
      key: `insurance:${id}:buy`,
      params: { id, plan: plan.name, amount: money(insured, plan.scale), premium: money(premium, plan.scale), cover: money(cover, plan.scale), currency: plan.currency, day: utcDay(startAt) },
      link: LINK,
      now,
    };
    return [
      ...(objects
        ? [claimRecord(db, coverHold(id), now), ...recordLegsStatements(db, coverHold(id), buyLegs(id), now)]
        : movementStatements(db, `insurance:${id}:buy`, "insurance_premium", entries, now)),
      db
        .prepare(
          `INSERT INTO insurance_covers (id, plan_id, user_id, currency_id, insured, premium, cover, start_at, end_at, status, checked_at, created_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 0, ?)`,
        )
        .bind(id, plan.id, userId, plan.currency_id, insured.toString(), premium.toString(), cover.toString(), startAt, endAt, now),
      db
        .prepare("UPDATE insurance_plans SET reserved = reserved + ?, premiums = premiums + ?, sold = sold + 1 WHERE id = ? AND status = 1")
        .bind(cover.toString(), premium.toString(), plan.id),
      guard(db, "plan open"),
      notificationStatement(db, note),
    ];
  };
  // Objects mode: the premium's hold spent and the treasury's shard credited, by the cover's row.
  const buyLegs = (id: number): Leg[] => [
    { key: `insurance:${id}:buy`, to: userAt(userId), ops: [spend(coverHold(id), plan.currency_id, premium)] },
    { key: houseKey(`insurance:${id}:buy`), to: treasuryAt(id), ops: [credit(HOUSE_ACCOUNT, plan.currency_id, premium)] },
  ];
  const write = async (id: number) => {
    if (!objects) await db.batch(build(id));
    else {
      // The cover in its treasury shard first (the house pays the win), then the premium in the user's spot account.
      const hold = { forKind: COVER_HOLD, forId: String(id), currencyId: plan.currency_id };
      const holds = [
        { to: treasuryAt(id), hold: { ...hold, account: HOUSE_ACCOUNT, amount: cover } },
        { to: userAt(userId), hold: { ...hold, account: "change", amount: premium } },
      ];
      await holdThenRecord(env, holds, (h) => new ApiError(h.to === treasuryAt(id) ? "insurance_reserve" : "insufficient_balance", 409), () => db.batch(build(id)));
      await deliverRecordLegs(env, buyLegs(id));
    }
    return id;
  };
  const id = await withNewId(takenOrClaimed(COVER_TAKEN), write, now).catch((err: unknown) => {
    // The plan closed between the read and the batch.
    if (/insurance_conflict|state_conflict/.test(String((err as Error)?.message ?? err))) throw new ApiError("insurance_plan_closed", 409);
    return coverRefusal(err);
  });
  await announceNotifications(env, [userId]);
  return coverOut((await coverRow(db, id, userId))!, null, 0, now);
}

async function coverRow(db: D1Database, id: number, userId: number): Promise<CoverRow | null> {
  return db.prepare(`${COVER_SELECT} WHERE v.id = ? AND v.user_id = ?`).bind(id, userId).first<CoverRow>();
}

// ── list ────────────────────────────────────────────────────────────────────────────────────────

/** One's covers, newest first, each with its status and the account's value by the rule; covers due to end are ended first. */
export async function myCovers(env: CoverEnv, userId: number, q: { page: number; limit: number }, now = Date.now()): Promise<InsuranceMy> {
  const db = env.DB;
  await endDueOf(env, userId, now);
  const [count, rows] = await db.batch<{ n: number } | CoverRow>([
    db.prepare("SELECT COUNT(*) AS n FROM insurance_covers WHERE user_id = ?").bind(userId),
    db.prepare(`${COVER_SELECT} WHERE v.user_id = ? ORDER BY v.id DESC LIMIT ? OFFSET ?`).bind(userId, q.limit, (q.page - 1) * q.limit),
  ]);
  const lastClaim = await lastClaimAt(db, userId);
  const data: InsuranceCover[] = [];
  for (const c of rows!.results as CoverRow[]) {
    const path = c.status === 0 && now >= c.start_at ? await pathOf(db, userId, c.currency_id, measuredFrom(c, lastClaim)) : null;
    data.push(coverOut(c, path, lastClaim, now));
  }
  return { total: (count!.results[0] as { n: number }).n, data };
}

// ── claim ───────────────────────────────────────────────────────────────────────────────────────

/**
 * Claims a cover. Paid now (one movement from the treasury's reserve into the seconds account) while
 * the user has had fewer than two payouts this UTC day, otherwise queued and paid the next UTC day
 * by the cron. Refused, changing nothing: before the effective day, with open seconds contracts,
 * above the 50 % threshold, once paid/ended, while queued, or when a parallel claim got there first
 * (the user's last-claim mark moves with a guarded UPDATE: one claim per loss).
 */
export async function claimCover(env: CoverEnv, userId: number, id: number, now = Date.now()): Promise<{ result: "paid" | "queued"; cover: InsuranceCover }> {
  const db = env.DB;
  const c = await coverRow(db, id, userId);
  if (!c) throw notFound();
  if (c.status === 1) throw new ApiError("insurance_processing", 409);
  if (c.status !== 0) throw new ApiError("insurance_invalid", 409);
  if (now < c.start_at) throw new ApiError("insurance_not_effective", 409, { day: utcDay(c.start_at) });
  const lastClaim = await lastClaimAt(db, userId);
  const path = await pathOf(db, userId, c.currency_id, measuredFrom(c, lastClaim));
  const insured = BigInt(c.insured);
  if (dueEnd({ status: 0, insured, startAt: c.start_at, endAt: c.end_at }, path, now) !== null) {
    await endDueOf(env, userId, now);
    throw new ApiError("insurance_invalid", 409);
  }
  if (path.openContracts > 0) throw new ApiError("insurance_open_orders", 409);
  if (!lossReached(insured, path.net)) {
    throw new ApiError("insurance_not_claimable", 409, { value: formatUnitsTrim(insured + path.net, c.scale), currency: c.currency, threshold: formatUnitsTrim(claimAtValue(insured), c.scale) });
  }

  const day = utcDay(now);
  const objects = accountsOnObjects(env);
  const payouts = await db.prepare("SELECT payouts FROM insurance_payout_days WHERE user_id = ? AND day = ?").bind(userId, day).first<{ payouts: number }>();
  // The mark: a claim answers the loss up to now; a parallel claim read the same mark and fails its guard.
  const mark = [
    db
      .prepare(
        `INSERT INTO insurance_claimants (user_id, last_claim_at) VALUES (?1, ?2)
         ON CONFLICT (user_id) DO UPDATE SET last_claim_at = excluded.last_claim_at WHERE insurance_claimants.last_claim_at = ?3`,
      )
      .bind(userId, now, lastClaim),
    guard(db, "claim mark"),
  ];
  if ((payouts?.payouts ?? 0) < 2) {
    try {
      await runCover(db, [...mark, ...payStatements(db, c, 0, now, day, objects)]);
      if (objects) await deliverRecordLegs(env, payLegs(c));
      await announceNotifications(env, [userId]);
      return { result: "paid", cover: coverOut((await coverRow(db, id, userId))!, null, now, now) };
    } catch (err) {
      if (!(err instanceof DayLimit)) throw err;
      // A parallel claim of another cover made the day's second payout first: queue this one.
    }
  }
  await runCover(db, [
    ...mark,
    db.prepare("UPDATE insurance_covers SET status = 1, claimed_at = ?, claim_day = ? WHERE id = ? AND user_id = ? AND status = 0").bind(now, day, c.id, userId),
    guard(db, "cover queue"),
    notificationStatement(db, {
      userId,
      kind: "insurance_queued",
      key: `insurance:${c.id}:queued`,
      params: { id: c.id, cover: money(BigInt(c.cover), c.scale), currency: c.currency, day: dayAfter(day) },
      link: LINK,
      now,
    }),
  ]);
  await announceNotifications(env, [userId]);
  return { result: "queued", cover: coverOut((await coverRow(db, id, userId))!, null, now, now) };
}

/** A payout in objects mode: the shard's hold spent into the user's seconds account (the shard's key is the end's too: one of them, once). */
function payLegs(c: CoverRow): Leg[] {
  const cover = BigInt(c.cover);
  return [
    { key: houseKey(settleKey(c.id)), to: treasuryAt(c.id), ops: [spend(coverHold(c.id), c.currency_id, cover)] },
    { key: settleKey(c.id), to: userAt(c.user_id), ops: [credit("micro", c.currency_id, cover)] },
  ];
}

/** An end in objects mode: the shard's hold released (keyed as the payout's shard leg). */
const endLegs = (c: CoverRow): Leg[] => [{ key: houseKey(settleKey(c.id)), to: treasuryAt(c.id), ops: [release(coverHold(c.id), c.currency_id, BigInt(c.cover))] }];

/**
 * The statements that pay a cover in state `from` (0 claimed now, 1 queued): state, day count, plan
 * totals, movement (`objects`: the legs that spend the shard's hold into the user's seconds account), notification.
 */
function payStatements(db: D1Database, c: CoverRow, from: 0 | 1, now: number, day: string, objects: boolean): D1PreparedStatement[] {
  const cover = BigInt(c.cover);
  const entries: LedgerEntry[] = [
    { userId: TREASURY, currencyId: c.currency_id, account: HOUSE_ACCOUNT, dAvailable: 0n, dFrozen: -cover, memo: `insurance #${c.id} payout` },
    { userId: c.user_id, currencyId: c.currency_id, account: "micro", dAvailable: cover, dFrozen: 0n, memo: `insurance #${c.id} payout` },
  ];
  return [
    ...(objects ? recordLegsStatements(db, coverHold(c.id), payLegs(c), now) : movementStatements(db, settleKey(c.id), "insurance_payout", entries, now)),
    db
      .prepare(
        `UPDATE insurance_covers SET status = 2, paid_at = ?1, claimed_at = COALESCE(claimed_at, ?1), claim_day = COALESCE(claim_day, ?2)
         WHERE id = ?3 AND user_id = ?4 AND status = ?5`,
      )
      .bind(now, day, c.id, c.user_id, from),
    guard(db, "cover pay"),
    db
      .prepare("INSERT INTO insurance_payout_days (user_id, day, payouts) VALUES (?, ?, 1) ON CONFLICT (user_id, day) DO UPDATE SET payouts = payouts + 1")
      .bind(c.user_id, day),
    db.prepare("UPDATE insurance_plans SET reserved = reserved - ?1, paid = paid + ?1, claims = claims + 1 WHERE id = ?2").bind(cover.toString(), c.plan_id),
    notificationStatement(db, {
      userId: c.user_id,
      kind: "insurance_paid",
      key: `insurance:${c.id}:paid`,
      params: { id: c.id, cover: money(cover, c.scale), currency: c.currency },
      link: LINK,
      now,
    }),
  ];
}

// ── ends ────────────────────────────────────────────────────────────────────────────────────────

/** Ends one live cover: the reserve back to the treasury, the plan's reserve down, the owner told; once (guard + settle key). */
async function endCover(env: CoverEnv, c: CoverRow, reason: "profit" | "expired", now: number): Promise<boolean> {
  const db = env.DB;
  const cover = BigInt(c.cover);
  const objects = accountsOnObjects(env);
  try {
    await runCover(db, [
      ...(objects
        ? recordLegsStatements(db, coverHold(c.id), endLegs(c), now)
        : movementStatements(
            db,
            settleKey(c.id),
            "insurance_release",
            [{ userId: TREASURY, currencyId: c.currency_id, account: HOUSE_ACCOUNT, dAvailable: cover, dFrozen: -cover, memo: `insurance #${c.id} ended (${reason})` }],
            now,
          )),
      db.prepare("UPDATE insurance_covers SET status = 3, end_reason = ?, ended_at = ? WHERE id = ? AND status = 0").bind(reason, now, c.id),
      guard(db, "cover end"),
      db.prepare("UPDATE insurance_plans SET reserved = reserved - ? WHERE id = ?").bind(cover.toString(), c.plan_id),
      notificationStatement(db, { userId: c.user_id, kind: reason === "profit" ? "insurance_ended" : "insurance_expired", key: `insurance:${c.id}:ended`, params: { id: c.id }, link: LINK, now }),
    ]);
    if (objects) await deliverRecordLegs(env, endLegs(c));
    return true;
  } catch (err) {
    // Paid or ended by a parallel request first: nothing to do.
    if (err instanceof ApiError && err.key === "insurance_processing") return false;
    throw err;
  }
}

/** Ends those of one user's live covers that are due (reached +100 %, or their end date). */
async function endDueOf(env: CoverEnv, userId: number, now: number): Promise<void> {
  const db = env.DB;
  const { results } = await db.prepare(`${COVER_SELECT} WHERE v.user_id = ? AND v.status = 0 AND v.start_at <= ?`).bind(userId, now).all<CoverRow>();
  if (results.length === 0) return;
  const lastClaim = await lastClaimAt(db, userId);
  let ended = false;
  for (const c of results) {
    const path = await pathOf(db, userId, c.currency_id, measuredFrom(c, lastClaim));
    const why = dueEnd({ status: 0, insured: BigInt(c.insured), startAt: c.start_at, endAt: c.end_at }, path, now);
    if (why && (await endCover(env, c, why, now))) ended = true;
  }
  if (ended) await announceNotifications(env, [userId]);
}

// ── the cron ────────────────────────────────────────────────────────────────────────────────────

/** Covers looked at per invocation, per kind of work (bounded statements; the next minute goes on). */
export const CRON_BATCH = 100;

/**
 * The cron's work, resumable and exactly once per cover (guards and the settle key):
 *   1. queued claims of an earlier UTC day are paid, oldest first, at most two payouts per user and day;
 *   2. live covers past their end date end ("expired");
 *   3. live, active covers are measured round-robin (oldest check first) and end when they reached +100 %.
 */
export async function runInsuranceCron(env: CoverEnv, now = Date.now()): Promise<{ paid: number; expired: number; profit: number }> {
  const db = env.DB;
  const objects = accountsOnObjects(env);
  const today = utcDay(now);
  const told = new Set<number>();
  let paid = 0;
  const queued = await db.prepare(`${COVER_SELECT} WHERE v.status = 1 AND v.claim_day < ? ORDER BY v.claimed_at, v.id LIMIT ?`).bind(today, CRON_BATCH).all<CoverRow>();
  for (const c of queued.results) {
    try {
      await runCover(db, payStatements(db, c, 1, now, today, objects));
      if (objects) await deliverRecordLegs(env, payLegs(c));
      paid += 1;
      told.add(c.user_id);
    } catch (err) {
      // Today's two payouts are made (the rest waits for tomorrow), or it was paid already.
      if (err instanceof DayLimit || (err instanceof ApiError && err.key === "insurance_processing")) continue;
      throw err;
    }
  }
  let expired = 0;
  const due = await db.prepare(`${COVER_SELECT} WHERE v.status = 0 AND v.end_at <= ? ORDER BY v.end_at LIMIT ?`).bind(now, CRON_BATCH).all<CoverRow>();
  for (const c of due.results) {
    if (await endCover(env, c, "expired", now)) {
      expired += 1;
      told.add(c.user_id);
    }
  }
  let profit = 0;
  const live = await db.prepare(`${COVER_SELECT} WHERE v.status = 0 AND v.start_at <= ? ORDER BY v.checked_at, v.id LIMIT ?`).bind(now, CRON_BATCH).all<CoverRow>();
  for (const c of live.results) {
    const path = await pathOf(db, c.user_id, c.currency_id, measuredFrom(c, await lastClaimAt(db, c.user_id)));
    if (dueEnd({ status: 0, insured: BigInt(c.insured), startAt: c.start_at, endAt: c.end_at }, path, now) === "profit" && (await endCover(env, c, "profit", now))) {
      profit += 1;
      told.add(c.user_id);
    } else {
      await db.prepare("UPDATE insurance_covers SET checked_at = ? WHERE id = ? AND status = 0").bind(now, c.id).run();
    }
  }
  if (told.size > 0) await announceNotifications(env, [...told]);
  return { paid, expired, profit };
}
