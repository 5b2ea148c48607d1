/**
 * The end of a launch (the every-minute cron, worker/jobs/launch.ts; a cancel runs it at once too).
 *
 *   1. Projects whose window has ended go from open to allocating (from then on the database
 *      refuses every commit: migrations/0030_launch.sql), and their total demand is fixed once.
 *   2. Each commitment is settled in ONE batch keyed `launch:sub:{id}:settle`: allocation =
 *      min(cap, demand, floor(demand × supply / total demand)) tokens move from the treasury's
 *      reserve into the user's spot account, frozen (locked); the allocation's cost (rounded up to
 *      the unit) goes to the treasury; the rest of the commitment is refunded to the unit. A
 *      cancelled project refunds everything. The subscription's state change is guarded, the user's
 *      notification is in the same batch: a retry, a second invocation or a crash settles it once.
 *   3. When every commitment is settled, the treasury's unallocated tokens (the rounding remainder
 *      and any unsold supply) are released (`launch:{id}:release`) and the project is done or cancelled.
 * Each invocation does at most `maxSettlements` commitments and goes on at the next one.
 */
import { allocationOf, costOf, demandOf } from "../../../schemas/launch.ts";
import { money } from "../notifications/events.ts";
import { TREASURY } from "../../lib/guarded.ts";
import { classifyBatchError, movementStatements, type LedgerEntry } from "../../lib/ledger.ts";
import { announceNotifications, notificationStatement } from "../notifications/inbox.ts";
import { big } from "../wallet/currency.ts";
import { guardStatement } from "./guard.ts";
import { pricesOf, projectRow, type ProjectRow } from "./store.ts";
import { LAUNCH_LINK } from "./commit.ts";
import type { Leg } from "../../../durable/money/index.ts";
import { accountsOnObjects } from "../../lib/accounts.ts";
import { deliverRecordLegs, recordLegsStatements } from "../../lib/record-legs.ts";
import { commitHolds, finishLegs, settleLegs, settleRecord } from "./objects.ts";

export interface SettleReport {
  closed: number;
  settled: number;
  finished: number;
}

/** Runs steps 1–3 for every due project, within the bound. */
export async function settleLaunches(env: Pick<Env, "DB" | "USER"> & { ACCOUNTS?: string }, now: number, maxSettlements = 200): Promise<SettleReport> {
  const db = env.DB;
  const closed = await db.prepare("UPDATE launch_projects SET status = 'allocating' WHERE status = 'open' AND end_at <= ?").bind(now).run();
  const { results } = await db.prepare("SELECT id FROM launch_projects WHERE status IN ('allocating', 'cancelling') ORDER BY id LIMIT 20").all<{ id: number }>();
  const report: SettleReport = { closed: closed.meta.changes ?? 0, settled: 0, finished: 0 };
  for (const { id } of results) {
    if (report.settled >= maxSettlements) break;
    const r = await settleProject(env, id, now, maxSettlements - report.settled);
    report.settled += r.settled;
    if (r.finished) report.finished++;
  }
  return report;
}

interface SubRow {
  id: number;
  user_id: number;
  currency_id: number;
  amount: number;
}

