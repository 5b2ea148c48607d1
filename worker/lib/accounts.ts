/**
 * The exchange-wide switch of issue #28 and the names of the account objects.
 *
 * `ACCOUNTS` (wrangler.toml [vars]): "d1" (the default, and anything but "objects") keeps every
 * product on D1's ledger exactly as before; "objects" moves spot orders and transfers between
 * one's own accounts onto the account objects (durable/account/): each user's balances and holds
 * live in their own object, the pair object delivers trades' legs to them and to the fee shards,
 * and D1 is filled from the objects as the read model (docs/architecture/account-objects.md).
 * The switch is read where a product would freeze or move funds: one string comparison.
 */
import { parseAddress, shardOf, systemAddress, SYSTEM_SHARDS, SYSTEM_USERS, userAddress } from "../../durable/account/address.ts";
import type { Leg, LegResult } from "../../durable/money/index.ts";
import { userStub } from "./notify.ts";
import { objectId } from "./object-ids.ts";

export { parseAddress, shardOf, systemAddress, SYSTEM_SHARDS, SYSTEM_USERS, userAddress };

/** Whether balances live in the account objects ("objects") or in D1 (anything else). */
export function accountsOnObjects(env: { ACCOUNTS?: string }): boolean {
  return env.ACCOUNTS === "objects";
}

const MAX_CORE_UNITS = BigInt(Number.MAX_SAFE_INTEGER);

/** Integer units as the money core counts them in a leg (a safe integer; anything past 2^53 − 1 is a bug upstream). */
export function coreUnits(v: bigint): number {
  if (v < 0n || v > MAX_CORE_UNITS) throw new RangeError(`units out of the money core's range: ${v}`);
  return Number(v);
}

/** A user's account object (the same object as their channel: `user:{id}`). */
export function accountStub(env: Pick<Env, "USER">, userId: number) {
  return userStub(env, userId);
}

/** Shard `shard` of a system account (`system:{id}:{k}`, an instance of the same class). */
export function systemStub(env: Pick<Env, "USER">, userId: number, shard: number) {
  return env.USER.get(objectId(env.USER, systemAddress(userId, shard)));
}

/**
 * Hands legs to the object a leg's `to` names (`user:{id}` or `system:{id}:{k}`) and answers its
 * per-leg results (each one acknowledges its leg). Throws for a name that is neither: a bug in the
 * sender, whose outbox then keeps the legs and retries with backoff while it is logged.
 */
export function sendLegs(env: Pick<Env, "USER">, to: string, legs: Leg[]): Promise<LegResult[]> {
  const a = parseAddress(to);
  if (!a) return Promise.reject(new Error(`no account object named ${to}`));
  return a.kind === "user" ? accountStub(env, a.userId).accountReceive(a.userId, legs) : systemStub(env, a.userId, a.shard).systemReceive(a.userId, a.shard, legs);
}
