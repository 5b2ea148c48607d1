/**
 * Releasing the holds of rounds that are over (their window ended, or an operator closed or
 * cancelled them): each hold is one movement `vote:release:{round}:{user}` that unfreezes the
 * round's minimum in the voter's spot account, in the same batch as the hold's `released_at` and
 * the voter's notification. The movement key and the trigger on vote_holds (released once, and
 * only once the round is over) make a second run, or two runs at once, release nothing twice.
 * Bounded per call and resumable: what is left is taken by the next minute's run. With balances
 * in the account objects (`ACCOUNTS=objects`) the batch owes the leg that releases the voter's hold
 * `vote:{round}:{user}` in their object, under the same key (`record_legs`), sent after it (worker/lib/record-legs.ts).
 */
import { money } from "../notifications/events.ts";
import { classifyBatchError, movementStatements } from "../../lib/ledger.ts";
import { accountsOnObjects } from "../../lib/accounts.ts";
import { release, userAt } from "../../lib/product-objects.ts";
import { deliverRecordLegs, recordLegsStatements } from "../../lib/record-legs.ts";
import type { Leg } from "../../../durable/money/index.ts";
import { objectHold } from "./cast.ts";
import { announceNotifications, notificationStatement } from "../notifications/inbox.ts";

/** Holds released per call (one small batch each). */
export const RELEASES_PER_RUN = 200;

export const releaseKey = (roundId: number, userId: number) => `vote:release:${roundId}:${userId}`;

interface Due {
  round_id: number;
  user_id: number;
  currency_id: number;
  units: number;
  title: string;
  currency: string;
  scale: number;
}

/** Releases up to `limit` open holds of rounds that are over (or of one round); says how many it released and how many it found. */
export async function releaseDueHolds(env: Pick<Env, "DB" | "USER"> & { ACCOUNTS?: string }, now = Date.now(), opts: { roundId?: number; limit?: number } = {}): Promise<{ due: number; released: number }> {
  const db = env.DB;
  const limit = opts.limit ?? RELEASES_PER_RUN;
  const { results } = await db
    .prepare(
      `SELECT h.round_id, h.user_id, h.currency_id, h.units, r.title, c.name AS currency, c.scale
         FROM vote_holds h JOIN vote_rounds r ON r.id = h.round_id JOIN currencies c ON c.id = h.currency_id
        WHERE h.released_at IS NULL AND (r.status <> 'open' OR r.ends_at <= ?1) AND (?2 IS NULL OR r.id = ?2)
        ORDER BY h.round_id, h.user_id LIMIT ?3`,
    )
    .bind(now, opts.roundId ?? null, limit)
    .all<Due>();
  const released: number[] = [];
  const objects = accountsOnObjects(env);
  const owed: Leg[] = [];
  for (const h of results) {
    const units = BigInt(h.units);
    const key = releaseKey(h.round_id, h.user_id);
    try {
      const leg: Leg = { key, to: userAt(h.user_id), ops: [release(objectHold(h.round_id, h.user_id), h.currency_id, units)] };
      await db.batch([
        ...(objects
          ? recordLegsStatements(db, objectHold(h.round_id, h.user_id), [leg], now)
          : movementStatements(db, key, "vote_release", [{ userId: h.user_id, currencyId: h.currency_id, account: "change", dAvailable: units, dFrozen: -units, memo: `vote round ${h.round_id}` }], now)),
        // No `released_at IS NULL` here: a hold released already aborts the batch (its trigger), so a second run releases nothing.
        db.prepare("UPDATE vote_holds SET released_at = ? WHERE round_id = ? AND user_id = ?").bind(now, h.round_id, h.user_id),
        notificationStatement(db, {
          userId: h.user_id,
          kind: "vote_released",
          key,
          params: { round: h.round_id, title: h.title, amount: money(units, h.scale), currency: h.currency },
          link: "/vote",
          now,
        }),
      ]);
      released.push(h.user_id);
      if (objects) owed.push(leg);
    } catch (err) {
      // Another run released it first: nothing to do.
      if (classifyBatchError(err) === "duplicate" || /state_conflict/.test(String(err))) continue;
      throw err;
    }
  }
  for (let i = 0; i < owed.length; i += 100) await deliverRecordLegs(env, owed.slice(i, i + 100));
  await announceNotifications(env, released);
  return { due: results.length, released: released.length };
}
