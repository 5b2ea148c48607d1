/**
 * Launches in the console (issue #19 §2; /api/admin/launch/*): every project with its drafts,
 * create a draft, publish it (the treasury reserves the supply), cancel it (every commitment
 * refunded in full). Each action carries a reason and is audited by the server.
 */
import type { LaunchProjectCreate } from "../../../../schemas/launch.ts";
import { call, client } from "../../lib/api.ts";
import { useCallMutation, useScreenQuery } from "../../lib/query.ts";

export type { LaunchProject } from "../../../../schemas/launch.ts";

const launch = client.api.admin.launch;
/** Under the console's root ("operator", api.ts). */
const KEY = ["operator", "launch"] as const;

export const fetchLaunchProjects = (signal?: AbortSignal) => call((o) => launch.projects.$get({}, o), { notify: false, signal });
const createLaunch = (body: Omit<LaunchProjectCreate, "vest_steps" | "listing_note"> & { vest_steps?: number; listing_note?: string }) =>
  call((o) => launch.projects.$post({ json: body }, o), { notify: false });
const publishLaunch = (id: number, reason: string) => call((o) => launch.publish.$post({ json: { id, reason } }, o));
const cancelLaunch = (id: number, reason: string) => call((o) => launch.cancel.$post({ json: { id, reason } }, o), { timeoutMs: 30_000 });

export const useLaunchProjects = () => useScreenQuery({ queryKey: [...KEY, "projects"], queryFn: ({ signal }) => fetchLaunchProjects(signal) });
export const useCreateLaunch = () => useCallMutation(createLaunch, [KEY]);
export const usePublishLaunch = () => useCallMutation(publishLaunch, [KEY]);
export const useCancelLaunch = () => useCallMutation(cancelLaunch, [KEY]);
