/**
 * Invitation rebates in the console (issue #18; /api/admin/invite/*): the level rates and agent
 * levels (an edit is audited and applies from the next Beijing day), the daily settlement runs,
 * and settling a given past day now (audited, idempotent). Kept apart from api.ts like support.
 */
import type { InviteRun, InviteRunRequest, InviteSettingsEdit } from "../../../../schemas/invite.ts";
import { call, client } from "../../lib/api.ts";
import { useCallMutation, usePagedQuery, useScreenQuery, type PageView } from "../../lib/query.ts";

export type { AdminInviteSettings, InviteRun, InviteSettings } from "../../../../schemas/invite.ts";

const invite = client.api.admin.invite;
/** Under the console's root ("operator", api.ts). */
const KEY = ["operator", "invite"] as const;

export const fetchInviteSettings = (signal?: AbortSignal) => call((o) => invite.settings.$get({}, o), { notify: false, signal });
export const saveInviteSettings = (body: InviteSettingsEdit) => call((o) => invite.settings.$post({ json: body }, o));
export async function fetchInviteRuns(page: number, signal?: AbortSignal) {
  const p = await call((o) => invite.runs.$get({ query: { page: String(page) } }, o), { notify: false, signal });
  return { total: p.total, lists: p.data };
}
/** A settlement can take several invocations' worth of statements: give it longer than a read. */
export const runInviteDay = (body: InviteRunRequest) => call((o) => invite.run.$post({ json: body }, o), { timeoutMs: 30_000 });

/** Runs are one per day: the day is the row's key. */
function runsByDay(pages: readonly { total: number; lists: InviteRun[] }[]): PageView<InviteRun> {
  const items: InviteRun[] = [];
  const seen = new Set<string>();
  let total = 0;
  pages.forEach((page, i) => {
    const fresh = page.lists.filter((r) => !seen.has(r.day));
    for (const r of fresh) seen.add(r.day);
    items.push(...fresh);
    total = i > 0 && fresh.length === 0 ? items.length : page.total;
  });
  return { items, total };
}

export const useInviteSettings = () => useScreenQuery({ queryKey: [...KEY, "settings"], queryFn: ({ signal }) => fetchInviteSettings(signal) });
export const useInviteRuns = () => usePagedQuery({ queryKey: [...KEY, "runs"], fetchPage: fetchInviteRuns, view: runsByDay });
export const useSaveInviteSettings = () => useCallMutation(saveInviteSettings, [KEY]);
export const useRunInviteDay = () => useCallMutation(runInviteDay, [KEY]);
