/**
 * Seconds contracts with balances in the account objects (issue #28, `ACCOUNTS=objects`,
 * worker/lib/accounts.ts). The two holds come first, then the pair's acceptance; no D1 write on the
 * way (the contract's row arrives with the pair's drain, durable/pair/desks/seconds-objects.ts):
 *
 * 1. the house's cover (the most a win pays) as hold `seconds:{id}` in treasury shard
 *    `coverShard(id)`: refused (`house_cannot_cover`) when the shard cannot cover it, nothing moved;
 * 2. the stake and the fee as hold `seconds:{id}` in the user's `micro` account: refused
 *    (`insufficient_balance`) when it is not there, and the cover goes back (`seconds:{id}:refused`);
 * 3. the pair accepts (entry tick, exposure) or refuses: a refusal releases both holds, keyed
 *    `seconds:{id}:refused`, before it is answered.
 *
 * The desk settles with legs to both objects and a fee shard. A Worker that dies between a hold and
 * the pair's answer leaves the holds open for the orphan sweep (not built yet: docs/architecture/account-objects.md).
 */
import type { SecondsOrder, SecondsSubmit } from "../../../schemas/seconds.ts";
import { acceptanceMoney } from "../../../durable/engine/seconds.ts";
import { coverShard, HOUSE_KIND, SECONDS_HOLD, SECONDS_USER_KIND, secondsHold } from "../../../durable/pair/desks/seconds-objects.ts";
import type { AcceptInput } from "../../../durable/pair/desks/seconds.ts";
import { accountStub, SYSTEM_USERS, systemStub } from "../../lib/accounts.ts";
import { ApiError } from "../../lib/errors.ts";
import { pairStub, type PairRow } from "../spot/pairs.ts";
import type { PayableRow } from "./config.ts";
import { acceptedOut, confirmedTicks, newContractId, priceMovedError, refusalError, stakeOf, type Held, type SubmitSession } from "./contract.ts";
import { termsOf } from "./terms.ts";

const TREASURY = SYSTEM_USERS.treasury;

/** Submits a contract on the account objects: cover, stake, then the pair (see above). */
export async function submitOnObjects(env: Env, userId: number, input: SecondsSubmit, now: number, session: SubmitSession): Promise<SecondsOrder> {
  // No freeze batch carries the session check here: confirm it first, before the house's cover is
  // held. In objects mode `confirm` asks the user's account object (durable/account/sessions.ts), not D1.
  await session.confirm?.();
  const { pair, option, cur } = await termsOf(env.DB, input, false, now);
  const confirmed = confirmedTicks(input, pair);
  const stake = stakeOf(input.number, cur);
  const money = acceptanceMoney(stake, option.ratioBps, cur.feeBps);
  const id = await holdBoth(env, userId, pair, cur, money.stake + money.fee, money.hold, now);
  const h: Held = { id, type: input.type, money, ratioBps: option.ratioBps, seconds: option.seconds, confirmed };
  const accept: AcceptInput = {
    pairId: pair.id,
    orderId: id,
    userId,
    currencyId: cur.currencyId,
    currencyName: cur.name,
    currencyScale: cur.scale,
    type: input.type,
    stake: money.stake.toString(),
    fee: money.fee.toString(),
    hold: money.hold.toString(),
    ratioBps: option.ratioBps,
    seconds: option.seconds,
    pairExposure: cur.pairExposure.toString(),
    userExposure: cur.userExposure.toString(),
    ...(confirmed === null ? {} : { confirmedPrice: confirmed }),
    objects: { clientOid: input.client_oid ?? null, createdAt: now },
  };
  const r = await pairStub(env, pair.id).acceptSeconds(accept);
  if (r.ok) return acceptedOut(pair, cur, h, r, now);
  await releaseBoth(env, userId, id, money.hold > 0n);
  if (r.code === "price_moved") throw priceMovedError(pair, confirmed, r.price);
  throw new ApiError(r.code === "tombstoned" ? "try_again" : refusalError[r.code], r.code === "tombstoned" ? 503 : 409);
}

/** The cover in its treasury shard, then the stake and fee in the user's object; answers the contract's id. */
async function holdBoth(env: Env, userId: number, pair: PairRow, cur: PayableRow, userAmount: bigint, cover: bigint, now: number): Promise<number> {
  const owner = `pair:${pair.id}`;
  for (let attempt = 0; attempt < 5; attempt++) {
    const id = newContractId(now);
    const request = { forKind: SECONDS_HOLD, forId: String(id), currencyId: cur.currencyId, owner };
    if (cover > 0n) {
      const shard = coverShard(id);
      const held = await systemStub(env, TREASURY, shard).systemReserve(TREASURY, shard, { ...request, account: HOUSE_KIND, amount: cover });
      if (held.result === "insufficient") throw new ApiError("house_cannot_cover", 409);
      // A hold of this id already there: another contract drew it in the same millisecond; draw again.
      if (held.result === "exists") continue;
    }
    const held = await accountStub(env, userId).accountReserve(userId, { ...request, account: SECONDS_USER_KIND, amount: userAmount });
    if (held.result === "reserved") return id;
    await releaseCover(env, id, cover > 0n);
    if (held.result === "insufficient") throw new ApiError("insufficient_balance", 409);
  }
  throw new ApiError("try_again", 503);
}

const refusedKey = (id: number) => `${secondsHold(id)}:refused`;

async function releaseCover(env: Env, id: number, covered: boolean): Promise<void> {
  if (!covered) return;
  const shard = coverShard(id);
  await systemStub(env, TREASURY, shard).systemApply(TREASURY, shard, [{ key: refusedKey(id), ops: [{ t: "release", hold: secondsHold(id), amount: "rest" }] }]);
}

/** A contract the pair refused: both holds back, each once by its key. */
async function releaseBoth(env: Env, userId: number, id: number, covered: boolean): Promise<void> {
  await Promise.all([
    accountStub(env, userId).accountApply(userId, [{ key: refusedKey(id), ops: [{ t: "release", hold: secondsHold(id), amount: "rest" }] }]),
    releaseCover(env, id, covered),
  ]);
}
