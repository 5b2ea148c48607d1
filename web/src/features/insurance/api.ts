/**
 * Contract-asset cover's server state (issue #19 §4): the public plans with their running totals
 * (GET /api/insurance/plans), one's covers (GET /api/insurance/my), buying and claiming. A purchase
 * moves spot money (the premium) and a paid claim moves seconds money, so both invalidate the
 * balances every screen shares.
 */
import { call, client } from "../../lib/api.ts";
import { cachedFor, sharedKeys, useCallMutation, useScreenQuery } from "../../lib/query.ts";

export type { InsuranceCover, InsurancePlan, InsurancePlans, InsuranceStatus } from "../../../../schemas/insurance.ts";

const INSURANCE = "insurance";
/** Plans and totals are the same for everyone; a few seconds old is fine. */
const PLANS_STALE_MS = 10_000;
/** One's covers: a queued claim is paid and an end is noticed by the cron, so look again now and then. */
const MY_REFRESH_MS = 30_000;

export const fetchPlans = (signal?: AbortSignal) => call((o) => client.api.insurance.plans.$get({}, o), { notify: false, signal });
export const fetchMy = (signal?: AbortSignal) => call((o) => client.api.insurance.my.$get({ query: { page: "1", limit: "50" } }, o), { notify: false, signal });
export const buyCover = (planId: number, amount: string) => call((o) => client.api.insurance.buy.$post({ json: { plan_id: planId, amount } }, o));
export const claimCover = (id: number) => call((o) => client.api.insurance.claim.$post({ json: { id } }, o));

export const usePlans = () => useScreenQuery({ queryKey: [INSURANCE, "plans"], queryFn: ({ signal }) => fetchPlans(signal), ...cachedFor(PLANS_STALE_MS) });
export const useMyCovers = () => useScreenQuery({ queryKey: [INSURANCE, "my"], queryFn: ({ signal }) => fetchMy(signal), refetchInterval: MY_REFRESH_MS });

const changed = [[INSURANCE], sharedKeys.balances] as const;
export const useBuyCover = () => useCallMutation(buyCover, changed);
export const useClaimCover = () => useCallMutation(claimCover, changed);
