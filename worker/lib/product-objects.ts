/**
 * The two moves of a product whose records live in D1 (savings, cover, mining, launches, votes),
 * with balances in the account objects (issue #28, `ACCOUNTS=objects`, worker/lib/accounts.ts;
 * docs/architecture/account-objects.md "Savings, cover, mining, launch and vote in objects mode"):
 *
 * 1. **A hold, then the record.** The money a record needs is held first in the object that pays
 *    it (`holdAt`: the user's object for what the user pays, a treasury shard for what the house
 *    pays: whoever pays a win holds it first), named `{kind}:{id}` after the record and owned by
 *    `d1`; then the record's D1 batch, which claims that name (`claimRecord`). A batch that fails
 *    gives the holds back (`releaseRefused`, keyed `{hold}:refused`); a Worker that dies between the
 *    two leaves the hold to the account object's orphan sweep, which claims the name as an orphan
 *    after the grace and releases it once (durable/account/claims.ts).
 * 2. **Legs with the record's transitions.** What a record's interest day, payout or end moves is
 *    a set of legs keyed by the record and the day or round, written into `object_legs` in the same
 *    D1 batch as the transition (`owedLegs`), so they exist exactly when the transition does. They
 *    are sent right after the batch (`deliverOwed`) and again by the cron until every object
 *    answered (`deliverOwed` with no keys); each object applies a leg once by its key.
 *
 * D1's `balances` and `ledger` are not written by these products in objects mode: the objects drain
 * their movements into the read model (`account_movements`, `system_movements`).
 */
import type { AccountLeg, AccountOp, LegAnswer, ReserveRequest } from "../../durable/account/types.ts";
import { RECORD_OWNER } from "../../durable/account/claims.ts";
import { ApiError } from "./errors.ts";
import { accountStub, parseAddress, shardOf, SYSTEM_USERS, systemAddress, systemStub, userAddress } from "./accounts.ts";

export { claimRecord } from "../../durable/account/claims.ts";

/** The treasury shard that holds and pays the house's side of record `id`. */
export const treasuryAt = (id: number): string => systemAddress(SYSTEM_USERS.treasury, shardOf(id));
/** A user's account object, by name. */
export const userAt = userAddress;

type Hold = Omit<ReserveRequest, "owner" | "notice">;

function place(to: string) {
  const a = parseAddress(to);
  if (!a) throw new Error(`no account object named ${to}`);
  return a;
}

/** Holds `amount` for a D1 record in the object named `to` (hold `{forKind}:{forId}`, owner `d1`). */
export async function holdAt(env: Pick<Env, "USER">, to: string, hold: Hold): Promise<"reserved" | "exists" | "insufficient"> {
  const a = place(to);
  const request: ReserveRequest = { ...hold, owner: RECORD_OWNER };
  const answer = a.kind === "user" ? await accountStub(env, a.userId).accountReserve(a.userId, request) : await systemStub(env, a.userId, a.shard).systemReserve(a.userId, a.shard, request);
  return answer.result;
}

/** A hold a record needs: where, and what. */
export interface RecordHold {
  to: string;
  hold: Hold;
}

/**
 * The two moves: each hold in turn (the house's first, as the caller lists them), then `record`
 * (the record's D1 batch, which claims the holds' name). A hold that is not there throws
 * `short(hold)` after the holds made before it went back; a batch that fails gives every hold back
 * (`{hold}:refused`) and rethrows. A name already held (an id drawn twice) answers `try_again`.
 */
export async function holdThenRecord<T>(env: Pick<Env, "USER">, holds: readonly RecordHold[], short: (h: RecordHold) => Error | Promise<Error>, record: () => Promise<T>): Promise<T> {
  const made: RecordHold[] = [];
  const undo = () => Promise.all(made.map((h) => releaseRefused(env, h.to, `${h.hold.forKind}:${h.hold.forId}`)));
  for (const h of holds) {
    if (h.hold.amount <= 0n) continue;
    const result = await holdAt(env, h.to, h.hold);
    if (result === "reserved") {
      made.push(h);
      continue;
    }
    await undo();
    throw result === "insufficient" ? await short(h) : new ApiError("try_again", 503);
  }
  try {
    return await record();
  } catch (err) {
    await undo();
    throw err;
  }
}

/** Applies keyed legs in the object named `to` (each once by its key). */
export function applyAt(env: Pick<Env, "USER">, to: string, legs: AccountLeg[]): Promise<LegAnswer[]> {
  const a = place(to);
  return a.kind === "user" ? accountStub(env, a.userId).accountApply(a.userId, legs) : systemStub(env, a.userId, a.shard).systemApply(a.userId, a.shard, legs);
}

