/**
 * C2C with balances in the account objects (issue #28, `ACCOUNTS=objects`, worker/lib/accounts.ts).
 * The records (orders, adverts, merchant applications) stay in D1 with their state machines
 * (machine.ts) and guards; only the money moves to the objects, in the two moves of the design:
 *
 * 1. **the hold, then the record**: coins a record escrows are held in the owner's object first,
 *    `c2c_order:{id}` (a user selling to a buy advert), `c2c_advert:{id}` (a sell advert's whole
 *    amount), `c2c_deposit:{id}` (a merchant's security deposit), all in the `legal` account;
 *    `insufficient_balance` moves nothing. Then the record's D1 batch, which claims the hold for its
 *    record (`claimRecord`, the shared `object_hold_claims` of durable/account/claims.ts), so a record
 *    whose hold the orphan sweep claimed first is refused. A batch the database refuses gives the hold
 *    back (`{hold}:refused`); a Worker that dies in between leaves the hold to its object's orphan
 *    sweep, which after a grace claims it as an orphan (`claimOrphan`) and releases it (`{hold}:orphan`);
 * 2. **the transition, then its legs**: release (the escrow spent, the buyer credited) and return
 *    (a user's own escrow released) are the money core's `escrowReleaseLegs` / `escrowReturnLegs`,
 *    keyed by the order (`escrow:{id}:release:seller|buyer`, `escrow:{id}:return`), written into
 *    the shared `record_legs` in the transition's own D1 batch and sent after it commits
 *    (worker/lib/record-legs.ts; the every-minute `record-legs` job sends what was not answered).
 *    The guarded transition happens once, so its legs are written once; a retry or a second decision
 *    is refused by the order's state before any leg, and a leg sent twice is `seen` in its object.
 *
 * What each escrow means is D1's: an order on a sell advert draws on the advert's escrow, so its
 * release spends the advert's hold and its return moves nothing (the coins stay in the advert, whose
 * remaining grows again in D1); a withdrawn advert gives back exactly its remaining amount (never
 * "the rest": a release of an order that ended just before may still be on its way).
 */
import { claimRecord, RECORD_OWNER } from "../../../durable/account/claims.ts";
import type { Leg } from "../../../durable/money/index.ts";
import { escrowReleaseLegs, escrowReturnLegs, releaseLeg, units } from "../../../durable/money/index.ts";
import { accountStub, accountsOnObjects, userAddress } from "../../lib/accounts.ts";
import { ApiError } from "../../lib/errors.ts";
import { balanceOf } from "../../lib/ledger.ts";
import { balanceIn } from "../wallet/object-reads.ts";
import type { EscrowEffect } from "./machine.ts";
import { IdTaken, takenIn, withNewId } from "../../lib/ids.ts";
import type { ErrorKey } from "../../../schemas/errors.ts";
import { c2cRefusal } from "./shared.ts";

/** Where C2C coins live, in the objects as in D1. */
export const C2C_ACCOUNT = "legal";
export type EscrowKind = "c2c_order" | "c2c_advert" | "c2c_deposit";
export type C2cEnv = Pick<Env, "DB" | "USER"> & { ACCOUNTS?: string };

export const c2cOnObjects = (env: { ACCOUNTS?: string }) => accountsOnObjects(env);
export const escrowHold = (kind: EscrowKind, id: number) => `${kind}:${id}`;

/** The legal account's balance of one coin: the object's in objects mode, D1's otherwise. */
export async function legalBalance(env: C2cEnv, userId: number, currencyId: number): Promise<{ available: bigint; frozen: bigint }> {
  if (!c2cOnObjects(env)) return balanceOf(env.DB, userId, currencyId, C2C_ACCOUNT);
  return balanceIn(await accountStub(env, userId).accountBalances(userId), C2C_ACCOUNT, currencyId);
}

/**
 * The record's claim of its hold, in the record's batch: aborts the batch when the orphan sweep
 * claimed the hold first (it was given back), so a record never comes after its hold's release.
 */
export function escrowClaim(db: D1Database, kind: EscrowKind, id: number, now: number): D1PreparedStatement {
  return claimRecord(db, escrowHold(kind, id), now);
}

/** The record table of each escrow kind (a taken id there, or a taken hold name, draws again). */
const RECORD_TABLE: Record<EscrowKind, "c2c_orders" | "c2c_adverts" | "c2c_merchants"> = { c2c_order: "c2c_orders", c2c_advert: "c2c_adverts", c2c_deposit: "c2c_merchants" };

