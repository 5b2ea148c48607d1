/**
 * Seconds contracts with balances in the account objects (issue #28, `ACCOUNTS=objects`).
 *
 * Before the desk sees a contract, the Worker (worker/domain/seconds/objects.ts) made two holds of
 * the same name `seconds:{id}`: the house's cover (the most a win pays) in treasury shard
 * `coverShard(id)`, and the stake plus the fee in the user's `micro` account. The desk accepts as
 * today; its D1 row is inserted by the drain (nothing wrote it before). In the acceptance's own
 * transaction the open fee leaves the user's hold for fee shard `coverShard(id)` (`secondsOpenLegs`,
 * event `seconds:{id}:open`), so the user's frozen funds are the stake alone from then on, as D1's
 * `micro_open` leaves them; the contract records it (`fee_paid`). At settlement, every
 * contract of a settled chunk (the desk settles up to 250 per transaction) becomes ops, grouped into
 * ONE leg per account: the user's (`spend` a lost stake, `release` the rest, `credit` a
 * win), the treasury shard's (`spend` the win, `release` the rest of the cover, `credit` a lost
 * stake). A contract accepted before the fee moved at the acceptance (`fee_paid` 0: its hold still
 * holds the fee) settles as it always did: the user's leg spends the fee too, and the fee shard's
 * leg credits it. The legs are committed in the chunk's own
 * transaction (with status 2 and the D1 outbox entries) and delivered by the pair's outbox of legs
 * (durable/pair/legs.ts) at least once; each account applies each leg once by its key
 * `seconds:{pair}:{second}:{first contract id}:{account}` (a contract is settled by one chunk only,
 * so its first id names the chunk for ever). 10,000 contracts due in one second are 40 chunks: at
 * most 40 legs per treasury or fee shard, however many users; each chunk's legs leave as soon as it
 * is committed, and each account has at most one call out at a time (durable/pair/legs.ts).
 */
import type { Leg, Op } from "../../money/index.ts";
import { shardOf, systemAddress, SYSTEM_USERS, userAddress } from "../../account/address.ts";

/** The hold's kind in both objects; the hold is `seconds:{id}` in each. */
export const SECONDS_HOLD = "seconds";
export const secondsHold = (orderId: number) => `${SECONDS_HOLD}:${orderId}`;
/** The user's account a contract stakes from (D1's micro account). */
export const SECONDS_USER_KIND = "micro";
/** The house's account in the treasury and fee shards (D1's HOUSE_ACCOUNT). */
export const HOUSE_KIND = "change";

/**
 * The terms a contract is priced on, as one string the pair compares (`ACCOUNTS=objects`: no D1
 * statement guards them on the way, as TERMS_GUARD does on D1's path): its duration option
 * (offered, ratio) and its payable currency (payable, fee, bounds, exposure limits), with the values
 * as D1's rows hold them; "off" when the option is withdrawn or the currency not payable.
 */
export interface SecondsTerms {
  seconds: number;
  ratioBps: number;
  currencyId: number;
  feeBps: number;
  min: string;
  max: string;
  pairExposure: string;
  userExposure: string;
}
export function secondsTermsKey(t: SecondsTerms | null): string {
  return t ? JSON.stringify([t.seconds, t.ratioBps, t.currencyId, t.feeBps, t.min, t.max, t.pairExposure, t.userExposure].map(String)) : "off";
}
/** The same terms as D1 has them now (the pair reads them when it was not told: `secondsTermsNow`). */
export const SECONDS_TERMS_SQL = `SELECT o.seconds, o.profit_ratio_bps AS ratioBps, m.currency_id AS currencyId, m.fee_bps AS feeBps, m.min_number AS min,
    m.max_number AS max, m.pair_exposure AS pairExposure, m.user_exposure AS userExposure
  FROM seconds_options o, micro_currencies m WHERE o.seconds = ? AND o.status = 1 AND m.currency_id = ? AND m.status = 1`;

/** The treasury shard holding a contract's cover, and the fee shard its fee goes to (spread by contract id). */
export const coverShard = (orderId: number) => shardOf(orderId);

/** The legs' outbox the desk commits into (PairLegs, durable/pair/legs.ts). */
export interface SecondsLegsOutbox {
  commitInside(key: string, legs: Leg[]): void;
  deliver(): Promise<unknown>;
  /** A delivery nobody waits for (its failure logged; the scheduler's `legs` row delivers again). */
  deliverInBackground(): void;
}

/** One settled contract's money (minimal units; result + win / − stake / 0 never happens: a tie is a loss or a win by direction). */
export interface SettledMoney {
  orderId: number;
  userId: number;
  currencyId: number;
  stake: bigint;
  fee: bigint;
  hold: bigint;
  result: bigint;
  /** The open fee left the user's hold at the acceptance (`secondsOpenLegs`); false: it is still there, the settle takes it. */
  feePaid: boolean;
}

const num = (n: bigint, what: string): number => {
  if (n < 0n || n > BigInt(Number.MAX_SAFE_INTEGER)) throw new RangeError(`${what} out of range: ${n}`);
  return Number(n);
};

/** The event key of a contract's acceptance on the objects (its open fee's legs). */
export const secondsOpenKey = (orderId: number) => `seconds:${orderId}:open`;

/**
 * A contract's open fee at its acceptance, as D1's `micro_open` books it: the user's hold spends
 * it, fee shard `coverShard(id)` (the one the settle used) gets it; keyed `seconds:{id}:open:{account}`.
 * None for a contract without a fee.
 */
