/**
 * A deposit credited with balances in the account objects (issue #28, `ACCOUNTS=objects`;
 * docs/architecture/account-objects.md "Deposits, withdrawals and conversion in objects mode").
 * The operator's audited decision (worker/domain/operator/reviews.ts `decideDeposit`) commits in
 * D1 as before and carries these legs in the same batch (`record_legs`, worker/lib/record-legs.ts);
 * they are delivered right after it, each applied once by its key:
 * - `deposit:{id}` to the user's object: the amount credited to the spot account;
 * - to deposits shard `system:-1:{id mod 8}`: `deposit:{id}:in` (the money arrives from outside) and
 *   `deposit:{id}:paid` (it is paid to the user), in that order in one call (and in that order again
 *   when the job resends them: `record_legs` are resent in the order a batch wrote them).
 * In D1 the deposits account goes below zero by design: it mirrors money that came from outside, so
 * that the ledger sums to zero. An object's balance never goes below zero (its CHECKs), so the shard
 * shows the same fact as two movements instead: what came in (`:in`, summed over the shards: what
 * D1's negative balance says) and what it paid (`:paid`). Its balance stays 0, so no shard ever
 * nears 2^53.
 */
import type { Leg } from "../../../durable/money/index.ts";
import { coreUnits, shardOf, SYSTEM_USERS, systemAddress, userAddress } from "../../lib/accounts.ts";

export function depositLegs(d: { id: number; userId: number; currencyId: number; amount: bigint }): Leg[] {
  const cur = String(d.currencyId);
  const amt = coreUnits(d.amount);
  const shard = systemAddress(SYSTEM_USERS.deposits, shardOf(d.id));
  return [
    { key: `deposit:${d.id}`, to: userAddress(d.userId), ops: [{ t: "credit", kind: "change", cur, amt }] },
    { key: `deposit:${d.id}:in`, to: shard, ops: [{ t: "credit", kind: "change", cur, amt }] },
    { key: `deposit:${d.id}:paid`, to: shard, ops: [{ t: "debit", kind: "change", cur, amt }] },
  ];
}
