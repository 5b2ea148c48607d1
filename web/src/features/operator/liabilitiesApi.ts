/**
 * Proof of liabilities in the console (issue #20 §2; /api/admin/transparency/liabilities/*): the
 * snapshot runs (status, step, statements, invocations, the totals checked, why one was not
 * published) and "take a snapshot now" (audited). Kept apart from api.ts like invitations.
 */
import type { LiabilityRun, LiabilityRunRequest } from "../../../../schemas/transparency.ts";
import { call, client } from "../../lib/api.ts";
import { pagesById, useCallMutation, usePagedQuery } from "../../lib/query.ts";

export type { LiabilityRun } from "../../../../schemas/transparency.ts";

const liabilities = client.api.admin.transparency.liabilities;
/** Under the console's root ("operator", api.ts). */
const KEY = ["operator", "liabilities"] as const;

export async function fetchLiabilityRuns(page: number, signal?: AbortSignal) {
  const p = await call((o) => liabilities.runs.$get({ query: { page: String(page) } }, o), { notify: false, signal });
  return { total: p.total, lists: p.data };
}
/** A snapshot may take the request's whole budget: give it longer than a read. */
export const takeSnapshot = (body: LiabilityRunRequest) => call((o) => liabilities.run.$post({ json: body }, o), { timeoutMs: 30_000 });

export const useLiabilityRuns = () => usePagedQuery({ queryKey: [...KEY, "runs"], fetchPage: fetchLiabilityRuns, view: pagesById<LiabilityRun> });
export const useTakeSnapshot = () => useCallMutation(takeSnapshot, [KEY]);