export function secondsOpenLegs(c: { orderId: number; userId: number; currencyId: number; fee: bigint }): Leg[] {
  if (c.fee === 0n) return [];
  const cur = String(c.currencyId);
  const key = secondsOpenKey(c.orderId);
  const fees = systemAddress(SYSTEM_USERS.fees, coverShard(c.orderId));
  return [
    { key: `${key}:${userAddress(c.userId)}`, to: userAddress(c.userId), ops: [{ t: "spend", hold: secondsHold(c.orderId), cur, amt: num(c.fee, "open fee") }] },
    { key: `${key}:${fees}`, to: fees, ops: [{ t: "credit", kind: HOUSE_KIND, cur, amt: num(c.fee, "open fee") }] },
  ];
}

/** One contract's ops per account (zero amounts left out). */
export function contractOps(c: SettledMoney): { to: string; ops: Op[] }[] {
  const cur = String(c.currencyId);
  const hold = secondsHold(c.orderId);
  const won = c.result > 0n ? c.result : 0n;
  const lost = c.result < 0n ? -c.result : 0n;
  const shard = coverShard(c.orderId);
  // The fee this settle takes: none when the acceptance took it already.
  const fee = c.feePaid ? 0n : c.fee;
  const keep = (ops: Op[]) => ops.filter((op) => op.amt > 0);
  return [
    {
      to: userAddress(c.userId),
      ops: keep([
        { t: "spend", hold, cur, amt: num(fee + lost, "fee and lost stake") },
        { t: "release", hold, cur, amt: num(c.stake - lost, "stake back") },
        { t: "credit", kind: SECONDS_USER_KIND, cur, amt: num(won, "win") },
      ]),
    },
    {
      to: systemAddress(SYSTEM_USERS.treasury, shard),
      ops: keep([
        { t: "spend", hold, cur, amt: num(won, "win paid") },
        { t: "release", hold, cur, amt: num(c.hold - won, "cover back") },
        { t: "credit", kind: HOUSE_KIND, cur, amt: num(lost, "lost stake") },
      ]),
    },
    { to: systemAddress(SYSTEM_USERS.fees, shard), ops: keep([{ t: "credit", kind: HOUSE_KIND, cur, amt: num(fee, "fee") }]) },
  ].filter((l) => l.ops.length > 0);
}

/** The event key of one settled chunk: its pair, its second and its first contract. */
export const settleEventKey = (pairId: number, at: number, firstOrderId: number) => `seconds:${pairId}:${Math.floor(at / 1000)}:${firstOrderId}`;

/**
 * Every contract of a settled chunk as one leg per account, keyed `{event}:{account}` (a user's
 * followed by the first of their contracts in the chunk, which their statement line names): each
 * contract's spend and release of its own hold, in the contracts' order, then ONE credit per
 * account kind and currency with the chunk's sum (the wins of a user, the lost stakes of a treasury
 * shard, the fees of a fee shard): a fee shard applies one op per chunk, not one per contract.
 */
export function settleChunkLegs(eventKey: string, settled: readonly SettledMoney[]): Leg[] {
  const byAccount = new Map<string, { first: number; ops: Op[]; credits: Map<string, Op & { t: "credit" }> }>();
  for (const c of settled)
    for (const { to, ops } of contractOps(c)) {
      let acc = byAccount.get(to);
      if (!acc) byAccount.set(to, (acc = { first: c.orderId, ops: [], credits: new Map() }));
      for (const op of ops) {
        if (op.t !== "credit") {
          acc.ops.push(op);
          continue;
        }
        const k = `${op.kind}\u0000${op.cur}`;
        const sum = acc.credits.get(k);
        if (!sum) acc.credits.set(k, { ...op });
        else sum.amt = num(BigInt(sum.amt) + BigInt(op.amt), "credits of a chunk");
      }
    }
  // A user's leg names the first of their contracts it settles (`…:user:{id}:{contract}`): the statement's line refers to it.
  return [...byAccount].map(([to, { first, ops, credits }]) => ({ key: to.startsWith("user:") ? `${eventKey}:${to}:${first}` : `${eventKey}:${to}`, to, ops: [...ops, ...credits.values()] }));
}

/**
 * A contract's D1 row when the drain inserts it (no one wrote it before): [id, userId, pairId,
 * currencyId, type, stake, fee, hold, seconds, ratio bps, client order id, created at, fee held].
 * `fee held` (migrations/0056): 0 when the acceptance took the open fee from the hold; absent in a
 * row the desk wrote before (its hold keeps the fee until the settle): 1.
 */
export type ObjectsContractRow = [number, number, number, number, number, string, string, string, number, number, string | null, number, (0 | 1)?];

/**
 * The drain's insert of contracts accepted on the account objects: one statement, each row as the
 * D1 path's hold batch writes it, status 0 (the same batch's acceptance update then moves it to 1,
 * and a settlement in the same batch to 3). A copy already there is left alone (a re-sent batch).
 */
export function objectsContractsStatement(db: D1Database, rows: ObjectsContractRow[]): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO micro_orders (id, user_id, pair_id, currency_id, type, stake, fee, hold, seconds, profit_ratio_bps, status, client_oid, created_at, fee_held)
       SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4, value ->> 5, value ->> 6, value ->> 7, value ->> 8, value ->> 9, 0, value ->> 10, value ->> 11,
         COALESCE(value ->> 12, 1)
       FROM json_each(?) WHERE true ORDER BY key ON CONFLICT DO NOTHING`,
    )
    .bind(JSON.stringify(rows));
}
