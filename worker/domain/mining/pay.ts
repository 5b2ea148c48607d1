/**
 * The hourly payout (worker/jobs/mining.ts): every approved, unpaid (plan, hour) whose hour has
 * ended is paid pro rata to the shares held in that hour (holdings with start_at ≤ hour < end_at),
 * minus the plan's stated fee (schemas/mining.ts `holderShare`), into each holder's spot account.
 *
 * Exactly once, resumable, bounded: holders are paid in chunks of USERS_PER_BATCH, each chunk ONE
 * D1 batch holding its keyed movements `mining:{plan}:{hour}:{user}` (kind mining_payout: the
 * treasury's frozen gross → the holder's net + the fee back to the treasury's available), the
 * `mining_credits` rows (primary key (payout, user)), the payout's running `credited`/`fees`
 * (guarded on the value read, so two runs racing on one payout cannot both apply) and one
 * notification per paid holder. When every holder is credited, the rest (the unsold shares' part
 * and the rounding remainder) is released to the treasury (`mining:{plan}:{hour}:house`, kind
 * mining_release) in the batch that marks the payout paid. A crash between chunks leaves credited
 * holders credited and the rest for the next run.
 *
 * With balances in the account objects (`ACCOUNTS=objects`) the same batches owe legs instead of
 * movements (worker/lib/product-objects.ts): each holder's net credited in their object
 * (`mining:{plan}:{hour}:{user}`), and the chunk's gross spent from the payout's hold in its
 * treasury shard with the fees credited back there (`mining:{plan}:{hour}:chunk:{first user}`);
 * the rest released from that hold with the payout marked paid (`mining:{plan}:{hour}:house`).
 */
import { HOUR_MS, holderShare } from "../../../schemas/mining.ts";
import { HOUSE_ACCOUNT, TREASURY } from "../../lib/guarded.ts";
import { movementStatements, movementsStatements, type LedgerEntry } from "../../lib/ledger.ts";
import { announceNotifications, notificationsStatement, type NewNotification } from "../notifications/inbox.ts";
import { money } from "../notifications/events.ts";
import { PAYOUT_SELECT, type PayoutRow } from "./plans.ts";
import { accountsOnObjects } from "../../lib/accounts.ts";
import { credit, release, spend, treasuryAt, userAt } from "../../lib/product-objects.ts";
import { deliverRecordLegs, recordLegsStatements } from "../../lib/record-legs.ts";
import type { Leg } from "../../../durable/money/index.ts";
import { payoutHold } from "./payouts.ts";

export const USERS_PER_BATCH = 100;
export const BATCHES_PER_RUN = 20;

const hourText = (ms: number) => new Date(ms).toISOString().slice(0, 13).replace("T", " ") + ":00";

export interface PayRun {
  /** payouts finished (status paid) in this run */
  paid: number;
  /** holders credited in this run */
  credited: number;
  batches: number;
}

