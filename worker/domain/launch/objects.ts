/**
 * Launches with balances in the account objects (issue #28, `ACCOUNTS=objects`,
 * worker/lib/accounts.ts; docs/architecture/account-objects.md "Launches, adjustments and fee
 * rebates in objects mode (session 15)"). With the switch off none of this runs: commit.ts,
 * settle.ts and console.ts book every step in D1's ledger as before.
 *
 * The records (projects, subscriptions, commits) and their guards stay in D1; only the money moves:
 * - **publish**: the token supply is held first in treasury shard `system:-3:{pid mod 8}`, hold
 *   `launch_reserve:{pid}:{published_at}` (owner `d1`; short: `launch_reserve_short`), then the
 *   publish batch, which claims it;
 * - **commit**: each commit holds its amount in the user's spot account first, hold
 *   `launch:{pid}:{uuid}` (purpose `launch`, the project as its record, as on D1's screen), then
 *   the commit's batch (its `launch_commits.movement_key` is the hold's name), which claims it;
 * - **settle**: legs with the subscription's guarded transition (record `launch:{pid}:{sid}`):
 *   the user's `launch:{pid}:{sid}:allocate` spends the cost from the commits' holds in order,
 *   releases the rest and credits the allocated tokens straight into hold `launch_locked:{pid}`
 *   (the money core's `lock` op: frozen until they vest, purpose `launch_locked`, as on D1's
 *   path); the shard's `…:allocate:house` takes the cost and spends the tokens from the reserve.
 *   A cancelled project's `launch:{pid}:{sid}:refund` releases every commit's hold;
 * - **claim**: `launch:{pid}:{sid}:claim:{vested}` releases what vested from `launch_locked:{pid}`
 *   (after the allocation's legs landed: a release of a hold not yet made would be refused);
 * - **finish**: `launch:{pid}:release` gives the unallocated rest of the reserve back to the treasury.
 */
import { claimOrphan, claimRecord } from "../../../durable/account/claims.ts";
import type { Leg, Op } from "../../../durable/money/index.ts";
import { coreUnits } from "../../lib/accounts.ts";
import { ApiError } from "../../lib/errors.ts";
import { holdAt, releaseRefused, treasuryAt, userAt } from "../../lib/product-objects.ts";
import { deliverRecordLegs } from "../../lib/record-legs.ts";

/** The treasury's reserve of a project published at `publishedAt`. */
export const reserveHold = (projectId: number, publishedAt: number) => `launch_reserve:${projectId}:${publishedAt}`;
/** The user's locked tokens of a project (one subscription per user and project). */
export const lockedHold = (projectId: number) => `launch_locked:${projectId}`;
/** The record a subscription's settlement legs are written under (what a claim waits for). */
export const settleRecord = (projectId: number, subId: number) => `launch:${projectId}:${subId}`;
/** The hold a commit made before the cut-over was opened under by the migration: the subscription's whole escrow. */
const migratedHold = (projectId: number) => `launch:${projectId}`;

/**
 * Holds `amount` in `to` for a launch record, then runs `batch` with the hold's claim. A batch that
 * fails gives the hold back unless D1's claims say the record landed (an answer lost after D1
 * committed); `refused` maps the batch's error (as D1's path maps it). A hold already there: `exists`.
 */
export async function holdThenBatch(
  env: Pick<Env, "DB" | "USER">,
  to: string,
  hold: { forKind: string; forId: string; currencyId: number; amount: bigint },
  short: () => ApiError,
  batch: (claim: D1PreparedStatement) => Promise<unknown>,
  now: number,
): Promise<void> {
  const name = `${hold.forKind}:${hold.forId}`;
  const held = await holdAt(env, to, { ...hold, account: "change" });
  if (held === "insufficient") throw short();
  if (held === "exists") throw new ApiError("state_conflict", 409);
  try {
    await batch(claimRecord(env.DB, name, now));
  } catch (err) {
    const claim = await claimOrphan(env.DB, name, now).catch(() => null);
    if (claim === "record") return;
    // D1 silent: the hold stays for the object's sweep, which asks again after the grace.
    if (claim === "orphan") await releaseRefused(env, to, name);
    throw err;
  }
}

export interface CommitHold {
  hold: string;
  amount: bigint;
}

