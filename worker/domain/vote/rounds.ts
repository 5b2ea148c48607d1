/**
 * Reading rounds (public): each round with its candidates, the tally per candidate (one vote per
 * account per candidate), the number of accounts that voted, and, for a logged-in reader, their
 * own votes and hold. Tallies are counted from the ballots themselves, so they cannot drift.
 */
import type { VoteRound, VoteRoundPhase } from "../../../schemas/vote.ts";
import { formatUnitsTrim } from "../../../schemas/money.ts";
import { ApiError } from "../../lib/errors.ts";

/** How many rounds a list shows: every round not over, then the most recent ones that are. */
const LIST_LIMIT = 20;

export interface RoundRow {
  id: number;
  title: string;
  currency_id: number;
  currency: string;
  scale: number;
  min_units: number;
  starts_at: number;
  ends_at: number;
  status: "open" | "closed" | "cancelled";
}

const ROUND_SELECT = `SELECT r.id, r.title, r.currency_id, c.name AS currency, c.scale, r.min_units, r.starts_at, r.ends_at, r.status
  FROM vote_rounds r JOIN currencies c ON c.id = r.currency_id`;

export function phaseOf(r: Pick<RoundRow, "status" | "starts_at" | "ends_at">, now: number): VoteRoundPhase {
  if (r.status === "closed") return "closed";
  if (r.status === "cancelled") return "cancelled";
  if (now < r.starts_at) return "upcoming";
  return now < r.ends_at ? "voting" : "ended";
}

/** One round's row, or not_found. */
export async function roundRow(db: D1Database, roundId: number): Promise<RoundRow> {
  const r = await db.prepare(`${ROUND_SELECT} WHERE r.id = ?`).bind(roundId).first<RoundRow>();
  if (!r) throw new ApiError("not_found", 404);
  return r;
}

/** The rounds to show (or just `onlyId`), as the API answers them, with `userId`'s own part when given. */
export async function listRounds(db: D1Database, userId: number | null, now = Date.now(), onlyId?: number): Promise<VoteRound[]> {
  const rounds = onlyId !== undefined
    ? (await db.prepare(`${ROUND_SELECT} WHERE r.id = ?`).bind(onlyId).all<RoundRow>()).results
    : (
        await db
          .prepare(
            `${ROUND_SELECT}
              ORDER BY (r.status = 'open' AND r.ends_at > ?1) DESC, CASE WHEN r.status = 'open' AND r.ends_at > ?1 THEN r.ends_at END ASC, r.ends_at DESC, r.id DESC
              LIMIT ${LIST_LIMIT}`,
          )
          .bind(now)
          .all<RoundRow>()
      ).results;
  if (rounds.length === 0) return [];
  const ids = JSON.stringify(rounds.map((r) => r.id));
  const [candidates, voters, mineBallots, mineHolds] = await db.batch([
    db.prepare(
      `SELECT c.id, c.round_id, c.name, c.symbol, c.description, c.link, (SELECT count(*) FROM vote_ballots b WHERE b.candidate_id = c.id) AS votes
         FROM vote_candidates c WHERE c.round_id IN (SELECT value FROM json_each(?)) ORDER BY c.round_id, c.position`,
    ).bind(ids),
    db.prepare("SELECT round_id, count(*) AS n FROM vote_holds WHERE round_id IN (SELECT value FROM json_each(?)) GROUP BY round_id").bind(ids),
    db.prepare("SELECT round_id, candidate_id FROM vote_ballots WHERE user_id = ? AND round_id IN (SELECT value FROM json_each(?)) ORDER BY id").bind(userId ?? 0, ids),
    db.prepare("SELECT round_id, CAST(units AS TEXT) AS units, released_at FROM vote_holds WHERE user_id = ? AND round_id IN (SELECT value FROM json_each(?))").bind(userId ?? 0, ids),
  ]);
  type Cand = { id: number; round_id: number; name: string; symbol: string; description: string; link: string; votes: number };
  const cands = (candidates!.results ?? []) as Cand[];
  const voterCount = new Map(((voters!.results ?? []) as { round_id: number; n: number }[]).map((v) => [v.round_id, v.n]));
  const ballots = (mineBallots!.results ?? []) as { round_id: number; candidate_id: number }[];
  const holds = new Map(((mineHolds!.results ?? []) as { round_id: number; units: string; released_at: number | null }[]).map((h) => [h.round_id, h]));
  return rounds.map((r): VoteRound => {
    const list = cands.filter((c) => c.round_id === r.id).map((c) => ({ id: c.id, name: c.name, symbol: c.symbol, description: c.description, link: c.link, votes: c.votes }));
    const hold = holds.get(r.id);
    return {
      id: r.id,
      title: r.title,
      phase: phaseOf(r, now),
      currency_id: r.currency_id,
      currency: r.currency,
      min_balance: formatUnitsTrim(BigInt(r.min_units), r.scale),
      starts_at: r.starts_at,
      ends_at: r.ends_at,
      voters: voterCount.get(r.id) ?? 0,
      votes: list.reduce((n, c) => n + c.votes, 0),
      candidates: list,
      mine:
        userId === null
          ? null
          : {
              candidate_ids: ballots.filter((b) => b.round_id === r.id).map((b) => b.candidate_id),
              held: hold ? formatUnitsTrim(BigInt(hold.units), r.scale) : "0",
              released: hold ? hold.released_at !== null : false,
            },
    };
  });
}

/** One round as the API answers it. */
export async function roundView(db: D1Database, roundId: number, userId: number | null, now = Date.now()): Promise<VoteRound> {
  const [r] = await listRounds(db, userId, now, roundId);
  if (!r) throw new ApiError("not_found", 404);
  return r;
}
