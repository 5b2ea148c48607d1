/**
 * Invite rebates with balances in the account objects (issue #28, `ACCOUNTS=objects`): the fees
 * were paid into the fee account's shards (`system:0:{k}`, worker/lib/accounts.ts), so a pay step
 * (settle.ts) pays out of them, and only what they hold:
 *
 * 1. the step's total is held in the fee shards, shard 0 first, each giving what it has: its
 *    `system` account (spot's fees: `rebate:{day}:{cursor}`), then its `change` account (the fees
 *    of seconds, lever and conversion: `rebate:{day}:{cursor}:change`). A shortfall throws and pays nothing (the run
 *    waits at this step, as D1's path does when the fee account is short); the holds already made
 *    stay and are taken up again by the next attempt of the same step (a hold that exists answers
 *    as it stands), so retries never hold twice;
 * 2. the step's batch writes the legs into `record_legs`, with the run's cursor: one credit per
 *    inviter, `rebate:{day}:{inviterId}`, and one per shard used spending its hold
 *    (`rebate:{day}:{cursor}:{k}`); they are sent after the batch. A day settled twice, or a step
 *    whose legs are sent twice, pays once: the step commits once, and each key applies once.
 */
import { ApiError } from "../../lib/errors.ts";
import { type Leg } from "../../../durable/money/index.ts";
import { units } from "../../../durable/money/index.ts";
import { HOUSE_ACCOUNT } from "../../lib/guarded.ts";
import { SYSTEM_SHARDS, SYSTEM_USERS, systemAddress, systemStub, userAddress } from "../../lib/accounts.ts";
import { balanceIn } from "../wallet/object-reads.ts";

const FEES = SYSTEM_USERS.fees;
/**
 * The fee shards' account: the pair's fee legs (spot, seconds, lever), the withdrawal and
 * conversion fees and the cut-over's opening all credit D1's house account `change` there (not the
 * money core's simulator kind `system`, which no wired leg uses: holding from it found nothing, so
 * every day's pay step threw "less USDT than these rebates" and waited for ever).
 */
const FEE_KIND = HOUSE_ACCOUNT;
export const REBATE_HOLD = "rebate";

export interface RebateStep {
  day: string;
  /** the run's cursor when the step began: the step's identity */
  step: number;
  currencyId: number;
  /** the inviters' account (lever, or change when leverage is off) */
  account: string;
  total: bigint;
  pay: { userId: number; amount: bigint }[];
}

type Env2 = Pick<Env, "DB" | "USER">;

/** Holds the step's total in the fee shards' house account (see above); answers each shard's part. */
async function holdFees(env: Env2, s: RebateStep): Promise<{ shard: number; hold: string; amount: bigint }[]> {
  const parts: { shard: number; hold: string; amount: bigint }[] = [];
  const forId = `${s.day}:${s.step}`;
  const hold = `${REBATE_HOLD}:${forId}`;
  let have = 0n;
  for (let k = 0; k < SYSTEM_SHARDS && have < s.total; k++) {
    const stub = systemStub(env, FEES, k);
    // A hold from an earlier attempt of this step counts as it was made.
    const earlier = await stub.systemHold(FEES, k, hold);
    let amount = earlier?.amount ?? 0n;
    if (!earlier) {
      const available = balanceIn(await stub.systemBalances(FEES, k), FEE_KIND, s.currencyId).available;
      const want = available < s.total - have ? available : s.total - have;
      if (want > 0n) {
        const held = await stub.systemReserve(FEES, k, { forKind: REBATE_HOLD, forId, account: FEE_KIND, currencyId: s.currencyId, amount: want });
        amount = held.result === "insufficient" ? 0n : held.hold.amount;
      }
    }
    if (amount > 0n) {
      parts.push({ shard: k, hold, amount });
      have += amount;
    }
  }
  if (have < s.total) throw new ApiError("invite_fees_short", 409);
  return parts;
}

/** The step's legs, its total held first in the fee shards (throws, paying nothing, when they hold less). */
export async function rebateLegs(env: Env2, s: RebateStep): Promise<Leg[]> {
  if (s.total <= 0n) return [];
  const cur = String(s.currencyId);
  const key = `${REBATE_HOLD}:${s.day}:${s.step}`;
  // One leg per shard, spending from its holds in turn.
  const byShard = new Map<number, Leg["ops"]>();
  let left = s.total;
  for (const p of await holdFees(env, s)) {
    const spend = p.amount < left ? p.amount : left;
    left -= spend;
    const ops = byShard.get(p.shard) ?? [];
    if (spend > 0n) ops.push({ t: "spend", hold: p.hold, cur, amt: units(Number(spend)) });
    if (p.amount > spend) ops.push({ t: "release", hold: p.hold, cur, amt: units(Number(p.amount - spend)) });
    byShard.set(p.shard, ops);
  }
  const legs: Leg[] = [...byShard].map(([shard, ops]) => ({ key: `${key}:${shard}`, to: systemAddress(FEES, shard), ops }));
  for (const p of s.pay)
    if (p.amount > 0n) legs.push({ key: `${REBATE_HOLD}:${s.day}:${p.userId}`, to: userAddress(p.userId), ops: [{ t: "credit", kind: s.account, cur, amt: units(Number(p.amount)) }] });
  return legs;
}
