/**
 * Read-your-own-writes of one's spot orders in objects mode (issue #28; docs/architecture/
 * account-objects.md "Read gaps found by the browser suite in objects mode (session 15)"): a spot
 * order's D1 row arrives by its pair's drain, scheduled right after the commit, so a list read
 * right after placing could miss it. Before such a read, the user's account object names the pairs
 * of their open spot orders and of those placed in the last minutes (one object call), and each of
 * those pairs drains its outbox into D1 now (a call that returns at once when nothing waits). With
 * `ACCOUNTS = "d1"` the rows are written by the order's own batch: nothing to do.
 */
import { accountsOnObjects } from "../../lib/accounts.ts";
import { userStub } from "../../lib/notify.ts";
import { pairStub } from "./pairs.ts";

/** How long a placed order's pair is drained before a read of one's orders (its drain is due at once; this covers a busy pair). */
export const RECENT_ORDER_MS = 5 * 60_000;

/** Drains the pairs holding this user's recent or open spot orders into D1 (objects mode only); answers the pairs drained. */
export async function ownOrdersDrained(env: Pick<Env, "USER" | "PAIR"> & { ACCOUNTS?: string }, userId: number): Promise<number[]> {
  if (!accountsOnObjects(env)) return [];
  const pairs = await userStub(env, userId).accountSpotPairs(userId, RECENT_ORDER_MS);
  await Promise.all(pairs.map((pairId) => pairStub(env, pairId).drain()));
  return pairs;
}
