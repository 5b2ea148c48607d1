/**
 * Balance adjustments and treasury funding with balances in the account objects (issue #28,
 * `ACCOUNTS=objects`, worker/lib/accounts.ts; docs/architecture/account-objects.md "Launches,
 * adjustments and fee rebates in objects mode (session 15)"). With the switch off none of this runs:
 * `decideAdjustment` (./reviews.ts) books the adjustment in D1's ledger as before.
 *
 * The second operator's approval is the adjustment's one money event. Whoever pays holds first,
 * named after the decision (`adjustment:{id}:{decided_at}`, owner `d1`): the treasury shard
 * `system:-3:{id mod 8}` for a credit to a user or money leaving the treasury, the user's object
 * for a debit of the user. Short: `treasury_insufficient` / `insufficient_balance`, nothing moved,
 * the adjustment still pending. Then the decision's D1 batch (status, audit: guarded as before, a
 * second decision is `state_conflict`) claims the hold and writes the legs it owes into
 * `record_legs`, delivered right after, each applied once by its key:
 *
 * | adjustment | legs |
 * | --- | --- |
 * | user +n | `adjustment:{id}` credits the user's account; `adjustment:{id}:house` spends the shard's hold |
 * | user −n | `adjustment:{id}` spends the user's hold; `adjustment:{id}:house` credits the treasury shard |
 * | treasury +n (funding) | `adjustment:{id}:t{k}` credits every treasury shard k an equal part (the remainder's units to the first shards); deposits shard `system:-1:{id mod 8}`: `adjustment:{id}:in` (from outside), `:paid` (to the treasury) |
 * | treasury −n | `adjustment:{id}` spends the shard's hold; withdrawals shard `system:-2:{id mod 8}`: `adjustment:{id}:paid` |
 *
 * Funding is spread over the shards because every record draws on the shard its own id names
 * (`treasuryAt`: a seconds contract's cover, a savings budget, a mining payout): funding one shard
 * would leave the records of the seven others short. Nothing moves money between shards later.
 *
 * A batch that fails gives the hold back (`{hold}:refused`) unless D1's claims say the record
 * landed (an answer lost after D1 committed): the hold's claim decides, as for withdrawals.
 */
import { claimOrphan, claimRecord } from "../../../durable/account/claims.ts";
import type { Leg } from "../../../durable/money/index.ts";
import { coreUnits, shardOf, SYSTEM_SHARDS, SYSTEM_USERS, systemAddress, userAddress } from "../../lib/accounts.ts";
import { ApiError } from "../../lib/errors.ts";
import { guardedError, TREASURY } from "../../lib/guarded.ts";
import { holdAt, releaseRefused } from "../../lib/product-objects.ts";
import { deliverRecordLegs, recordLegsStatements } from "../../lib/record-legs.ts";

export interface AdjustmentTerms {
  id: number;
  user_id: number;
  currency_id: number;
  account: string;
  amount: bigint;
}

/** The hold a decision at `now` makes (a decision attempt's own name: one left by a dead Worker never blocks the next). */
export const adjustmentHold = (id: number, now: number) => `adjustment:${id}:${now}`;

/** A funding's part for each treasury shard: equal, the remainder's units one each to the first shards; shards with no part get no leg. */
export function fundingParts(amt: number): number[] {
  const each = Math.floor(amt / SYSTEM_SHARDS);
  const rest = amt % SYSTEM_SHARDS;
  return Array.from({ length: SYSTEM_SHARDS }, (_, k) => each + (k < rest ? 1 : 0)).filter((part) => part > 0);
}

/** Who pays first, and what the decision's legs are (the table above). */
export function adjustmentPlan(a: AdjustmentTerms, now: number): { payer: { to: string; account: string; short: "treasury_insufficient" | "insufficient_balance" } | null; hold: string; legs: Leg[] } {
  const cur = String(a.currency_id);
  const amt = coreUnits(a.amount < 0n ? -a.amount : a.amount);
  const treasury = systemAddress(SYSTEM_USERS.treasury, shardOf(a.id));
  const hold = adjustmentHold(a.id, now);
  const key = `adjustment:${a.id}`;
  if (a.user_id === TREASURY) {
    if (a.amount > 0n) {
      const deposits = systemAddress(SYSTEM_USERS.deposits, shardOf(a.id));
      return {
        payer: null,
        hold,
        legs: [
          ...fundingParts(amt).map((part, k): Leg => ({ key: `${key}:t${k}`, to: systemAddress(SYSTEM_USERS.treasury, k), ops: [{ t: "credit", kind: "change", cur, amt: part }] })),
          { key: `${key}:in`, to: deposits, ops: [{ t: "credit", kind: "change", cur, amt }] },
          { key: `${key}:paid`, to: deposits, ops: [{ t: "debit", kind: "change", cur, amt }] },
        ],
      };
    }
    return {
      payer: { to: treasury, account: "change", short: "treasury_insufficient" },
      hold,
      legs: [
        { key, to: treasury, ops: [{ t: "spend", hold, cur, amt }] },
        { key: `${key}:paid`, to: systemAddress(SYSTEM_USERS.withdrawals, shardOf(a.id)), ops: [{ t: "credit", kind: "change", cur, amt }] },
      ],
    };
  }
  const user = userAddress(a.user_id);
  if (a.amount > 0n)
    return {
      payer: { to: treasury, account: "change", short: "treasury_insufficient" },
      hold,
      legs: [
        { key, to: user, ops: [{ t: "credit", kind: a.account, cur, amt }] },
        { key: `${key}:house`, to: treasury, ops: [{ t: "spend", hold, cur, amt }] },
      ],
    };
  return {
    payer: { to: user, account: a.account, short: "insufficient_balance" },
    hold,
    legs: [
      { key, to: user, ops: [{ t: "spend", hold, cur, amt }] },
      { key: `${key}:house`, to: treasury, ops: [{ t: "credit", kind: "change", cur, amt }] },
    ],
  };
}

/**
 * The approval in objects mode: the payer's hold, then `decision` (the status and audit
 * statements) with the hold's claim and the legs in one batch, then the legs delivered.
 */
export async function approveOnObjects(env: Pick<Env, "DB" | "USER">, a: AdjustmentTerms, decision: D1PreparedStatement[], now: number): Promise<void> {
  const db = env.DB;
  const { payer, hold, legs } = adjustmentPlan(a, now);
  if (payer) {
    const amount = a.amount < 0n ? -a.amount : a.amount;
    const held = await holdAt(env, payer.to, { forKind: "adjustment", forId: `${a.id}:${now}`, account: payer.account, currencyId: a.currency_id, amount });
    // Another decision of the same millisecond holds this name: it decides.
    if (held === "exists") throw new ApiError("state_conflict", 409);
    if (held !== "reserved") throw new ApiError(payer.short, 409);
  }
  try {
    await db.batch([...decision, ...(payer ? [claimRecord(db, hold, now)] : []), ...recordLegsStatements(db, `adjustment:${a.id}`, legs, now)]);
  } catch (err) {
    if (payer) {
      // An answer lost after D1 committed must not give back a recorded hold: its claim decides (D1 silent: the object's sweep asks later).
      const claim = await claimOrphan(db, hold, now).catch(() => null);
      if (claim === null) throw guardedError(err);
      if (claim === "record") {
        await deliverRecordLegs(env, legs);
        return;
      }
      await releaseRefused(env, payer.to, hold);
    }
    throw guardedError(err);
  }
  await deliverRecordLegs(env, legs);
}
