/** The console's listing-vote rounds (GET/POST /api/admin/vote/rounds, close, cancel; schemas/vote.ts). */
import type { z } from "zod";
import type { voteRoundCreateSchema } from "../../../../schemas/vote.ts";
import { call, client } from "../../lib/api.ts";
import { useCallMutation, useScreenQuery } from "../../lib/query.ts";

export type { VoteRound } from "../../../../schemas/vote.ts";
export type VoteRoundInput = z.input<typeof voteRoundCreateSchema>;

const rounds = client.api.admin.vote.rounds;
const KEY = ["operator", "vote"] as const;

export const fetchVoteRounds = (signal?: AbortSignal) => call((o) => rounds.$get({}, o), { notify: false, signal });
export const createVoteRound = (body: VoteRoundInput) => call((o) => rounds.$post({ json: body }, o));
export const endVoteRound = (id: number, action: "close" | "cancel", reason: string) =>
  call((o) => (action === "close" ? rounds[":id"].close : rounds[":id"].cancel).$post({ param: { id: String(id) }, json: { reason } }, o));

export const useVoteRounds = () => useScreenQuery({ queryKey: [...KEY], queryFn: ({ signal }) => fetchVoteRounds(signal) });
export const useCreateVoteRound = () => useCallMutation(createVoteRound, [KEY]);
export const useEndVoteRound = () => useCallMutation(endVoteRound, [KEY]);
