/**
 * Launch subscriptions' server state (issue #19 §2): the published projects (GET
 * /api/launch/projects, with one's own commitment when logged in), one's subscriptions (GET
 * /api/launch/my), and the two actions that move money: commit (POST /api/launch/commit, escrowed
 * in one's spot account) and claim (POST /api/launch/claim, what has vested).
 */
import type { LaunchCommitInput } from "../../../../schemas/launch.ts";
import { call, client } from "../../lib/api.ts";
import { sharedKeys, useCallMutation, useScreenQuery } from "../../lib/query.ts";

export type { LaunchProject, LaunchSubscription } from "../../../../schemas/launch.ts";

const KEY = ["launch"] as const;
const keys = { projects: [...KEY, "projects"] as const, my: [...KEY, "my"] as const };

export const fetchProjects = (signal?: AbortSignal) => call((o) => client.api.launch.projects.$get({}, o), { notify: false, signal });
export const fetchMine = (signal?: AbortSignal) => call((o) => client.api.launch.my.$get({}, o), { notify: false, signal });
const commit = (body: { project_id: number; currency_id: number; amount: string }) => call((o) => client.api.launch.commit.$post({ json: body satisfies LaunchCommitInput }, o), { notify: false });
const claim = (id: number) => call((o) => client.api.launch.claim.$post({ json: { id } }, o));

export const useProjects = () => useScreenQuery({ queryKey: keys.projects, queryFn: ({ signal }) => fetchProjects(signal), refetchInterval: 30_000 });
export const useMine = () => useScreenQuery({ queryKey: keys.my, queryFn: ({ signal }) => fetchMine(signal), refetchInterval: 60_000 });
export const useCommit = () => useCallMutation(commit, [KEY, sharedKeys.balances]);
export const useClaim = () => useCallMutation(claim, [KEY, sharedKeys.balances]);
