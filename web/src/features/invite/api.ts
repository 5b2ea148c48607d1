/**
 * Invitations' server state (issue #18 §3): one's code, link, rates and agent level (GET
 * /api/invite/info), one's team by invite level (GET /api/invite/team) and the rebates paid to
 * one (GET /api/invite/rebates), all per user; and the published terms (GET /api/invite/terms),
 * the same for everyone. Nothing here changes anything: invitations are bound at registration
 * and rebates are paid by the daily settlement.
 */
import type { InviteLevel, InviteRebate, InviteTeamMember } from "../../../../schemas/invite.ts";
import { call, client } from "../../lib/api.ts";
import { cachedFor, usePagedQuery, useScreenQuery } from "../../lib/query.ts";
import { pagesInOrder } from "./display.ts";

export type { InviteInfo, InviteLevel, InviteProduct, InviteRebate, InviteTeamMember, InviteTerms, InviteeStatus } from "../../../../schemas/invite.ts";

const INVITE = "invite";
export const PAGE_SIZE = 20;
/** The terms change at most once a day (from the next Beijing day): a minute is fresh enough. */
const TERMS_STALE_MS = 60_000;

export const fetchInfo = (signal?: AbortSignal) => call((o) => client.api.invite.info.$get({}, o), { notify: false, signal });
export const fetchTerms = (signal?: AbortSignal) => call((o) => client.api.invite.terms.$get({}, o), { notify: false, signal });

export async function fetchTeamPage(level: InviteLevel, page: number, signal?: AbortSignal) {
  const p = await call((o) => client.api.invite.team.$get({ query: { page: String(page), limit: String(PAGE_SIZE), level: String(level) } }, o), { notify: false, signal });
  return { total: p.total, lists: p.data };
}

export async function fetchRebatesPage(page: number, signal?: AbortSignal) {
  const p = await call((o) => client.api.invite.rebates.$get({ query: { page: String(page), limit: String(PAGE_SIZE) } }, o), { notify: false, signal });
  return { total: p.total, lists: p.data };
}

export const useInviteInfo = () => useScreenQuery({ queryKey: [INVITE, "info"], queryFn: ({ signal }) => fetchInfo(signal) });

export const useInviteTerms = () => useScreenQuery({ queryKey: [INVITE, "terms"], queryFn: ({ signal }) => fetchTerms(signal), ...cachedFor(TERMS_STALE_MS) });

export const useTeam = (level: InviteLevel) =>
  usePagedQuery({ queryKey: [INVITE, "team", level], fetchPage: (page, signal) => fetchTeamPage(level, page, signal), view: pagesInOrder<InviteTeamMember> });

export const useRebates = () => usePagedQuery({ queryKey: [INVITE, "rebates"], fetchPage: fetchRebatesPage, view: pagesInOrder<InviteRebate> });
