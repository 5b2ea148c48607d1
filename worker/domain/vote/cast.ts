/**
 * Casting a vote (POST /api/vote/cast). One verified account = one vote per candidate per round,
 * and one hold per voter per round: the first vote of a round freezes the round's published
 * minimum in the voter's own spot account (movement `vote:hold:{round}:{user}`), in the same D1
 * batch as the hold row, the ballot and the notification; later votes in the round add a ballot
 * only. The database decides every race: the movement key (one hold), the ballots' UNIQUE key
 * (one vote per candidate), and the triggers of migrations/0028_vote.sql (the round open, the
 * voter verified, the ballot backed by an open hold). No fee is charged and nothing is bought.
 *
 * With balances in the account objects (`ACCOUNTS=objects`; worker/lib/product-objects.ts) the
 * first vote holds the minimum in the voter's object first (hold `vote:{round}:{user}`, one per
 * voter and round: a parallel first vote finds it there and casts a ballot only), then the same
 * batch without the movement, claiming the hold; a refused batch gives the hold back.
 */
import type { VoteCastResult } from "../../../schemas/vote.ts";
import { formatUnitsTrim } from "../../../schemas/money.ts";
import { money } from "../notifications/events.ts";
import { ApiError } from "../../lib/errors.ts";
import { classifyBatchError, movementStatements } from "../../lib/ledger.ts";
import { accountsOnObjects } from "../../lib/accounts.ts";
import { claimRecord, holdAt, releaseRefused, userAt } from "../../lib/product-objects.ts";
import { announceNotifications, notificationStatement } from "../notifications/inbox.ts";
import { phaseOf, roundView, type RoundRow } from "./rounds.ts";

/** The movement key of a voter's hold for a round (and, with `release`, of its release). */
export const holdKey = (roundId: number, userId: number) => `vote:hold:${roundId}:${userId}`;
/** The voter's hold of a round in their account object (objects mode). */
export const objectHold = (roundId: number, userId: number) => `vote:${roundId}:${userId}`;

/** Turns a refused vote batch into its translated error; anything unexpected is rethrown. */
function refusal(err: unknown): ApiError {
  const msg = String((err as Error)?.message ?? err);
  if (msg.includes("vote_round_not_open")) return new ApiError("vote_round_not_open", 409);
  if (msg.includes("vote_not_eligible")) return new ApiError("vote_not_eligible", 403);
  if (msg.includes("vote_no_hold")) return new ApiError("vote_no_hold", 409);
  if (/UNIQUE constraint failed: vote_ballots/i.test(msg)) return new ApiError("vote_already_cast", 409);
  if (classifyBatchError(err) === "insufficient") return new ApiError("insufficient_balance", 409);
  throw err;
}

const ballotStatement = (db: D1Database, round: RoundRow, candidateId: number, userId: number, now: number) =>
  db.prepare("INSERT INTO vote_ballots (round_id, candidate_id, user_id, created_at) VALUES (?, ?, ?, ?)").bind(round.id, candidateId, userId, now);

export async function castVote(env: Pick<Env, "DB" | "USER"> & { ACCOUNTS?: string }, userId: number, candidateId: number, now = Date.now()): Promise<VoteCastResult> {
  const db = env.DB;
  const round = await db
    .prepare(
      `SELECT r.id, r.title, r.currency_id, cur.name AS currency, cur.scale, r.min_units, r.starts_at, r.ends_at, r.status
         FROM vote_candidates c JOIN vote_rounds r ON r.id = c.round_id JOIN currencies cur ON cur.id = r.currency_id
        WHERE c.id = ?`,
    )
    .bind(candidateId)
    .first<RoundRow>();
  if (!round) throw new ApiError("not_found", 404);
  if (phaseOf(round, now) !== "voting") throw new ApiError("vote_round_not_open", 409);
  const [voted, hold] = await db.batch([
    db.prepare("SELECT 1 AS x FROM vote_ballots WHERE candidate_id = ? AND user_id = ?").bind(candidateId, userId),
    db.prepare("SELECT 1 AS x FROM vote_holds WHERE round_id = ? AND user_id = ?").bind(round.id, userId),
  ]);
  if ((voted!.results ?? []).length > 0) throw new ApiError("vote_already_cast", 409);

  const units = BigInt(round.min_units);
  const objects = accountsOnObjects(env);
  let heldNow = 0n;
  if ((hold!.results ?? []).length === 0) {
    const key = holdKey(round.id, userId);
    const stmts = [
      ...(objects
        ? [claimRecord(db, objectHold(round.id, userId), now)]
        : movementStatements(db, key, "vote_hold", [{ userId, currencyId: round.currency_id, account: "change", dAvailable: -units, dFrozen: units, memo: `vote round ${round.id}` }], now)),
      db.prepare("INSERT INTO vote_holds (round_id, user_id, currency_id, units, created_at) VALUES (?, ?, ?, ?, ?)").bind(round.id, userId, round.currency_id, units.toString(), now),
      ballotStatement(db, round, candidateId, userId, now),
      notificationStatement(db, {
        userId,
        kind: "vote_held",
        key,
        params: { round: round.id, title: round.title, amount: money(units, round.scale), currency: round.currency },
        link: "/vote",
        now,
      }),
    ];
    // Objects mode: the hold in the voter's object first; one already there is a parallel first vote's (a ballot only here).
    const held = objects ? await holdAt(env, userAt(userId), { forKind: "vote", forId: `${round.id}:${userId}`, account: "change", currencyId: round.currency_id, amount: units }) : null;
    if (held === "insufficient") throw new ApiError("insufficient_balance", 409);
    try {
      if (held !== "exists") {
        await db.batch(stmts);
        heldNow = units;
      }
    } catch (err) {
      if (held === "reserved") await releaseRefused(env, userAt(userId), objectHold(round.id, userId));
      // A parallel first vote of this voter in this round took the hold: this one is a ballot only.
      if (classifyBatchError(err) !== "duplicate") throw refusal(err);
    }
  }
  if (heldNow === 0n) {
    try {
      await ballotStatement(db, round, candidateId, userId, now).run();
    } catch (err) {
      throw refusal(err);
    }
  } else {
    await announceNotifications(env, [userId]);
  }
  return { round: await roundView(db, round.id, userId, now), held_now: formatUnitsTrim(heldNow, round.scale) };
}
