/**
 * Listing votes' server state (issue #19 §3): the rounds with their public tallies and, when
 * logged in, one's own votes and hold (GET /api/vote/rounds); casting a vote (POST /api/vote/cast),
 * after which the rounds are read again.
 */
import { call, client } from "../../lib/api.ts";
import { useCallMutation, useScreenQuery } from "../../lib/query.ts";
import { useSession } from "../../lib/session.ts";

export type { VoteCandidate, VoteCastResult, VoteRound, VoteRoundPhase } from "../../../../schemas/vote.ts";

const VOTE = "vote";

export const fetchRounds = (signal?: AbortSignal) => call((o) => client.api.vote.rounds.$get({}, o), { notify: false, signal });

/** The rounds, per session (one's own votes differ by who asks); read again every 30 s for fresh tallies. */
export function useRounds() {
  const token = useSession().token;
  return useScreenQuery({ queryKey: [VOTE, "rounds", token], queryFn: ({ signal }) => fetchRounds(signal), refetchInterval: 30_000 });
}

export const castVote = (candidateId: number) => call((o) => client.api.vote.cast.$post({ json: { candidate_id: candidateId } }, o));

export const useCastVote = () => useCallMutation(castVote, [[VOTE]]);