/** One chunk of one payout: "more" (holders credited), "done" (the payout is paid now), or "busy" (another run moved it). */
async function payStep(env: Pick<Env, "DB" | "USER"> & { ACCOUNTS?: string }, payoutId: number, now: number, usersPerBatch: number): Promise<{ step: "more" | "done" | "busy"; users: number }> {
  const db = env.DB;
  const o = await db.prepare(`${PAYOUT_SELECT} WHERE o.id = ?`).bind(payoutId).first<PayoutRow & { plan_id: number }>();
  if (!o || o.status !== "approved") return { step: "busy", users: 0 };
  const { results: holders } = await db
    .prepare(
      `SELECT h.user_id, SUM(h.shares) AS shares FROM mining_holdings h
        WHERE h.plan_id = ? AND h.start_at <= ? AND h.end_at > ?
          AND NOT EXISTS (SELECT 1 FROM mining_credits k WHERE k.payout_id = ? AND k.user_id = h.user_id)
        GROUP BY h.user_id ORDER BY h.user_id LIMIT ?`,
    )
    .bind(o.plan_id, o.hour, o.hour, o.id, usersPerBatch)
    .all<{ user_id: number; shares: number }>();
  const amount = BigInt(o.amount);
  const credited = BigInt(o.credited);
  const prefix = `mining:${o.plan_id}:${o.hour}`;
  const objects = accountsOnObjects(env);
  const legs: Leg[] = [];
  const record = `mining_payout:${o.id}`;
  try {
    if (holders.length === 0) {
      const rest = amount - credited;
      if (rest > 0n) legs.push({ key: `${prefix}:house`, to: treasuryAt(o.id), ops: [release(payoutHold(o.id), o.currency_id, rest)] });
      await db.batch([
        ...(objects
          ? recordLegsStatements(db, record, legs, now)
          : movementStatements(
          db,
          `${prefix}:house`,
          "mining_release",
          [{ userId: TREASURY, currencyId: o.currency_id, account: HOUSE_ACCOUNT, dAvailable: rest, dFrozen: -rest, memo: `mining payout #${o.id}: fees, unsold shares and rounding` }],
          now,
        )),
        db
          .prepare(
            `UPDATE mining_payouts SET status = 'paid', paid_at = ?,
               holders = (SELECT COUNT(*) FROM mining_credits WHERE payout_id = ?), held = (SELECT COALESCE(SUM(shares), 0) FROM mining_credits WHERE payout_id = ?)
             WHERE id = ? AND status = 'approved' AND credited = ?`,
          )
          .bind(now, o.id, o.id, o.id, credited.toString()),
        db.prepare("INSERT INTO mining_guards (changed, what) VALUES (changes(), 'payout paid')"),
      ]);
      if (objects) await deliverRecordLegs(env, legs);
      return { step: "done", users: 0 };
    }
    const movements: { key: string; kind: string; entries: LedgerEntry[]; now: number }[] = [];
    const credits: (string | number)[][] = [];
    const notes: NewNotification[] = [];
    let gross = 0n;
    let fees = 0n;
    for (const h of holders) {
      const s = holderShare(amount, BigInt(h.shares), BigInt(o.plan_shares), o.fee_bps);
      gross += s.gross;
      fees += s.fee;
      const key = `${prefix}:${h.user_id}`;
      credits.push([o.id, h.user_id, o.plan_id, o.hour, o.currency_id, h.shares, s.gross.toString(), s.fee.toString(), now]);
      if (s.gross === 0n) continue;
      if (s.net > 0n) legs.push({ key, to: userAt(h.user_id), ops: [credit("change", o.currency_id, s.net)] });
      movements.push({
        key,
        kind: "mining_payout",
        now,
        entries: [
          { userId: h.user_id, currencyId: o.currency_id, account: "change", dAvailable: s.net, dFrozen: 0n, memo: `mining ${o.plan_name} ${hourText(o.hour)}: ${h.shares} shares` },
          { userId: TREASURY, currencyId: o.currency_id, account: HOUSE_ACCOUNT, dAvailable: s.fee, dFrozen: -s.gross, memo: `mining payout #${o.id} to user ${h.user_id}, fee kept` },
        ],
      });
      if (s.net > 0n) {
        notes.push({
          userId: h.user_id,
          kind: "mining_paid",
          key,
          params: { plan: o.plan_name, hour: hourText(o.hour), shares: h.shares, amount: money(s.net, o.scale), fee: money(s.fee, o.scale), currency: o.currency },
          link: "/mining/my",
          now,
        });
      }
    }
    if (gross > 0n) {
      const ops = [spend(payoutHold(o.id), o.currency_id, gross)];
      if (fees > 0n) ops.push(credit(HOUSE_ACCOUNT, o.currency_id, fees));
      legs.push({ key: `${prefix}:chunk:${holders[0]!.user_id}`, to: treasuryAt(o.id), ops });
    }
    await db.batch([
      ...(objects ? recordLegsStatements(db, record, legs, now) : movementsStatements(db, movements)),
      db
        .prepare(
          `INSERT INTO mining_credits (payout_id, user_id, plan_id, hour, currency_id, shares, gross, fee, created_at)
           SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4, value ->> 5, value ->> 6, value ->> 7, value ->> 8 FROM json_each(?)`,
        )
        .bind(JSON.stringify(credits)),
      db
        .prepare("UPDATE mining_payouts SET credited = credited + ?, fees = fees + ? WHERE id = ? AND status = 'approved' AND credited = ?")
        .bind(gross.toString(), fees.toString(), o.id, credited.toString()),
      db.prepare("INSERT INTO mining_guards (changed, what) VALUES (changes(), 'payout chunk')"),
      ...notificationsStatement(db, notes, now),
    ]);
    if (objects) await deliverRecordLegs(env, legs);
    await announceNotifications(env, notes.map((n) => n.userId));
    return { step: "more", users: holders.length };
  } catch (err) {
    // Another run credited these holders (a movement key or a credit row exists, or `credited` moved): it goes on.
    const msg = String((err as Error)?.message ?? err);
    if (/mining_conflict|UNIQUE constraint failed: (movements\.key|mining_credits)/.test(msg)) return { step: "busy", users: 0 };
    throw err;
  }
}

/** Pays what is due at `now`, at most `batches` chunks of `usersPerBatch` holders. */
export async function payDueHours(env: Pick<Env, "DB" | "USER"> & { ACCOUNTS?: string }, now = Date.now(), limits: { batches?: number; usersPerBatch?: number } = {}): Promise<PayRun> {
  const batches = limits.batches ?? BATCHES_PER_RUN;
  const usersPerBatch = limits.usersPerBatch ?? USERS_PER_BATCH;
  const run: PayRun = { paid: 0, credited: 0, batches: 0 };
  const { results: due } = await env.DB.prepare("SELECT id FROM mining_payouts WHERE status = 'approved' AND hour + ? <= ? ORDER BY hour, id LIMIT 50")
    .bind(HOUR_MS, now)
    .all<{ id: number }>();
  for (const { id } of due) {
    for (;;) {
      if (run.batches >= batches) return run;
      run.batches += 1;
      const r = await payStep(env, id, now, usersPerBatch);
      run.credited += r.users;
      if (r.step === "done") run.paid += 1;
      if (r.step !== "more") break;
    }
  }
  return run;
}