/**
 * The two moves of a new record: a fresh id's hold of `amount` in the owner's object, then the
 * record's batch (`write`, which must carry `escrowClaim`). An id another record took (its hold
 * here, its row or its hold's claim in D1) gives the hold back and draws again (worker/lib/ids.ts).
 * A refused batch (`conflict` for a lost race) gives the hold back before its refusal is answered;
 * any other failure leaves the hold to the orphan sweep. Answers the record's id.
 */
export async function withEscrow(
  env: C2cEnv,
  o: { userId: number; kind: EscrowKind; currencyId: number; amount: bigint; now: number; conflict?: ErrorKey },
  write: (id: number) => Promise<unknown>,
): Promise<number> {
  const stub = accountStub(env, o.userId);
  const taken = new RegExp(`${takenIn(RECORD_TABLE[o.kind]).source}|UNIQUE constraint failed: object_hold_claims\\.hold`);
  return withNewId(
    null,
    async (id) => {
      const held = await stub.accountReserve(o.userId, { forKind: o.kind, forId: String(id), account: C2C_ACCOUNT, currencyId: o.currencyId, amount: o.amount, owner: RECORD_OWNER });
      if (held.result === "insufficient") throw new ApiError("insufficient_balance", 409);
      // A hold of this id already there: another record drew it in the same millisecond; draw again.
      if (held.result === "exists") throw new IdTaken();
      try {
        await write(id);
        return id;
      } catch (err) {
        if (taken.test(String((err as Error)?.message ?? err))) {
          await giveBack(env, o.userId, escrowHold(o.kind, id), "refused");
          throw new IdTaken();
        }
        let refusal: unknown = err;
        try {
          c2cRefusal(err, o.conflict ?? "state_conflict");
        } catch (e) {
          refusal = e;
        }
        // Only a refusal the database answered (an ApiError) is certain to have written nothing.
        if (refusal instanceof ApiError) await giveBack(env, o.userId, escrowHold(o.kind, id), "refused");
        throw refusal;
      }
    },
    o.now,
  );
}

async function giveBack(env: C2cEnv, userId: number, hold: string, why: string): Promise<void> {
  await accountStub(env, userId).accountApply(userId, [{ key: `${hold}:${why}`, ops: [{ t: "release", hold, amount: "rest" }] }]);
}

/** What an order's transition owes the objects (the fields of OrderRow it reads). */
export interface EscrowOrder {
  id: number;
  type: "buy" | "sell";
  advert_id: number;
  buyer_id: number;
  seller_id: number;
  currency_id: number;
  amount: number;
}

/** The legs of an order's escrow effect: release to the buyer, or return to a selling user. */
export function orderLegs(r: EscrowOrder, effect: EscrowEffect): Leg[] {
  if (effect === "none") return [];
  // A sell advert's order draws on the advert's escrow; a user selling to a buy advert escrowed their own coins.
  const hold = r.type === "sell" ? escrowHold("c2c_advert", r.advert_id) : escrowHold("c2c_order", r.id);
  const e = { id: String(r.id), cur: String(r.currency_id), seller: userAddress(r.seller_id), buyer: userAddress(r.buyer_id), kind: C2C_ACCOUNT, hold, amt: units(Number(r.amount)) };
  if (effect === "release") return escrowReleaseLegs(e);
  // Returned into a sell advert: the coins stay in its hold (D1's remaining grows again); nothing moves.
  return r.type === "buy" ? escrowReturnLegs(e) : [];
}

/** A withdrawn sell advert gives back exactly what remains in it. */
export function advertWithdrawLegs(a: { id: number; user_id: number; currency_id: number }, remaining: bigint): Leg[] {
  const hold = escrowHold("c2c_advert", a.id);
  return releaseLeg(`${hold}:withdraw`, userAddress(a.user_id), hold, String(a.currency_id), units(Number(remaining)));
}

/** A rejected application or a merchant who leaves gets the deposit back. */
export function depositReleaseLegs(m: { id: number; user_id: number; currency_id: number }, deposit: bigint): Leg[] {
  const hold = escrowHold("c2c_deposit", m.id);
  return releaseLeg(`${hold}:release`, userAddress(m.user_id), hold, String(m.currency_id), units(Number(deposit)));
}
