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
 *    `seconds:{id}:refused`, before it is answered. A refusal D1's path would have made after its
 *    hold batch (all but stale terms and a closed pair, which D1's batch itself refuses) then writes
 *    the contract's row, revoked (status 4), as D1's path leaves it: the one D1 statement of a
 *    submit, on refusals only (`recordRevoked`). One priced again (below) writes none.
 *
 * The pair's acceptance sends the fee from the user's hold to a fee shard (desks/seconds-objects.ts
 * `secondsOpenLegs`), so the user's frozen funds are the stake from then on, as on D1's path; the
 * desk settles with legs to both objects. A Worker that dies between a hold and
 * the pair's answer leaves the holds open: the orphan sweep of each object (durable/account/object.ts) asks the pair and releases them.
 * A client order id is recorded with the stake's hold in the user's object: a second submit with it
 * holds nothing and answers the first contract (`replayOnObjects`), even before D1 has its row.
 */
import type { SecondsOrder, SecondsSubmit } from "../../../schemas/seconds.ts";
import { acceptanceMoney, type SecondsDirection } from "../../../durable/engine/seconds.ts";
import { coverShard, HOUSE_KIND, SECONDS_HOLD, SECONDS_USER_KIND, secondsHold, secondsTermsKey } from "../../../durable/pair/desks/seconds-objects.ts";
import type { AcceptInput } from "../../../durable/pair/desks/seconds.ts";
import { accountsOnObjects, accountStub, SYSTEM_USERS, systemStub } from "../../lib/accounts.ts";
import { reserveOnTreasury } from "../../lib/treasury-refill.ts";
import { ApiError } from "../../lib/errors.ts";
import { IdTaken, withNewId } from "../../lib/ids.ts";
import { drainHoldingPairs, pairStub, type PairRow } from "../spot/pairs.ts";
import type { PayableRow } from "./config.ts";
import { acceptedOut, confirmedTicks, priceMovedError, refusalError, revokedOut, stakeOf, type Held, type SubmitSession } from "./contract.ts";
import { forgetTerms, termsOf, type Terms } from "./terms.ts";

const TREASURY = SYSTEM_USERS.treasury;

/** What a contract's client id keeps in the user's object: enough to answer a replay before D1 has the row. */
interface FirstContract {
  id: number;
  pairId: number;
  currencyId: number;
  type: SecondsDirection;
  seconds: number;
  ratioBps: number;
  stake: string;
  fee: string;
  hold: string;
  confirmed: number | null;
  createdAt: number;
}

/** Submits a contract on the account objects: cover, stake, then the pair (see above). */
export async function submitOnObjects(env: Env, userId: number, input: SecondsSubmit, now: number, session: SubmitSession): Promise<SecondsOrder> {
  // No freeze batch carries the session check here: confirm it first, before the house's cover is
  // held. In objects mode `confirm` asks the user's account object (durable/account/sessions.ts), not D1.
  await session.confirm?.();
  // The terms may be the isolate's memory (terms.ts). The pair refuses a contract priced on terms D1
  // no longer has (`stale_terms`: its holds go back, it is priced again on D1's, its client id passed
  // to the new hold); a refusal priced on remembered terms is priced again on D1's before it is
  // answered. So every answer is the one D1's terms give, as on D1's path.
  let replaces: string | undefined;
  for (let round = 0; ; round++) {
    const seen = { remembered: false };
    let r: Priced;
    try {
      r = await submitPriced(env, userId, input, now, await termsOf(env.DB, input, round > 0, now, seen), replaces);
    } catch (err) {
      if (err instanceof ApiError && seen.remembered && round === 0) continue;
      throw err;
    }
    if ("refused" in r) {
      // Priced again on D1's terms: the client id passes from the refused draw's hold (given back) to
      // the next one, or the next draw would answer as a replay of the refused one. That draw leaves
      // no row: only the answered refusal does, so a sequence leaves at most the one D1's path leaves.
      if (seen.remembered && round === 0) {
        replaces = r.hold;
        continue;
      }
      if (r.revoked) await recordRevoked(env, userId, r.revoked, input.client_oid ?? null, now);
      throw r.refused;
    }
    if (!("stale" in r)) return r;
    forgetTerms();
    if (round >= 2) throw new ApiError("try_again", 503);
    replaces = r.stale;
  }
}

/**
 * A pricing's outcome: the contract, or its refusal by the pair (`stale`: priced on terms D1 no
 * longer has), with the hold it had (given back) and, unless D1's path would have held nothing
 * (a closed pair), the contract to record as revoked.
 */
type Priced = SecondsOrder | { stale: string } | { refused: ApiError; hold: string; revoked?: FirstContract };

/** One pricing's contract: held, then accepted or refused by the pair. */
async function submitPriced(env: Env, userId: number, input: SecondsSubmit, now: number, terms: Terms, replaces: string | undefined): Promise<Priced> {
  const { pair, option, cur, raw } = terms;
  const confirmed = confirmedTicks(input, pair);
  const stake = stakeOf(input.number, cur);
  const money = acceptanceMoney(stake, option.ratioBps, cur.feeBps);
  const first = (id: number): FirstContract => ({
    id,
    pairId: pair.id,
    currencyId: cur.currencyId,
    type: input.type,
    seconds: option.seconds,
    ratioBps: option.ratioBps,
    stake: money.stake.toString(),
    fee: money.fee.toString(),
    hold: money.hold.toString(),
    confirmed,
    createdAt: now,
  });
  const key = secondsTermsKey({ seconds: option.seconds, ratioBps: option.ratioBps, currencyId: cur.currencyId, ...raw });
  const held = await holdBoth(env, userId, pair, cur, money.stake + money.fee, money.hold, now, input.client_oid, first, replaces);
  if ("replay" in held) return replayOnObjects(env, userId, input, pair, cur, held.replay);
  const c = first(held.id);
  const r = await pairStub(env, pair.id).acceptSeconds(acceptInput(userId, pair, cur, c, input.client_oid ?? null, key));
  if (r.ok) return acceptedOut(pair, cur, heldOf(c), r, now);
  await releaseBoth(env, userId, c.id, money.hold > 0n);
  if (r.code === "stale_terms") return { stale: secondsHold(c.id) };
  // D1's freeze batch finds a closed pair itself (TERMS_GUARD) and writes nothing; every other refusal
  // comes from the pair after D1's hold batch, which leaves the row revoked.
  const refused = { hold: secondsHold(c.id), ...(r.code === "pair_off" ? {} : { revoked: c }) };
  if (r.code === "price_moved") return { refused: priceMovedError(pair, confirmed, r.price), ...refused };
  return { refused: new ApiError(r.code === "tombstoned" ? "try_again" : refusalError[r.code], r.code === "tombstoned" ? 503 : 409), ...refused };
}

/**
 * A contract the pair refused, its holds given back: its D1 row as D1's path leaves a refunded one
 * (status 4, no entry, `settled_at` the refusal's time, the client id), which the lists and the
 * history read and a replay of its client id finds. Keyed by the contract's id: a replay, or a
 * second request at the same moment, adds nothing.
 */
async function recordRevoked(env: Env, userId: number, c: FirstContract, clientOid: string | null, at: number): Promise<void> {
  await env.DB.prepare(
    `INSERT INTO micro_orders (id, user_id, pair_id, currency_id, type, stake, fee, hold, seconds, profit_ratio_bps, status, client_oid, created_at, settled_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 4, ?, ?, ?) ON CONFLICT DO NOTHING`,
  )
    .bind(c.id, userId, c.pairId, c.currencyId, c.type, c.stake, c.fee, c.hold, c.seconds, c.ratioBps, clientOid, c.createdAt, at)
    .run();
}

/**
 * Before a read of one's own contracts in D1 (the running list, the history, one contract): the
 * pairs holding the user's open contracts drain first (spot/pairs.ts `drainHoldingPairs`, as the
 * lever lists do), so a contract shows the moment its submit answered, as on D1's path where the
 * row is written before the answer. One account-object call, and one call per such pair.
 */
export function drainOwnContracts(env: Env, userId: number): Promise<void> {
  return accountsOnObjects(env) ? drainHoldingPairs(env, userId, [SECONDS_HOLD]) : Promise.resolve();
}

const heldOf = (c: FirstContract): Held => ({
  id: c.id,
  type: c.type,
  money: { stake: BigInt(c.stake), fee: BigInt(c.fee), hold: BigInt(c.hold) },
  ratioBps: c.ratioBps,
  seconds: c.seconds,
  confirmed: c.confirmed,
});

function acceptInput(userId: number, pair: PairRow, cur: PayableRow, c: FirstContract, clientOid: string | null, terms?: string): AcceptInput {
  return {
    pairId: pair.id,
    orderId: c.id,
    userId,
    currencyId: cur.currencyId,
    currencyName: cur.name,
    currencyScale: cur.scale,
    type: c.type,
    stake: c.stake,
    fee: c.fee,
    hold: c.hold,
    ratioBps: c.ratioBps,
    seconds: c.seconds,
    pairExposure: cur.pairExposure.toString(),
    userExposure: cur.userExposure.toString(),
    ...(c.confirmed === null ? {} : { confirmedPrice: c.confirmed }),
    objects: { clientOid, createdAt: c.createdAt, ...(terms === undefined ? {} : { terms }) },
  };
}

/**
 * The client id names a contract this user's object already holds (a second submit inside the drain's
 * window, or at the same moment): that contract answers. Different terms are refused as D1's replay
 * refuses them. Its acceptance is asked again (the pair answers a known contract as accepted, and a
 * refused one is tombstoned there, so it can never be accepted after its holds went back): accepted,
 * it answers as at its submit; refused, it answers revoked (status 4), as D1's row of a refunded one.
 */
async function replayOnObjects(env: Env, userId: number, input: SecondsSubmit, pair: PairRow, cur: PayableRow, c: FirstContract): Promise<SecondsOrder> {
  const same = c.pairId === input.match_id && c.currencyId === input.currency_id && c.type === input.type && c.seconds === input.seconds && stakeOf(input.number, cur) === BigInt(c.stake);
  if (!same) throw new ApiError("duplicate_client_id", 409);
  const r = await pairStub(env, pair.id).acceptSeconds(acceptInput(userId, pair, cur, c, input.client_oid ?? null));
  if (r.ok) return acceptedOut(pair, cur, heldOf(c), r, r.createdAt);
  await releaseBoth(env, userId, c.id, BigInt(c.hold) > 0n);
  // Answered revoked: so it reads in D1 (the first request's row, if it wrote one, stays as it is).
  await recordRevoked(env, userId, c, input.client_oid ?? null, Date.now());
  return revokedOut(pair, cur, heldOf(c), c.createdAt);
}

/**
 * The cover in its treasury shard, then the stake and fee in the user's object (with the client id,
 * if any: one contract per client id); answers the contract's id, or the first contract of the client id.
 */
async function holdBoth(
  env: Env,
  userId: number,
  pair: PairRow,
  cur: PayableRow,
  userAmount: bigint,
  cover: bigint,
  now: number,
  clientOid: string | undefined,
  first: (id: number) => FirstContract,
  replaces?: string,
): Promise<{ id: number } | { replay: FirstContract }> {
  const owner = `pair:${pair.id}`;
  return withNewId(
    null,
    async (id): Promise<{ id: number } | { replay: FirstContract }> => {
      const request = { forKind: SECONDS_HOLD, forId: String(id), currencyId: cur.currencyId, owner };
      if (cover > 0n) {
        const shard = coverShard(id);
        const held = await reserveOnTreasury(env, shard, { ...request, account: HOUSE_KIND, amount: cover });
        if (held.result === "insufficient") throw new ApiError("house_cannot_cover", 409);
        // A hold of this id already there (the treasury shard sees every user's contracts): another contract of the same millisecond.
        if (held.result === "exists") throw new IdTaken();
      }
      // `replaces`: this client id's earlier draw, refused by the pair as priced on stale terms and given back: the id passes to this hold.
      const byClient = clientOid === undefined ? {} : { clientId: clientOid, terms: JSON.stringify(first(id)), ...(replaces === undefined ? {} : { replaces }) };
      // Refused by the account object (the maintenance switch): the cover goes back before the refusal is answered.
      let held: Awaited<ReturnType<ReturnType<typeof accountStub>["accountReserve"]>>;
      try {
        held = await accountStub(env, userId).accountReserve(userId, { ...request, account: SECONDS_USER_KIND, amount: userAmount, ...byClient });
      } catch (err) {
        await releaseCover(env, id, cover > 0n);
        throw err;
      }
      if (held.result === "reserved") return { id };
      await releaseCover(env, id, cover > 0n);
      if (held.result === "replay") return { replay: JSON.parse(held.terms) as FirstContract };
      if (held.result === "insufficient") throw new ApiError("insufficient_balance", 409);
      throw new IdTaken();
    },
    now,
  );
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
