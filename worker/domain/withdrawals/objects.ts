/**
 * Withdrawals with balances in the account objects (issue #28, `ACCOUNTS=objects`,
 * worker/lib/accounts.ts; docs/architecture/account-objects.md "Deposits, withdrawals and
 * conversion in objects mode"). With the switch off none of this runs: the D1 path freezes and
 * settles in D1's ledger as before.
 *
 * - The request holds amount + fee in the user's object first (`withdrawal:{id}`, spot account,
 *   owner `d1:withdrawals`), then writes the D1 record. Insufficient funds: nothing moved, nothing
 *   written. A record that could not be written releases the hold (`withdrawal:{id}:refused`); a
 *   Worker that dies in between leaves the hold to the object's orphan sweep, which tombstones the
 *   id in D1 and releases it (`withdrawal:{id}:orphan`), once (durable/account/withdrawal-orphans.ts).
 * - The operator's decision commits in D1 as before (status, audit, notification) with the legs it
 *   owes the objects in the same batch (`object_legs`), delivered right after: a rejection or a chain
 *   failure releases the hold (`withdrawal:{id}:reject` / `:chain_failure`); chain success spends it,
 *   the amount to a withdrawals shard and the fee to a fee shard (`withdrawal:{id}:sent`, `:fee`).
 * - An in-site withdrawal holds the same way; its record (status 5) carries the legs that spend the
 *   hold (`withdrawal:{id}:in_site`) and credit the recipient (`withdraw-internal:{id}`).
 */
import { WITHDRAWAL_OWNER, withdrawalVerdict } from "../../../durable/account/withdrawal-orphans.ts";
import type { Leg } from "../../../durable/money/index.ts";
import { accountStub, shardOf, SYSTEM_USERS, systemAddress, userAddress } from "../../lib/accounts.ts";
import { ApiError } from "../../lib/errors.ts";
import { guardedError } from "../../lib/guarded.ts";
import { newWithdrawalId } from "../wallet/internal-addresses.ts";
import { coreUnits, deliverObjectLegs, objectLegStatements } from "../wallet/object-legs.ts";

/** The hold of withdrawal `id` in its user's object (the same name the migration opens a pending one with). */
export const withdrawalHold = (id: number) => `withdrawal:${id}`;

const ID_ATTEMPTS = 5;

/** What the record's batch writes for a withdrawal id, and the legs it owes the objects (an in-site one's). */
export type WithdrawalRecord = (id: number, now: number) => { statements: D1PreparedStatement[]; legs: Leg[] };

/**
 * The hold, then the record (see above); answers the withdrawal's id. A hold of a drawn id already
 * there, or a record's id taken by another user, draws another id.
 */
export async function holdThenRecord(env: Pick<Env, "DB" | "USER">, userId: number, currencyId: number, total: bigint, record: WithdrawalRecord): Promise<number> {
  const stub = accountStub(env, userId);
  for (let attempt = 1; attempt <= ID_ATTEMPTS; attempt++) {
    const id = newWithdrawalId();
    const held = await stub.accountReserve(userId, { forKind: "withdrawal", forId: String(id), account: "change", currencyId, amount: total, owner: WITHDRAWAL_OWNER });
    if (held.result === "insufficient") throw new ApiError("insufficient_balance", 409);
    if (held.result === "exists") continue;
    const now = Date.now();
    const { statements, legs } = record(id, now);
    try {
      await env.DB.batch([...statements, ...objectLegStatements(env.DB, legs, now)]);
    } catch (err) {
      // An answer lost after D1 committed must not release a recorded hold: the sweep's question
      // decides (the record is there, or the id is tombstoned and can never be written). D1 not
      // answering it either: the hold stays for the object's own sweep to ask again after the grace.
      const verdict = await withdrawalVerdict(env.DB, userId, id, now).catch(() => null);
      if (verdict === null) throw guardedError(err);
      if (verdict === "known") {
        await deliverObjectLegs(env, legs);
        return id;
      }
      await stub.accountApply(userId, [{ key: `${withdrawalHold(id)}:refused`, ops: [{ t: "release", hold: withdrawalHold(id), amount: "rest" }] }]);
      if (/withdrawals\.id|withdrawals\.freeze_key/.test(String((err as Error)?.message ?? err)) && attempt < ID_ATTEMPTS) continue;
      throw guardedError(err);
    }
    if (legs.length > 0) await deliverObjectLegs(env, legs);
    return id;
  }
  throw new ApiError("try_again", 503);
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
    { key: `${hold}:sent`, to: systemAddress(SYSTEM_USERS.withdrawals, shard), ops: [{ t: "credit", kind: "change", cur, amt: coreUnits(w.amount) }] },
  ];
  if (w.fee > 0n) legs.push({ key: `${hold}:fee`, to: systemAddress(SYSTEM_USERS.fees, shard), ops: [{ t: "credit", kind: "change", cur, amt: coreUnits(w.fee) }] });
  return legs;
}
