/**
 * Withdrawals with balances in the account objects (issue #28, `ACCOUNTS=objects`,
 * worker/lib/accounts.ts; docs/architecture/account-objects.md "Deposits, withdrawals and
 * conversion in objects mode"). With the switch off none of this runs: the D1 path freezes and
 * settles in D1's ledger as before.
 *
 * - The request holds amount + fee in the user's object first (`withdrawal:{id}`, spot account,
 *   owner `RECORD_OWNER`), then writes the D1 record with `claimRecord` of the hold in its batch
 *   (durable/account/claims.ts). Insufficient funds: nothing moved, nothing written. A record D1
 *   refused releases the hold at once (`withdrawal:{id}:refused`) after claiming it as an orphan;
 *   a Worker that dies in between (or a D1 that cannot say) leaves the hold to the object's orphan
 *   sweep, which claims it as an orphan in D1 and releases it (`withdrawal:{id}:orphan`), once.
 * - The operator's decision commits in D1 as before (status, audit, notification) with the legs it
 *   owes the objects in the same batch (`record_legs`, worker/lib/record-legs.ts), delivered right
 *   after: a rejection or a chain failure releases the hold (`withdrawal:{id}:reject` /
 *   `:chain_failure`); chain success spends it (`withdrawal:{id}:sent`), the amount to a
 *   withdrawals shard (`:paid`) and the fee to a fee shard (`:fee`).
 * - An in-site withdrawal holds the same way; its record (status 5) carries the legs that spend the
 *   hold (`withdrawal:{id}:in_site`) and credit the recipient (`withdraw-internal:{id}`).
 */
import { claimOrphan, claimRecord, RECORD_OWNER } from "../../../durable/account/claims.ts";
import type { Leg } from "../../../durable/money/index.ts";
import { accountStub, coreUnits, shardOf, SYSTEM_USERS, systemAddress, userAddress } from "../../lib/accounts.ts";
import { ApiError } from "../../lib/errors.ts";
import { guardedError } from "../../lib/guarded.ts";
import { IdTaken, withNewId } from "../../lib/ids.ts";
import { deliverRecordLegs, recordLegsStatements } from "../../lib/record-legs.ts";

/** The hold of withdrawal `id` in its user's object (the same name the migration opens a pending one with). */
export const withdrawalHold = (id: number) => `withdrawal:${id}`;

/** What the record's batch writes for a withdrawal id, and the legs it owes the objects (an in-site one's). */
export type WithdrawalRecord = (id: number, now: number) => { statements: D1PreparedStatement[]; legs: Leg[] };

/**
 * After a record's batch failed: whether this user's record of `id` is in D1 (the answer was lost
 * after D1 committed). Otherwise the hold is claimed as an orphan first, so the record can never
 * land after the hold goes back. A claim held by another user's record of the same id (a drawn id
 * taken meanwhile) says nothing of ours: ours can never be written under that id either.
 */
async function recordLanded(db: D1Database, userId: number, id: number, now: number): Promise<boolean> {
  if ((await claimOrphan(db, withdrawalHold(id), now)) === "orphan") return false;
  const row = await db.prepare("SELECT user_id FROM withdrawals WHERE id = ?").bind(id).first<{ user_id: number }>();
  return row?.user_id === userId;
}

/** A record's batch that met an id already taken (another user's withdrawal or its hold's claim): nothing was written. */
const ID_TAKEN = /withdrawals\.id|withdrawals\.freeze_key|object_hold_claims\.hold/;

/**
 * The hold, then the record (see above); answers the withdrawal's id. A hold of a drawn id already
 * there, or a record's id taken by another user, draws another id (worker/lib/ids.ts).
 */
export function holdThenRecord(env: Pick<Env, "DB" | "USER">, userId: number, currencyId: number, total: bigint, record: WithdrawalRecord): Promise<number> {
  const stub = accountStub(env, userId);
  return withNewId(null, async (id) => {
    const hold = withdrawalHold(id);
    const held = await stub.accountReserve(userId, { forKind: "withdrawal", forId: String(id), account: "change", currencyId, amount: total, owner: RECORD_OWNER });
    if (held.result === "insufficient") throw new ApiError("insufficient_balance", 409);
    if (held.result === "exists") throw new IdTaken();
    const now = Date.now();
    const { statements, legs } = record(id, now);
    try {
      await env.DB.batch([...statements, claimRecord(env.DB, hold, now), ...recordLegsStatements(env.DB, hold, legs, now)]);
    } catch (err) {
      // An answer lost after D1 committed must not release a recorded hold: D1's claims decide. D1
      // not answering that either: the hold stays for the object's own sweep to ask after the grace.
      const landed = await recordLanded(env.DB, userId, id, now).catch(() => null);
      if (landed === null) throw guardedError(err);
      if (!landed) {
        await stub.accountApply(userId, [{ key: `${hold}:refused`, ops: [{ t: "release", hold, amount: "rest" }] }]);
        if (ID_TAKEN.test(String((err as Error)?.message ?? err))) throw new IdTaken();
        throw guardedError(err);
      }
    }
    await deliverRecordLegs(env, legs);
    return id;
  });
}

/** The legs an in-site withdrawal's record owes: the sender's hold spent, the recipient credited. */
export function inSiteLegs(id: number, senderId: number, recipientId: number, currencyId: number, amount: bigint): Leg[] {
  const hold = withdrawalHold(id);
  const cur = String(currencyId);
  const amt = coreUnits(amount);
  return [
    { key: `${hold}:in_site`, to: userAddress(senderId), ops: [{ t: "spend", hold, cur, amt }] },
    { key: `withdraw-internal:${id}`, to: userAddress(recipientId), ops: [{ t: "credit", kind: "change", cur, amt }] },
  ];
}

/** The legs of an operator's terminal decision on a chain withdrawal (none for an approval: nothing moves). */
export function decisionLegs(w: { id: number; user_id: number; currency_id: number; amount: bigint; fee: bigint }, action: "approve" | "reject" | "chain_success" | "chain_failure"): Leg[] {
  const hold = withdrawalHold(w.id);
  const cur = String(w.currency_id);
  const user = userAddress(w.user_id);
  const total = coreUnits(w.amount + w.fee);
  if (action === "reject" || action === "chain_failure") return [{ key: `${hold}:${action}`, to: user, ops: [{ t: "release", hold, cur, amt: total }] }];
  if (action !== "chain_success") return [];
  const shard = shardOf(w.id);
  const legs: Leg[] = [
    { key: `${hold}:sent`, to: user, ops: [{ t: "spend", hold, cur, amt: total }] },
    { key: `${hold}:paid`, to: systemAddress(SYSTEM_USERS.withdrawals, shard), ops: [{ t: "credit", kind: "change", cur, amt: coreUnits(w.amount) }] },
  ];
  if (w.fee > 0n) legs.push({ key: `${hold}:fee`, to: systemAddress(SYSTEM_USERS.fees, shard), ops: [{ t: "credit", kind: "change", cur, amt: coreUnits(w.fee) }] });
  return legs;
}