/** The holds a subscription's commits made, oldest first (`launch_commits.movement_key`; commits from before the cut-over share the migration's hold). */
export async function commitHolds(db: D1Database, projectId: number, userId: number): Promise<CommitHold[]> {
  const { results } = await db
    .prepare("SELECT movement_key AS k, CAST(amount AS TEXT) AS a FROM launch_commits WHERE project_id = ? AND user_id = ? ORDER BY created_at, rowid")
    .bind(projectId, userId)
    .all<{ k: string; a: string }>();
  const out: CommitHold[] = [];
  const own = `launch:${projectId}:`;
  for (const r of results) {
    const hold = r.k.startsWith(own) ? r.k : migratedHold(projectId);
    const same = out.find((h) => h.hold === hold);
    if (same) same.amount += BigInt(r.a);
    else out.push({ hold, amount: BigInt(r.a) });
  }
  return out;
}

export interface Settlement {
  projectId: number;
  subId: number;
  userId: number;
  currencyId: number;
  tokenId: number;
  publishedAt: number;
  cancelling: boolean;
  alloc: bigint;
  cost: bigint;
}

/** A subscription's settlement legs: the cost spent from the commits' holds in order, the rest released, the tokens locked; the treasury's side. */
export function settleLegs(s: Settlement, holds: readonly CommitHold[]): Leg[] {
  const cur = String(s.currencyId);
  const token = String(s.tokenId);
  const user: Op[] = [];
  let cost = s.cost;
  for (const h of holds) {
    const spent = cost < h.amount ? cost : h.amount;
    cost -= spent;
    if (spent > 0n) user.push({ t: "spend", hold: h.hold, cur, amt: coreUnits(spent) });
    if (h.amount - spent > 0n) user.push({ t: "release", hold: h.hold, cur, amt: coreUnits(h.amount - spent) });
  }
  if (s.alloc > 0n) user.push({ t: "lock", hold: lockedHold(s.projectId), kind: "change", cur: token, amt: coreUnits(s.alloc), forKind: "launch_locked", forId: String(s.projectId) });
  const key = `${settleRecord(s.projectId, s.subId)}:${s.cancelling ? "refund" : "allocate"}`;
  const legs: Leg[] = user.length > 0 ? [{ key, to: userAt(s.userId), ops: user }] : [];
  const house: Op[] = [];
  if (s.cost > 0n) house.push({ t: "credit", kind: "change", cur, amt: coreUnits(s.cost) });
  if (s.alloc > 0n) house.push({ t: "spend", hold: reserveHold(s.projectId, s.publishedAt), cur: token, amt: coreUnits(s.alloc) });
  if (house.length > 0) legs.push({ key: `${key}:house`, to: treasuryAt(s.projectId), ops: house });
  return legs;
}

/** A claim's leg: what vested leaves the locked hold. */
export function claimLegs(projectId: number, subId: number, userId: number, tokenId: number, vested: bigint, amount: bigint): Leg[] {
  return [{ key: `${settleRecord(projectId, subId)}:claim:${vested}`, to: userAt(userId), ops: [{ t: "release", hold: lockedHold(projectId), cur: String(tokenId), amt: coreUnits(amount) }] }];
}

/** The finish: the reserve's unallocated rest back to the treasury. */
export function finishLegs(projectId: number, publishedAt: number, tokenId: number, released: bigint): Leg[] {
  if (released <= 0n) return [];
  return [{ key: `launch:${projectId}:release`, to: treasuryAt(projectId), ops: [{ t: "release", hold: reserveHold(projectId, publishedAt), cur: String(tokenId), amt: coreUnits(released) }] }];
}

/**
 * Before a claim: the subscription's settlement legs still owed to the user's object are sent
 * first (a claim's release needs the locked hold); still not there, `try_again`, nothing written.
 */
export async function settlementLanded(env: Pick<Env, "DB" | "USER">, projectId: number, subId: number): Promise<void> {
  const { results } = await env.DB.prepare("SELECT key, dest, ops FROM record_legs WHERE record = ? ORDER BY created_at, rowid")
    .bind(settleRecord(projectId, subId))
    .all<{ key: string; dest: string; ops: string }>();
  if (results.length === 0) return;
  const left = await deliverRecordLegs(env, results.map((r) => ({ key: r.key, to: r.dest, ops: JSON.parse(r.ops) as Op[] })));
  if (left > 0) throw new ApiError("try_again", 409);
}