/** Settles up to `max` commitments of one allocating or cancelling project, and finishes it when none is left. */
export async function settleProject(env: Pick<Env, "DB" | "USER"> & { ACCOUNTS?: string }, id: number, now: number, max: number): Promise<{ settled: number; finished: boolean }> {
  const db = env.DB;
  const p = await projectRow(db, id);
  if (!p || (p.status !== "allocating" && p.status !== "cancelling")) return { settled: 0, finished: false };
  const prices = await pricesOf(db, [p.id]);
  const priceOf = new Map(prices.map((x) => [x.currency_id, x]));
  const cancelling = p.status === "cancelling";

  let totalDemand = p.total_demand === null ? null : big(p.total_demand);
  if (!cancelling && totalDemand === null) {
    // Commits are refused from the moment the project left "open", so this sum never changes.
    const { results: all } = await db.prepare("SELECT currency_id, amount FROM launch_subscriptions WHERE project_id = ?").bind(p.id).all<SubRow>();
    totalDemand = all.reduce((sum, s) => sum + demandOf(big(s.amount), big(priceOf.get(s.currency_id)!.price), p.token_scale), 0n);
    await db.prepare("UPDATE launch_projects SET total_demand = ? WHERE id = ? AND total_demand IS NULL").bind(totalDemand.toString(), p.id).run();
  }

  const { results: subs } = await db
    .prepare("SELECT id, user_id, currency_id, amount FROM launch_subscriptions WHERE project_id = ? AND status = 'committed' ORDER BY id LIMIT ?")
    .bind(p.id, Math.max(0, max))
    .all<SubRow>();
  const notified: number[] = [];
  // Objects mode: each settlement's legs written with its transition and sent after it (./objects.ts).
  const objects = accountsOnObjects(env);
  const owed: Leg[] = [];
  let settled = 0;
  for (const s of subs) {
    const price = priceOf.get(s.currency_id)!;
    const amount = big(s.amount);
    let alloc = 0n;
    let cost = 0n;
    if (!cancelling) {
      alloc = allocationOf(demandOf(amount, big(price.price), p.token_scale), totalDemand!, big(p.supply), big(p.cap));
      cost = alloc > 0n ? costOf(alloc, big(price.price), p.token_scale) : 0n;
      if (cost > amount) cost = amount;
    }
    const refund = amount - cost;
    const key = `launch:sub:${s.id}:settle`;
    const entries: LedgerEntry[] = [
      { userId: s.user_id, currencyId: s.currency_id, account: "change", dAvailable: refund, dFrozen: -amount, memo: `launch ${p.id}` },
      { userId: TREASURY, currencyId: s.currency_id, account: "change", dAvailable: cost, dFrozen: 0n, memo: `launch ${p.id}` },
      { userId: TREASURY, currencyId: p.token_id, account: "change", dAvailable: 0n, dFrozen: -alloc, memo: `launch ${p.id}` },
      { userId: s.user_id, currencyId: p.token_id, account: "change", dAvailable: 0n, dFrozen: alloc, memo: `launch ${p.id}` },
    ];
    const note = cancelling
      ? notificationStatement(db, { userId: s.user_id, kind: "launch_refunded", key, params: { title: p.title, amount: money(amount, price.scale), currency: price.currency }, link: LAUNCH_LINK, now })
      : notificationStatement(db, {
          userId: s.user_id,
          kind: "launch_allocated",
          key,
          params: {
            title: p.title,
            alloc: money(alloc, p.token_scale),
            token: p.token,
            cost: money(cost, price.scale),
            refund: money(refund, price.scale),
            currency: price.currency,
          },
          link: LAUNCH_LINK,
          now,
        });
    const legs = objects
      ? settleLegs(
          { projectId: p.id, subId: s.id, userId: s.user_id, currencyId: s.currency_id, tokenId: p.token_id, publishedAt: p.published_at ?? 0, cancelling, alloc, cost },
          await commitHolds(db, p.id, s.user_id),
        )
      : [];
    try {
      await db.batch([
        ...(objects
          ? recordLegsStatements(db, settleRecord(p.id, s.id), legs, now)
          : movementStatements(db, key, cancelling ? "launch_refund" : "launch_allocate", entries, now)),
        db
          .prepare("UPDATE launch_subscriptions SET status = ?, alloc = ?, cost = ?, refund = ?, settled_at = ? WHERE id = ? AND status = 'committed'")
          .bind(cancelling ? "refunded" : "allocated", alloc.toString(), cost.toString(), refund.toString(), now, s.id),
        guardStatement(db, "launch settle"),
        note,
      ]);
      settled++;
      notified.push(s.user_id);
      owed.push(...legs);
    } catch (err) {
      // Another invocation settled it first (same key, or the guarded state): nothing to do.
      const msg = String((err as Error)?.message ?? err);
      if (classifyBatchError(err) !== "duplicate" && !msg.includes("state_conflict")) throw err;
    }
  }
  await deliverRecordLegs(env, owed);
  if (notified.length > 0) await announceNotifications(env, notified);
  if (subs.length === max && max > 0) return { settled, finished: false };
  const left = await db.prepare("SELECT COUNT(*) AS n FROM launch_subscriptions WHERE project_id = ? AND status = 'committed'").bind(p.id).first<{ n: number }>();
  if ((left?.n ?? 0) > 0) return { settled, finished: false };
  return { settled, finished: await finish(env, p, now) };
}

/** Releases the treasury's unallocated reserve and marks the project done (or cancelled): once. */
async function finish(env: Pick<Env, "DB" | "USER"> & { ACCOUNTS?: string }, p: ProjectRow, now: number): Promise<boolean> {
  const db = env.DB;
  const next = p.status === "cancelling" ? "cancelled" : "done";
  const stmts: D1PreparedStatement[] = [];
  let legs: Leg[] = [];
  if (p.published_at !== null) {
    const sum = await db.prepare("SELECT CAST(COALESCE(SUM(alloc), 0) AS TEXT) AS a FROM launch_subscriptions WHERE project_id = ? AND status = 'allocated'").bind(p.id).first<{ a: string }>();
    const released = big(p.supply) - big(sum?.a ?? "0");
    // Objects mode: the reserve's rest goes back in the treasury's shard, by a leg written with the status (./objects.ts).
    if (accountsOnObjects(env)) {
      legs = finishLegs(p.id, p.published_at, p.token_id, released);
      stmts.push(...recordLegsStatements(db, `launch:${p.id}`, legs, now));
    } else
      stmts.push(
        ...movementStatements(db, `launch:${p.id}:release`, "launch_release", [{ userId: TREASURY, currencyId: p.token_id, account: "change", dAvailable: released, dFrozen: -released, memo: `launch ${p.id}` }], now),
      );
  }
  stmts.push(db.prepare("UPDATE launch_projects SET status = ?, finished_at = ? WHERE id = ? AND status = ?").bind(next, now, p.id, p.status), guardStatement(db, "launch finish"));
  try {
    await db.batch(stmts);
    await deliverRecordLegs(env, legs);
    return true;
  } catch (err) {
    const msg = String((err as Error)?.message ?? err);
    if (classifyBatchError(err) === "duplicate" || msg.includes("state_conflict")) return false;
    throw err;
  }
}
