/**
 * Where money lives, by name (issue #28): every account object is an instance of the one user
 * object class (`env.USER`), named
 * - `user:{id}` for a user (id > 0): the user channel and that user's money, as before;
 * - `system:{id}:{k}` for shard k of a system account (D1's system user ids, id <= 0: 0 fees,
 *   -1 deposits, -2 withdrawals, -3 the treasury). A hot system account is split over
 *   SYSTEM_SHARDS objects, each the single writer of its part; the account's balance is the sum
 *   of its shards (D1's read model keeps each shard apart: `system_movements`, migrations/0049).
 * A leg's `to` is one of these names, so an outbox routes it without asking anyone. Pure: the pair
 * object, the Worker (worker/lib/accounts.ts) and tests share it.
 */

/** D1's system user ids (migrations/0001: user_id <= 0). */
export const SYSTEM_USERS = { fees: 0, deposits: -1, withdrawals: -2, treasury: -3 } as const;

/**
 * Shards per system account. A shard takes at most a few legs per delivery round of each pair that
 * sends to it (an outbox groups its pending legs per receiver), so this bounds a fee shard's load at
 * trades/s ÷ SYSTEM_SHARDS; raising it later only spreads new legs wider (a shard is never merged).
 */
export const SYSTEM_SHARDS = 8;

export type AccountAddress = { kind: "user"; userId: number } | { kind: "system"; userId: number; shard: number };

export const userAddress = (userId: number) => `user:${userId}`;
export const systemAddress = (userId: number, shard: number) => `system:${userId}:${shard}`;

/** The shard of a system account an event goes to: spread by a number the event already has (a trade id, an order id). */
export function shardOf(n: number, shards = SYSTEM_SHARDS): number {
  return ((Math.trunc(n) % shards) + shards) % shards;
}

/** Parses an object name; null when it is not one of the two forms above. */
export function parseAddress(name: string): AccountAddress | null {
  let m = /^user:([1-9][0-9]{0,15})$/.exec(name);
  if (m) return { kind: "user", userId: Number(m[1]) };
  m = /^system:(0|-[1-9][0-9]{0,5}):(0|[1-9][0-9]{0,3})$/.exec(name);
  if (m) return { kind: "system", userId: Number(m[1]), shard: Number(m[2]) };
  return null;
}
