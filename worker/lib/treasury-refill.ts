/**
 * The treasury's shards lend to each other (issue #28, `ACCOUNTS=objects`).
 *
 * With balances in the account objects the treasury is eight shard objects (`system:-3:{k}`), and a
 * record's house side is held in one of them, chosen by the record's id (`treasuryAt`, a seconds
 * contract's or a position's cover, a conversion's payout by its user). A shard can be short of what
 * one record needs while the treasury as a whole has it: D1's single treasury row would have paid.
 * So a hold the chosen shard refuses as `insufficient` is not answered as the treasury's refusal at
 * once: `reserveOnTreasury` first moves what is missing into that shard from its richest siblings,
 * then asks once more. Only a treasury short as a whole refuses.
 *
 * A move is the two moves every D1 record makes (worker/lib/product-objects.ts): a hold in the
 * giving shard (`treasury_move:{from}-{to}:{uuid}`, owner `d1`), then one D1 batch that claims it
 * and writes its two legs into `record_legs` (the giver spends the hold, the taker is credited, one
 * key each); the legs are sent at once and again by the every-minute job until both objects
 * answered. A Worker that dies after the hold and before the batch leaves the hold to the giving
 * shard's orphan sweep, which gives it back after the grace; after the batch, the legs are owed and
 * will arrive. Either way no unit leaves the treasury, and none is counted twice. The moves show in
 * the shards' drained movements (`system_movements`, keys `treasury_move:…`).
 *
 * Two refills of one shard at once may both move money into it: the treasury's total is unchanged,
 * the shard just holds more. The success path of a hold makes no extra call.
 */
import type { Leg } from "../../durable/money/index.ts";
import type { ReserveAnswer, ReserveRequest } from "../../durable/account/types.ts";
import { claimRecord, RECORD_OWNER } from "../../durable/account/claims.ts";
import { coreUnits, SYSTEM_SHARDS, SYSTEM_USERS, systemAddress, systemStub } from "./accounts.ts";
import { deliverRecordLegs, recordLegsStatements } from "./record-legs.ts";

const TREASURY = SYSTEM_USERS.treasury;
/** The hold kind of a move between two treasury shards. */
export const TREASURY_MOVE = "treasury_move";

type Env_ = Pick<Env, "DB" | "USER">;

/**
 * A hold in treasury shard `shard`; when the shard is short, first a refill from its siblings and
 * one more try. Answers the shard's answer (`insufficient` only when the treasury as a whole, as the
 * shards answered at that moment, cannot cover it).
 */
export async function reserveOnTreasury(env: Env_, shard: number, request: ReserveRequest): Promise<ReserveAnswer> {
  const stub = systemStub(env, TREASURY, shard);
  const first = await stub.systemReserve(TREASURY, shard, request);
  if (first.result !== "insufficient") return first;
  if (!(await refillTreasuryShard(env, shard, request.account, request.currencyId, request.amount))) return first;
  return stub.systemReserve(TREASURY, shard, request);
}

/**
 * Moves into shard `shard` what it lacks of `amount` (available, in `account` and `currencyId`),
 * from the siblings that have most first. Answers whether the shard now has it (false: the
 * siblings together lack it too, or they spent it meanwhile).
 */
export async function refillTreasuryShard(env: Env_, shard: number, account: string, currencyId: number, amount: bigint): Promise<boolean> {
  const shards = [...Array(SYSTEM_SHARDS).keys()];
  const available = await Promise.all(
    shards.map(async (k) => (await systemStub(env, TREASURY, k).systemBalances(TREASURY, k)).find((b) => b.account === account && b.currencyId === currencyId)?.available ?? 0n),
  );
  let missing = amount - available[shard]!;
  if (missing <= 0n) return true;
  if (available.reduce((a, b) => a + b, 0n) < amount) return false;
  const givers = shards.filter((k) => k !== shard && available[k]! > 0n).sort((a, b) => (available[b]! > available[a]! ? 1 : available[b]! < available[a]! ? -1 : a - b));
  for (const from of givers) {
    if (missing <= 0n) break;
    const part = available[from]! < missing ? available[from]! : missing;
    if (await moveBetweenShards(env, from, shard, account, currencyId, part)) missing -= part;
  }
  return missing <= 0n;
}

/** One move of `amount` from shard `from` to shard `to` (see the header). Answers whether it was made. */
export async function moveBetweenShards(env: Env_, from: number, to: number, account: string, currencyId: number, amount: bigint): Promise<boolean> {
  const forId = `${from}-${to}:${crypto.randomUUID()}`;
  const hold = `${TREASURY_MOVE}:${forId}`;
    const held = await systemStub(env, TREASURY, from).systemReserve(TREASURY, from, { forKind: TREASURY_MOVE, forId, account, currencyId, amount, owner: RECORD_OWNER });
  if (held.result !== "reserved") return false;
  const legs: Leg[] = [
    { key: `${hold}:out`, to: systemAddress(TREASURY, from), ops: [{ t: "spend", hold, cur: String(currencyId), amt: coreUnits(amount) }] },
    { key: `${hold}:in`, to: systemAddress(TREASURY, to), ops: [{ t: "credit", kind: account, cur: String(currencyId), amt: coreUnits(amount) }] },
  ];
  const now = Date.now();
  try {
    await env.DB.batch([claimRecord(env.DB, hold, now), ...recordLegsStatements(env.DB, hold, legs, now)]);
  } catch (err) {
    console.error(JSON.stringify({ level: "warn", msg: "treasury move not recorded; its hold goes back", hold, error: String(err).slice(0, 300) }));
    await systemStub(env, TREASURY, from).systemApply(TREASURY, from, [{ key: `${hold}:refused`, ops: [{ t: "release", hold, amount: "rest" }] }]);
    return false;
  }
  // Owed from here on: what this call cannot deliver, the every-minute job does.
  return (await deliverRecordLegs(env, legs)) === 0;
}