/** A record that was refused (or whose batch failed): what is left of its hold in `to` goes back, once. */
export async function releaseRefused(env: Pick<Env, "USER">, to: string, hold: string): Promise<void> {
  await applyAt(env, to, [{ key: `${hold}:refused`, ops: [{ t: "release", hold, amount: "rest" }] }]);
}

/** A leg owed to the object named `to`. */
export interface OwedLeg {
  to: string;
  leg: AccountLeg;
}

type StoredOp = { t: "credit"; account: string; currencyId: number; amount: string } | { t: "spend" | "release"; hold: string; amount: string };

const store = (op: AccountOp): StoredOp => ({ ...op, amount: op.amount.toString() }) as StoredOp;
const revive = (op: StoredOp): AccountOp =>
  op.t === "credit" ? { ...op, amount: BigInt(op.amount) } : op.t === "release" && op.amount === "rest" ? { ...op, t: "release", amount: "rest" } : { ...op, amount: BigInt(op.amount) };

/** The statement that owes `legs` (in the transition's batch: a second copy of a key aborts it); none when no leg has ops. */
export function owedLegs(db: D1Database, legs: readonly OwedLeg[], now: number): D1PreparedStatement[] {
  const rows = legs
    .filter((l) => l.leg.ops.length > 0)
    .map((l) => [l.leg.key, l.to, JSON.stringify({ key: l.leg.key, ops: l.leg.ops.map(store), ...(l.leg.notice ? { notice: l.leg.notice } : {}) })]);
  if (rows.length === 0) return [];
  return [db.prepare("INSERT INTO object_legs (key, to_object, leg, created_at) SELECT value ->> 0, value ->> 1, value ->> 2, ? FROM json_each(?)").bind(now, JSON.stringify(rows))];
}

/**
 * Sends owed legs that no object has answered yet (those of `keys`, or the oldest `limit` of all),
 * one call per object, and records each answer. A call that fails leaves its legs for the next
 * run; a refused leg is recorded (and logged for an operator): it is final for its key.
 */
export async function deliverOwed(env: Pick<Env, "DB" | "USER">, keys?: readonly string[], limit = 200): Promise<{ sent: number; refused: number; failed: number }> {
  if (keys && keys.length === 0) return { sent: 0, refused: 0, failed: 0 };
  const rows = keys
    ? (
        await env.DB.prepare(`SELECT key, to_object, leg FROM object_legs WHERE sent_at IS NULL AND key IN (SELECT value FROM json_each(?)) ORDER BY created_at, key`)
          .bind(JSON.stringify(keys))
          .all<{ key: string; to_object: string; leg: string }>()
      ).results
    : (await env.DB.prepare(`SELECT key, to_object, leg FROM object_legs WHERE sent_at IS NULL ORDER BY created_at, key LIMIT ?`).bind(limit).all<{ key: string; to_object: string; leg: string }>())
        .results;
  const byObject = new Map<string, AccountLeg[]>();
  for (const r of rows) {
    const stored = JSON.parse(r.leg) as { key: string; ops: StoredOp[]; notice?: AccountLeg["notice"] };
    const list = byObject.get(r.to_object) ?? [];
    list.push({ key: stored.key, ops: stored.ops.map(revive), ...(stored.notice ? { notice: stored.notice } : {}) });
    byObject.set(r.to_object, list);
  }
  let sent = 0;
  let refused = 0;
  let failed = 0;
  const now = Date.now();
  await Promise.all(
    [...byObject].map(async ([to, legs]) => {
      let answers: LegAnswer[];
      try {
        answers = await applyAt(env, to, legs);
      } catch (err) {
        failed += legs.length;
        console.error(JSON.stringify({ level: "warn", event: "object_legs_undelivered", to, keys: legs.map((l) => l.key), error: String(err).slice(0, 300) }));
        return;
      }
      for (const a of answers) {
        if (a.result === "refused") {
          refused += 1;
          console.error(JSON.stringify({ level: "error", event: "object_leg_refused", to, key: a.key, reason: a.reason }));
        } else sent += 1;
      }
      // Recording the answers may fail (D1 unreachable): the legs are then sent again and answer "seen".
      await env.DB.batch(
        answers.map((a) =>
          env.DB.prepare("UPDATE object_legs SET sent_at = ?, result = ? WHERE key = ? AND to_object = ? AND sent_at IS NULL").bind(now, a.result === "refused" ? `refused: ${a.reason}` : a.result, a.key, to),
        ),
      ).catch((err: unknown) => console.error(JSON.stringify({ level: "warn", event: "object_legs_unrecorded", to, error: String(err).slice(0, 300) })));
    }),
  );
  return { sent, refused, failed };
}

/** The keys of owed legs, for `deliverOwed` right after their batch. */
export const keysOf = (legs: readonly OwedLeg[]): string[] => [...new Set(legs.map((l) => l.leg.key))];
