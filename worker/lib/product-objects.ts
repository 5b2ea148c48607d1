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
 *    a set of legs keyed by the record and the day or round (one key, one receiver: the treasury's
 *    side ends in `:house`), written into `record_legs` in the same D1 batch as the transition
 *    (`recordLegsStatements`, worker/lib/record-legs.ts), so they exist exactly when the transition
 *    does. They are sent right after the batch (`deliverRecordLegs`) and again by the every-minute
 *    job until every object answered; each object applies a leg once by its key.
 *
 * D1's `balances` and `ledger` are not written by these products in objects mode: the objects drain
 * their movements into the read model (`account_movements`, `system_movements`).
 */
import type { AccountLeg, LegAnswer, ReserveAnswer, ReserveRequest } from "../../durable/account/types.ts";
import type { Op } from "../../durable/money/index.ts";
import { RECORD_OWNER } from "../../durable/account/claims.ts";
import { IdTaken } from "./ids.ts";
import { reserveOnTreasury } from "./treasury-refill.ts";
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
export async function holdAt(env: Pick<Env, "DB" | "USER">, to: string, hold: Hold): Promise<ReserveAnswer["result"]> {
  const a = place(to);
  const request: ReserveRequest = { ...hold, owner: RECORD_OWNER };
  // A treasury shard short of it is first refilled from its siblings (./treasury-refill.ts).
  const answer =
    a.kind === "user"
      ? await accountStub(env, a.userId).accountReserve(a.userId, request)
      : a.userId === SYSTEM_USERS.treasury
        ? await reserveOnTreasury(env, a.shard, request)
        : await systemStub(env, a.userId, a.shard).systemReserve(a.userId, a.shard, request);
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
 * (`{hold}:refused`) and rethrows. A name already held (an id drawn twice) throws IdTaken: run it inside `withNewId`,
 * whose `taken` is `takenOrClaimed(...)`, and the id is drawn again.
 */
export async function holdThenRecord<T>(env: Pick<Env, "DB" | "USER">, holds: readonly RecordHold[], short: (h: RecordHold) => Error | Promise<Error>, record: () => Promise<T>): Promise<T> {
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
    throw result === "insufficient" ? await short(h) : new IdTaken();
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

/** A taken id of a record whose hold it claims (`taken` of worker/lib/ids.ts, or the hold's claim already there): the id is drawn again. */
export const takenOrClaimed = (taken: RegExp): RegExp => new RegExp(`${taken.source}|UNIQUE constraint failed: object_hold_claims\\.hold\\b`);

function units(amount: bigint): number {
  const n = Number(amount);
  if (amount < 0n || !Number.isSafeInteger(n)) throw new Error(`leg amount ${amount} is not a safe integer of units`);
  return n;
}

/** A leg's ops in the money core's format (worker/lib/record-legs.ts sends them as any outbox does). */
export const credit = (account: string, currencyId: number, amount: bigint): Op => ({ t: "credit", kind: account, cur: String(currencyId), amt: units(amount) });
export const spend = (hold: string, currencyId: number, amount: bigint): Op => ({ t: "spend", hold, cur: String(currencyId), amt: units(amount) });
export const release = (hold: string, currencyId: number, amount: bigint): Op => ({ t: "release", hold, cur: String(currencyId), amt: units(amount) });

/** The treasury's side of a leg whose user side has `key` (one key names one receiver: record_legs). */
export const houseKey = (key: string): string => `${key}:house`;
