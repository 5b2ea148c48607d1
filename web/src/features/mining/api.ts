/**
 * Mining plans' server state (issue #20 §1): the public plans (GET /api/mining/plans), a plan's
 * public payout history (GET /api/mining/payouts), one's holdings and payouts (GET /api/mining/my)
 * and buying shares. A purchase moves spot money, so it invalidates the balances every screen shares.
 */
import { call, client } from "../../lib/api.ts";
import { cachedFor, sharedKeys, useCallMutation, useScreenQuery } from "../../lib/query.ts";

export type { MiningCredit, MiningHolding, MiningMy, MiningPayout, MiningPlan } from "../../../../schemas/mining.ts";

const MINING = "mining";
/** Plans are the same for everyone; a few seconds old is fine. */
const PLANS_STALE_MS = 10_000;
/** The hourly cron pays holdings: look again now and then. */
const MY_REFRESH_MS = 60_000;

export const fetchPlans = (signal?: AbortSignal) => call((o) => client.api.mining.plans.$get({}, o), { notify: false, signal });
export const fetchPayouts = (planId: number, signal?: AbortSignal) =>
  call((o) => client.api.mining.payouts.$get({ query: { plan_id: String(planId), page: "1", limit: "100" } }, o), { notify: false, signal });
export const fetchMy = (signal?: AbortSignal) => call((o) => client.api.mining.my.$get({}, o), { notify: false, signal });
export const buyShares = (planId: number, shares: number) => call((o) => client.api.mining.buy.$post({ json: { plan_id: planId, shares } }, o));

export const usePlans = () => useScreenQuery({ queryKey: [MINING, "plans"], queryFn: ({ signal }) => fetchPlans(signal), ...cachedFor(PLANS_STALE_MS) });
export const usePayouts = (planId: number) => useScreenQuery({ queryKey: [MINING, "payouts", planId], queryFn: ({ signal }) => fetchPayouts(planId, signal), ...cachedFor(PLANS_STALE_MS) });
export const useMy = () => useScreenQuery({ queryKey: [MINING, "my"], queryFn: ({ signal }) => fetchMy(signal), refetchInterval: MY_REFRESH_MS });

export const useBuyShares = () => useCallMutation(buyShares, [[MINING], sharedKeys.balances]);
